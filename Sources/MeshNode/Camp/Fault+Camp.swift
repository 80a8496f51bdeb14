extension Fault {
    /// The deviations the camp engine carries (besides its own camp-only cases). Not here:
    /// the TTL mutants (BLEMessage has no TTL, CAMP-R3) and no-jitter (relaying at once lies
    /// inside CAMP-R4's 0-100 ms window, so it is the reference behaviour, not a deviation).
    static let carriedByCamp: Set<Fault> = [
        .noDedup, .relayToSender, .noAck, .ackBroadcast, .ackWrongID, .doubleDeliver, .crashOnTruncated, .lateRelay,
        .dedupByOrigin, .relayOwn, .relayForMe, .smallDedupCache, .shortRetention, .evictArbitrary, .noReack, .dropForeignAcks,
        .ignoreOwnAcks, .canonicalOnly, .crashOnRefused,
        .rewriteRelay, .confirmConfirmations, .noRetry, .retryEmptyContent, .fixedRetryInterval, .anyMessageID, .noDelivery,
    ]
}
