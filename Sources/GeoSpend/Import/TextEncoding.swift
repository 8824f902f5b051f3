#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

import Foundation

/// Import files are UTF-8 unless `--encoding` says otherwise. A UTF-16 or UTF-32 file (what
/// some spreadsheet programs save as "Unicode text") was reported as "contains a NUL byte" on
/// every line; it is recognised here from its byte-order mark, or from the NUL bytes its first
/// ASCII character has, and refused once with the option (or command) that reads it.
enum TextEncoding {
    /// The name of the encoding `prefix` (a file's first bytes) is in when it is not UTF-8,
    /// as `iconv -f` takes it: `UTF-16` with a byte-order mark (iconv reads the order from it),
    /// `UTF-16LE`/`UTF-16BE` without.
    static func wideEncoding(_ b: some Collection<UInt8>) -> String? {
        let b = Array(b.prefix(4))
        func starts(_ p: [UInt8]) -> Bool { b.starts(with: p) }
        if starts([0xFF, 0xFE, 0, 0]) || starts([0, 0, 0xFE, 0xFF]) { return "UTF-32" }
        if starts([0xFF, 0xFE]) || starts([0xFE, 0xFF]) { return "UTF-16" }
        // No mark: the files start with ASCII (a header, `{`), which UTF-16 and UTF-32 pad with NULs.
        if b.count == 4, b[0] != 0, b[1] == 0, b[2] == 0, b[3] == 0 { return "UTF-32LE" }
        if b.count == 4, b[0] == 0, b[1] == 0, b[2] == 0, b[3] != 0 { return "UTF-32BE" }
        if b.count >= 2, b[0] != 0, b[1] == 0 { return "UTF-16LE" }
        if b.count >= 2, b[0] == 0, b[1] != 0 { return "UTF-16BE" }
        return nil
    }

    /// - Throws: `ImportError.badFile` at line 1, column `encoding`, when `prefix` is UTF-16 or
    ///   UTF-32; `readsUTF16`: the reader takes `--encoding utf16`, so say that instead of iconv.
    static func requireUTF8(_ prefix: some Collection<UInt8>, file: String, readsUTF16: Bool = false) throws(ImportError) {
        guard let encoding = wideEncoding(prefix) else { return }
        throw .badFile(RowError(
            file: file, line: 1, column: "encoding",
            reason: readsUTF16 && encoding.hasPrefix("UTF-16")
                ? "is \(encoding), not UTF-8; import it with --encoding utf16"
                : "is \(encoding), not UTF-8; convert it with `iconv -f \(encoding) -t UTF-8 \(file) > \(file).utf8`"))
    }

    /// Reads the first bytes of `path` and checks them (an unreadable file is left to the reader).
    /// Only a regular file is looked at, with `pread`: a pipe read here would lose those bytes
    /// to the reader that opens it next (readers that stream check `ByteSource.peek` instead).
    static func requireUTF8(path: String, displayName: String, readsUTF16: Bool = false) throws(ImportError) {
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return }
        var prefix = [UInt8](repeating: 0, count: 4)
        let n = prefix.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 4, 0) }
        guard n > 0 else { return }
        try requireUTF8(prefix.prefix(n), file: displayName, readsUTF16: readsUTF16)
    }
}

/// The text encoding of a delimited file, as `--encoding` names it.
public enum SourceEncoding: String, Sendable, CaseIterable {
    case utf8, latin1, utf16

    /// The file's text as UTF-8 bytes, for an encoding other than UTF-8 (nil for UTF-8: the
    /// reader maps the file itself). UTF-16 takes its byte order from the byte-order mark, or
    /// from the NUL bytes of its first ASCII character when it has none.
    /// - Throws: `ImportError` when the file cannot be read or is not in this encoding.
    func utf8Bytes(path: String, displayName: String) throws(ImportError) -> [UInt8]? {
        guard self != .utf8 else { return nil }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .unreadable(file: displayName, reason: "cannot be opened (\(error.localizedDescription))")
        }
        func bad(_ reason: String) -> ImportError {
            .badFile(RowError(file: displayName, line: 1, column: "encoding", reason: reason))
        }
        switch self {
        case .utf8: return nil
        case .latin1:
            // Every byte is a Latin-1 character, so this cannot fail; a NUL is the reader's to report.
            return Array(String(decoding: data.map { UInt16($0) }, as: UTF16.self).utf8)
        case .utf16:
            let bytes = [UInt8](data)
            var bigEndian: Bool
            var start = 0
            if bytes.starts(with: [0xFF, 0xFE]) { bigEndian = false; start = 2 }
            else if bytes.starts(with: [0xFE, 0xFF]) { bigEndian = true; start = 2 }
            else if let guess = TextEncoding.wideEncoding(bytes), guess.hasPrefix("UTF-16") { bigEndian = guess == "UTF-16BE" }
            else { throw bad("is not UTF-16 (no byte-order mark, no NUL bytes beside its first letters); drop --encoding utf16") }
            guard (bytes.count - start) % 2 == 0 else { throw bad("has an odd number of bytes, so it is not UTF-16") }
            var units: [UInt16] = []
            units.reserveCapacity((bytes.count - start) / 2)
            var i = start
            while i < bytes.count {
                units.append(bigEndian ? UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]) : UInt16(bytes[i + 1]) << 8 | UInt16(bytes[i]))
                i += 2
            }
            var out: [UInt8] = []
            var line = 1
            for scalar in Unicode.UTF16.decode(units) {
                guard let scalar else { throw bad("has a broken UTF-16 surrogate pair on line \(line)") }
                if scalar == "\n" { line += 1 }
                out.append(contentsOf: Array(String(scalar).utf8))
            }
            return out
        }
    }
}

extension Unicode.UTF16 {
    /// The scalars of `units`, nil for each broken surrogate.
    static func decode(_ units: [UInt16]) -> [Unicode.Scalar?] {
        var result: [Unicode.Scalar?] = []
        var decoder = Unicode.UTF16()
        var iterator = units.makeIterator()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let s): result.append(s)
            case .emptyInput: break loop
            case .error: result.append(nil)
            }
        }
        return result
    }
}

extension TextEncoding {
    /// Up to `limit` bytes from the start of a regular file (nil for a pipe or an unreadable
    /// file: reading those here would take the bytes from the reader that opens them next).
    static func leadingBytes(path: String, limit: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        let size = min(limit, Int(st.st_size))
        var bytes = [UInt8](repeating: 0, count: size)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, size, 0) }
        return n < 0 ? nil : Array(bytes.prefix(n))
    }

    /// Whether a regular file is valid UTF-8 throughout, checked in place (`MappedFile`, no
    /// copy); a pipe or an unreadable file counts as UTF-8: its reader reports what is wrong.
    static func isUTF8(path: String) -> Bool {
        guard leadingBytes(path: path, limit: 0) != nil, let file = try? MappedFile(path: path) else { return true }
        return String(validating: file.bytes, as: UTF8.self) != nil
    }
}
