/// A cell index's 64 bits (h3geo.org "Index bit layout"): bit 63 reserved (0), bits 59–62 the
/// mode (1 = cell), 56–58 reserved (0), 52–55 the resolution, 45–51 the base cell, then fifteen
/// 3-bit digits for resolutions 1…15, those finer than the resolution set to 7.
struct H3Index: Hashable, Sendable {
    var bits: UInt64

    static let cellMode: UInt64 = 1

    /// A cell of base cell `baseCell` at `resolution` with every digit 0.
    init(baseCell: Int, resolution: Int) {
        var b = H3Index.cellMode << 59 | UInt64(resolution) << 52 | UInt64(baseCell) << 45
        for r in stride(from: resolution + 1, through: 15, by: 1) { b |= 7 << UInt64((15 - r) * 3) }
        bits = b
    }

    init(bits: UInt64) { self.bits = bits }

    var mode: Int { Int(bits >> 59 & 0xF) }
    var resolution: Int { Int(bits >> 52 & 0xF) }
    var baseCell: Int { Int(bits >> 45 & 0x7F) }

    func digit(_ r: Int) -> Int { Int(bits >> UInt64((15 - r) * 3) & 7) }

    mutating func setDigit(_ r: Int, _ d: Int) {
        let shift = UInt64((15 - r) * 3)
        bits = bits & ~(7 << shift) | UInt64(d) << shift
    }

    /// The same cell read at a coarser or equal resolution (digits past it set to 7).
    func parent(at r: Int) -> H3Index {
        var h = H3Index(bits: bits & ~(0xF << 52) | UInt64(r) << 52)
        for d in stride(from: r + 1, through: 15, by: 1) { h.setDigit(d, 7) }
        return h
    }

    var isPentagon: Bool {
        H3BaseCells.isPentagon(baseCell) && leadingDigit == 0
    }

    /// Why these bits are not a cell, or nil when they are one.
    var invalidity: String? {
        if bits >> 63 != 0 { return "its high bit is set" }
        if mode != Int(H3Index.cellMode) { return "its mode is \(mode), not 1 (a cell)" }
        if bits >> 56 & 7 != 0 { return "its reserved bits are set" }
        if baseCell >= 122 { return "base cell \(baseCell) does not exist (0…121)" }
        let res = resolution
        for r in stride(from: 1, through: res, by: 1) where digit(r) == 7 {
            return "digit \(r) is 7 (unused) at resolution \(res)"
        }
        for r in stride(from: res + 1, through: 15, by: 1) where digit(r) != 7 {
            return "digit \(r) is \(digit(r)), but digits past resolution \(res) must be 7"
        }
        if H3BaseCells.isPentagon(baseCell) && leadingDigit == 1 {
            return "it is in the deleted K sub-sequence of pentagon base cell \(baseCell)"
        }
        return nil
    }

    /// 15 lowercase hex digits (the leading zero bit-nibble is never printed by H3 either).
    var text: String {
        let s = String(bits, radix: 16)
        return s.count >= 15 ? s : String(repeating: "0", count: 15 - s.count) + s
    }
}
