/// The rule for names a user gives a thing and later reads in lists (a period's, a budget's):
/// NFC, trimmed of surrounding white space, 1–100 characters (grapheme clusters), on one line,
/// with no control character and no bidi embedding, override or isolate (U+202A–202E,
/// U+2066–2069), which would make the name, and the table text after it, display as
/// something it is not. One rule, so the two cannot drift apart.
public enum DisplayName {
    public static let maxLength = 100

    /// `text` checked and in the form to store.
    /// - Parameters:
    ///   - thing: what is named, for messages ("period", "budget").
    ///   - example: a name to suggest, e.g. "Lisbon trip".
    /// - Throws: `ValueError.invalidValue` naming --name and how to fix it.
    public static func checked(_ text: String, of thing: String, example: String) throws(ValueError) -> String {
        let trimmed = Identity.normalized(text).trimmingWhiteSpace
        guard !trimmed.isEmpty else {
            throw .invalidValue(text, reason: "is not a \(thing) name: give --name 1–\(maxLength) characters, e.g. --name \"\(example)\"")
        }
        guard trimmed.count <= maxLength else {
            throw .invalidValue(
                String(trimmed.prefix(20)) + "…",
                reason: "is \(trimmed.count) characters long; a \(thing) name has at most \(maxLength): shorten --name")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidValue(text, reason: "holds a control character (a line break or tab); write the --name on one line")
        }
        if let s = Identity.deceptiveScalar(inText: trimmed) {
            throw .invalidValue(
                text, reason: "holds \(Identity.describe(s)), which reorders how the text after it is shown; remove it from --name")
        }
        return trimmed
    }
}

extension String {
    /// Without leading and trailing white space and line breaks.
    var trimmingWhiteSpace: String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
