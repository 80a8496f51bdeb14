#!/usr/bin/env python3
"""An independent mesh node on Google Bumble, for testing meshconform over the air.

A dual-role GATT node of the bitchat or blemesh dialect, written from docs/dialects/bitchat.md
and docs/dialects/blemesh.md (not from meshconform's Swift code). It behaves like the phone
apps: advertises the dialect's service and scans for it, connects out to every node it hears,
announces itself on every new link, keeps its state (de-duplication caches, sequence numbers,
routes) for its whole life, and has its own identity and its own relay jitter.

    dut.py --dialect bitchat --adapter tcp:127.0.0.1:7003 [--seed N] [--bug NAME]

Planted bugs (--bug, real apps' bugs, docs: README.md next to this file):
    no-dedup         forgets nothing: every copy is delivered and relayed again (SwiftMeshRelay
                     has no de-duplication cache)
    relay-to-sender  relays back on the link the packet came by too (Robot Heart compares a BLE
                     peer id with a user id, so its sender exclusion never matches)
    flood-fragments  bitchat only: fragment packets skip de-duplication (the bitchat app)
    no-reack         blemesh only: a duplicate addressed to the node is not acked again (the
                     BLEMesh app)
"""
from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import signal
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bitchat  # noqa: E402
import blemesh  # noqa: E402
from bumble.gatt import Characteristic  # noqa: E402
from radio import Binding, Radio  # noqa: E402

BUGS = {"bitchat": ("no-dedup", "relay-to-sender", "flood-fragments"),
        "blemesh": ("no-dedup", "relay-to-sender", "no-reack")}


class Host:
    """What a node may ask of the world: the clock, a timer, its links, sending."""

    def __init__(self, radio: Radio, clock_start: float | None):
        self.radio = radio
        self.loop = asyncio.get_running_loop()
        self.origin = (time.time() if clock_start is None else clock_start) - self.loop.time()

    def now(self) -> float:
        return self.loop.time()

    def now_unix(self) -> float:
        return self.origin + self.loop.time()

    def now_ms(self) -> int:
        return int(self.now_unix() * 1000)

    def schedule(self, delay: float, action):
        self.loop.call_later(delay, action)

    def links(self) -> list[int]:
        return self.radio.up_links()

    def mtu(self, link: int) -> int:
        return self.radio.mtu(link)

    def send(self, link: int, value: bytes):
        self.radio.send(link, value)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dialect", required=True, choices=sorted(BUGS))
    parser.add_argument("--adapter", required=True, help="HCI controller, tcp:HOST:PORT")
    parser.add_argument("--address", help="BLE random static address (default: from the seed)")
    parser.add_argument("--seed", type=int, help="identity and jitter from this seed (default: random)")
    parser.add_argument("--name", default="bumble-dut", help="nickname / device name")
    parser.add_argument("--bug", action="append", default=[], metavar="NAME", help="plant a bug (see above)")
    parser.add_argument("--announce-every", type=float, default=30.0, metavar="S",
                        help="announce on every link every S seconds (0: only when a link comes up)")
    parser.add_argument("--advertising-interval", type=float, default=20.0, metavar="MS")
    parser.add_argument("--clock-start", type=float, metavar="UNIX_S",
                        help="the node's clock reads this at start (default: the system clock); phones' clocks differ")
    parser.add_argument("--peripheral-only", action="store_true", help="never scan or connect out")
    parser.add_argument("--duration", type=float, default=0, metavar="S", help="stop after S seconds (0: run until killed)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log links, refusals, duplicates")
    args = parser.parse_args()
    for bug in args.bug:
        if bug not in BUGS[args.dialect]:
            parser.error(f"--bug {bug}: {args.dialect} has {', '.join(BUGS[args.dialect])}")
    return args


async def main() -> int:
    args = parse_args()
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s.%(msecs)03d %(message)s", datefmt="%H:%M:%S", stream=sys.stdout)
    logging.getLogger("bumble").setLevel(logging.WARNING)
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(8), "big")
    rng = random.Random(seed)
    address = args.address or "C%X:%s" % (rng.getrandbits(4) | 0x0, ":".join(f"{rng.getrandbits(8):02X}" for _ in range(5)))
    bugs = set(args.bug)
    properties = (Characteristic.Properties.READ | Characteristic.Properties.WRITE
                  | Characteristic.Properties.WRITE_WITHOUT_RESPONSE | Characteristic.Properties.NOTIFY)
    if args.dialect == "bitchat":
        binding = Binding(bitchat.SERVICE, bitchat.CHARACTERISTIC, properties, write_with_response=False)
        identity = None
    else:
        device_id = str(uuid.UUID(int=rng.getrandbits(128), version=4)).upper()
        binding = Binding(blemesh.SERVICE, blemesh.MESSAGE_CHARACTERISTIC, properties, write_with_response=False,
                          id_characteristic=blemesh.DEVICE_ID_CHARACTERISTIC, local_name="BLEMesh-" + args.name[:10])
        identity = device_id.encode()
    radio = Radio(args.adapter, address, binding, identity, args.advertising_interval, not args.peripheral_only)
    host = Host(radio, args.clock_start)
    if args.dialect == "bitchat":
        node = bitchat.Node(host, rng.getrandbits(64).to_bytes(8, "big"), args.name, rng, bugs, args.announce_every)
    else:
        node = blemesh.Node(host, device_id, args.name, rng, bugs, args.announce_every)
    radio.node = node
    await radio.start()
    node.start()
    print(f"node {args.dialect} {address} {node.describe()}"
          f"{' bugs ' + ','.join(sorted(bugs)) if bugs else ''}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    if args.duration > 0:
        loop.call_later(args.duration, stop.set)
    await stop.wait()
    await radio.stop()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
