import GeoSpend
import Testing

/// Levenshtein distance on textbook pairs, and against a brute-force recursion on short random
/// words (the recursion is the definition; the row-at-a-time table is what ships).
@Suite struct EditDistanceTests {
    @Test(arguments: [("kitten", "sitting", 3), ("flaw", "lawn", 2), ("", "abc", 3), ("abc", "", 3), ("lng", "lon", 2),
                      ("User1", "User1", 0), ("amenity:cafe", "cafe", 8)])
    func textbookPairs(a: String, b: String, expected: Int) {
        #expect(EditDistance.levenshtein(Array(a), Array(b)) == expected)
        #expect(EditDistance.levenshtein(Array(b), Array(a)) == expected)
    }

    @Test func agreesWithTheDefinition() {
        func definition(_ a: ArraySlice<Character>, _ b: ArraySlice<Character>) -> Int {
            guard let x = a.first else { return b.count }
            guard let y = b.first else { return a.count }
            let rest = definition(a.dropFirst(), b.dropFirst()) + (x == y ? 0 : 1)
            return min(definition(a.dropFirst(), b) + 1, definition(a, b.dropFirst()) + 1, rest)
        }
        var rng = SystemRandomNumberGenerator()
        let letters = Array("abc")
        for _ in 0..<300 {
            let a = (0..<Int.random(in: 0...6, using: &rng)).map { _ in letters.randomElement(using: &rng)! }
            let b = (0..<Int.random(in: 0...6, using: &rng)).map { _ in letters.randomElement(using: &rng)! }
            #expect(EditDistance.levenshtein(a, b) == definition(a[...], b[...]), "\(String(a)) \(String(b))")
        }
    }
}
