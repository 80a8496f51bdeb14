"""The BLE layer of the example DUT: one Bumble host that is a GATT peripheral and a GATT
central of a dialect's binding at the same time, as the phone apps are.

- Peripheral: serves the binding's service, advertises it (connectable, restarted after every
  connection so more peers can connect), accepts writes (write request, long write, write
  command) and sends by notification to subscribed centrals.
- Central: scans for the same service and connects to every advertiser it is not linked to
  yet, requests ATT_MTU 517, discovers the service, subscribes, and sends by writing.

A *link* is one neighbour, keyed by its BLE address: when a neighbour is connected both ways
(it connected to us while we connected to it), both connections carry its bytes in, and bytes
out go by one of them only, so the neighbour never gets a packet twice. The mesh logic above
(bitchat.py, blemesh.py) sees link_up / link_down / receive and calls send; it never touches
Bumble.
"""
from __future__ import annotations

import asyncio
import itertools
import logging
import uuid
from dataclasses import dataclass, field

from bumble import hci
from bumble.core import AdvertisingData
from bumble.device import Connection, Device, Peer
from bumble.gatt import Characteristic, CharacteristicValue, Service
from bumble.transport import open_transport

log = logging.getLogger("bumble-dut")


@dataclass
class Binding:
    """A dialect's GATT binding (docs/dialects/<dialect>.md, GATT section)."""
    service: str
    packet: str
    properties: Characteristic.Properties
    write_with_response: bool          # how the central writes a value that fits ATT_MTU - 3
    id_characteristic: str | None = None
    local_name: str | None = None


@dataclass
class Path:
    """One LE connection to a neighbour, in one role."""
    connection: Connection
    central: bool                       # we are the central of this connection
    peer: Peer | None = None            # GATT client, when we are central
    packet: object = None               # the neighbour's packet characteristic (central)
    subscribed: bool = False            # the neighbour subscribed to us (peripheral)
    outbox: asyncio.Queue | None = None # values waiting to go out on this connection, in order
    worker: asyncio.Task | None = None

    @property
    def ready(self) -> bool:
        return self.packet is not None if self.central else self.subscribed


@dataclass
class Link:
    number: int
    address: str
    paths: list[Path] = field(default_factory=list)
    up: bool = False

    def outgoing(self) -> Path | None:
        ready = [p for p in self.paths if p.ready]
        # Prefer our own write into the neighbour's characteristic: it needs no subscription.
        ready.sort(key=lambda p: not p.central)
        return ready[0] if ready else None

    def mtu(self) -> int:
        path = self.outgoing()
        return path.connection.att_mtu if path else 23


class Radio:
    def __init__(self, moniker: str, address: str, binding: Binding, id_value: bytes | None,
                 advertising_interval_ms: float, connect_out: bool):
        if not moniker.startswith("tcp:"):
            raise SystemExit(f"--adapter {moniker}: this example takes a tcp:HOST:PORT controller "
                             "(ci/bumble-controllers.py prints them)")
        self.moniker, self.address, self.binding = moniker, address, binding
        self.id_value = id_value
        self.interval = advertising_interval_ms
        self.connect_out = connect_out
        self.node = None                # set by the caller: link_up(n), link_down(n), receive(n, bytes)
        self.links: dict[str, Link] = {}
        self.numbers = itertools.count(1)
        self.connecting: set[str] = set()
        self.retry_after: dict[str, float] = {}
        self.connect_lock = asyncio.Lock()
        self.tasks: set[asyncio.Task] = set()

    # -- start ---------------------------------------------------------------------------------
    async def start(self):
        self.transport = await open_transport("tcp-client:" + self.moniker[4:])
        self.device = Device.with_hci("bumble-dut", hci.Address(self.address), self.transport.source,
                                      self.transport.sink)
        self.packet = Characteristic(
            self.binding.packet, self.binding.properties,
            Characteristic.READABLE | Characteristic.WRITEABLE,
            CharacteristicValue(read=lambda _c: b"", write=self._on_write))
        self.packet.on("subscription", self._on_subscription)
        characteristics = [self.packet]
        if self.binding.id_characteristic:
            characteristics.append(Characteristic(self.binding.id_characteristic, Characteristic.READ,
                                                  Characteristic.READABLE, self.id_value))
        self.device.add_service(Service(self.binding.service, characteristics))
        self.device.on("connection", self._on_connection)
        self.device.on("advertisement", self._on_advertisement)
        await self.device.power_on()
        await self._advertise()
        if self.connect_out:
            await self.device.start_scanning(filter_duplicates=False)

    async def stop(self):
        for task in list(self.tasks):
            task.cancel()
        await self.transport.close()

    def _spawn(self, coroutine):
        task = asyncio.get_running_loop().create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def _advertise(self):
        service = uuid.UUID(self.binding.service).bytes[::-1]  # 128-bit UUIDs are little-endian on the air
        fields = [(AdvertisingData.FLAGS, bytes([0x06])),
                  (AdvertisingData.COMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS, service)]
        if self.binding.local_name:
            fields.append((AdvertisingData.COMPLETE_LOCAL_NAME, self.binding.local_name.encode()))
        try:
            await self.device.start_advertising(advertising_data=bytes(AdvertisingData(fields)),
                                                advertising_interval_min=self.interval,
                                                advertising_interval_max=self.interval)
        except Exception as error:  # a controller that cannot advertise while connected
            log.info("advertising not restarted: %s", error)

    # -- connections -----------------------------------------------------------------------------
    def _link_for(self, address: str) -> Link:
        link = self.links.get(address)
        if link is None:
            link = self.links[address] = Link(next(self.numbers), address)
        return link

    def _on_connection(self, connection: Connection):
        address = str(connection.peer_address).split("/")[0]
        central = connection.role == hci.Role.CENTRAL
        path = Path(connection, central)
        link = self._link_for(address)
        link.paths.append(path)
        log.info("connection %s %s (%s)", "to" if central else "from", address, f"link {link.number}")
        connection.on("disconnection", lambda reason: self._on_disconnection(link, path, reason))
        if central:
            self._spawn(self._setup_central(connection, link, path))
        else:
            # A connection ends connectable advertising: start it again for the next neighbour.
            self._spawn(self._advertise())

    def _on_disconnection(self, link: Link, path: Path, reason):
        if path in link.paths:
            link.paths.remove(path)
        if path.worker:
            path.worker.cancel()
        log.info("disconnection from %s (link %d, reason %s)", link.address, link.number, reason)
        self._update(link)
        if not link.paths:
            self.links.pop(link.address, None)
        self.retry_after[link.address] = asyncio.get_running_loop().time() + 0.5

    def _on_subscription(self, connection, notify: bool, _indicate: bool):
        path = self._path_of(connection)
        if path:
            path.subscribed = notify
            self._update(self._link_of(connection))

    def _on_write(self, connection, value):
        link = self._link_of(connection)
        if link is None:
            return
        if not link.up:
            # A central that writes before subscribing: its link is up (for receiving) now.
            path = self._path_of(connection)
            if path and not path.central:
                link.up = True
                self.node.link_up(link.number)
        self.node.receive(link.number, bytes(value))

    def _path_of(self, connection) -> Path | None:
        connection = getattr(connection, "connection", connection)  # an EATT bearer's connection
        for link in self.links.values():
            for path in link.paths:
                if path.connection is connection:
                    return path
        return None

    def _link_of(self, connection) -> Link | None:
        connection = getattr(connection, "connection", connection)
        for link in self.links.values():
            if any(p.connection is connection for p in link.paths):
                return link
        return None

    def _update(self, link: Link):
        """Raises link_up / link_down when the neighbour becomes reachable or unreachable."""
        reachable = any(p.ready for p in link.paths) or (link.up and bool(link.paths))
        if reachable and not link.up:
            link.up = True
            self.node.link_up(link.number)
        elif not link.paths and link.up:
            link.up = False
            self.node.link_down(link.number)

    # -- central role ----------------------------------------------------------------------------
    def _on_advertisement(self, advertisement):
        address = str(advertisement.address).split("/")[0]
        if not advertisement.is_connectable or address in self.links or address in self.connecting:
            return
        service = uuid.UUID(self.binding.service).bytes[::-1]
        if service not in bytes(advertisement.data):
            return
        if asyncio.get_running_loop().time() < self.retry_after.get(address, 0):
            return
        self.connecting.add(address)
        self._spawn(self._connect(advertisement.address, address))

    async def _connect(self, target, address: str):
        try:
            async with self.connect_lock:  # Bumble allows one pending LE connection at a time
                if address not in self.links:
                    await self._connect_as_central(target, address)
        except Exception as error:
            log.info("connection to %s failed: %r", address, error)
            self.retry_after[address] = asyncio.get_running_loop().time() + 1.0
        finally:
            self.connecting.discard(address)

    async def _connect_as_central(self, target, address: str):
        # Bumble's Device.connect resolves with the first connection of any kind (a neighbour
        # connecting to us meanwhile is taken for ours) and then forgets the own address type
        # that our own connection, completing later, needs: keep it, and wait for our own.
        ours = asyncio.get_running_loop().create_future()

        def on_connection(connection):
            if (connection.role == hci.Role.CENTRAL and not ours.done()
                    and str(connection.peer_address).split("/")[0] == address):
                ours.set_result(connection)

        self.device.on("connection", on_connection)
        try:
            try:
                await self.device.connect(target, timeout=5)
            finally:
                self.device.connect_own_address_type = hci.OwnAddressType.RANDOM
            await asyncio.wait_for(ours, 5)
        finally:
            self.device.remove_listener("connection", on_connection)

    async def _setup_central(self, connection: Connection, link: Link, path: Path):
        """GATT as the central of a connection: MTU, discovery, the neighbour's id, subscription."""
        try:
            peer = Peer(connection)
            await asyncio.wait_for(peer.request_mtu(517), 5)
            services = await asyncio.wait_for(peer.discover_service(self.binding.service), 5)
            if not services:
                raise RuntimeError("no mesh service")
            await asyncio.wait_for(services[0].discover_characteristics(), 5)
            by_uuid = {uuid.UUID(str(c.uuid)): c for c in services[0].characteristics}
            packet = by_uuid.get(uuid.UUID(self.binding.packet))
            if packet is None:
                raise RuntimeError("no packet characteristic")
            identity = self.binding.id_characteristic and by_uuid.get(uuid.UUID(self.binding.id_characteristic))
            if identity and hasattr(self.node, "neighbour_id"):
                try:
                    self.node.neighbour_id(link.number, bytes(await asyncio.wait_for(identity.read_value(), 5)))
                except Exception as error:
                    log.info("%s: device id not read: %r", link.address, error)
            await asyncio.wait_for(peer.subscribe(packet, lambda value: self._on_notification(connection, value)), 5)
            if path in link.paths:
                path.peer, path.packet = peer, packet
                self._update(link)
        except Exception as error:
            log.info("GATT setup with %s failed: %r", link.address, error)
            self.retry_after[link.address] = asyncio.get_running_loop().time() + 1.0
            if path in link.paths:
                self._spawn(connection.disconnect())

    def _on_notification(self, connection, value):
        link = self._link_of(connection)
        if link is not None:
            self.node.receive(link.number, bytes(value))

    # -- sending ---------------------------------------------------------------------------------
    def mtu(self, number: int) -> int:
        link = self._by_number(number)
        return link.mtu() if link else 23

    def degree(self) -> int:
        return sum(1 for link in self.links.values() if link.up)

    def up_links(self) -> list[int]:
        return [link.number for link in self.links.values() if link.up]

    def _by_number(self, number: int) -> Link | None:
        return next((link for link in self.links.values() if link.number == number), None)

    def send(self, number: int, value: bytes):
        link = self._by_number(number)
        path = link.outgoing() if link else None
        if path is None:
            log.info("link %d: nothing sent (not connected or not subscribed)", number)
            return
        if not path.central and len(value) > path.connection.att_mtu - 3:
            log.info("link %d: %d bytes do not fit ATT_MTU %d: not notified", number, len(value), path.connection.att_mtu)
            return
        # One queue per connection keeps a link's values in the order they were sent
        # (blemesh chunks go out in index order).
        if path.outbox is None:
            path.outbox = asyncio.Queue(maxsize=4096)
            path.worker = self._spawn(self._drain(path))
        if path.outbox.full():
            log.info("link %d: outbox full, value dropped", number)
            return
        path.outbox.put_nowait(value)

    async def _drain(self, path: Path):
        while True:
            value = await path.outbox.get()
            try:
                if path.central:
                    with_response = self.binding.write_with_response or len(value) > path.connection.att_mtu - 3
                    await asyncio.wait_for(path.peer.write_value(path.packet, value, with_response=with_response), 5)
                else:
                    await self.device.notify_subscriber(path.connection, self.packet, value)
            except Exception as error:
                log.info("send to %s failed: %s", path.connection.peer_address, error)
