import Foundation
import Testing

/// Statements of docs/ARCHITECTURE.md and the README that the code can check: the threads,
/// queues and blocking waits in `Sources/` are exactly the ones the architecture's table names,
/// and the README's layout table names every target of Package.swift.
@Suite struct ConcurrencyInventoryTests {
    static let repository = DocReferenceTests.repository

    /// What makes a thread, a queue or a blocking wait, each with the name the table gives it: a
    /// new one is a design decision for the table, not something to slip in.
    static let primitives: [(name: String, pattern: NSRegularExpression)] = [
        ("Thread", #"\bThread\s*(\{|\(|\.detachNewThread)"#), ("Thread", #"\bpthread_create\b"#),
        ("DispatchQueue", #"\bDispatchQueue\s*(\(|\.global|\.main)"#), ("DispatchSemaphore", #"\bDispatchSemaphore\b"#),
        ("DispatchGroup", #"\bDispatchGroup\b"#), ("NSCondition", #"\bNSCondition(Lock)?\b"#),
    ].map { (name: $0.0, pattern: try! NSRegularExpression(pattern: $0.1)) }

    /// Source lines as code: a line's `//` comment cut off (the primitives are named in comments).
    static func code(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            guard let r = line.range(of: "//") else { return line }
            return line[..<r.lowerBound]
        }.joined(separator: "\n")
    }

    @Test func theThreadsAndWaitsAreTheOnesTheArchitectureNames() throws {
        var found: Set<String> = []
        let root = Self.repository.appendingPathComponent("Sources")
        let walker = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
        for case let url as URL in walker where url.pathExtension == "swift" {
            let text = Self.code(try String(contentsOf: url, encoding: .utf8))
            for p in Self.primitives where p.pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil {
                found.insert("\(url.path.dropFirst(Self.repository.path.count + 1)) \(p.name)")
            }
        }
        let doc = try String(contentsOf: Self.repository.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        let section = try #require(doc.components(separatedBy: "\n## Concurrency\n").dropFirst().first?.components(separatedBy: "\n## ").first)
        var named: Set<String> = []
        for line in section.split(separator: "\n") where line.hasPrefix("| Sources/") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            named.insert("\(cells[0]) \(cells[1].trimmingCharacters(in: ["`"]))")
        }
        #expect(named.count >= 4, "the table was not found under the Concurrency heading of docs/ARCHITECTURE.md")
        #expect(found.subtracting(named).sorted() == [], "in Sources but not in the Concurrency table of docs/ARCHITECTURE.md")
        #expect(named.subtracting(found).sorted() == [], "in the Concurrency table of docs/ARCHITECTURE.md but gone from Sources")
    }

    @Test func theReadmesLayoutNamesEveryTarget() throws {
        let manifest = try String(contentsOf: Self.repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        let target = try NSRegularExpression(pattern: #"\.(?:target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"([^"]+)""#)
        let names = target.matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)).map {
            String(manifest[Range($0.range(at: 1), in: manifest)!])
        }
        #expect(names.count >= 10)
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let layout = try #require(readme.components(separatedBy: "\nLayout (").dropFirst().first?.components(separatedBy: "\n## ").first)
        for name in names {
            #expect(layout.contains("`Sources/\(name)`") || layout.contains("`Tests/\(name)`") || layout.contains("`\(name)`"),
                    "README's layout table does not name the target \(name)")
        }
    }
}
