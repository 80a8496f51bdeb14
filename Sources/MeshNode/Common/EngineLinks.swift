import MeshWire

/// What every engine keeps about its links and its own health: the links up, the inputs it
/// refused, and whether a crash mutant has stopped it. One copy for every engine, so a send on a link gone down and the crash mutants behave alike in each dialect.
struct EngineLinks {
    private(set) var up: Set<LinkID> = []
    /// A crash mutant tripped: the node answers nothing from here on.
    private(set) var crashed = false
    /// Inputs refused by a decoder or dropped as nonsense (RELAY-R12, BITCHAT-R11, SIMPLE-R10).
    private(set) var dropped = 0
    let faults: Set<Fault>

    init(faults: Set<Fault>) { self.faults = faults }

    var count: Int { up.count }
    var isEmpty: Bool { up.isEmpty }
    func contains(_ link: LinkID) -> Bool { up.contains(link) }
    mutating func insert(_ link: LinkID) { up.insert(link) }
    mutating func remove(_ link: LinkID) { up.remove(link) }

    /// An input refused or dropped as nonsense: counted, and it stops crash-on-refused (and
    /// crash-on-truncated when the decoder said `truncated`).
    mutating func refuse(_ error: WireError? = nil) {
        dropped += 1
        if faults.contains(.crashOnRefused) || (faults.contains(.crashOnTruncated) && error?.code == .truncated) { crashed = true }
    }

    /// `bytes` decoded as `Value`, or nil after recording the refusal; the canonical-only
    /// mutant also refuses a valid value not written the way the node itself writes it.
    mutating func decode<Value: WireFormat>(_ bytes: [UInt8], as _: Value.Type) -> Value? {
        let value: Value
        do {
            value = try Value(decoding: bytes[...])
        } catch {
            refuse(error)
            return nil
        }
        if faults.contains(.canonicalOnly), value.encoded() != bytes {
            refuse()
            return nil
        }
        return value
    }

    /// A command the node cannot carry out (nothing was received): counted, never a crash.
    mutating func decline() { dropped += 1 }

    /// A scheduled send whose link went down in the meantime is dropped.
    func isLive(_ action: NodeAction) -> Bool {
        if case .send(_, let link) = action { return up.contains(link) }
        return true
    }

    /// Takes a link-up or link-down event; false for any other event.
    mutating func track(_ event: NodeEvent) -> Bool {
        switch event {
        case .linkUp(let link, _, _): up.insert(link)
        case .linkDown(let link): up.remove(link)
        default: return false
        }
        return true
    }

    /// `frames` on every link up but `ingress`, in link order.
    func sendAll(_ frames: [[UInt8]], except ingress: LinkID?) -> [NodeAction] {
        up.sorted().filter { $0 != ingress }.flatMap { link in frames.map { NodeAction.send($0, on: link) } }
    }
}
