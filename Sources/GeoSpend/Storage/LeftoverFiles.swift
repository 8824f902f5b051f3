import Foundation

/// Temporary files a killed process left beside their target: a first open's
/// `.NAME.creating-PID-RANDOM` (and its -wal/-shm/-journal), an export's `.NAME.partial-PID-…`.
/// Their names carry the writer's process id, so a later run can tell a leftover from a file
/// another process is still writing.
public enum LeftoverFiles {
    /// `.NAME.KIND-`, the hidden name of a temporary file for the target NAME up to its process
    /// id. NAME is cut to 180 bytes, so that with a process id, a random part and `-journal` the
    /// whole stays within NAME_MAX (255) for any name the target itself may have.
    public static func prefix(target name: String, kind: String) -> String {
        "." + String(decoding: name.utf8.prefix(180), as: UTF8.self) + "." + kind + "-"
    }

    /// Removes the entries of `directory` named `PREFIX` + a process id + `-…` (or nothing more),
    /// for one of `prefixes`, whose process is gone (`kill(pid, 0)` fails with `ESRCH`) or, with
    /// `olderThan`, that are older than that (a reused process id).
    ///
    /// Only regular files owned by this user go, looked at without following symlinks (`lstat`):
    /// a symlink planted under such a name is left, and so is what it points to. `unlink` removes
    /// a name, never what a link that replaced the file meanwhile points to.
    /// - Returns: the names removed.
    @discardableResult
    public static func removeStale(in directory: String, prefixes: [String], olderThan maxAge: TimeInterval? = nil) -> [String] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var removed: [String] = []
        for entry in entries {
            guard let prefix = prefixes.first(where: { entry.hasPrefix($0) }) else { continue }
            let rest = entry.utf8.dropFirst(prefix.utf8.count)
            let digits = rest.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            // `PID` then `-` or the end: `.a.creating-12.creating-…` (the target `a.creating-12`'s) is not ours.
            guard !digits.isEmpty, digits.count <= 10, rest.count == digits.count || rest.dropFirst(digits.count).first == UInt8(ascii: "-"),
                let pid = Int32(String(decoding: digits, as: UTF8.self)), pid > 0
            else { continue }
            let path = directory + "/" + entry
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else { continue }
            let gone = kill(pid, 0) != 0 && errno == ESRCH
            let old = maxAge.map { Date().timeIntervalSince1970 - Double(info.st_mtim.tv_sec) > $0 } ?? false
            if (gone || old) && unlink(path) == 0 { removed.append(entry) }
        }
        return removed.sorted()
    }
}
