/// How one edge of the mesh behaves. The same profile applies in both directions.
public struct LinkProfile: Hashable, Sendable {
    /// Probability in 0...1 that one transmission is lost.
    public var loss: Double
    /// Fixed one-way delay.
    public var latency: Duration
    /// Extra delay drawn uniformly from [0, jitter] for each transmission. A link stays in
    /// order: a transmission is never delivered before an earlier one in the same direction.
    public var jitter: Duration
    /// Largest transmission the link carries, in bytes; larger ones are dropped and counted.
    public var mtu: Int

    public init(loss: Double = 0, latency: Duration = .milliseconds(10), jitter: Duration = .milliseconds(5), mtu: Int = 512) {
        self.loss = loss
        self.latency = latency
        self.jitter = jitter
        self.mtu = mtu
    }

    public static let `default` = LinkProfile()
}

extension Duration {
    var simNanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}
