/// Something that moves whole HCI packets in H4 form (indicator byte first: 0x01 command,
/// 0x02 ACL, 0x03 SCO, 0x04 event, 0x05 ISO) between a host and a controller. It never looks
/// inside a packet beyond what framing needs: protocol logic lives in the host above it.
///
/// Every call is bounded: `send` by `writeTimeout`, `receive` by its deadline. A transport is
/// used from one thread at a time.
public protocol HCITransport: AnyObject {
    /// What the user typed to get it ("tcp:127.0.0.1:9001", "hci0"), for messages and file names.
    var name: String { get }
    /// Sends one H4 packet. Throws when the controller is gone or will not take it in time.
    func send(_ packet: [UInt8]) throws(TransportError)
    /// The next H4 packet from the controller, or nil when none arrived by `deadline`.
    /// Throws when the controller hung up or sent something that is not H4.
    func receive(until deadline: ContinuousClock.Instant) throws(TransportError) -> [UInt8]?
    /// Releases the connection or socket. Idempotent.
    func close()
}

/// The H4 packet indicators (Bluetooth Core, Vol 4, Part A, 2).
public enum H4Indicator: UInt8, Sendable, CaseIterable {
    case command = 0x01
    case acl = 0x02
    case sco = 0x03
    case event = 0x04
    case iso = 0x05
}
