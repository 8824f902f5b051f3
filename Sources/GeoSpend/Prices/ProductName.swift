import Foundation

/// A product name folded for matching: `Vollmilch 1,5 %  1 L` and `vollmilch 1.5%` are the
/// same words. `NameSimilarity` compares these forms.
///
/// Folded, in order:
/// - case (`lowercased`) and accents (canonical decomposition, combining marks dropped:
///   `Äpfel` → `apfel`); letters with no decomposition spelt out: ß → ss, æ → ae, œ → oe,
///   ø → o, ł → l;
/// - white space and punctuation: words are runs of letters and digits, joined by one space;
///   a decimal comma between digits is a point (`1,5` → `1.5`) and `%` stays with its number;
/// - unit words: `kg g gr l ltr ml cl pcs pc stk st stuck piece pieces pack pk x`, alone or
///   glued to a number (`1kg`, `500 g`, `6x`), go with that number: a pack size says how
///   much, not what.
///
/// A name that is nothing but a quantity (`1 kg`) keeps its words, so no name folds to nothing.
public enum ProductName {
    public static func normalized(_ name: String) -> String {
        let words = Self.words(of: Self.folded(name))
        var kept: [String] = []
        var i = 0
        while i < words.count {
            let w = words[i]
            if unitWords.contains(w) || isNumberWithUnit(w) {
                i += 1
                continue
            }
            if isNumber(w), i + 1 < words.count, unitWords.contains(words[i + 1]) {
                i += 2
                continue
            }
            kept.append(w)
            i += 1
        }
        return (kept.isEmpty ? words : kept).joined(separator: " ")
    }

    static let unitWords: Set<String> = [
        "kg", "g", "gr", "l", "ltr", "ml", "cl", "pcs", "pc", "stk", "st", "stuck", "piece", "pieces", "pack", "pk", "x",
    ]

    /// Lower case without accents.
    static func folded(_ name: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in name.lowercased().decomposedStringWithCanonicalMapping.unicodeScalars {
            switch scalar {
            case "ß": out.append(contentsOf: "ss".unicodeScalars)
            case "æ": out.append(contentsOf: "ae".unicodeScalars)
            case "œ": out.append(contentsOf: "oe".unicodeScalars)
            case "ø": out.append("o")
            case "ł": out.append("l")
            default:
                let category = scalar.properties.generalCategory
                if category == .nonspacingMark || category == .enclosingMark || category == .spacingMark { continue }
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Runs of letters and digits; `,`/`.` between digits become `.`, `%` after a digit stays.
    static func words(of text: String) -> [String] {
        let scalars = Array(text.unicodeScalars)
        var words: [String] = []
        var current = String.UnicodeScalarView()
        func isDigit(_ s: Unicode.Scalar) -> Bool { ("0"..."9").contains(s) }
        for (i, s) in scalars.enumerated() {
            if s.properties.isAlphabetic || isDigit(s) {
                current.append(s)
            } else if (s == "," || s == "."), let last = current.last, isDigit(last), i + 1 < scalars.count, isDigit(scalars[i + 1]) {
                current.append(".")
            } else if s == "%", let last = current.last, isDigit(last) {
                current.append(s)
            } else if s == "%", current.isEmpty, let last = words.last, isNumber(last) {
                words[words.count - 1] += "%"  // `1,5 %`: the sign joins the number before it
            } else if !current.isEmpty {
                words.append(String(current))
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { words.append(String(current)) }
        return words
    }

    static func isNumber(_ word: String) -> Bool {
        !word.isEmpty && word.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || $0 == "." }
    }

    /// `1kg`, `500g`, `1.5l`, `6x`: a number with a unit word glued on.
    static func isNumberWithUnit(_ word: String) -> Bool {
        guard let split = word.unicodeScalars.firstIndex(where: { !(("0"..."9").contains($0) || $0 == ".") }),
            split != word.unicodeScalars.startIndex
        else { return false }
        return unitWords.contains(String(word.unicodeScalars[split...]))
    }
}
