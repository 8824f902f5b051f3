/// A statement file's bytes as text, in the character set the file declares (OFX 1.x `CHARSET`,
/// an XML declaration's `encoding`) or UTF-8.
enum StatementText {
    enum Charset: Equatable {
        case utf8, latin1, windows1252

        /// From an OFX `CHARSET` value or an XML `encoding` name; nil for one we do not read.
        init?(declared name: String) {
            switch name.uppercased() {
            case "UTF-8", "UTF8", "NONE", "USASCII", "US-ASCII", "ASCII": self = .utf8
            case "ISO-8859-1", "ISO8859-1", "8859-1", "LATIN1", "LATIN-1": self = .latin1
            case "1252", "WINDOWS-1252", "CP1252", "WINDOWS1252": self = .windows1252
            default: return nil
            }
        }
    }

    /// The whole file (statements are small: a year of a busy account is well under a MiB).
    static func read(path: String) throws(ImportError) -> [UInt8] {
        let source = try ByteSource(path: path)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBufferPointer { source.fill($0) }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }

    /// - Throws: `ImportError.badFile` at the line of the first byte that is not a character.
    static func decode(_ bytes: [UInt8], _ charset: Charset, file: String) throws(ImportError) -> String {
        try TextEncoding.requireUTF8(bytes.prefix(4), file: file)
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        func fail(at index: Int, _ reason: String) -> ImportError {
            let line = 1 + bytes[..<index].reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            return .badFile(RowError(file: file, line: line, column: "encoding", reason: reason))
        }
        switch charset {
        case .utf8:
            if let text = String(validating: body, as: UTF8.self) { return text }
            // Find the first bad byte for the message.
            var i = body.startIndex
            while i < body.endIndex {
                let b = body[i]
                let length = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2
                let end = min(i + length, body.endIndex)
                if b >= 0x80 && (b < 0xC2 || b > 0xF4 || String(validating: body[i..<end], as: UTF8.self) == nil) {
                    let hex = String(b, radix: 16, uppercase: true)
                    throw fail(at: i, "byte 0x\(hex) is not UTF-8 and the file declares no other character set; convert it with `iconv -f WINDOWS-1252 -t UTF-8`")
                }
                i = end
            }
            throw fail(at: body.startIndex, "is not valid UTF-8")
        case .latin1:
            var s = String.UnicodeScalarView()
            for b in body { s.append(Unicode.Scalar(b)) }
            return String(s)
        case .windows1252:
            var s = String.UnicodeScalarView()
            for (i, b) in zip(body.indices, body) {
                if (0x80...0x9F).contains(b) {
                    let code = windows1252High[Int(b - 0x80)]
                    guard code != 0, let scalar = Unicode.Scalar(code) else {
                        throw fail(at: i, "byte 0x\(String(b, radix: 16, uppercase: true)) is not a character in Windows-1252")
                    }
                    s.append(scalar)
                } else {
                    s.append(Unicode.Scalar(b))
                }
            }
            return String(s)
        }
    }

    /// Windows-1252's bytes 0x80–0x9F (the rest is Latin-1); 0 where the code page has no
    /// character. From Unicode's mapping table, MAPPINGS/VENDORS/MICSFT/WINDOWS/CP1252.TXT.
    private static let windows1252High: [UInt32] = [
        0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
        0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
    ]
}

extension StringProtocol {
    /// Without leading and trailing spaces, tabs and line ends (markup text spans lines).
    var trimmedWhitespace: String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
