#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Import files are UTF-8. A UTF-16 or UTF-32 file (what some spreadsheet programs save as
/// "Unicode text") was reported as "contains a NUL byte" on every line; it is recognised here
/// from its byte-order mark, or from the NUL bytes its first ASCII character has, and refused
/// once with the command that converts it.
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

    /// - Throws: `ImportError.badFile` at line 1, column `encoding`, when `prefix` is UTF-16 or UTF-32.
    static func requireUTF8(_ prefix: some Collection<UInt8>, file: String) throws(ImportError) {
        guard let encoding = wideEncoding(prefix) else { return }
        throw .badFile(RowError(
            file: file, line: 1, column: "encoding",
            reason: "is \(encoding), not UTF-8; convert it with `iconv -f \(encoding) -t UTF-8 \(file) > \(file).utf8`"))
    }

    /// Reads the first bytes of `path` and checks them (an unreadable file is left to the reader).
    /// Only a regular file is looked at, with `pread`: a pipe read here would lose those bytes
    /// to the reader that opens it next (readers that stream check `ByteSource.peek` instead).
    static func requireUTF8(path: String, displayName: String) throws(ImportError) {
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return }
        var prefix = [UInt8](repeating: 0, count: 4)
        let n = prefix.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 4, 0) }
        guard n > 0 else { return }
        try requireUTF8(prefix.prefix(n), file: displayName)
    }
}
