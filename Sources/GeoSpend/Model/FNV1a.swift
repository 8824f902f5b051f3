/// 64-bit FNV-1a: small, fast, stable across runs and platforms (Swift's `Hasher` is seeded per run).
/// The one copy: `GeoSpendSpatiaLite`'s `ByteInterner` hashes through `hash(_:from:)` too.
package struct FNV1a {
    package private(set) var value: UInt64 = FNV1a.offsetBasis
    @usableFromInline static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325

    /// `bytes` hashed on from `value` (a fresh hash starts at the offset basis). Inlinable, so
    /// a hot loop in another module is specialised as if written there.
    @inlinable package static func hash(_ bytes: some Sequence<UInt8>, from value: UInt64 = offsetBasis) -> UInt64 {
        var value = value
        for b in bytes {
            value ^= UInt64(b)
            value &*= 0x0000_0100_0000_01b3
        }
        return value
    }

    /// The same over bytes in place, not generic: from `GeoSpendSpatiaLite` the generic one was
    /// called unspecialised (1,300 instructions for a 14-byte store id, a third of decoding an
    /// insights row; callgrind), this one takes ~100.
    @inlinable package static func hash(_ bytes: UnsafeBufferPointer<UInt8>, from value: UInt64 = offsetBasis) -> UInt64 {
        var value = value
        for b in bytes {
            value ^= UInt64(b)
            value &*= 0x0000_0100_0000_01b3
        }
        return value
    }

    @inline(__always)
    mutating func add(_ byte: UInt8) {
        value ^= UInt64(byte)
        value &*= 0x0000_0100_0000_01b3
    }

    mutating func add(bytes: some Sequence<UInt8>) { value = Self.hash(bytes, from: value) }

    /// Adds a field with a terminator, so ("ab","c") and ("a","bc") differ; `nil` differs from "".
    /// The bytes are read in place and the terminator added as a byte, not as an array: hashing
    /// an expense cost 7,400 instructions.
    mutating func add(_ field: String?) {
        guard let field else { return add(0x1e) }
        if field.utf8.withContiguousStorageIfAvailable({ add(bytes: $0) }) == nil { add(bytes: field.utf8) }
        add(0x1f)
    }
}
