import BLEHost

/// Something that moves whole HCI packets (H4: indicator byte, then the HCI packet) between a
/// host and a controller. It never looks inside a packet beyond what framing needs: protocol
/// logic lives in the host above it (BLEHost's `LEHost`).
///
/// Every call is bounded: `send` by the transport's write timeout, `receive` by its deadline.
/// A transport is used from one thread at a time.
public protocol HCITransport: AnyObject {
    /// What the user typed to get it ("tcp:127.0.0.1:9001", "hci0"), for messages and file names.
    var name: String { get }
    /// Sends one packet. Throws when the controller is gone or will not take it in time.
    func send(_ packet: H4Packet) throws(TransportError)
    /// The next packet from the controller, or nil when none arrived by `deadline`.
    /// Throws when the controller hung up or sent something that is not H4.
    func receive(until deadline: ContinuousClock.Instant) throws(TransportError) -> H4Packet?
    /// Releases the connection or socket. Idempotent.
    func close()
}
