import MeshNode
import MeshWire

/// PLACEHOLDER until the blemesh probe lands.
public final class BLEMeshProbe: DialectProbe {
    public let dialect = DialectName.blemesh
    public var dutAddress = NodeAddress(bytes: [])
    public init() {}
    public var relayedDestination: Party? { nil }
    public func setup(capabilities: Capabilities, seed: UInt64) throws -> DUTSetup { throw TesterError("blemesh probe not written yet") }
    public func address(of party: Party) -> NodeAddress { dutAddress }
    public func message(_ spec: MessageSpec) throws -> ProbeMessage { throw TesterError("todo") }
    public func units(of message: ProbeMessage, via tester: Int) -> [[UInt8]] { [] }
    public func hear(_ bytes: [UInt8], on link: LinkID) -> HeardPacket? { nil }
    public func describe(_ bytes: [UInt8]) -> String { "" }
}
