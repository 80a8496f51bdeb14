/// The links a node has up, and the sends that go out on them. Every engine keeps the same
/// table; this is it once, for engines that adopt it.
struct LinkSet {
    private(set) var up: Set<LinkID> = []

    var count: Int { up.count }
    func contains(_ link: LinkID) -> Bool { up.contains(link) }

    /// Takes a link-up or link-down event; false for any other event.
    mutating func track(_ event: NodeEvent) -> Bool {
        switch event {
        case .linkUp(let link, _): up.insert(link)
        case .linkDown(let link): up.remove(link)
        default: return false
        }
        return true
    }

    /// A send whose link went down while it waited for its jitter is not carried out.
    func isLive(_ action: NodeAction) -> Bool {
        if case .send(_, let link) = action { return up.contains(link) }
        return true
    }

    /// `bytes` on every link but `ingress`, in link order.
    func sendAll(_ bytes: [UInt8], except ingress: LinkID?) -> [NodeAction] {
        up.sorted().filter { $0 != ingress }.map { .send(bytes, on: $0) }
    }
}
