import MeshNode
import Testing
@testable import MeshSim

/// A reception's bytes travel in its event as a plain pointer holding one reference
/// (`InFlightPacket`): each must be taken exactly once, or a buffer leaks or is freed twice.
@Suite struct InFlightPacketTests {
    /// True when no reference to `bytes`' storage is left but this one: writing to a shared
    /// array copies it first, so its address changes.
    static func isUnshared(_ bytes: inout [UInt8]) -> Bool {
        let before = bytes.withUnsafeBufferPointer { $0.baseAddress }
        bytes[0] = bytes[0]
        return bytes.withUnsafeBufferPointer { $0.baseAddress } == before
    }

    @Test func carriesTheReferenceItWasGiven() {
        var bytes: [UInt8] = [1, 2, 3, 4]
        let packet = InFlightPacket(bytes)
        #expect(!Self.isUnshared(&bytes))                             // the packet holds a reference
        var original: [UInt8] = [9, 8, 7]
        let held = InFlightPacket(original)
        #expect(Array(held.buffer) == [9, 8, 7])                      // looked at, not taken
        var taken = held.take()
        #expect(taken == [9, 8, 7])
        #expect(!Self.isUnshared(&original))                          // `taken` still shares it
        taken = []
        #expect(Self.isUnshared(&original))                           // and nothing else does
        _ = packet.take()
    }

    /// Nodes that answer every packet on the link it came in on: a run cut short by its end time
    /// or by `maxEvents` always has receptions in flight, and must give their bytes back.
    @Test(arguments: [(Instant?.some(.milliseconds(205)), Int.max), (nil, 333)])
    func aRunCutShortReleasesThePacketsInFlight(endTime: Instant?, maxEvents: Int) {
        var payload: [UInt8] = Array(repeating: 0xA5, count: 40)
        do {
            let config = SimConfig(topology: .ring(12), workload: Workload(messages: []), seed: 3, settle: .seconds(1),
                                   endTime: endTime, maxEvents: maxEvents)
            let metrics = Simulator(config: config) { [payload] in Echo(spec: $0, payload: payload) }.run()
            #expect(metrics.receptions > 0)
            #expect(metrics.transmissions > metrics.receptions)   // some still in flight at the end
        }
        #expect(Self.isUnshared(&payload))
    }
}

/// Sends `payload` on each link as it comes up, and sends back whatever arrives.
private struct Echo: SimNode {
    let payload: [UInt8]

    init(spec: NodeSpec, payload: [UInt8]) { self.payload = payload }

    mutating func handle(_ event: NodeEvent, at now: Instant) -> [NodeAction] {
        switch event {
        case .linkUp(let link, _, _): [.send(payload, on: link)]
        case .received(let bytes, let link): [.send(bytes, on: link)]
        default: []
        }
    }

    var stateSize: NodeStateSize { NodeStateSize() }
}
