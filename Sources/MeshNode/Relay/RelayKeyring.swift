import Foundation
import MeshWire

/// The relay node's long-term identity and its contacts' public keys (RELAY-R1, RELAY-W5).
///
/// Settings (`NodeConfig.dialectSettings`):
/// - `privateKey`: 64 hex digits, the X25519 private key. The node id is then derived from it
///   (RELAY-W6) and `NodeConfig.address` is not used as the id.
/// - `contact.<UUID>`: 64 hex digits, the X25519 public key of the node with that id (the
///   out-of-band QR exchange of relay.md section 2.6).
///
/// Without `privateKey` the node runs with *simulation keys*: its private key is derived from
/// its address (`RelaySimulationKeys`), its id is its configured address, and any peer without
/// a `contact.` entry is assumed to use simulation keys too. This lets the simulator build
/// thousands of nodes with no key exchange; it departs from RELAY-W6's id derivation, which
/// only a node configured with `privateKey` follows.
struct RelayKeyring {
    /// The X25519 private key; its public key is not kept, no rule of the node reads it.
    let privateKey: [UInt8]
    let nodeID: UUID
    let simulated: Bool
    private var contacts: [UUID: [UInt8]]
    /// Session keys already derived, bounded: cleared when full.
    private var sessions: [UUID: SessionKey] = [:]
    private static let sessionCacheLimit = 256

    init(config: NodeConfig) {
        let settings = config.dialectSettings
        var contacts: [UUID: [UInt8]] = [:]
        for (name, value) in settings where name.hasPrefix("contact.") {
            if let id = UUID(uuidString: String(name.dropFirst("contact.".count))), let key = Hex.decode(value) {
                contacts[id] = key
            }
        }
        self.contacts = contacts
        if let hex = settings["privateKey"], let key = Hex.decode(hex), let identity = try? RelayIdentity(privateKey: key) {
            privateKey = identity.privateKey
            nodeID = identity.nodeID   // RELAY-R1: the id follows from the key
            simulated = false
        } else {
            let address = config.address
            privateKey = RelaySimulationKeys.privateKey(for: address)
            // The public key (an X25519 multiplication) only when the id must follow from it: a
            // simulated mesh of 10,000 nodes spent 0.16 s of CPU at start on keys nothing read.
            nodeID = address.uuid ?? RelaySimulationKeys.identity(for: address).nodeID
            simulated = true
        }
    }

    /// The pairwise key with `peer` (RELAY-W5), or nil when its public key is unknown.
    mutating func session(with peer: UUID) -> SessionKey? {
        if let key = sessions[peer] { return key }
        guard let publicKey = contacts[peer] ?? (simulated ? RelaySimulationKeys.identity(for: NodeAddress(peer)).publicKey : nil),
              let key = try? SessionKey(privateKey: privateKey, peerPublicKey: publicKey)
        else { return nil }
        if sessions.count >= Self.sessionCacheLimit { sessions.removeAll(keepingCapacity: true) }
        sessions[peer] = key
        return key
    }

    var sessionCount: Int { sessions.count }

    /// Learns a contact's public key (the chatty node's absent contact).
    mutating func add(contact id: UUID, publicKey: [UInt8]) { contacts[id] = publicKey }
}

/// Deterministic X25519 keys for simulated relay nodes, derived from the node address so that
/// every node can compute every other node's public key. Not secret: for simulation only.
public enum RelaySimulationKeys {
    public static func privateKey(for address: NodeAddress) -> [UInt8] {
        var seed: UInt64 = 0x6D65_7368_7265_6C61   // "meshrela"
        for byte in address.bytes { seed = (seed ^ UInt64(byte)) &* 0x100_0000_01B3 }
        var rng = SeededRandom(seed: seed)
        return rng.bytes(32)
    }

    public static func identity(for address: NodeAddress) -> RelayIdentity {
        // Any 32 bytes are a valid X25519 private key (RFC 7748 clamps them).
        try! RelayIdentity(privateKey: privateKey(for: address))
    }
}
