import Foundation

/// The identity rule for ids and names (user, expense and store ids, category and store
/// names): text is put in Unicode NFC where it comes in — import parsing, query filters, the
/// users commands' arguments — stored as NFC, and then compared byte for byte, in Swift and in
/// SQL alike.
///
/// Why: Swift's `String ==` (and so `Set<String>`, `[String: …]`) treats canonically
/// equivalent text as equal (`"José" == "Jose\u{301}"`), SQLite compares bytes. With both
/// forms in one file the importer created the user once (its set said "seen") and SQLite
/// then refused the other form's rows: "FOREIGN KEY constraint failed". Once everything is
/// NFC the two comparisons agree.
public enum Identity {
    /// `text` in Unicode Normalization Form C; ASCII (most ids) comes back untouched.
    public static func normalized(_ text: String) -> String {
        if bytes(of: text, allIn: 0...0x7F) { return text }
        return text.precomposedStringWithCanonicalMapping
    }

    /// Whether every UTF-8 byte of `text` is in `range`, read in place: the importer asks it
    /// of several fields a row, and walking `String.UTF8View` index by index cost ~5× more.
    static func bytes(of text: String, allIn range: ClosedRange<UInt8>) -> Bool {
        func check(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
            for c in b where c < range.lowerBound || c > range.upperBound { return false }
            return true
        }
        if let r = text.utf8.withContiguousStorageIfAvailable(check) { return r }
        var copy = text
        return copy.withUTF8(check)
    }

    /// The first character of an id that a reader cannot see or that changes how the text
    /// around it is shown: controls (Cc), format characters (Cf: bidi overrides and isolates,
    /// zero-width spaces and joiners, the byte-order mark, …), line and paragraph separators,
    /// any space other than U+0020 (a no-break space looks like a space but is not one), and the
    /// other default-ignorable or unassigned code points (U+3164 HANGUL FILLER, U+034F) — the
    /// very set text tables show escaped (`OutputEscaping.isInvisible`), so what an id may hold
    /// and what output must escape cannot drift apart. Two user ids that differ only by such a
    /// character look identical in `users list`.
    public static func invisibleScalar(in id: String) -> Unicode.Scalar? {
        id.unicodeScalars.first { s in s.value < 0x80 ? s.value < 0x20 || s.value == 0x7F : OutputEscaping.isInvisible(s) }
    }

    /// The first character of a name or other free text (a category, a store's name, a title,
    /// notes) that would make it display as something it is not: controls other than tab and
    /// line ends, and the bidi embeddings, overrides and isolates (U+202A–202E, U+2066–2069)
    /// that reorder the text after them. Left allowed, because real text needs them: the
    /// direction marks U+200E/U+200F (mixed Hebrew or Arabic and Latin) and zero-width joiners
    /// (emoji sequences, Indic scripts).
    public static func deceptiveScalar(inText text: String) -> Unicode.Scalar? {
        text.unicodeScalars.first { s in
            switch s.value {
            case 0x09, 0x0A, 0x0D: return false
            case 0..<0x20, 0x7F...0x9F: return true
            case 0x202A...0x202E, 0x2066...0x2069: return true
            default: return false
            }
        }
    }

    /// `U+202E RIGHT-TO-LEFT OVERRIDE`, for messages.
    public static func describe(_ s: Unicode.Scalar) -> String {
        let code = String(s.value, radix: 16, uppercase: true)
        let padded = String(repeating: "0", count: max(0, 4 - code.count)) + code
        let name: String
        switch s {
        case "\t": name = "CHARACTER TABULATION (a tab)"
        case "\n": name = "LINE FEED (a new line)"
        case "\r": name = "CARRIAGE RETURN"
        default: name = s.properties.name ?? s.properties.nameAlias ?? "(a control character)"
        }
        return "U+\(padded) \(name)"
    }
}

extension Identity {
    /// `text` with only ASCII letters lowered: the case-insensitivity of SQLite's `NOCASE`,
    /// which category names are unique under. (`String.lowercased()` also folds `É` to `é`,
    /// so a Swift cache keyed by it merged categories that the database keeps apart.)
    public static func asciiLowercased(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return text }
        return String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}

/// A string compared and hashed by its UTF-8 bytes, as SQLite compares text: a key for caches
/// that stand in for a database lookup. (`String`'s own `==` and hash treat canonically
/// equivalent text as one: see `Identity`.)
public struct ExactText: Hashable, Sendable {
    public let text: String
    public init(_ text: String) { self.text = text }
    // Whole buffers by memcmp: byte by byte (`elementsEqual`), a cached store label cost 2k
    // instructions (StoreLabelCache, callgrind, session 15).
    public static func == (a: ExactText, b: ExactText) -> Bool {
        a.withBytes { x in
            b.withBytes { y in x.count == y.count && (x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0) }
        }
    }
    // The bytes at once, not one `combine` per byte: the importer's caches hash a user id, a
    // store id and a category name per row (ensureUser alone was 5 % of a 100k import).
    public func hash(into hasher: inout Hasher) {
        withBytes { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    private func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let r = text.utf8.withContiguousStorageIfAvailable(body) { return r }
        var copy = text
        return copy.withUTF8(body)
    }
}
