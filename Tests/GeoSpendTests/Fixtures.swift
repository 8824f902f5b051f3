import Foundation

/// Paths of the repository's shared test data, found from this file's location.
enum Fixtures {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static func path(_ relative: String) -> String { repository.appendingPathComponent(relative).path }

    static func json(_ relative: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path(relative)))
        return try JSONSerialization.jsonObject(with: data) as! [String: Any]
    }
}
