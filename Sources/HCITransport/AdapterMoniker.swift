/// What `--adapter` names (DESIGN.md section 5): the in-process virtual radio, or a
/// controller reached through an HCI transport.
public enum AdapterMoniker: Hashable, Sendable, CustomStringConvertible {
    case virtual
    case radio(HCIEndpoint)

    /// Parses `virtual`, `hciN`, `tcp:HOST:PORT` (IPv6 as `tcp:[::1]:PORT`) and `unix:PATH`.
    public init(parsing text: String) throws(MonikerError) {
        if text == "virtual" {
            self = .virtual
        } else if text.hasPrefix("hci") {
            let digits = text.dropFirst(3)
            guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit), let index = UInt16(digits), index < 0xFFFF else {
                throw MonikerError(text, "an HCI adapter is hci followed by its index, e.g. hci0")
            }
            self = .radio(.userChannel(index))
        } else if text.hasPrefix("tcp:") {
            let rest = text.dropFirst(4)
            guard let colon = rest.lastIndex(of: ":") else {
                throw MonikerError(text, "a TCP adapter is tcp:HOST:PORT, e.g. tcp:127.0.0.1:9001")
            }
            var host = rest[..<colon]
            if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
            guard !host.isEmpty else { throw MonikerError(text, "the host is missing: tcp:HOST:PORT, e.g. tcp:127.0.0.1:9001") }
            let portText = rest[rest.index(after: colon)...]
            guard portText.allSatisfy(\.isASCIIDigit), let port = UInt16(portText), port > 0 else {
                throw MonikerError(text, "the port must be a number from 1 to 65535: tcp:HOST:PORT")
            }
            self = .radio(.tcp(host: String(host), port: port))
        } else if text.hasPrefix("unix:") {
            let path = String(text.dropFirst(5))
            guard !path.isEmpty else { throw MonikerError(text, "the socket path is missing: unix:PATH") }
            guard path.utf8.count < 108 else { throw MonikerError(text, "a unix socket path must be shorter than 108 bytes") }
            self = .radio(.unix(path: path))
        } else {
            throw MonikerError(text, "expected virtual, hciN, tcp:HOST:PORT or unix:PATH")
        }
    }

    public var description: String {
        switch self {
        case .virtual: "virtual"
        case .radio(let endpoint): endpoint.description
        }
    }
}

/// A controller reachable through an HCI transport.
public enum HCIEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// The Linux HCI user channel of adapter hciN.
    case userChannel(UInt16)
    /// H4 over TCP.
    case tcp(host: String, port: UInt16)
    /// H4 over a unix stream socket.
    case unix(path: String)

    public var description: String {
        switch self {
        case .userChannel(let index): "hci\(index)"
        case .tcp(let host, let port): host.contains(":") ? "tcp:[\(host)]:\(port)" : "tcp:\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        }
    }

    /// Opens the transport; connecting is bounded by `timeout` (socket endpoints).
    public func open(timeout: Duration = .seconds(3)) throws(TransportError) -> SocketTransport {
        switch self {
        case .userChannel(let index): try .userChannel(adapter: index)
        case .tcp(let host, let port): try .tcp(host: host, port: port, timeout: timeout)
        case .unix(let path): try .unix(path: path, timeout: timeout)
        }
    }
}

/// A malformed `--adapter` value: the CLI prints it and exits 2.
public struct MonikerError: Error, Sendable, Equatable, CustomStringConvertible {
    public var text: String
    public var hint: String
    init(_ text: String, _ hint: String) {
        self.text = text
        self.hint = hint
    }
    public var description: String { "bad adapter '\(text)': \(hint)" }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
