#!/usr/bin/env python3
"""Golden vectors of the camp dialect (Robot Heart, designdream/robot-heart-ios).

Writes Vectors/camp.message.json, camp.protocol.json, camp.delivery-confirmation.json. JSON text
is written by common.fjson (Foundation's JSONEncoder emulation, .sortedKeys for the canonical
form, declaration order for what the app's plain JSONEncoder writes); nothing comes from the
Swift codecs. Deterministic: fixed ids and timestamps.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import I, Obj, REF_2025_05_03, Raw, V, b64, fjson, hexs, uid, write_file  # noqa: E402

APP = ("designdream/robot-heart-ios: RobotHeart/Services/BLEMeshManager.swift (BLEMessage, MessageType, encode / "
       "decode with plain JSONEncoder / JSONDecoder), RobotHeart/Services/CampNetworkManager.swift "
       "(CampProtocolMessage, CampAnnouncement, ResourceRequest, EventBroadcast; carried as the content string of a "
       "campAnnouncement BLEMessage), RobotHeart/Services/MessageQueueManager.swift (delivery confirmation, retry)")
INDEPENDENT = ("Valid bytes written by Vectors/generators/camp.py with generators/common.py's emulation of Foundation's "
               "JSONEncoder (dates as Double seconds since 2001-01-01, optionals absent when nil; .sortedKeys for "
               "canonical vectors, declaration order for the app's own output), independent of the Swift codecs. "
               "Types and field names from ")

T = float(REF_2025_05_03)          # 2025-05-03T00:00:00Z as seconds since 2001
MSG_ID, ORIG_ID, CAMP_ID = uid(0xA1), uid(0xB2), uid(0xC3)
SENDER, RECIPIENT = "user-7F3A", "user-19C2"


def message(kind="text", content="see you at the temple", recipient="broadcast", mid=MSG_ID, sender=SENDER,
            name="Ranger Dan", ts=T, lat=None, lon=None, drop=None, **extra):
    d = {"id": mid, "senderID": sender, "senderName": name, "recipientID": recipient, "messageType": kind,
         "content": content, "timestamp": ts}
    if lat is not None:
        d["locationLat"] = lat
    if lon is not None:
        d["locationLon"] = lon
    d.update(extra)
    if drop:
        del d[drop]
    return d


def declaration_order(d):
    order = ["id", "senderID", "senderName", "recipientID", "messageType", "content", "timestamp", "locationLat", "locationLon"]
    return Obj(*[(k, d[k]) for k in order if k in d])


def protocol(kind="announce", payload=None, version=1, camp=CAMP_ID, sender=SENDER, ts=T, drop=None):
    d = {"version": version, "type": kind, "campID": camp, "senderID": sender, "timestamp": ts}
    if payload is not None:
        d["payload"] = b64(payload) if isinstance(payload, bytes) else payload
    if drop:
        del d[drop]
    return d


ANNOUNCE = {"campID": CAMP_ID, "name": "Robot Heart", "location": "4:30 & Esplanade", "memberCount": 42}
RESOURCE = {"id": uid(0xD4), "campID": CAMP_ID, "campName": "Robot Heart", "resourceType": "water",
            "description": "need 20 gallons", "timestamp": T}
EVENT = {"id": uid(0xE5), "campID": CAMP_ID, "campName": "Robot Heart", "title": "Sunrise set",
         "description": "bus at the temple", "time": T + 3600, "location": "Temple"}


def protocol_n(kind="announce", payload=None, inner=None, ts=T):
    d = {"version": 1, "type": kind, "campID": CAMP_ID, "senderID": SENDER, "timestamp": ts}
    if payload is not None:
        d["payload"] = hexs(payload)
    if inner is not None:
        d["message"] = inner
    return d


def camp_protocol():
    notes = {
        "Carriage": "the app sends this JSON only as the content string of a campAnnouncement BLEMessage (camp.message)",
        "Inner": "payload is base64 of an inner JSON message (CampAnnouncement, ResourceRequest, EventBroadcast); chat and emergency payloads are free bytes",
        "DeclarationOrder": "keys in declaration order, as the app's plain JSONEncoder writes them: valid, not canonical",
        "Dates": "timestamp is a Double of seconds since 2001-01-01 (the project's protocol doc wrongly says ISO-8601)",
        "AppBug": "Robot Heart's decoder accepts it (CampProtocolMessage takes any UInt8 version, any campID string and an optional opaque payload: RobotHeart/Services/CampNetworkManager.swift:402-408@09bc23c4); a conforming decoder refuses it (camp.md section 6 row 7)",
    }
    ann = fjson(ANNOUNCE)
    t = []
    t.append(V("announce with a CampAnnouncement payload", fjson(protocol(payload=ann)), protocol_n(payload=ann, inner=ANNOUNCE),
               flags=["Inner", "Carriage"]))
    t.append(V("ping: no payload key at all", fjson(protocol("ping")), protocol_n("ping")))
    res, ev = fjson(RESOURCE), fjson(EVENT)
    t.append(V("resource request", fjson(protocol("resource", res)), protocol_n("resource", res, RESOURCE), flags=["Inner"]))
    t.append(V("event broadcast", fjson(protocol("event", ev)), protocol_n("event", ev, EVENT), flags=["Inner"]))
    t.append(V("chat: payload is free text", fjson(protocol("chat", b"hello camps")), protocol_n("chat", b"hello camps"),
               flags=["Inner"]))
    t.append(V("emergency: payload is free bytes", fjson(protocol("emergency", b"\x00\xff")), protocol_n("emergency", b"\x00\xff"),
               flags=["Inner"]))
    ann2 = fjson(dict(ANNOUNCE, description="art car camp"))
    t.append(V("announcement with its optional description", fjson(protocol(payload=ann2)),
               protocol_n(payload=ann2, inner=dict(ANNOUNCE, description="art car camp")), flags=["Inner"]))
    d = protocol(payload=ann)
    t.append(V("declaration order version,type,campID,senderID,timestamp,payload",
               fjson(Obj(*[(k, d[k]) for k in ["version", "type", "campID", "senderID", "timestamp", "payload"]])),
               protocol_n(payload=ann, inner=ANNOUNCE), canonical=False, flags=["DeclarationOrder", "Inner"]))
    t.append(V("fractional timestamp", fjson(protocol("ping", ts=T + 0.25)), protocol_n("ping", ts=T + 0.25), flags=["Dates"]))
    t.append(I("empty input", b"", "truncated"))
    t.append(I("version 2", fjson(protocol("ping", version=2)), "valueOutOfRange", flags=["AppBug"]))
    t.append(I("type \"discoveryPing\" (the Swift case name, not its raw value)", fjson(protocol("discoveryPing")), "unknownType"))
    t.append(I("campID not a UUID", fjson(protocol("ping", camp="robot-heart")), "badUUID", flags=["AppBug"]))
    t.append(I("timestamp as ISO-8601 text (what the protocol doc claims)", fjson(protocol("ping", ts="2025-05-03T00:00:00Z")),
               "wrongType", flags=["Dates"]))
    t.append(I("announce without its payload", fjson(protocol("announce")), "missingField", flags=["AppBug"]))
    t.append(I("payload not base64", fjson(protocol(payload="not base64!")), "badBase64", flags=["Inner"]))
    t.append(I("announcement payload without memberCount", fjson(protocol(payload=fjson({k: v for k, v in ANNOUNCE.items()
                                                                                        if k != "memberCount"}))),
               "missingField", flags=["Inner", "AppBug"]))
    t.append(I("announcement payload that is not JSON", fjson(protocol(payload=b"camp!")), "badJSON", flags=["Inner", "AppBug"]))
    t.append(I("ping with a payload", fjson(protocol("ping", b"{}")), "trailingBytes", flags=["AppBug"]))
    t.append(I("senderID missing", fjson(protocol("ping", drop="senderID")), "missingField"))
    return write_file("camp.protocol", "camp", INDEPENDENT + APP, notes, t)


def camp_message():
    notes = {
        "Carriage": "a campAnnouncement carries a camp.protocol JSON text as its content string; the inner text is checked with camp.protocol's rules and codes",
        "DeclarationOrder": "keys in declaration order, as the app's plain JSONEncoder writes them: valid, not canonical",
        "Location": "locationLat / locationLon: optional Doubles, absent when nil, both or neither, within -90...90 / -180...180",
        "Size": "one GATT write: at most 512 bytes (the app does not chunk)",
        "AppBug": "Robot Heart's decoder accepts it (BLEMessage's fields are plain Strings and optional Doubles, with no size bound: RobotHeart/Services/BLEMeshManager.swift:499-508@09bc23c4); a conforming decoder refuses it (camp.md section 6 rows 6 and 8)",
    }
    inner = fjson(protocol(payload=fjson(ANNOUNCE))).decode()
    t = []
    m = message()
    t.append(V("broadcast text message", fjson(m), m))
    t.append(V("the same in declaration order (the app's plain JSONEncoder)", fjson(declaration_order(m)), m, canonical=False,
               flags=["DeclarationOrder"]))
    m = message(recipient=RECIPIENT, content="meet at 3")
    t.append(V("directed text message", fjson(m), m))
    m = message("location", "", lat=40.7864, lon=-119.2065)
    t.append(V("location message with both coordinates", fjson(m), m, flags=["Location"]))
    m = message("emergency", "medic to 4:30", lat=-90.0, lon=180.0)
    t.append(V("emergency at the coordinate limits", fjson(m), m, flags=["Location"]))
    m = message("deliveryConfirmation", ORIG_ID, recipient=RECIPIENT)
    t.append(V("delivery confirmation: content is the confirmed id", fjson(m), m))
    m = message("campAnnouncement", inner)
    t.append(V("camp announcement carrying a CampProtocolMessage as a JSON string", fjson(m), m, flags=["Carriage"]))
    m = message(content="", ts=T + 0.5, name="")
    t.append(V("empty content and sender name, fractional timestamp", fjson(m), m))
    m = message(content="x" * 280)
    t.append(V("long content: %d bytes" % len(fjson(m)), fjson(m), m, flags=["Size"]))
    m = message(mid=MSG_ID.lower())
    t.append(V("lowercase id (kept as written: the id is compared as text)", fjson(m), m))
    t.append(I("empty input", b"", "truncated"))
    t.append(I("513 bytes", fjson(message(content="x" * (513 - len(fjson(message(content="")))))), "tooLarge", flags=["Size", "AppBug"]))
    t.append(I("messageType \"chat\"", fjson(message("chat")), "unknownType"))
    t.append(I("id not a UUID", fjson(message(mid="42")), "badUUID", flags=["AppBug"]))
    t.append(I("timestamp missing", fjson(message(drop="timestamp")), "missingField"))
    t.append(I("timestamp as ISO-8601 text", fjson(message(ts="2025-05-03T00:00:00Z")), "wrongType"))
    t.append(I("locationLat without locationLon", fjson(message("location", lat=1.0)), "missingField", flags=["Location", "AppBug"]))
    t.append(I("locationLat 91", fjson(message("location", lat=91.0, lon=0.0)), "valueOutOfRange", flags=["Location", "AppBug"]))
    t.append(I("campAnnouncement whose content is not JSON", fjson(message("campAnnouncement", "hello")), "badJSON",
               flags=["Carriage", "AppBug"]))
    t.append(I("campAnnouncement whose inner message has version 2", fjson(message("campAnnouncement",
               fjson(protocol("ping", version=2)).decode())), "valueOutOfRange", flags=["Carriage", "AppBug"]))
    t.append(I("deliveryConfirmation to \"broadcast\"", fjson(message("deliveryConfirmation", ORIG_ID)), "valueOutOfRange", flags=["AppBug"]))
    t.append(I("deliveryConfirmation with empty content (the app's retry bug resends empty content)",
               fjson(message("deliveryConfirmation", "", recipient=RECIPIENT)), "badUUID", flags=["AppBug"]))
    t.append(I("empty recipientID", fjson(message(recipient="")), "valueOutOfRange", flags=["AppBug"]))
    t.append(I("recipientID null", fjson(message(recipientID=None)), "wrongType"))
    t.append(I("a JSON array", fjson([MSG_ID]), "wrongType"))
    return write_file("camp.message", "camp", INDEPENDENT + APP, notes, t)


def camp_delivery_confirmation():
    notes = {
        "Confirmation": "messageType deliveryConfirmation, content = the confirmed message's id (a UUID), recipientID = the original sender",
        "AppBug": "Robot Heart's decoder accepts it (BLEMessage's messageType, content and recipientID are any values of their types: RobotHeart/Services/BLEMeshManager.swift:499-508@09bc23c4); a conforming decoder refuses it (camp.md section 6 row 8)",
        "DeclarationOrder": "keys in declaration order, as the app's plain JSONEncoder writes them: valid, not canonical",
    }
    t = []
    m = message("deliveryConfirmation", ORIG_ID, recipient=RECIPIENT)
    t.append(V("confirmation of %s to its sender" % ORIG_ID, fjson(m), m, flags=["Confirmation"]))
    t.append(V("declaration order", fjson(declaration_order(m)), m, canonical=False, flags=["Confirmation", "DeclarationOrder"]))
    for i, c in enumerate([uid(1), uid(2 ** 128 - 1), ORIG_ID.lower()]):
        m = message("deliveryConfirmation", c, recipient=RECIPIENT, mid=uid(0x100 + i))
        t.append(V("confirmed id %s" % c, fjson(m), m, flags=["Confirmation"]))
    m = message("deliveryConfirmation", ORIG_ID, recipient=RECIPIENT, ts=T + 12.75, name="")
    t.append(V("fractional timestamp, empty sender name", fjson(m), m, flags=["Confirmation"]))
    m = message("deliveryConfirmation", ORIG_ID, recipient=RECIPIENT, lat=0.0, lon=0.0)
    t.append(V("with a location (the app never sets one here, the type allows it)", fjson(m), m, flags=["Confirmation"]))
    t.append(I("empty input", b"", "truncated"))
    t.append(I("a text message is not a confirmation", fjson(message()), "unknownType"))
    t.append(I("content empty (the app's retry resends confirmations with empty content)",
               fjson(message("deliveryConfirmation", "", recipient=RECIPIENT)), "badUUID", flags=["Confirmation", "AppBug"]))
    t.append(I("content is not an id", fjson(message("deliveryConfirmation", "delivered", recipient=RECIPIENT)), "badUUID",
               flags=["Confirmation", "AppBug"]))
    t.append(I("addressed to broadcast", fjson(message("deliveryConfirmation", ORIG_ID)), "valueOutOfRange",
               flags=["Confirmation", "AppBug"]))
    t.append(I("content missing", fjson(message("deliveryConfirmation", ORIG_ID, recipient=RECIPIENT, drop="content")),
               "missingField", flags=["Confirmation"]))
    t.append(I("content a number", fjson(message("deliveryConfirmation", Raw("1"), recipient=RECIPIENT)), "wrongType",
               flags=["Confirmation"]))
    return write_file("camp.delivery-confirmation", "camp", INDEPENDENT + APP, notes, t)


def main():
    camp_message()
    camp_protocol()
    camp_delivery_confirmation()


if __name__ == "__main__":
    main()
