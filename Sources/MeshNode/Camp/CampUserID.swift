import Foundation

/// CAMP-R1: a camp node is known by a user id, a string. meshconform's nodes and testers are
/// known by a `NodeAddress`; the two map one to one: a 16-byte address is its UUID text, any
/// other address is its bytes read as UTF-8 (so a DUT's own non-UUID id survives the trip).
extension NodeAddress {
    public init(campUserID: String) {
        if let uuid = UUID(uuidString: campUserID), uuid.uuidString == campUserID {
            self.init(uuid)
        } else {
            self.init(bytes: Array(campUserID.utf8))
        }
    }

    public var campUserID: String {
        uuid?.uuidString ?? String(decoding: bytes, as: UTF8.self)
    }
}
