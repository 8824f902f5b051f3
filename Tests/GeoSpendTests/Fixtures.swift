import Foundation
import GeoSpendTestSupport

/// Paths of the repository's shared test data, found from this file's location.
enum Fixtures {
    static let repository = Repository.root
    static func path(_ relative: String) -> String { repository.appendingPathComponent(relative).path }

    static func json(_ relative: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path(relative)))
        return try JSONSerialization.jsonObject(with: data) as! [String: Any]
    }

    /// `body` with the path of a temporary file holding `bytes` (the readers map or stream
    /// files, so parsing tests go through one), removed afterwards.
    static func withFile<T>(_ bytes: [UInt8], _ body: (String) throws -> T) throws -> T {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-test-\(UUID().uuidString)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try body(path)
    }
}
