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
/// targets run programs to their end (geospend, ogrinfo, python, sqlite3, chromium).
///
/// Both streams go to temporary files, not pipes: a pipe holds 64 KiB, and a runner that reads
/// stdout to its end before stderr waits forever for a child blocked writing a full stderr
/// (`ProgramRunnerTests`). Files never fill, and the run ends when the program does, even if a
/// grandchild (chromium's helpers) keeps the descriptors open.
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
    let program = try RunningProgram(executable, arguments, directory: directory, environment: environment)
    let timedOut = !program.waitUntilExit(timeout: timeout)
    if timedOut {
        // Kill the group, or a grandchild (a shell's `sleep`) would keep running.
        program.killGroup()
        _ = program.waitUntilExit(timeout: .seconds(10))
    }
    let result: ProgramOutput = (program.isRunning ? -1 : program.terminationStatus, program.standardOutput, program.standardError)
    if timedOut {
        throw ProgramTimeout(command: ([executable] + arguments).joined(separator: " "), seconds: timeout.seconds, output: result)
    }
    return result
}

/// A program started and still running, or ended: what the tests use for servers, receivers and
/// clients that run beside the test (`geospend serve`, a `curl` in flight), with the names of
/// Foundation's `Process` it replaces.
///
/// The program is started by `posix_spawn`, not Foundation's `Process`: on Linux `Process.run()`
/// reads `/proc/self/fd` with a 256-byte copy of each entry's name and now and then reads past
/// the end of glibc's buffer into an unmapped page (swift-corelibs-foundation PR #5472, present
/// in Swift 6.3.1). One clean-clone `make test` crashed there (SIGSEGV in `Process.run`, 2 Dec
/// 2026); the tests start thousands of programs a run.
///
/// The child gets stdin from /dev/null unless given a file, no descriptor of the test process but its stdout and
/// stderr (as `Process` does: a test's pipe or socket held open by another test's server would
/// keep it from ending), its own process group and default signal handling.
public final class RunningProgram: Sendable {
    public let processIdentifier: Int32
    private let folder: URL
    private let outPath: String, errPath: String
    private let exit = Exit()

    /// The wait status once `waitpid` returned it, and a semaphore signalled then.
    private final class Exit: Sendable {
        let status = Mutex<Int32?>(nil)
        let ended = DispatchSemaphore(value: 0)
    }

    /// - Parameters:
    ///   - input: a regular file to read as stdin (default /dev/null).
    ///   - output: a file both streams are appended to (a server's log); by default each goes to
    ///     a temporary file of its own, read by `standardOutput` and `standardError`.
    public init(
        _ executable: String, _ arguments: [String], directory: URL? = nil, environment: [String: String]? = nil,
        input: URL? = nil, output: URL? = nil
    ) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        outPath = output?.path ?? folder.appendingPathComponent("stdout").path
        errPath = output?.path ?? folder.appendingPathComponent("stderr").path

        // `env -C DIR` changes the directory in the child (glibc's addchdir_np is not in Swift's
        // Glibc module); `--` ends env's own options.
        let argv = (directory.map { ["/usr/bin/env", "-C", $0.path, "--", executable] } ?? [executable]) + arguments
        let env = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input?.path ?? "/dev/null", O_RDONLY, 0)
        if output != nil {
            posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        guard Self.closeFrom(&actions, 3) == 0 else { throw POSIXError(.EINVAL) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
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
            try? FileManager.default.removeItem(at: folder)
            throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO, userInfo: [NSLocalizedDescriptionKey: "posix_spawn \(argv[0])"])
        }
        processIdentifier = pid

        // The wait runs on a thread of its own, so a caller can wait with a timeout or poll.
        let child = pid, exit = self.exit
        let command = argv.joined(separator: " ")
        Thread.detachNewThread {
            var s: Int32 = 0
            var usage = rusage()
            while wait4(child, &s, 0, &usage) == -1 && errno == EINTR {}
            Self.logCPU(usage, command)
            exit.status.withLock { $0 = s }
            exit.ended.signal()
        }
    }

    /// With `GEOSPEND_TEST_CPU_LOG=FILE`, each program's CPU seconds (user + system, its own and
    /// its waited-for children's) and command line are appended to FILE: where a test run's CPU
    /// goes outside the test process (`scripts/test-cpu-profile.sh` sums it by program).
    private static let cpuLog: Int32? = ProcessInfo.processInfo.environment["GEOSPEND_TEST_CPU_LOG"].map {
        open($0, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    }

    private static func logCPU(_ usage: rusage, _ command: String) {
        guard let fd = cpuLog, fd >= 0 else { return }
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        // One write of a line under PIPE_BUF: O_APPEND keeps concurrent lines whole.
        let cpu = String(format: "%.3f", seconds(usage.ru_utime) + seconds(usage.ru_stime))
        let line = cpu + "\t" + String(command.prefix(300)).replacingOccurrences(of: "\n", with: " ") + "\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
    }

    deinit {
        if isRunning { kill(-processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: folder)
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34), which Swift's Glibc module
    /// does not declare (it sits behind `_GNU_SOURCE`).
    private static let closeFrom: @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32 = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            fatalError("glibc 2.34 or later is needed (posix_spawn_file_actions_addclosefrom_np)")
        }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    public var isRunning: Bool { exit.status.withLock { $0 == nil } }

    /// True when it ended within `timeout`. Every wait has one: a test that hangs tells nobody
    /// what went wrong, and holds up the whole run.
    @discardableResult
    public func waitUntilExit(timeout: Duration) -> Bool {
        guard isRunning else { return true }
        guard exit.ended.wait(timeout: .now() + timeout.seconds) == .success else { return false }
        exit.ended.signal()  // for the next waiter
        return true
    }

    /// The exit code, or the signal number when a signal ended it (as `Process.terminationStatus`);
    /// -1 while it runs.
    public var terminationStatus: Int32 {
        guard let raw = exit.status.withLock({ $0 }) else { return -1 }
        return (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : raw & 0x7f
    }

    /// True when a signal, not an exit, ended it.
    public var wasSignalled: Bool { exit.status.withLock { $0.map { ($0 & 0x7f) != 0 } ?? false } }

    public func terminate() { kill(processIdentifier, SIGTERM) }
    public func interrupt() { kill(processIdentifier, SIGINT) }
    /// SIGKILL to the program and everything it started.
    public func killGroup() { kill(-processIdentifier, SIGKILL) }

    /// What it wrote to stdout so far (empty when `output` took both streams).
    public var standardOutput: String { Self.read(outPath) }
    public var standardError: String { Self.read(errPath) }

    private static func read(_ path: String) -> String {
        String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data(), as: UTF8.self)
    }
}

extension Duration {
    /// The duration in seconds, fractions included.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// Calls `body` with a NULL-terminated C array of the strings, valid for the call only.
private func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    return body(copies + [nil])
}
