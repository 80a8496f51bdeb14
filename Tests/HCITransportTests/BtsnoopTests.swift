import Foundation
import HCITransport
import Testing

@Suite struct BtsnoopTests {
    let reset: [UInt8] = [0x01, 0x03, 0x0C, 0x00]
    let resetComplete: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
    let acl: [UInt8] = [0x02, 0x40, 0x00, 0x03, 0x00, 0xAA, 0xBB, 0xCC]

    func temporaryPath() -> String {
        NSTemporaryDirectory() + "btsnoop-\(UUID().uuidString).btsnoop"
    }

    @Test func headerIsTheFormatsOwn() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try BtsnoopWriter(path: path)
        writer.close()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // "btsnoop\0", version 1, datalink 1002 (0x3EA), big-endian.
        #expect(bytes == [0x62, 0x74, 0x73, 0x6E, 0x6F, 0x6F, 0x70, 0x00, 0, 0, 0, 1, 0, 0, 0x03, 0xEA])
    }

    @Test func recordsReadBackWithFlagsAndTimes() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try BtsnoopWriter(path: path)
        writer.record(reset, .sent, unixMicroseconds: 1_700_000_000_000_000)
        writer.record(resetComplete, .received, unixMicroseconds: 1_700_000_000_000_250)
        writer.record(acl, .received, unixMicroseconds: 1_700_000_000_001_000)
        writer.close()
        let capture = try BtsnoopReader.read(path: path)
        #expect(capture.version == 1 && capture.datalink == 1002 && capture.trailingBytes == 0)
        #expect(capture.records.map(\.data) == [reset, resetComplete, acl])
        #expect(capture.records.map(\.direction) == [.sent, .received, .received])
        #expect(capture.records.map(\.isCommandOrEvent) == [true, true, false])
        #expect(capture.records.map(\.unixMicroseconds) == [1_700_000_000_000_000, 1_700_000_000_000_250, 1_700_000_000_001_000])
        // The first record's bytes, by hand: lengths 4/4, flags 2 (sent, command), drops 0,
        // timestamp 0x00dcddb30f2f8000 + 1.7e15 us.
        let raw = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let stamp = UInt64(0x00dc_ddb3_0f2f_8000 + 1_700_000_000_000_000)
        let expected: [UInt8] = [0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: stamp >> (56 - 8 * $0)) } + reset
        #expect(Array(raw[16..<(16 + 28)]) == expected)
    }

    @Test func aCutOffLastRecordLeavesTheRestReadable() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try BtsnoopWriter(path: path)
        writer.record(reset, .sent)
        writer.record(acl, .received)
        writer.close()
        // A run killed in the middle of the second record's write.
        var raw = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        raw.removeLast(3)
        let capture = try BtsnoopReader.parse(raw)
        #expect(capture.records.map(\.data) == [reset])
        #expect(capture.trailingBytes == 24 + acl.count - 3)
    }

    @Test func theFileStopsGrowingAtItsBoundAndCountsDrops() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try BtsnoopWriter(path: path, maxBytes: 16 + 2 * (24 + 4))
        for _ in 0..<5 { writer.record(reset, .sent) }
        #expect(writer.dropped == 3)
        writer.close()
        let capture = try BtsnoopReader.read(path: path)
        #expect(capture.records.count == 2)
    }

    @Test func refusesWhatIsNotBtsnoop() {
        #expect(throws: BtsnoopError.self) { try BtsnoopReader.parse(Array("pcap file, not btsnoop".utf8)) }
        // An included length above the original length is corrupt, not a short capture.
        var bytes = Btsnoop.magic + [0, 0, 0, 1, 0, 0, 0x03, 0xEA]
        bytes += [0, 0, 0, 1, 0, 0, 0, 9] + [UInt8](repeating: 0, count: 16) + [UInt8](repeating: 0, count: 9)
        #expect(throws: BtsnoopError.self) { try BtsnoopReader.parse(bytes) }
    }

    @Test func unwritableDirectoryIsAClearError() {
        #expect {
            try BtsnoopWriter(path: "/nonexistent-dir/x.btsnoop")
        } throws: { error in
            "\(error)".contains("cannot create")
        }
    }
}
