import Foundation

/// The `geospend` binary the package built: tests run from the build folder, so it sits next
/// to the test bundle; else the checkout's .build/debug.
public func builtGeoSpendBinary(repo: URL) -> String {
    let candidates = [
        Bundle.main.bundleURL.appendingPathComponent("geospend").path,
        Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("geospend").path,
        repo.appendingPathComponent(".build/debug/geospend").path,
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
}
