/// Integer arithmetic on products that may pass 64 bits (spent × 10,000), exact.
enum Exact {
    /// a × b / c rounded half away from zero; a ≥ 0, b ≥ 0, c > 0. Saturates at `Int64.max`.
    static func rounded(_ a: Int64, times b: Int64, over c: Int64) -> Int64 {
        let (q, r, c) = divide(a, b, c)
        guard q < UInt64(Int64.max) else { return .max }
        return Int64(q) + (r >= c - r ? 1 : 0)  // 2r ≥ c, without overflow
    }

    /// ⌊a × b / c⌋; a ≥ 0, b ≥ 0, c > 0.
    static func truncated(_ a: Int64, times b: Int64, over c: Int64) -> Int64 {
        let q = divide(a, b, c).q
        return q > UInt64(Int64.max) ? .max : Int64(q)
    }

    /// a × b > c × d, all ≥ 0.
    static func greater(_ a: Int64, _ b: Int64, than c: Int64, _ d: Int64) -> Bool {
        let x = a.magnitude.multipliedFullWidth(by: b.magnitude), y = c.magnitude.multipliedFullWidth(by: d.magnitude)
        return (x.high, x.low) > (y.high, y.low)
    }

    private static func divide(_ a: Int64, _ b: Int64, _ c: Int64) -> (q: UInt64, r: UInt64, c: UInt64) {
        precondition(a >= 0 && b >= 0 && c > 0)
        let p = a.magnitude.multipliedFullWidth(by: b.magnitude), d = c.magnitude
        guard p.high < d else { return (.max, 0, d) }
        let (q, r) = d.dividingFullWidth(p)
        return (q, r, d)
    }
}
