import GeoSpend

/// `LocatedAmount`'s keys computed from the UTF-8 bytes SQLite hands over, without making a
/// `String` per row (a grid over 1M rows reads every row's currency and user id).
extension LocatedAmount {
    /// `userKey(_:)` of the id whose UTF-8 bytes these are.
    @inline(__always)
    static func userKey(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        FNV1a.hash(bytes)
    }

    /// `currencyKey(_:)` of the code whose bytes these are (0 for anything but three bytes).
    @inline(__always)
    static func currencyKey(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        bytes.count == 3 ? UInt32(bytes[0]) << 16 | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) : 0
    }
}
