#!/usr/bin/env python3
"""An independent BLE stack (Google Bumble's host) exchanging dialect messages with a node
that runs as a GATT peripheral of the dialect's binding (`meshconform node`).

Two centrals, A and B, each on its own controller (from ci/bumble-controllers.py):
  1. A scans for the dialect's service UUID in advertising data and finds the node.
  2. B, then A, connect, request ATT_MTU 517, discover the service, subscribe to the packet
     characteristic.
  3. A writes one valid message of the dialect, taken from Vectors/ (relay: a frame for
     another node, TTL 8; blemesh: a broadcast envelope cut into 162-byte chunks; camp: a
     broadcast BLEMessage in the app's key order, not sorted; peat: a relay envelope at hop 0
     of 7 carrying a document).
  4. B must receive the node's relay of it by notification within the timeout: relay, the
     same frame with TTL 7 and the body untouched; blemesh, chunks of the same message id
     that reassemble to the same envelope with the TTL one lower; camp, the very bytes A
     wrote (CAMP-R4); peat, the same envelope byte for byte but its hop, which is 1. A must
     not get it back.
With --node-a X --node-b Y (two nodes linked to each other), A links to node X and B to
node Y, and the message crosses both: --hops 2 is then the TTL (hop) change B must see.
Exit 0 when all holds, 1 with the reason otherwise.
"""
import argparse
import asyncio
import base64
import json
import os
import sys
import uuid

from bumble.device import Device, Peer
from bumble.hci import Address
from bumble.transport import open_transport

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINDINGS = {  # docs/dialects/relay.md section 5, blemesh.md section 4
    "relay": ("4D455348-5245-4C41-5900-000000000001", "4D455348-5245-4C41-5900-000000000002"),
    "blemesh": ("12345678-1234-5678-1234-567812345678", "12345678-1234-5678-1234-567812345679"),
    "camp": ("0001B218-15A8-461F-9FA8-5DCAE273EAFD", "0002C69E-4993-11ED-B878-0242AC120002"),  # camp.md section 4
    "peat": ("F47AC10B-58CC-4372-A567-0E02B2C3D479", "F47AC10B-58CC-4372-A567-0E02B2C30003"),  # peat.md section 5
}
PEAT_HOP = 18  # offset of hop in a peat.relay-envelope (0xB1, flags, message_id[16], hop, max_hops, ...)


def vector(fmt: str, pick) -> bytes:
    with open(os.path.join(ROOT, "Vectors", f"{fmt}.json")) as f:
        for test in json.load(f)["tests"]:
            if test.get("decoded") and pick(test):
                return bytes.fromhex(test["hex"])
    raise SystemExit(f"no suitable vector in Vectors/{fmt}.json")


def relay_frame(packet: bytes):
    """relay.packet type 'F': 0x46, u16 big-endian header length, JSON header, body."""
    if len(packet) < 3 or packet[0] != 0x46:
        return None
    n = int.from_bytes(packet[1:3], "big")
    return json.loads(packet[3:3 + n]), packet[3 + n:]


def chunks(envelope: bytes, message_id: str, piece: int = 162):
    """blemesh.chunk values as the app's ChunkCreator cuts them (canonical JSON key order)."""
    pieces = [envelope[i:i + piece] for i in range(0, len(envelope), piece)]
    out = []
    for i, p in enumerate(pieces):
        flags = (1 if i == 0 else 0) | (2 if i == len(pieces) - 1 else 0)
        out.append(json.dumps({"chunkIndex": i, "flags": flags, "messageID": message_id,
                               "payload": base64.b64encode(p).decode(), "totalChunks": len(pieces)},
                              separators=(",", ":")).encode())
    return out


async def central(name: str, moniker: str, address: str):
    if not moniker.startswith("tcp:"):
        raise SystemExit(f"{moniker}: this peer takes tcp:HOST:PORT controllers")
    transport = await open_transport("tcp-client:" + moniker[4:])
    device = Device.with_hci(name, Address(address), transport.source, transport.sink)
    await device.power_on()
    return transport, device


async def find_node(device: Device, service: str, timeout: float) -> Address:
    wanted = uuid.UUID(service).bytes[::-1]  # 128-bit UUIDs are little-endian on the air
    found = asyncio.get_running_loop().create_future()

    def on_advertisement(adv):
        if wanted in bytes(adv.data) and not found.done():
            found.set_result(adv.address)

    device.on("advertisement", on_advertisement)
    await device.start_scanning()
    try:
        return await asyncio.wait_for(found, timeout)
    finally:
        await device.stop_scanning()


async def open_link(device: Device, node: Address, service: str, characteristic: str, inbox: asyncio.Queue):
    connection = await device.connect(node, timeout=10)
    peer = Peer(connection)
    mtu = await peer.request_mtu(517)
    services = await peer.discover_service(service)
    if not services:
        raise SystemExit(f"{device.name}: the node has no service {service}")
    await services[0].discover_characteristics()
    matches = [c for c in services[0].characteristics if str(c.uuid).upper() == characteristic]
    if not matches:
        raise SystemExit(f"{device.name}: no packet characteristic {characteristic}")
    await peer.subscribe(matches[0], lambda value: inbox.put_nowait(bytes(value)))
    return peer, matches[0], mtu


async def expect(inbox: asyncio.Queue, check, timeout: float):
    """The first value for which check(value) is not None, or None at the timeout."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while (left := end - loop.time()) > 0:
        try:
            value = await asyncio.wait_for(inbox.get(), left)
        except asyncio.TimeoutError:
            return None
        result = check(value)
        if result is not None:
            return result
    return None


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dialect", required=True, choices=sorted(BINDINGS))
    parser.add_argument("--a", required=True, help="controller of central A (tcp:HOST:PORT)")
    parser.add_argument("--b", required=True, help="controller of central B (tcp:HOST:PORT)")
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--node-a", help="address of the node A links to (default: the first advertiser heard)")
    parser.add_argument("--node-b", help="address of the node B links to (default: A's node)")
    parser.add_argument("--hops", type=int, default=1, help="nodes between A and B (each takes one TTL / adds one hop)")
    args = parser.parse_args()
    hops = args.hops
    service, characteristic = BINDINGS[args.dialect]

    ta, a = await central("A", args.a, "C0:00:00:00:00:0A")
    tb, b = await central("B", args.b, "C0:00:00:00:00:0B")
    try:
        node = Address(args.node_a) if args.node_a else await find_node(a, service, args.timeout)
        print(f"found the node at {node} advertising {service}")
        inbox_a, inbox_b = asyncio.Queue(maxsize=1000), asyncio.Queue(maxsize=1000)
        _, _, mtu_b = await open_link(b, Address(args.node_b) if args.node_b else node, service, characteristic, inbox_b)
        peer_a, char_a, mtu_a = await open_link(a, node, service, characteristic, inbox_a)
        print(f"A and B connected and subscribed (ATT_MTU {mtu_a}, {mtu_b})")

        if args.dialect == "relay":
            sent = vector("relay.packet", lambda t: t.get("tcId") == 1)
            header, body = relay_frame(sent)
            await peer_a.write_value(char_a, sent, with_response=True)
            print(f"A wrote a relay frame: {len(sent)} bytes, seq {header['seq']}, TTL {header['ttl']}")

            def relayed(value):
                frame = relay_frame(value)
                if frame and frame[0].get("seq") == header["seq"] and frame[0].get("origin") == header["origin"]:
                    return frame
                return None

            got = await expect(inbox_b, relayed, args.timeout)
            if got is None:
                print("FAIL: B did not receive the relayed frame"); return 1
            if got[0]["ttl"] != header["ttl"] - hops or got[1] != body or got[0]["dest"] != header["dest"]:
                print(f"FAIL: relayed frame differs: header {got[0]}, body equal {got[1] == body}"); return 1
            print(f"B received the relay: TTL {got[0]['ttl']}, body untouched")
            message = header["seq"]
            echo_check = relayed
        elif args.dialect == "camp":
            sent = vector("camp.message", lambda t: t.get("canonical") is False and t["decoded"].get("recipientID") == "broadcast")
            message = json.loads(sent)["id"]
            await peer_a.write_value(char_a, sent, with_response=True)
            print(f"A wrote a broadcast BLEMessage {message}: {len(sent)} bytes, keys in the app's order")

            def same_id(value):
                try:
                    return value if json.loads(value).get("id") == message else None
                except ValueError:
                    return None

            got = await expect(inbox_b, same_id, args.timeout)
            if got is None:
                print("FAIL: B did not receive the relayed message"); return 1
            if got != sent:
                print(f"FAIL: the relay is not the value A wrote, byte for byte: {got[:200]!r}"); return 1
            print(f"B received the relay: {len(got)} bytes, byte for byte")
            echo_check = same_id
        elif args.dialect == "peat":
            sent = vector("peat.relay-envelope", lambda t: t.get("tcId") == 1)
            message = sent[2:18].hex()
            # PEAT-G1: a write request, one value.
            await peer_a.write_value(char_a, sent, with_response=True)
            print(f"A wrote a relay envelope: {len(sent)} bytes, id {message}, hop {sent[PEAT_HOP]} of {sent[PEAT_HOP + 1]}")

            def same_envelope(value):
                # Documents the node writes (link up, every 2 s) are not the message.
                return value if len(value) > PEAT_HOP and value[0] == 0xB1 and value[2:18] == sent[2:18] else None

            got = await expect(inbox_b, same_envelope, args.timeout)
            if got is None:
                print("FAIL: B did not receive the relayed envelope"); return 1
            expected = bytearray(sent)
            expected[PEAT_HOP] += hops
            if got != bytes(expected):
                print(f"FAIL: relayed envelope differs: hop {got[PEAT_HOP]} of {got[PEAT_HOP + 1]}, {len(got)} bytes, "
                      f"the rest {'equal' if got[:PEAT_HOP] + got[PEAT_HOP + 1:] == sent[:PEAT_HOP] + sent[PEAT_HOP + 1:] else 'changed'}"); return 1
            print(f"B received the relay: hop {got[PEAT_HOP]} of {got[PEAT_HOP + 1]}, every other byte as sent")
            echo_check = same_envelope
        else:
            envelope = vector("blemesh.envelope", lambda t: "destinationID" not in t["decoded"] and not t["decoded"].get("isControlMessage"))
            fields = json.loads(envelope)
            message = fields["id"]
            for value in chunks(envelope, message):
                await peer_a.write_value(char_a, value, with_response=True)
            print(f"A wrote a broadcast envelope {message}: {len(envelope)} bytes in {len(chunks(envelope, message))} chunks")
            parts = {}

            def reassembled(value):
                try:
                    c = json.loads(value)
                except ValueError:
                    return None
                if c.get("messageID") != message:
                    return None
                parts[c["chunkIndex"]] = base64.b64decode(c["payload"])
                if len(parts) == c["totalChunks"]:
                    return json.loads(b"".join(parts[i] for i in range(c["totalChunks"])))
                return None

            got = await expect(inbox_b, reassembled, args.timeout)
            if got is None:
                print(f"FAIL: B did not receive the relayed envelope ({len(parts)} chunk(s) seen)"); return 1
            if got.get("id") != message or got.get("ttl") != fields["ttl"] - hops or got.get("payload") != fields["payload"]:
                print(f"FAIL: relayed envelope differs: {json.dumps(got)[:300]}"); return 1
            print(f"B received the relay: envelope {message}, TTL {got['ttl']}, hop path {len(got.get('hopPath', []))}")

            def echo_check(value):
                try:
                    return json.loads(value) if json.loads(value).get("messageID") == message else None
                except ValueError:
                    return None

        if await expect(inbox_a, echo_check, 0.5) is not None:
            print(f"FAIL: the node sent message {message} back to A, the link it came from"); return 1
        print("PASS: relayed to B, not back to A")
        return 0
    finally:
        for t in (ta, tb):
            await t.close()


if __name__ == "__main__":
    try:
        sys.exit(asyncio.run(asyncio.wait_for(main(), 60)))
    except asyncio.TimeoutError:
        print("FAIL: the exchange did not finish within 60 s"); sys.exit(1)
