import Foundation

/// A real implementation of a dialect as a mutant of the reference node: `--mutant app-ios`.
/// It carries every behavioural and policy row of the dialect page's "Differences from the
/// app" table that the implementation shows (section 7; a table with an `apps` column says
/// which rows are whose), so a run predicts what that implementation scores. A dialect's first
/// profile is its main app, also `--mutant app`. The lists here must equal the table's rows:
/// `swift test --filter AppTableTests` compares them.
public struct AppProfile: Sendable, Hashable {
    public var dialect: DialectName
    /// How the page's `apps` column names it (`iOS`); `app` where the dialect has one app.
    public var key: String
    /// The app as docs/apps.md and `meshconform list --apps` name it.
    public var app: String
    /// The faults its rows name, in the table's row order.
    public var faults: [Fault]
    /// The de-duplication entries it is sure to hold, where that is not the reference node's
    /// (bitchat iOS: 750, what its trim leaves): what a capabilities file for it declares.
    public var dedupCapacity: Int? = nil

    /// The name `--mutant` takes for the dialect's main app.
    public static let mainName = "app"

    /// How a vector's `apps` names it: `bitchat-ios`; the dialect's name where it has one app.
    public var vectorKey: String { key == Self.mainName ? dialect.rawValue : "\(dialect.rawValue)-\(key.lowercased())" }

    /// `app-ios`, or `app` for a dialect's only profile.
    public var mutantName: String { key == Self.mainName ? key : "\(Self.mainName)-\(key.lowercased())" }

    /// The dialect's implementations, its main app first.
    public static func all(of dialect: DialectName) -> [AppProfile] {
        func one(_ app: String, _ faults: [Fault]) -> [AppProfile] { [AppProfile(dialect: dialect, key: mainName, app: app, faults: faults)] }
        switch dialect {
        case .relay:
            return one("SwiftMeshRelay", [.beaconType46, .noBeaconRelay, .noDedup, .relayToSender, .relayOwn, .noAck, .dropForeignAcks, .ignoreOwnAcks,
                                          .retryTTLDecrement, .noRetryExpiry, .noLinkLimit])
        case .blemesh:
            return one("BLEMesh", [.rawControl, .ackNoDestination, .readAsUser, .ignoreHopPath, .noReack, .chunksIgnoreMTU, .reassembleByMessageID,
                                   .trustChunkTotal, .overwriteChunks, .flushRequestIDs, .refuseSigned, .noJitter, .holdUnrouted, .retryForever, .deliverOwnOrigin])
        case .bitchat:
            return [AppProfile(dialect: dialect, key: "iOS", app: "bitchat iOS",
                               faults: [.noFragmentDedup, .ignoreFragmentClaim, .lastPieceWins, .jitterByDegree, .ttlClampByDegree,
                                        .reencodeRelays, .fanOutSubset, .ingressGate, .dedupTrim], dedupCapacity: 750),
                    AppProfile(dialect: dialect, key: "Android", app: "bitchat Android",
                               faults: [.ignoreFragmentClaim, .lastPieceWins, .relayLastHop, .noTTLCap, .noJitter, .acceptStale,
                                        .fragmentKeyByID, .refuseNewAssembly, .dropSetOnConflict])]
        case .simple:
            return one("the mesh chat story (seed 000)", [.relayToSender, .noJitter])
        case .camp:
            return one("Robot Heart", [.evictArbitrary, .relayToSender, .noRetry, .anyMessageID, .noDelivery, .relayForMe])
        case .peat:
            return one("peat-btle", [.laxSections, .laxCounters, .laxEnvelopeLength, .markerVersion])
        }
    }

    /// The dialect's main app: `--mutant app`.
    public static func main(of dialect: DialectName) -> AppProfile { all(of: dialect)[0] }

    /// The profile `--mutant NAME` names in `dialect`: `app` is the main one.
    public static func named(_ name: String, in dialect: DialectName) -> AppProfile? {
        name == mainName ? main(of: dialect) : all(of: dialect).first { $0.mutantName == name }
    }

    /// Every profile name of every dialect, for `--mutant`'s help and its errors.
    public static var allNames: [String] {
        var names = [mainName]
        for d in DialectName.allCases { for p in all(of: d) where !names.contains(p.mutantName) { names.append(p.mutantName) } }
        return names
    }
}

/// What `--mutant a,b,c` names: faults of the reference node, composed, and possibly an app
/// profile (`app`, `app-ios`), which stands for a different set of faults in each dialect.
public struct MutantSelection: Sendable, Hashable {
    public var faults: Set<Fault>
    /// `app`, `app-ios` ...: the profile's name, or nil.
    public var profile: String?

    public init(faults: Set<Fault> = [], profile: String? = nil) {
        self.faults = faults
        self.profile = profile
    }

    /// Parses `a,b,c`; returns the first name that is neither a mutant nor a profile as the error.
    public static func parse(_ text: String) -> Result<MutantSelection, UnknownMutant> {
        var selection = MutantSelection()
        for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if AppProfile.allNames.contains(name) {
                guard selection.profile == nil || selection.profile == name else { return .failure(UnknownMutant(name: name, secondProfile: true)) }
                selection.profile = name
            } else if let fault = Fault(rawValue: name) {
                selection.faults.insert(fault)
            } else {
                return .failure(UnknownMutant(name: name))
            }
        }
        return .success(selection)
    }

    /// The profile this selection names in `dialect`, nil when none or when `dialect` has no
    /// profile of that name (`appProblem` says so).
    public func appProfile(for dialect: DialectName) -> AppProfile? { profile.flatMap { AppProfile.named($0, in: dialect) } }

    /// Why the selection cannot run on `dialect`: a profile the dialect does not have.
    public func appProblem(for dialect: DialectName) -> String? {
        guard let profile, appProfile(for: dialect) == nil else { return nil }
        return "the \(dialect.rawValue) dialect has no profile '\(profile)'; its profiles: \(AppProfile.all(of: dialect).map(\.mutantName).joined(separator: ", ")) (and `app`, the first)"
    }

    /// The faults a node of `dialect` carries under this selection.
    public func faults(for dialect: DialectName) -> Set<Fault> {
        faults.union(appProfile(for: dialect)?.faults ?? [])
    }

    public var isEmpty: Bool { faults.isEmpty && profile == nil }

    /// `app+no-dedup`, for reports.
    public var name: String {
        ((profile.map { [$0] } ?? []) + faults.map(\.rawValue).sorted()).joined(separator: "+")
    }
}

public struct UnknownMutant: Error, Sendable {
    public var name: String
    /// `app-ios,app-android`: two profiles at once.
    public var secondProfile = false
}
