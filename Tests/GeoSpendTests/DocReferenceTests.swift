import Foundation
import GeoSpendTestSupport
import Testing

/// Comments point to the repository's docs as `docs/NAME.md § Section` (the rule or measured
/// trap behind the code): every such pointer names a file that exists and a heading it has, and
/// nothing points to design notes outside the repository any more.
@Suite struct DocReferenceTests {
    static let repository = Repository.root
    static let scanned = ["Sources", "Tests", "Benchmarks/Sources"]
    /// This file names the patterns it looks for.
    static let itself = "Tests/GeoSpendTests/DocReferenceTests.swift"

    /// Every text file under the scanned folders, with comment markers at line starts removed so
    /// a pointer wrapped over two comment lines reads as one.
    static func sources() throws -> [(path: String, text: String)] {
        var files: [(String, String)] = []
        for folder in scanned {
            let root = repository.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where ["swift", "txt", "py", "sh"].contains(url.pathExtension) {
                guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
                let joined = text.replacingOccurrences(of: #"\n[ \t]*(///|//|#)[ \t]*"#, with: " ", options: .regularExpression)
                files.append((String(url.path.dropFirst(repository.path.count + 1)), joined))
            }
        }
        return files
    }

    /// `docs/NAME.md § Section`: the section runs to `)`, `,`, `:` or a `.` that ends a sentence.
    static let pointer = try! NSRegularExpression(pattern: #"docs/([A-Za-z]+\.md)\s*§\s*((?:[^).:,\n]|\.(?=\d))+)"#)

    @Test func everyPointerNamesAnExistingHeading() throws {
        var found = 0
        for (path, text) in try Self.sources() where path != Self.itself {
            for match in Self.pointer.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                found += 1
                let file = String(text[Range(match.range(at: 1), in: text)!])
                let section = String(text[Range(match.range(at: 2), in: text)!]).trimmingCharacters(in: .whitespaces)
                let doc = Self.repository.appendingPathComponent("docs/" + file)
                guard let markdown = try? String(contentsOf: doc, encoding: .utf8) else {
                    Issue.record("\(path) points to docs/\(file), which does not exist")
                    continue
                }
                let headings = markdown.split(separator: "\n").filter { $0.hasPrefix("#") }
                    .map { $0.drop(while: { $0 == "#" }).trimmingCharacters(in: .whitespaces) }
                let named = headings.contains { $0 == section || $0.hasPrefix(section + ".") || $0.hasPrefix(section + " ") }
                #expect(named, "\(path) points to docs/\(file) § \(section), which has no such heading")
            }
        }
        #expect(found >= 15, "only \(found) pointers found: is the scan reading the sources?")
    }

    @Test func nothingPointsToNotesOutsideTheRepository() throws {
        for (path, text) in try Self.sources() where path != Self.itself {
            #expect(!text.contains("DESIGN.md") && !text.contains("REFERENCE.md"), "\(path) cites design notes outside the repository")
        }
    }
}
