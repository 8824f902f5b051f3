import Foundation

/// The load and crash figures a test reports: `make reliability` sets the environment, collects
/// the lines in `$GEOSPEND_RELIABILITY_SUMMARY` and prints them at the end.
public enum ReliabilityFigures {
    /// Whether this is the long `make reliability` run (GEOSPEND_RELIABILITY_RUNS set).
    public static var isLong: Bool { ProcessInfo.processInfo.environment["GEOSPEND_RELIABILITY_RUNS"] != nil }

    /// Appends lines to `$GEOSPEND_RELIABILITY_SUMMARY`, and to stdout.
    public static func report(_ lines: [String]) {
        let text = lines.map { $0 + "\n" }.joined()
        print(text, terminator: "")
        guard let path = ProcessInfo.processInfo.environment["GEOSPEND_RELIABILITY_SUMMARY"] else { return }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard fd >= 0 else { return }
        _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// The p-th percentile (0–100) by nearest rank.
    public static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
