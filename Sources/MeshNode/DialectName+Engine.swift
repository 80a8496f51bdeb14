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
}
