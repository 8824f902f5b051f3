import Foundation

/// Latency figures of one engine on one workload.
struct Latency: Codable, Sendable {
    var runs: Int
    var p50Ms: Double
    var p95Ms: Double
    var meanRows: Double
}

/// Collects per-call durations (milliseconds) and row counts.
struct LatencyRecorder {
    private(set) var millis: [Double] = []
    private var rows = 0

    /// Runs `body`, recording its wall time and the number of rows it returned.
    mutating func time<T>(_ body: () throws -> T, rowCount: (T) -> Int) rethrows -> T {
        let start = ContinuousClock.now
        let value = try body()
        millis.append(Self.milliseconds(ContinuousClock.now - start))
        rows += rowCount(value)
        return value
    }

    mutating func record(milliseconds: Double, rows: Int = 0) {
        millis.append(milliseconds)
        self.rows += rows
    }

    var latency: Latency {
        let sorted = millis.sorted()
        // Nearest-rank percentiles: p50 of 1 run is that run.
        func percentile(_ p: Double) -> Double { sorted[max(0, Int((Double(sorted.count) * p).rounded(.up)) - 1)] }
        return Latency(runs: sorted.count, p50Ms: percentile(0.5), p95Ms: percentile(0.95), meanRows: Double(rows) / Double(max(1, sorted.count)))
    }

    static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1e3 + Double(d.components.attoseconds) / 1e15
    }
}

/// Runs a program to completion, returning its wall time; stdout is discarded, a failure throws
/// with the program's stderr.
func runTimed(_ executable: String, _ arguments: [String], stdin: String? = nil) throws -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
    let errors = Pipe()
    process.standardError = errors
    let input = Pipe()
    if stdin != nil { process.standardInput = input }
    let start = ContinuousClock.now
    try process.run()
    if let stdin {
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
    }
    let stderr = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let elapsed = LatencyRecorder.milliseconds(ContinuousClock.now - start)
    guard process.terminationStatus == 0 else {
        throw BenchFailure("\(executable) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus): \(String(decoding: stderr, as: UTF8.self))")
    }
    return elapsed
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Progress on stderr, so a long run shows where it is.
func progress(_ message: String) {
    FileHandle.standardError.write(Data("bench: \(message)\n".utf8))
}
