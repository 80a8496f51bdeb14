import MeshWire

/// What a node does with input it refuses, and the robustness mutants that change it: a
/// refused value is counted and changes no state, except that `crash-on-truncated` stops the
/// node after a truncated one, `crash-on-refused` after any, and `canonical-only` refuses
/// valid values not written the way the node itself would write them.
struct RefusalFaults {
    let faults: Set<Fault>
    /// The node has stopped answering (a crash mutant tripped).
    private(set) var crashed = false
    private(set) var refused = 0

    init(_ faults: Set<Fault>) { self.faults = faults }

    /// `bytes` decoded as `Value`, or nil after recording the refusal.
    mutating func decode<Value: WireFormat>(_ bytes: [UInt8], as _: Value.Type) -> Value? {
        let value: Value
        do {
            value = try Value(decoding: bytes[...])
        } catch {
            refuse(error)
            return nil
        }
        if faults.contains(.canonicalOnly), value.encoded() != bytes {
            refuse(nil)
            return nil
        }
        return value
    }

    /// Records a refusal (`error`: the decoder's, when a decoder refused).
    mutating func refuse(_ error: WireError?) {
        refused += 1
        if faults.contains(.crashOnRefused) || (faults.contains(.crashOnTruncated) && error?.code == .truncated) { crashed = true }
    }
}
