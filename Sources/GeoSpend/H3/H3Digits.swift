/// Digit arithmetic on a packed cell index: turning every digit 60° and the pentagon's deleted
/// K sub-sequence (h3geo.org "Pentagons": a pentagon has no K child, so a turn that would make
/// the leading digit K turns once more).
extension H3Index {
    static func turnedCCW(_ d: Int) -> Int { d == 0 || d == 7 ? d : H3IJK(digit: d).turnedCCW.digit! }
    static func turnedCW(_ d: Int) -> Int { d == 0 || d == 7 ? d : H3IJK(digit: d).turnedCW.digit! }

    /// The first non-zero digit (0 when all are zero).
    var leadingDigit: Int {
        for r in stride(from: 1, through: resolution, by: 1) where digit(r) != 0 { return digit(r) }
        return 0
    }

    func turningDigits(_ turn: (Int) -> Int) -> H3Index {
        var h = self
        for r in stride(from: 1, through: resolution, by: 1) { h.setDigit(r, turn(digit(r))) }
        return h
    }

    var turnedCCW: H3Index { turningDigits(H3Index.turnedCCW) }
    var turnedCW: H3Index { turningDigits(H3Index.turnedCW) }

    /// Turned 60° ccw inside a pentagon base cell, skipping the deleted K sequence.
    var turnedPentagonCCW: H3Index {
        let h = turnedCCW
        return h.leadingDigit == 1 ? h.turnedCCW : h
    }
}
