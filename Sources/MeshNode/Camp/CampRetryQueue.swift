/// CAMP-R6: the directed messages a camp node sent and still waits to see confirmed, each with
/// the exact bytes it first wrote (a retry is byte for byte) and the timer of its next resend.
/// Bounded: at most `capacity` messages wait; a new one beyond that gives up the oldest.
struct CampRetryQueue {
    // camp.md section 5: camp.retry.first, camp.retry.factor, camp.retry.max.
    static let firstDelay: Duration = .seconds(30)
    static let factor = 1.5
    /// Resends after the first transmission; the message is given up after the last one.
    static let maxResends = 10
    static let capacity = 64

    struct Entry {
        var bytes: [UInt8]
        /// Resends so far.
        var resends: Int
        var timer: TimerID
        /// Insertion order, to give up the oldest when full.
        var serial: UInt64
    }

    private var entries: [String: Entry] = [:]
    private var byTimer: [TimerID: String] = [:]
    private var nextSerial: UInt64 = 0

    var count: Int { entries.count }

    /// The wait before the next resend when `resends` have gone out: 30 s after the first
    /// transmission, then 30 x 1.5^n s after the previous one (30, 45, 67.5, ... s).
    /// `fixed` is the fixed-retry-interval mutant: 30 s every time.
    static func delay(afterResends resends: Int, fixed: Bool) -> Duration {
        guard !fixed else { return firstDelay }
        var seconds = 30.0
        for _ in 0..<resends { seconds *= factor }
        return .nanoseconds(Int64(seconds * 1e9))
    }

    /// Starts waiting for a confirmation of `messageID`. Returns the timers of messages given
    /// up to make room, for the caller to cancel.
    mutating func add(_ messageID: String, bytes: [UInt8], timer: TimerID) -> [TimerID] {
        var dropped: [TimerID] = []
        if let old = entries[messageID] { dropped.append(old.timer) }
        while entries.count >= Self.capacity, entries[messageID] == nil,
              let oldest = entries.min(by: { $0.value.serial < $1.value.serial }) {
            dropped.append(oldest.value.timer)
            remove(oldest.key)
        }
        nextSerial &+= 1
        entries[messageID] = Entry(bytes: bytes, resends: 0, timer: timer, serial: nextSerial)
        byTimer[timer] = messageID
        return dropped
    }

    /// A confirmation arrived: the message leaves the queue. Its pending timer, if it was waiting.
    mutating func confirm(_ messageID: String) -> TimerID? {
        guard let entry = entries[messageID] else { return nil }
        remove(messageID)
        return entry.timer
    }

    /// Timer `timer` fired: the message to resend and how many resends went before this one,
    /// or nil when the timer is not a retry's.
    mutating func due(_ timer: TimerID) -> (messageID: String, bytes: [UInt8], resends: Int)? {
        guard let id = byTimer.removeValue(forKey: timer), let entry = entries[id] else { return nil }
        return (id, entry.bytes, entry.resends)
    }

    /// After a resend of `messageID`: waits on `timer` for the next one, or gives up when the
    /// last resend has gone (nil `timer`).
    mutating func resent(_ messageID: String, next timer: TimerID?) {
        guard var entry = entries[messageID] else { return }
        guard let timer else {
            remove(messageID)
            return
        }
        entry.resends += 1
        entry.timer = timer
        entries[messageID] = entry
        byTimer[timer] = messageID
    }

    private mutating func remove(_ messageID: String) {
        guard let entry = entries.removeValue(forKey: messageID) else { return }
        byTimer[entry.timer] = nil
    }
}
