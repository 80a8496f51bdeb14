import HCITransport
import Testing

@Suite struct MonikerTests {
    @Test(arguments: [
        ("virtual", AdapterMoniker.virtual),
        ("hci0", .radio(.userChannel(0))),
        ("hci12", .radio(.userChannel(12))),
        ("tcp:127.0.0.1:9001", .radio(.tcp(host: "127.0.0.1", port: 9001))),
        ("tcp:localhost:1", .radio(.tcp(host: "localhost", port: 1))),
        ("tcp:[::1]:65535", .radio(.tcp(host: "::1", port: 65535))),
        ("unix:/tmp/ctl.sock", .radio(.unix(path: "/tmp/ctl.sock"))),
    ])
    func parses(_ text: String, _ expected: AdapterMoniker) throws {
        let moniker = try AdapterMoniker(parsing: text)
        #expect(moniker == expected)
        #expect(moniker.description == text)
    }

    @Test(arguments: [
        ("hci", "hci followed by its index"), ("hcix", "hci followed"), ("hci-1", "hci followed"), ("hci99999", "hci followed"),
        ("tcp:9001", "tcp:HOST:PORT"), ("tcp::9001", "host is missing"), ("tcp:h:0", "1 to 65535"),
        ("tcp:h:70000", "1 to 65535"), ("tcp:h:9x", "1 to 65535"), ("unix:", "path is missing"),
        ("unix:" + String(repeating: "a", count: 120), "shorter than 108"), ("usb:0", "expected virtual"), ("", "expected virtual"),
    ])
    func refuses(_ text: String, _ hint: String) {
        #expect {
            try AdapterMoniker(parsing: text)
        } throws: { error in
            "\(error)".contains(hint) && "\(error)".contains("bad adapter")
        }
    }
}
