import BLEHost
import MeshNode

/// Bytes from hex text; spaces allowed.
func hex(_ s: String) -> [UInt8] {
    let digits = s.filter { !$0.isWhitespace }
    var out: [UInt8] = []
    var i = digits.startIndex
    while i < digits.endIndex {
        let j = digits.index(i, offsetBy: 2)
        out.append(UInt8(digits[i..<j], radix: 16)!)
        i = j
    }
    return out
}

func hexString(_ b: [UInt8]) -> String { b.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }

/// The error code a decode throws, nil when it succeeds.
func code(_ f: () throws -> Void) -> HostWireError.Code? {
    do { try f(); return nil } catch let e as HostWireError { return e.code } catch { return nil }
}

/// Fuzz runs repeat exactly: the project's seeded generator, drawn below a bound.
extension SeededRandom {
    mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(next() % UInt64(n)) }
}

let relayService = GATTBinding.relay.service
let peerAddress = try! BluetoothAddress(string: "F0:F1:F2:F3:F4:F5", type: .random)
let ourAddress = try! BluetoothAddress(string: "C0:11:22:33:44:55", type: .random)

/// A scripted controller around one LEHost: it answers every HCI command the way Bumble does
/// (Command Complete with the documented return parameters, Command Status for the commands
/// that complete later), plays a peer's ATT PDUs as 27-byte ACL fragments, and fires timers.
struct Bench {
    var host: LEHost
    var now = HostInstant.zero
    var commands: [HCICommand] = []
    var acl: [HCIACLPacket] = []
    var events: [HostEvent] = []
    /// Every event ever, for operation results.
    var allEvents: [HostEvent] = []
    var timers: [(id: HostTimerID, at: HostInstant)] = []
    var leFeatures: UInt64
    var buffers: UInt8
    /// What LE_Read_Number_Of_Supported_Advertising_Sets answers (Bumble: 240); nil: a bare error status.
    var advertisingSets: UInt8? = 240
    var autoAnswer = true
    var maxInFlightSeen = 0
    var inFlight = 0
    /// What the peer's side reassembled from the host's ACL packets, per channel.
    var peerRecombiner = L2CAPRecombiner(maxFrameSize: 4096)
    var peerFrames: [L2CAPFrame] = []

    init(config: LEHostConfig = LEHostConfig(), leFeatures: UInt64 = 0, buffers: UInt8 = 64) {
        host = LEHost(config: config)
        self.leFeatures = leFeatures
        self.buffers = buffers
    }

    @discardableResult
    mutating func feed(_ input: HostInput) -> [HostAction] {
        let actions = host.handle(input, at: now)
        var answers: [HCIEvent] = []
        for a in actions {
            switch a {
            case .send(let p):
                switch p {
                case .command(let b):
                    let c = try! HCICommand(decoding: b)
                    commands.append(c)
                    if autoAnswer { answers.append(answer(c)) }
                case .acl(let b):
                    let packet = try! HCIACLPacket(decoding: b)
                    acl.append(packet)
                    inFlight += 1
                    maxInFlightSeen = max(maxInFlightSeen, inFlight)
                    if case .frame(let f) = peerRecombiner.add(packet) { peerFrames.append(f) }
                default: break
                }
            case .setTimer(let id, let at): timers.append((id, at))
            case .event(let e): events.append(e); allEvents.append(e)
            }
        }
        for e in answers { controller(e) }
        return actions
    }

    mutating func command(_ id: UInt64, _ c: HostCommand) { feed(.command(OperationID(id), c)) }
    mutating func controller(_ e: HCIEvent) { feed(.controller(.event(e.encoded()))) }

    func answer(_ c: HCICommand) -> HCIEvent {
        let op = c.opcode
        switch c {
        case .leCreateConnection, .leExtendedCreateConnection, .disconnect, .leConnectionUpdate:
            return .commandStatus(status: 0, numCommandPackets: 1, opcode: op)
        case .leReadLocalSupportedFeatures:
            return .commandComplete(numCommandPackets: 1, opcode: op, returned: .leLocalFeatures(status: 0, features: leFeatures))
        case .leReadBufferSize:
            return .commandComplete(numCommandPackets: 1, opcode: op, returned: .leBufferSize(status: 0, aclDataLength: 27, totalPackets: buffers))
        case .readBDADDR:
            return .commandComplete(numCommandPackets: 1, opcode: op, returned: .bdAddr(status: 0, address: try! BluetoothAddress(string: "00:1B:DC:00:00:01", type: .public)))
        case .leSetExtendedAdvertisingParameters:
            return .commandComplete(numCommandPackets: 1, opcode: op, returned: .extendedAdvertisingParameters(status: 0, selectedTxPower: 0))
        case .leReadNumberOfSupportedAdvertisingSets:
            return .commandComplete(numCommandPackets: 1, opcode: op,
                                    returned: advertisingSets.map { .numberOfAdvertisingSets(status: 0, count: $0) } ?? .status(0x01))
        default:
            return .commandComplete(numCommandPackets: 1, opcode: op, returned: .status(0))
        }
    }

    mutating func powerOn() {
        command(1, .powerOn(randomAddress: ourAddress))
    }

    mutating func connection(_ handle: UInt16, role: ConnectionRole) {
        controller(.leMeta(.connectionComplete(LEConnectionComplete(status: 0, handle: handle, role: role, peer: peerAddress,
                                                                    interval: 10, latency: 0, supervisionTimeout: 10, centralClockAccuracy: 7))))
    }

    /// The peer sends an ATT PDU, fragmented to 27-byte ACL packets as Bumble's controller delivers them.
    mutating func peerSends(_ pdu: ATTPDU, handle: UInt16 = 1) {
        peerSendsFrame(L2CAPFrame(channel: L2CAPChannel.att, payload: pdu.encoded()), handle: handle)
    }

    mutating func peerSendsFrame(_ frame: L2CAPFrame, handle: UInt16 = 1) {
        for var f in frame.fragments(handle: handle, maxACLDataLength: 27) {
            if f.boundary == .firstNonFlushable { f.boundary = .firstFlushable }
            feed(.controller(f.h4))
        }
    }

    /// Returns the controller's ACL buffers for everything sent so far.
    mutating func completeAllACL(handle: UInt16 = 1) {
        guard inFlight > 0 else { return }
        let n = inFlight
        inFlight = 0
        controller(.numberOfCompletedPackets([CompletedPackets(handle: handle, count: UInt16(n))]))
    }

    /// ATT PDUs the host sent to the peer since the last call.
    mutating func takeATT() -> [ATTPDU] {
        completeAllACL()
        let frames = peerFrames.filter { $0.channel == L2CAPChannel.att }
        peerFrames.removeAll()
        return frames.map { try! ATTPDU(decoding: $0.payload) }
    }

    mutating func takeEvents() -> [HostEvent] {
        defer { events.removeAll() }
        return events
    }

    /// Moves the clock to `t` and fires every timer due by then, in time order.
    mutating func advance(to t: HostInstant) {
        while let i = timers.indices.filter({ timers[$0].at <= t }).min(by: { timers[$0].at < timers[$1].at }) {
            let timer = timers.remove(at: i)
            now = timer.at
            feed(.timer(timer.id))
        }
        now = t
    }

    var opResults: [(OperationID, Result<OperationResult, HostFailure>)] {
        allEvents.compactMap {
            switch $0 {
            case .completed(let id, let r): (id, .success(r))
            case .failed(let id, let f): (id, .failure(f))
            default: nil
            }
        }
    }

    func result(_ id: UInt64) -> Result<OperationResult, HostFailure>? {
        opResults.last { $0.0 == OperationID(id) }?.1
    }
}
