import GeoSpend
import Testing

@testable import GeoSpendSpatiaLite

/// The interner against a dictionary: same numbers, first sight reported once, through many
/// growths of its table and keys that share prefixes, differ only in length, or are empty.
@Suite struct ByteInternerTests {
    @Test(arguments: [1, 7, 33, 5000])
    func numbersAsADictionaryWould(distinct: Int) {
        var rng = SplitMix64(seed: UInt64(distinct))
        var keys = (0..<distinct).map { n in n == 0 ? "" : "s\(n)" }
        keys += ["s1\u{0}", "s", "s10", "ß", "s\u{301}"].prefix(distinct)
        var interner = ByteInterner()
        var oracle: [String: Int32] = [:]
        for _ in 0..<(4 * keys.count) {
            var key = keys[Int(rng.next() % UInt64(keys.count))]
            let expected = oracle[key] ?? Int32(oracle.count)
            let (number, isNew) = key.withUTF8 { interner.number($0) }
            #expect(number == expected, "\(key)")
            #expect(isNew == (oracle[key] == nil), "\(key)")
            oracle[key] = expected
        }
        #expect(interner.count == oracle.count)
    }
}
