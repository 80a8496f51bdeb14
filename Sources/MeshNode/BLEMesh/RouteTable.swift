import Foundation

/// Routes to other devices (BLEMESH-R18): destination -> next-hop neighbour id, hop count and
/// hop path, valid 300 s after set or last used. Bounded: beyond `capacity` the stalest goes.
struct RouteTable {
    struct Route: Hashable {
        var nextHop: UUID
        var hopCount: Int
        var hopPath: [UUID]
        var updated: Instant
    }

    static let lifetime: Duration = .seconds(300)
    static let capacity = 1024

    private(set) var routes: [UUID: Route] = [:]

    var count: Int { routes.count }

    /// The valid route to `destination`, refreshed because it is used.
    mutating func use(_ destination: UUID, at now: Instant) -> Route? {
        guard var route = routes[destination], now - route.updated < Self.lifetime else { return nil }
        route.updated = now
        routes[destination] = route
        return route
    }

    /// BLEMESH-R18: a new entry replaces an old one only if it has fewer hops or the old one expired.
    mutating func offer(_ destination: UUID, via nextHop: UUID, hopCount: Int, hopPath: [UUID] = [], at now: Instant) {
        if let old = routes[destination], now - old.updated < Self.lifetime, old.hopCount <= hopCount {
            if old.nextHop == nextHop, old.hopCount == hopCount { routes[destination]?.updated = now }
            return
        }
        if routes[destination] == nil, routes.count >= Self.capacity {
            if let stalest = routes.min(by: { $0.value.updated < $1.value.updated })?.key { routes[stalest] = nil }
        }
        routes[destination] = Route(nextHop: nextHop, hopCount: hopCount, hopPath: hopPath, updated: now)
    }

    /// Removes the routes through `nextHop` (and, when given, only those to `destinations`);
    /// returns the destinations lost.
    @discardableResult
    mutating func remove(via nextHop: UUID, only destinations: Set<UUID>? = nil) -> [UUID] {
        let lost = routes.filter { $0.value.nextHop == nextHop && (destinations?.contains($0.key) ?? true) }.map(\.key).sorted { $0.uuidString < $1.uuidString }
        for destination in lost { routes[destination] = nil }
        return lost
    }
}
