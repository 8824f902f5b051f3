import Foundation
import Synchronization

/// What a program run by the tests left: its exit status (the signal number when killed),
/// stdout and stderr.
public typealias ProgramOutput = (status: Int32, out: String, err: String)

/// Why `runProgram` gave up.
public struct ProgramTimeout: Error, CustomStringConvertible {
    public let command: String
    public let seconds: Double
    public let output: ProgramOutput
    public var description: String {
        "\(command) still ran after \(seconds) s and was killed; stderr so far:\n\(output.err.suffix(2000))"
    }
}

/// Runs a program to its end and returns its status, stdout and stderr: the one way the test
/// targets run programs (geospend, ogrinfo, python, sqlite3, chromium).
///
/// Both streams go to temporary files, not pipes: a pipe holds 64 KiB, and a runner that reads
/// stdout to its end before stderr waits forever for a child blocked writing a full stderr
/// (`ProgramRunnerTests`). Files never fill, and the run ends when the program does, even if a
/// grandchild (chromium's helpers) keeps the descriptors open.
///
/// The program is started by `posix_spawn`, not Foundation's `Process`: on Linux `Process.run()`
/// reads `/proc/self/fd` with a 256-byte copy of each entry's name and now and then reads past
/// the end of glibc's buffer into an unmapped page (swift-corelibs-foundation PR #5472, present
/// in Swift 6.3.1). One clean-clone `make test` crashed there (SIGSEGV in `Process.run`, 2 Dec
/// 2026); this runner starts thousands of programs a run.
///
/// - Parameters:
///   - directory: the working directory (default: the test's), entered by `env -C`.
///   - environment: the whole environment (default: the test's).
///   - timeout: the program and its process group are killed (SIGKILL) after this long and
///     `ProgramTimeout` thrown, so a hung program fails its test instead of hanging the suite.
public func runProgram(
    _ executable: String, _ arguments: [String], directory: URL? = nil, environment: [String: String]? = nil,
    timeout: Duration = .seconds(900)
) throws -> ProgramOutput {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-run-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let outPath = folder.appendingPathComponent("stdout").path, errPath = folder.appendingPathComponent("stderr").path

    // `env -C DIR` changes the directory in the child (glibc's addchdir_np is not in Swift's
    // Glibc module); `--` ends env's own options.
    let argv = (directory.map { ["/usr/bin/env", "-C", $0.path, "--", executable] } ?? [executable]) + arguments
    let env = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // Its own process group (the timeout kills the group), default signal handling, no blocked signals.
    var all = sigset_t(), none = sigset_t()
    sigfillset(&all)
    sigemptyset(&none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

    var pid: pid_t = 0
    let spawned = withCStrings(argv) { cArgv in
        withCStrings(env) { cEnv in posix_spawn(&pid, argv[0], &actions, &attributes, cArgv, cEnv) }
    }
    guard spawned == 0 else {
        throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO, userInfo: [NSLocalizedDescriptionKey: "posix_spawn \(argv[0])"])
    }

    // The wait runs on a thread of its own, so the timeout can end it.
    let ended = DispatchSemaphore(value: 0)
    let status = Mutex<Int32>(0)
    let child = pid
    Thread.detachNewThread {
        var s: Int32 = 0
        while waitpid(child, &s, 0) == -1 && errno == EINTR {}
        status.withLock { $0 = s }
        ended.signal()
    }
    let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
    let timedOut = ended.wait(timeout: .now() + seconds) == .timedOut
    var gone = !timedOut
    if timedOut {
        // Kill the group, or a grandchild (a shell's `sleep`) would keep running.
        kill(-child, SIGKILL)
        gone = ended.wait(timeout: .now() + 10) == .success
    }
    // The exit code, or the signal number when a signal ended it (as `Process.terminationStatus`).
    let raw = status.withLock { $0 }
    let code: Int32 = (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : raw & 0x7f
    let result: ProgramOutput = (
        gone ? code : -1,
        String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data(), as: UTF8.self),
        String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: errPath))) ?? Data(), as: UTF8.self)
    )
    if timedOut {
        throw ProgramTimeout(command: ([executable] + arguments).joined(separator: " "), seconds: seconds, output: result)
    }
    return result
}

/// Calls `body` with a NULL-terminated C array of the strings, valid for the call only.
private func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    return body(copies + [nil])
}
