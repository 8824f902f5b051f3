import Foundation

/// The `geospend` binary the package built: tests run from the build folder, so it sits next
/// to the test bundle; else the checkout's .build/debug.
/// `GEOSPEND_TEST_BINARY` names another (an older build, to see a regression test fail).
public func builtGeoSpendBinary(repo: URL) -> String {
    if let other = ProcessInfo.processInfo.environment["GEOSPEND_TEST_BINARY"], !other.isEmpty { return other }
    let candidates = [
        Bundle.main.bundleURL.appendingPathComponent("geospend").path,
        Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("geospend").path,
        repo.appendingPathComponent(".build/debug/geospend").path,
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
}
