#!/usr/bin/env python3
"""Starts N virtual BLE controllers (Google Bumble) that hear each other over one shared
link, each reachable by an outside host as HCI H4 over TCP on a free loopback port.

Prints one line per controller, then a READY line listing the adapter monikers:

    controller 0 tcp:127.0.0.1:41234 extended
    controller 1 tcp:127.0.0.1:41235 extended
    READY tcp:127.0.0.1:41234 tcp:127.0.0.1:41235

and serves until SIGTERM / SIGINT (or, with --exit-on-stdin-close, until stdin closes).
Use a fresh process per test: HCI_Reset does not reset Bumble's controller state.

Several links between the same two controllers: Bumble's LocalLink (0.0.236) keeps a
controller's LE connections by peer address and sends every ACL packet from the controller's
current random address, so a second link between two controllers (a tester with several
identities, one per advertising set or per own address) replaces or steals the first one's
traffic. A real link layer tells links apart by their access address. By default this script
keys each link by its (own address, peer address) pair and routes ACL and LL control PDUs by
that pair, refuses a second link with the same pair (Connection Already Exists, 0x0B, as a
real controller does), and ends a cancelled connection attempt with LE Connection Complete
status 0x02 (Vol 4 Part E 7.8.13; Bumble keeps trying). --stock-link runs Bumble unmodified.
"""
import argparse
import asyncio
import signal
import socket
import sys

from bumble import hci
from bumble import controller as bumble_controller
from bumble.controller import Controller
from bumble.core import InvalidArgumentError, PhysicalTransport
from bumble.link import LocalLink
from bumble.transport.tcp_server import open_tcp_server_transport_with_socket


class PairLink(LocalLink):
    """A LocalLink whose LE links are named by (own address, peer address), as PairController keeps them."""

    def holder(self, key):
        return next((c for c in self.controllers if key in c.le_connections), None)

    def send_le_acl(self, connection, data: bytes) -> None:
        key = (connection.peer_address, connection.self_address)   # the other end's name for this link
        if (other := self.holder(key)) is not None:
            asyncio.get_running_loop().call_soon(lambda: other.on_link_acl_data(key, PhysicalTransport.LE, data))

    def send_ll_control_pdu(self, sender_address, receiver_address, packet) -> None:
        key = (receiver_address, sender_address)
        if (other := self.holder(key)) is None:
            raise InvalidArgumentError(f"no link {sender_address} -> {receiver_address}")
        asyncio.get_running_loop().call_soon(lambda: other.on_ll_control_pdu(key, packet))


class PairController(Controller):
    """Bumble's controller with its LE links keyed by (own address, peer address): Bumble's own
    lookups by 'sender address' receive that pair from PairLink, so they find the right link."""

    def _rekey(self) -> None:
        for key in [k for k in self.le_connections if isinstance(k, hci.Address)]:
            c = self.le_connections.pop(key)
            self.le_connections[(c.self_address, c.peer_address)] = c

    def on_le_connect_ind(self, packet) -> None:
        super().on_le_connect_ind(packet)
        self._rekey()

    def create_le_connection(self, peer_address) -> None:
        super().create_le_connection(peer_address)
        self._rekey()

    def on_le_disconnected(self, connection, reason: int) -> None:
        self.send_hci_packet(hci.HCI_Disconnection_Complete_Event(
            status=hci.HCI_ErrorCode.SUCCESS, connection_handle=connection.handle, reason=reason))
        self.le_connections.pop((connection.self_address, connection.peer_address), None)

    def _already_connected(self, command) -> bool:
        own = self.public_address if command.own_address_type == hci.OwnAddressType.PUBLIC else self.random_address
        if (own, command.peer_address) in self.le_connections and not self.pending_le_connection:
            self._send_hci_command_status(hci.HCI_ErrorCode.CONNECTION_ALREADY_EXISTS_ERROR, command.op_code)
            return True
        return False

    def on_hci_le_create_connection_command(self, command):
        if not self._already_connected(command):
            return super().on_hci_le_create_connection_command(command)

    def on_hci_le_extended_create_connection_command(self, command):
        if not self._already_connected(command):
            return super().on_hci_le_extended_create_connection_command(command)

    def on_hci_le_create_connection_cancel_command(self, command):
        pending = self.pending_le_connection
        if pending is None:
            return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.COMMAND_DISALLOWED_ERROR)
        self.pending_le_connection = None
        # After the Command Complete: the attempt's end, status Unknown Connection Identifier.
        asyncio.get_running_loop().call_soon(lambda: self.send_hci_packet(hci.HCI_LE_Connection_Complete_Event(
            status=hci.HCI_ErrorCode.UNKNOWN_CONNECTION_IDENTIFIER_ERROR, connection_handle=0, role=hci.Role.CENTRAL,
            peer_address_type=pending.peer_address.address_type, peer_address=pending.peer_address,
            connection_interval=0, peripheral_latency=0, supervision_timeout=0, central_clock_accuracy=0)))
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)


def _pair_acl(connection, pdu: bytes) -> None:
    if isinstance(connection.link, PairLink) and connection.transport == PhysicalTransport.LE:
        connection.link.send_le_acl(connection, pdu)
    else:
        _stock_acl(connection, pdu)


_stock_acl = bumble_controller.Connection.on_acl_pdu


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
    parser.add_argument("--stock-link", action="store_true",
                        help="Bumble's own LocalLink: one LE link per pair of controllers (see above)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--exit-on-stdin-close", action="store_true")
    args = parser.parse_args()
    if not 1 <= args.count <= 16:
        parser.error("--count must be 1 to 16")
    legacy = set(range(args.count)) if args.legacy == "all" else {int(i) for i in args.legacy.split(",") if i}
    if any(i >= args.count for i in legacy):
        parser.error("--legacy index out of range")

    if args.stock_link:
        link, controller_class = LocalLink(), Controller
    else:
        bumble_controller.Connection.on_acl_pdu = _pair_acl
        link, controller_class = PairLink(), PairController
    transports = []
    monikers = []
    for i in range(args.count):
        sock = listening_socket(args.host)
        port = sock.getsockname()[1]
        transport = await open_tcp_server_transport_with_socket(sock)
        controller = controller_class(f"C{i}", host_source=transport.source, host_sink=transport.sink, link=link,
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
