import ArgumentParser
import Foundation
import GeoSpend

/// `DB.mask-key`: the secret that places the masks of `export --mask-around`, created on first
/// use (mode 600) and read afterwards.
enum MaskKeyFile {
    /// Reads the key at `path`, or creates it. Creation is whole or nothing: the key is written
    /// and synced in a temporary file beside it, then hard-linked to `path` (`link(2)` fails if
    /// it exists), so a concurrent export reads either no key or the complete one, and the one
    /// that loses the race reads the winner's (before, a second export could read an empty file,
    /// or fail with "File exists"; a failed write left an empty key behind).
    static func loadOrCreate(path: String) throws -> MaskKey {
        if let key = try load(path: path) { return key }
        let key = MaskKey.random()
        let folder = (path as NSString).deletingLastPathComponent
        var template = Array(((folder.isEmpty ? "." : folder) + "/.mask-key-XXXXXX").utf8CString)
        let fd = mkstemp(&template)  // mode 600
        guard fd >= 0 else { throw failure(path) }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(temporary) }
        let text = Array((key.hex + "\n").utf8)
        let written = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == text.count, fsync(fd) == 0 else {
            let error = failure(path)
            close(fd)
            throw error
        }
        guard close(fd) == 0 else { throw failure(path) }
        guard link(temporary, path) == 0 else {
            guard errno == EEXIST, let theirs = try load(path: path) else { throw failure(path) }
            return theirs  // another export created it meanwhile
        }
        printErr("created the mask key \(path): keep it private, and keep it (without it, masks move)")
        return key
    }

    /// The key at `path`, nil when there is no file; refuses an all-zero key, warns when others
    /// may read it.
    static func load(path: String) throws -> MaskKey? {
        // Read with open(2): a file that is there but cannot be read (a folder, no permission) is
        // said so, not taken for a missing key (creating one then failed with "File exists").
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw ValidationError("cannot read the mask key \(path): \(String(cString: strerror(errno))); fix its permissions or set $GEOSPEND_MASK_KEY")
        }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let n = read(fd, &bytes, bytes.count)
        let readError = errno
        close(fd)
        guard n >= 0 else {
            throw ValidationError("cannot read the mask key \(path): \(String(cString: strerror(readError))); it must be a file of 32 hex digits")
        }
        let text = String(decoding: bytes[..<n], as: UTF8.self)
        let key: MaskKey
        do { key = try MaskKey(hex: text.trimmingCharacters(in: .whitespacesAndNewlines)) } catch {
            throw ValidationError("\(path): \(error)")
        }
        guard key != MaskKey(k0: 0, k1: 0) else {
            throw ValidationError("""
                \(path) holds an all-zero key, which anyone can guess: masks made with it can be undone. \
                Delete the file to have a random key created on the next masked export; masks then move, \
                so exports made with the old key and the new one, compared, narrow down the masked places: \
                share exports made with one key only
                """)
        }
        var info = stat()
        if stat(path, &info) == 0 && info.st_mode & 0o077 != 0 {
            printErr("""
                warning: the mask key \(path) can be read or changed by other users (mode \(String(info.st_mode & 0o777, radix: 8))): \
                with it they can undo the masks. Run: chmod 600 \(path) (keep the file: a new key moves every mask)
                """)
        }
        return key
    }

    private static func failure(_ path: String) -> ExportError {
        .writeFailed("cannot create the mask key \(path): \(String(cString: strerror(errno)))")
    }
}
