import Foundation

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
/// - Parameters:
///   - directory: the working directory (default: the test's).
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
    let outURL = folder.appendingPathComponent("stdout"), errURL = folder.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
    defer { try? out.close(); try? err.close() }

    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    if let environment { process.environment = environment }
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = out
    process.standardError = err
    let ended = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in ended.signal() }
    try process.run()

    let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
    let timedOut = ended.wait(timeout: .now() + seconds) == .timedOut
    var gone = !timedOut
    if timedOut {
        // Foundation starts the program as the leader of its own process group: kill the group,
        // or a grandchild (a shell's `sleep`) would keep Foundation from seeing the end.
        kill(-process.processIdentifier, SIGKILL)
        gone = ended.wait(timeout: .now() + 10) == .success
    }
    let result: ProgramOutput = (
        gone ? process.terminationStatus : -1,
        String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
        String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
    )
    if timedOut {
        throw ProgramTimeout(command: ([executable] + arguments).joined(separator: " "), seconds: seconds, output: result)
    }
    return result
}
