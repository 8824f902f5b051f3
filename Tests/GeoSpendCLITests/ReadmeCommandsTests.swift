import Foundation
import GeoSpendTestSupport
import Testing

/// The README's command block ("The `geospend` command") runs as written, line by line and in
/// order, on `make demo`'s database (scripts/demo-database.sh), as a reader would paste it:
/// through bash, with `geospend` on the PATH, `$GEOSPEND_DB` the demo file and the working folder
/// a scratch one that sees the checkout's `Data/`. Every line must exit 0. `geospend serve` is
/// the one line not run: it serves until stopped (LiveServerTests start it).
@Suite struct ReadmeCommandsTests {
    /// The block's lines, continuation lines joined, blank lines dropped.
    static func commandBlock() throws -> [String] {
        let readme = try String(contentsOf: CLITests.repo.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "## The `geospend` command"), "the README lost its command section")
        let rest = readme[section.upperBound...]
        let open = try #require(rest.range(of: "```sh\n"))
        let close = try #require(rest[open.upperBound...].range(of: "```"))
        let text = rest[open.upperBound..<close.lowerBound].replacingOccurrences(of: "\\\n", with: " ")
        return text.split(separator: "\n").map(String.init).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    @Test func everyCommandRunsAsWrittenOnTheDemoDatabase() throws {
        let dir = Reliability.scratch("readme")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createSymbolicLink(at: dir.appendingPathComponent("Data"), withDestinationURL: CLITests.repo.appendingPathComponent("Data"))
        let db = dir.appendingPathComponent("demo.sqlite").path
        let built = try runProgram("/bin/bash", ["scripts/demo-database.sh", CLITests.binary, db], directory: CLITests.repo)
        try #require(built.status == 0, "\(built.err)")

        let lines = try Self.commandBlock()
        #expect(lines.count >= 30, "\(lines)")
        let bin = (CLITests.binary as NSString).deletingLastPathComponent
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["GEOSPEND_DB"] = db
        var ran: [String: ProgramOutput] = [:]
        for line in lines {
            #expect(line.hasPrefix("geospend "), "not a geospend command: \(line)")
            if line.hasPrefix("geospend serve") { continue }
            let r = try runProgram("/bin/bash", ["-c", line], directory: dir, environment: environment, timeout: .seconds(300))
            #expect(r.status == 0, "\(line)\n\(r.err)")
            ran[line] = r
        }
        // A few answers that say the lines did their work, not only exited 0.
        let sample = try #require(ran.first { $0.key.contains("Data/sample-expenses.csv") }?.value)
        // The demo's ids are not the sample's; 608 of the sample's rows are the demo's own
        // transactions (the same generator and seed), recognised by day, amount and merchant.
        #expect(sample.err.contains("imported 1392 expenses, 0 already present, 608 duplicates left out"), "\(sample.err)")
        let qif = try #require(ran.first { $0.key.contains("Data/examples/statement.qif") }?.value)
        #expect(qif.err.contains("imported 0 expenses, 0 already present, 14 duplicates left out"), "the OFX's statement: \(qif.err)")
        let basket = try #require(ran.first { $0.key.hasPrefix("geospend basket") }?.value)
        #expect(basket.out.contains("288130404") || basket.out.contains("S-Market"), "a store prices the basket: \(basket.out)\(basket.err)")
        let receipt = try #require(ran.first { $0.key.hasPrefix("geospend receipts parse") }?.value)
        #expect(receipt.out.contains("\"total\": \"7.77\"") || receipt.out.contains("\"total\":\"7.77\""), "\(receipt.out)")
        for file in ["store.html", "hex.geojson", "expenses.csv", "user1.json"] {
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(file).path), "\(file) was written")
        }
    }
}
