import ArgumentParser
import HCITransport

/// `meshconform adapters`: the local HCI adapters and whether meshconform can use them.
struct AdaptersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adapters",
        abstract: "List local HCI adapters (hciN) and their state.",
        discussion: """
            An hciN adapter is used through the Linux HCI user channel: it must be down, not held by \
            bluetoothd, and meshconform needs root or CAP_NET_ADMIN. Controllers on sockets (Google Bumble, \
            Android rootcanal, Zephyr native_sim) are not listed: name them as --adapter tcp:HOST:PORT or unix:PATH. \
            Exit status: 0 when the listing could be made (also when the kernel has no Bluetooth: there are \
            no hciN adapters then), 2 when it could not.
            """)

    func run() throws {
        let adapters: [LocalAdapter]
        do {
            adapters = try LocalAdapters.list()
        } catch .kernelWithoutBluetooth {
            print("no hciN adapters: \(TransportError.kernelWithoutBluetooth.description)")
            return
        } catch {
            throw UsageError("cannot list adapters: \(error.description)")
        }
        if adapters.isEmpty {
            print("no hciN adapters (the kernel has Bluetooth, but no controller is attached). Controllers on sockets: --adapter tcp:HOST:PORT or unix:PATH")
            return
        }
        for a in adapters {
            print("hci\(a.index)  \(a.address)  \(a.state)")
        }
    }
}
