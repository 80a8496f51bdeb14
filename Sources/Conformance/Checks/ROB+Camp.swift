import MeshNode
import MeshWire

/// ROB checks for the values camp refuses (camp.md CAMP-W1 to W4, CAMP-R7).
extension ROB {
    static let campChecks = [bi30]

    static let bi30 = Check("ROB/BI-30", "refuses BLEMessages the page forbids (bad id, empty ids, unknown type, bad confirmation, announcement or location, ISO date), relays none, and goes on",
                            dialects: [.camp], needs: [.relay, .links(2)], rules: ["CAMP-W1", "CAMP-W2", "CAMP-W3", "CAMP-W4", "CAMP-R7"]) { t in
        let camp = try t.probe(CampProbe.self)
        // 1. The tester writes broadcasts from S1 that break one rule each. (None is over 512
        //    bytes: a GATT value cannot be, so such an input would make the check NA on the air;
        //    the camp.message vectors hold the tooLarge case.)
        func value(id: String? = nil, sender: String? = nil, recipient: String = CampMessage.broadcast, type: String = "text",
                   content: String = "hello", timestamp: String = "767923200", extra: String = "") -> [UInt8] {
            let text = "{\"content\":\"\(content)\",\"id\":\"\(id ?? camp.newID())\",\"messageType\":\"\(type)\","
                + "\"recipientID\":\"\(recipient)\",\"senderID\":\"\(sender ?? camp.userID(.stranger(1)))\","
                + "\"senderName\":\"S1\",\"timestamp\":\(timestamp)\(extra)}"
            return Array(text.utf8)
        }
        let inputs: [(String, [UInt8])] = [
            ("an id that is not a UUID (the app allows any string)", value(id: "msg-1")),
            ("an empty senderID", value(sender: "")),
            ("an empty recipientID", value(recipient: "")),
            ("an unknown messageType", value(type: "ping")),
            ("a deliveryConfirmation addressed to broadcast", value(type: "deliveryConfirmation", content: camp.newID())),
            ("a deliveryConfirmation with empty content (the app's retry path)", value(recipient: camp.userID(.stranger(2)), type: "deliveryConfirmation", content: "")),
            ("a campAnnouncement whose content is not a camp.protocol message", value(type: "campAnnouncement", content: "{}")),
            ("locationLat without locationLon", value(extra: ",\"locationLat\":40.78")),
            ("an ISO-8601 timestamp (the seed's protocol document)", value(timestamp: "\"2025-05-03T00:00:00Z\"")),
            ("a value that is not JSON", Array("hello".utf8)),
        ]
        // 2. T1 writes each; 3. nothing is relayed and the DUT still relays a valid message.
        try survive(t, inputs)
    }
}
