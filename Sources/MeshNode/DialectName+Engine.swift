extension DialectName {
    /// The engine that carries this dialect's rules.
    func makeEngine(config: NodeConfig, seed: UInt64) -> any DialectEngine {
        switch self {
        case .relay: RelayEngine(config: config, seed: seed)
        case .blemesh: BLEMeshEngine(config: config, seed: seed)
        case .bitchat: BitchatEngine(config: config, seed: seed)
        case .simple: SimpleEngine(config: config, seed: seed)
        case .camp: CampEngine(config: config, seed: seed)
        case .peat: PeatEngine(config: config, seed: seed)
        }
    }

    /// Messages the reference node's de-duplication cache holds, oldest evicted first: the
    /// built-in node's declared `dedupCapacity`. relay records a frame it relays twice (seen,
    /// then relayed with its ingress link, RELAY-R3 and R7.2), and its cache counts both.
    public var referenceDedupCapacity: Int {
        switch self {
        case .relay: RelayEngine.dedupCapacity / 2
        case .blemesh: BLEMeshEngine.dedupCapacity
        case .bitchat: BitchatEngine.dedupCapacity
        case .simple: SimpleEngine.dedupCapacity
        case .camp: CampEngine.dedupCapacity
        case .peat: PeatEngine.dedupCapacity
        }
    }
}
