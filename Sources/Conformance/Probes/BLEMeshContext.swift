import MeshNode
import MeshWire

/// A control message the DUT sent (ANNOUNCE, RREQ, RREP, RERR, READ), as the blemesh checks
/// read it.
public struct HeardControl: Sendable {
    public var control: ControlMessage
    public var envelope: MessageEnvelope
    public var link: LinkID
    public var time: Duration
}

/// One unit the DUT wrote, read straight from the evidence: the chunk, or why it is none.
public struct WrittenUnit: Sendable {
    public var link: LinkID
    public var time: Duration
    public var bytes: [UInt8]
    public var chunk: Result<MessageChunk, WireError>
}

/// What the blemesh checks need beyond the neutral view: hand-made chunk sets, control
/// messages, whole envelopes, and the DUT's raw chunks.
extension CheckContext {
    /// Tester `tester` writes `chunks` in the order given (reordered, repeated, forged...).
    public func write(_ chunks: [MessageChunk], from tester: Int) throws {
        for chunk in chunks { try write(chunk.encoded(), from: tester) }
    }

    /// The control messages other than acks the DUT sent.
    public func controls(in observations: [Observation]) -> [HeardControl] {
        observations.compactMap { o in
            guard case .control(let c, let e)? = o.packet, let link = o.link else { return nil }
            return HeardControl(control: c, envelope: e, link: link, time: o.time)
        }
    }

    /// The ack envelopes the DUT sent for `message`, whole.
    public func ackEnvelopes(of message: ProbeMessage, in observations: [Observation]) -> [(envelope: MessageEnvelope, ack: DeliveryAck, link: LinkID, time: Duration)] {
        observations.compactMap { o in
            guard case .ack(let id, _, .blemesh(let e))? = o.packet, id == message.ackID, let link = o.link,
                  case .deliveryAck(let ack)? = try? e.controlMessage() else { return nil }
            return (e, ack, link, o.time)
        }
    }

    /// The envelopes of the DUT's copies of `message` (relays), whole.
    public func relayedEnvelopes(of message: ProbeMessage, in observations: [Observation]) -> [(envelope: MessageEnvelope, link: LinkID, time: Duration)] {
        copies(of: message, in: observations).compactMap { c in
            guard case .blemesh(let e) = c.message.value else { return nil }
            return (e, c.link, c.time)
        }
    }

    /// Malformed units the DUT sent (undecodable chunks, chunk sets that complete into junk).
    public func malformed(in observations: [Observation]) -> [(error: WireError, link: LinkID)] {
        observations.compactMap { o in
            guard case .malformed(let e)? = o.packet, let link = o.link else { return nil }
            return (e, link)
        }
    }

    /// Every unit the DUT wrote since `time`, decoded as a chunk when it is one.
    public func unitsWritten(since time: Duration = .zero) -> [WrittenUnit] {
        evidence.compactMap { entry -> WrittenUnit? in
            guard entry.direction == .fromDUT, entry.time >= time, let link = entry.link, let bytes = entry.bytes else { return nil }
            let chunk: Result<MessageChunk, WireError>
            do throws(WireError) { chunk = .success(try MessageChunk(decoding: bytes[...])) } catch { chunk = .failure(error) }
            return WrittenUnit(link: link, time: entry.time, bytes: bytes, chunk: chunk)
        }
    }
}
