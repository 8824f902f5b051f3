/// The few Protocol Buffers wire-format pieces a vector tile needs, written by hand from the
/// encoding guide (https://protobuf.dev/programming-guides/encoding/): base-128 varints, zigzag
/// signed integers, fixed 64-bit doubles and length-delimited fields (strings, nested messages,
/// packed repeated integers).
struct ProtobufWriter {
    private(set) var bytes: [UInt8] = []

    /// Wire types: 0 varint, 1 fixed 64-bit, 2 length-delimited.
    enum WireType: UInt64 { case varint = 0, fixed64 = 1, lengthDelimited = 2 }

    /// Least significant 7 bits first; the high bit says more bytes follow.
    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// Maps small negative and positive numbers to small unsigned ones: 0→0, −1→1, 1→2, −2→3.
    static func zigzag(_ n: Int64) -> UInt64 { UInt64(bitPattern: (n << 1) ^ (n >> 63)) }

    /// The 32-bit form MVT geometry parameters use (`(n << 1) ^ (n >> 31)`, spec § 4.3.2).
    static func zigzag32(_ n: Int32) -> UInt32 { UInt32(bitPattern: (n << 1) ^ (n >> 31)) }

    mutating func key(_ field: UInt64, _ type: WireType) { varint(field << 3 | type.rawValue) }

    mutating func varintField(_ field: UInt64, _ value: UInt64) {
        key(field, .varint)
        varint(value)
    }

    mutating func doubleField(_ field: UInt64, _ value: Double) {
        key(field, .fixed64)
        var bits = value.bitPattern
        for _ in 0..<8 {
            bytes.append(UInt8(truncatingIfNeeded: bits))  // little-endian
            bits >>= 8
        }
    }

    mutating func bytesField(_ field: UInt64, _ value: some Collection<UInt8>) {
        key(field, .lengthDelimited)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func stringField(_ field: UInt64, _ value: String) { bytesField(field, Array(value.utf8)) }

    /// A packed repeated uint32 field (`[packed = true]`): one length, then the varints.
    mutating func packedField(_ field: UInt64, _ values: [UInt32]) {
        var inner = ProtobufWriter()
        for v in values { inner.varint(UInt64(v)) }
        bytesField(field, inner.bytes)
    }
}
