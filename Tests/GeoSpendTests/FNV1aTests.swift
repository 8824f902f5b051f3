import Testing

@testable import GeoSpend

/// The one 64-bit FNV-1a (content hashes, derived store ids, distinct-user keys, the SpatiaLite
/// store's `ByteInterner`) against the published test vectors: draft-eastlake-fnv-21 Appendix C
/// ("A Few Test Vectors", https://datatracker.ietf.org/doc/draft-eastlake-fnv/) for "", "a" and
/// "foobar", and the 64-bit FNV-1a zero-hash input listed at http://www.isthe.com/chongo/tech/comp/fnv/.
@Suite struct FNV1aTests {
    static let vectors: [(bytes: [UInt8], hash: UInt64)] = [
        (Array("".utf8), 0xcbf2_9ce4_8422_2325),
        (Array("a".utf8), 0xaf63_dc4c_8601_ec8c),
        (Array("foobar".utf8), 0x8594_4171_f739_67e8),
        ([0xd5, 0x6b, 0xb9, 0x53, 0x42, 0x87, 0x08, 0x36], 0),
    ]

    @Test func matchesThePublishedVectors() {
        for (bytes, hash) in Self.vectors {
            var h = FNV1a()
            h.add(bytes: bytes)
            #expect(h.value == hash, "\(bytes)")
            // The form ByteInterner uses: bytes read in place.
            #expect(bytes.withUnsafeBufferPointer { FNV1a.hash($0) } == hash, "\(bytes)")
        }
    }

    @Test func continuesFromAnEarlierValue() {
        var h = FNV1a()
        h.add(bytes: Array("foo".utf8))
        h.add(bytes: Array("bar".utf8))
        #expect(h.value == 0x8594_4171_f739_67e8)
    }
}
