import Foundation
import GeoSpendTestSupport
import Testing

/// Hostile text already in a database (written with plain SQL, as an older import or another
/// tool could have left it) through the real `geospend` binary: `users list`, `report stores`
/// and `report store` in every format keep their rows and columns and carry no live HTML.
@Suite(.serialized) struct OutputEscapingCLITests {
    static let name = "<img src=x onerror=alert(1)></script>\n| injected | row |\u{202E}"

    func database() throws -> String {
        let dir = Reliability.scratch("escaping")
        let db = dir.appendingPathComponent("e.sqlite").path
        let stores = dir.appendingPathComponent("s.csv").path, expenses = dir.appendingPathComponent("e.csv").path
        try "id,name,kind,lat,lon\nH,placeholder,amenity:cafe,60.17,24.94\n".write(toFile: stores, atomically: true, encoding: .utf8)
        try (["user,amount,currency,occurred_at,category,store_id"]
            + ["u1", "u2", "u3"].map { "\($0),5.00,EUR,2025-03-03T08:10:00+02:00,Clinic,H" })
            .joined(separator: "\n").write(toFile: expenses, atomically: true, encoding: .utf8)
        #expect(try Reliability.geospend(["import", "stores", stores, "--db", db]).status == 0)
        #expect(try Reliability.geospend(["import", "expenses", expenses, "--db", db]).status == 0)
        let hostile = "'<img src=x onerror=alert(1)></script>' || char(10) || '| injected | row |' || char(8238)"
        _ = try Reliability.sql(db, """
            UPDATE stores SET name = \(hostile) WHERE id = 'H';
            UPDATE categories SET name = \(hostile) WHERE name = 'Clinic';
            INSERT INTO users (id) VALUES ('bob'), ('bob' || char(8203)), ('bob' || char(160)), ('bob' || char(8238) || 'x');
            """, shell: Reliability.sqlite3)
        return db
    }

    @Test func lookAlikeUsersLookDifferentInUsersList() throws {
        let db = try database()
        let r = try Reliability.geospend(["users", "list", "--db", db])
        #expect(r.status == 0, "\(r.err)")
        let bobs = r.out.split(separator: "\n").map { String($0.split(separator: " ").first ?? "") }.filter { $0.hasPrefix("bob") }
        #expect(bobs.sorted() == ["bob", "bob\\u{200B}", "bob\\u{202E}x", "bob\\u{A0}"])
        #expect(!r.out.unicodeScalars.contains { $0.value > 0x7E || ($0.value < 0x20 && $0 != "\n") })
    }

    @Test func storeReportsKeepTheirShapeInEveryFormat() throws {
        let db = try database()
        for format in ["table", "markdown", "csv", "html", "json"] {
            let r = try Reliability.geospend(["report", "stores", "--db", db, "--format", format])
            #expect(r.status == 0, "\(format): \(r.err)")
            if ["markdown", "html"].contains(format) { #expect(!Self.live(r.out), "\(format)") }
            let lines = r.out.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            switch format {
            case "table": #expect(lines.count == 5 && !r.out.contains("\u{202E}"))  // notice, blank, header, rule, one row
            case "markdown": #expect(lines.count == 5 && lines.last!.hasPrefix("| \\<img") && !r.out.contains("\u{202E}"))
            case "csv":
                // Python's csv module: header and one row of 10 fields.
                let check = try runProgram(
                    "/usr/bin/python3", ["-c", "import csv,sys; rows=list(csv.reader(open(sys.argv[1], newline=''))); print(len(rows), {len(r) for r in rows})", try file(r.out)])
                #expect(check.out == "2 {10}\n", "\(check.err)")
            case "html": #expect(r.out.contains("&lt;img src=x onerror=alert(1)&gt;&lt;/script&gt;"))
            default:  // JSON is data: the name comes back exactly as stored.
                let json = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
                #expect((json["stores"] as? [[String: Any]])?.first?["name"] as? String == Self.name)
            }
        }
        for format in ["markdown", "html", "json"] {
            let r = try Reliability.geospend(["report", "store", "H", "--db", db, "--format", format])
            #expect(r.status == 0, "\(format): \(r.err)")
            if format != "json" { #expect(!Self.live(r.out) && !r.out.contains("\n| injected"), "\(format)") }
            if format == "markdown" {
                // Category table: header, rule, one row; the title is one line.
                #expect(r.out.contains("| \\<img src=x onerror=alert(1)\\>\\</script\\>\\\\u{A}\\| injected \\| row \\|\\\\u{202E} | 3 | 15.00 |"))
                #expect(r.out.hasPrefix("# Store report: \\<img src=x"))
            }
        }
    }

    /// A tag or `</script>` that a Markdown renderer or browser would act on: `<` not escaped
    /// by a backslash (Markdown) and not an entity (HTML).
    static func live(_ out: String) -> Bool {
        var previous: Character = " "
        var text = out
        // The report's own markup is not data: inline SVG and the HTML page's skeleton.
        for own in ["<svg", "</svg>", "<rect", "</rect>", "<text", "</text>", "<title>", "</title>", "<!DOCTYPE", "<html", "</html>",
                    "<head>", "</head>", "<meta", "<style>", "</style>", "<body>", "</body>", "<h1>", "</h1>", "<h2>", "</h2>", "<h3>", "</h3>",
                    "<p", "</p>", "<table>", "</table>", "<tr>", "</tr>", "<th>", "</th>", "<td", "</td>"] {
            text = text.replacingOccurrences(of: own, with: "")
        }
        for c in text {
            if c == "<", previous != "\\" { return true }
            previous = c
        }
        return false
    }

    func file(_ text: String) throws -> String {
        let path = Reliability.scratch("csv").appendingPathComponent("out.csv").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
