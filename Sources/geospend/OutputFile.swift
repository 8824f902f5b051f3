import ArgumentParser
import Foundation
import GeoSpend

/// The one way the CLI writes a file (exports, `users export`, `generate`, the bundle's files).
///
/// - A regular file is written all-or-nothing: into a temporary file beside the target, created
///   exclusively under an unpredictable name (`O_EXCL`: no planted symlink is followed), renamed
///   over the target only when everything was written. SIGINT, SIGTERM and SIGHUP remove it;
///   leftovers of a crashed run (`kill -9`, power loss) are removed by the next write of the same
///   target.
/// - A non-regular file (a FIFO, `/dev/null`, `/dev/stdout` on a pipe or terminal) is written
///   directly: renaming over it would turn a device into a regular file.
/// - `-` is stdout.
/// - Refused (exit 2), before anything is read: an empty path, a folder, the database or its
///   `-wal`/`-shm`/`-journal` files or its mask key (by name, and by device and inode through
///   symlinks and hard links), and any existing SQLite database or WAL file: GeoSpend never
///   writes one, so replacing one is always a mistake.
enum OutputFile {
    /// Where a write goes, decided by `target(_:option:protecting:)`.
    enum Target {
        case stdout
        /// A device, FIFO or socket, written in place.
        case special(path: String)
        /// A regular file (existing or not) in the real folder `directory`; `mode` is the
        /// existing file's permissions, kept.
        case regular(path: String, directory: String, name: String, mode: mode_t?)
    }

    /// A file that no output may replace, and what to call it in the refusal.
    struct Protected {
        let path: String
        let role: String
    }

    /// The database, its journals and its mask key. When the database is reached through a
    /// symlink, SQLite names its journals after the file the link resolves to: those too.
    static func protecting(database path: String) -> [Protected] {
        let real = realPath(path).map { [$0] } ?? []
        return [Protected(path: path, role: "the database itself")]
            + Set([path] + real).sorted().flatMap { base in
                ["-wal", "-shm", "-journal"].map { Protected(path: base + $0, role: "the database's \($0) file") }
            }
            + [Protected(path: path + ".mask-key", role: "the database's mask key")]
    }

    /// Writes `body`'s output to `path` (see the type's rules). `option` names the path in messages.
    static func write<T>(
        to path: String, option: String = "--out", protecting: [Protected], _ body: (ByteSink) async throws -> T
    ) async throws -> T {
        try await write(to: target(path, option: option, protecting: protecting), body)
    }

    static func write<T>(to target: Target, _ body: (ByteSink) async throws -> T) async throws -> T {
        switch target {
        case .stdout:
            let sink = ByteSink(descriptor: 1)
            let result = try await body(sink)
            try flush(sink, "stdout")
            return result
        case .special(let path):
            return try await writeInPlace(path, body)
        case .regular(let path, let directory, let name, let mode):
            return try await replace(path, directory: directory, name: name, mode: mode, body)
        }
    }

    /// Checks `path` and says how it will be written; refusals are usage errors (exit 2), a
    /// missing folder a runtime failure (exit 1).
    static func target(_ path: String, option: String = "--out", protecting: [Protected]) throws -> Target {
        if path == "-" { return .stdout }
        guard !path.isEmpty else { throw ValidationError("\(option) is empty: give a file name, or - for stdout") }
        let name = (path as NSString).lastPathComponent
        guard !path.hasSuffix("/"), name != ".", name != ".." else {
            throw ValidationError("\(option) \(path) is a folder: give a file name")
        }
        let parent = (path as NSString).deletingLastPathComponent
        guard let directory = realPath(parent.isEmpty ? "." : parent) else {
            throw ExportError.writeFailed("\(path): folder \(parent): \(String(cString: strerror(errno)))")
        }
        // By name: the database's -wal or -journal may not exist yet, and must not be created.
        let resolved = directory == "/" ? "/" + name : directory + "/" + name
        for p in protecting where resolvedName(p.path) == resolved {
            throw refusal(option, path, p.role)
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            // Nothing there (or a dangling symlink, which the rename replaces, not follows).
            return .regular(path: path, directory: directory, name: name, mode: nil)
        }
        // By identity: through symlinks, hard links and other spellings of the path.
        for p in protecting {
            var other = stat()
            if stat(p.path, &other) == 0 && other.st_dev == info.st_dev && other.st_ino == info.st_ino {
                throw refusal(option, path, p.role)
            }
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: throw ValidationError("\(option) \(path) is a folder: give a file name")
        case S_IFREG:
            if let kind = sqliteKind(path) {
                throw ValidationError("\(option) \(path) is \(kind); GeoSpend never replaces one: choose another file")
            }
            return .regular(path: path, directory: directory, name: name, mode: info.st_mode & 0o7777)
        default:
            return .special(path: path)
        }
    }

    private static func refusal(_ option: String, _ path: String, _ role: String) -> ValidationError {
        ValidationError("\(option) \(path) is \(role); choose another file")
    }

    /// Whether two paths name one file: the same real folder and name, or the same inode.
    static func sameFile(_ a: String, _ b: String) -> Bool {
        if let x = resolvedName(a), x == resolvedName(b) { return true }
        var s = stat(), t = stat()
        return stat(a, &s) == 0 && stat(b, &t) == 0 && s.st_dev == t.st_dev && s.st_ino == t.st_ino
    }

    /// `realpath` of an existing path.
    /// The process's umask, read once (POSIX has no way to read it without setting it).
    static let processUmask: mode_t = {
        let current = umask(0)
        umask(current)
        return current
    }()

    static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    /// The real folder of `path` plus its name, whether or not `path` exists.
    private static func resolvedName(_ path: String) -> String? {
        let parent = (path as NSString).deletingLastPathComponent
        guard let directory = realPath(parent.isEmpty ? "." : parent) else { return nil }
        let name = (path as NSString).lastPathComponent
        return directory == "/" ? "/" + name : directory + "/" + name
    }

    /// "an SQLite database" or "an SQLite write-ahead log" when the file starts like one.
    private static func sqliteKind(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 16)
        let n = read(fd, &head, 16)
        if n == 16 && head == Array("SQLite format 3\0".utf8) { return "an SQLite database" }
        if n >= 4 && head[0] == 0x37 && head[1] == 0x7F && head[2] == 0x06 && (head[3] == 0x82 || head[3] == 0x83) {
            return "an SQLite write-ahead log"
        }
        return nil
    }

    private static func flush(_ sink: ByteSink, _ path: String) throws {
        do { try sink.flush() } catch ExportError.writeFailed(let reason) { throw ExportError.writeFailed("\(path): \(reason)") }
    }

    private static func failure(_ path: String) -> ExportError {
        .writeFailed("\(path): \(String(cString: strerror(errno)))")
    }

    /// A device or FIFO: opened without O_CREAT or O_TRUNC and written as it is.
    private static func writeInPlace<T>(_ path: String, _ body: (ByteSink) async throws -> T) async throws -> T {
        let fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw failure(path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT != S_IFREG, info.st_mode & S_IFMT != S_IFDIR else {
            throw ExportError.writeFailed("\(path) was replaced while being opened; run again")
        }
        let sink = ByteSink(descriptor: fd)
        let result = try await body(sink)
        try flush(sink, path)
        return result
    }

    /// Creates `.NAME.partial-PID-RANDOM` as `mkstemp` would (`O_CREAT | O_EXCL`, mode 600: never
    /// an existing file or a planted symlink; a new random part on a clash), but registers the
    /// name with `TemporaryFiles` *before* the file exists: a signal arriving right after the
    /// creation finds it to remove (with `mkstemp` a SIGTERM could fall between the two). On a
    /// clash the name is someone else's for an instant: a signal then would unlink that name (a
    /// dead process's leftover with our process id, or a planted link — never what it points to).
    private static func createTemporary(directory: String, name: String, path: String) throws -> (Int32, String) {
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        let prefix = TemporaryFiles.prefix(directory: directory, target: name)
        for _ in 0..<100 {
            let temporary = prefix + String((0..<6).map { _ in letters.randomElement()! })
            TemporaryFiles.register(temporary)
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if fd >= 0 { return (fd, temporary) }
            let code = errno
            TemporaryFiles.unregister(temporary)
            guard code == EEXIST else { errno = code; throw failure(path) }
        }
        throw failure(path)
    }

    /// A regular file: a temporary file beside it, renamed over it when complete.
    private static func replace<T>(
        _ path: String, directory: String, name: String, mode: mode_t?, _ body: (ByteSink) async throws -> T
    ) async throws -> T {
        TemporaryFiles.removeStale(in: directory, target: name)
        let (fd, temporary) = try createTemporary(directory: directory, name: name, path: path)
        defer { TemporaryFiles.unregister(temporary) }
        // An existing file keeps its permissions; a new one gets the usual 666 less umask (read
        // here, before `body` may start reader threads: reading it means setting it for a moment).
        let permissions = mode ?? (0o666 & ~processUmask)
        var isOpen = true
        do {
            let sink = ByteSink(descriptor: fd)
            let result = try await body(sink)
            try flush(sink, path)
            guard fchmod(fd, permissions) == 0, fsync(fd) == 0 else { throw failure(path) }
            isOpen = false
            guard close(fd) == 0 else { throw failure(path) }
            guard rename(temporary, directory + "/" + name) == 0 else { throw failure(path) }
            // The rename itself reaches the disk with the folder.
            let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if folder >= 0 { _ = fsync(folder); close(folder) }
            return result
        } catch {
            if isOpen { close(fd) }
            unlink(temporary)
            throw error
        }
    }
}
