#!/usr/bin/env python3
"""Starts N virtual BLE controllers (Google Bumble) that hear each other over one shared
link, each reachable by an outside host as HCI H4 over TCP on a free loopback port.

Prints one line per controller, then a READY line listing the adapter monikers:

    controller 0 tcp:127.0.0.1:41234 extended
    controller 1 tcp:127.0.0.1:41235 extended
    READY tcp:127.0.0.1:41234 tcp:127.0.0.1:41235

and serves until SIGTERM / SIGINT (or, with --exit-on-stdin-close, until stdin closes).
Use a fresh process per test: HCI_Reset does not reset Bumble's controller state.
"""
import argparse
import asyncio
import signal
import socket
import sys

from bumble import hci
from bumble.controller import Controller
from bumble.link import LocalLink
from bumble.transport.tcp_server import open_tcp_server_transport_with_socket


def listening_socket(host: str) -> socket.socket:
    # IPPROTO_TCP explicitly: asyncio only turns TCP_NODELAY on for sockets whose proto is
    # IPPROTO_TCP, and the accepted socket inherits it. Without it every exchange stalls ~40 ms.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))  # port 0: the kernel picks a free one, so parallel runs never collide
    sock.listen(1)
    sock.setblocking(False)
    return sock


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--count", type=int, default=2, help="number of controllers (1-16)")
    parser.add_argument("--legacy", default="", metavar="I,J|all",
                        help="controllers (indices, or 'all') without the LE Extended Advertising feature: "
                             "they send legacy advertising reports (sub-event 0x02) only")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--exit-on-stdin-close", action="store_true")
    args = parser.parse_args()
    if not 1 <= args.count <= 16:
        parser.error("--count must be 1 to 16")
    legacy = set(range(args.count)) if args.legacy == "all" else {int(i) for i in args.legacy.split(",") if i}
    if any(i >= args.count for i in legacy):
        parser.error("--legacy index out of range")

    link = LocalLink()
    transports = []
    monikers = []
    for i in range(args.count):
        sock = listening_socket(args.host)
        port = sock.getsockname()[1]
        transport = await open_tcp_server_transport_with_socket(sock)
        controller = Controller(f"C{i}", host_source=transport.source, host_sink=transport.sink, link=link,
                                public_address=f"F0:F1:F2:F3:F4:{i:02X}")
        kind = "extended"
        if i in legacy:
            controller.le_features = controller.le_features & ~hci.LeFeatureMask.LE_EXTENDED_ADVERTISING
            kind = "legacy"
        transports.append(transport)
        moniker = f"tcp:{args.host}:{port}"
        monikers.append(moniker)
        print(f"controller {i} {moniker} {kind}", flush=True)
    print("READY " + " ".join(monikers), flush=True)

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    if args.exit_on_stdin_close:
        loop.add_reader(sys.stdin.fileno(), lambda: (sys.stdin.buffer.read1(4096) or stop.set()) and None)
    await stop.wait()
    for transport in transports:
        await transport.close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
