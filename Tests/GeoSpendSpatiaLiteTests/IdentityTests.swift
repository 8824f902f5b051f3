import Foundation
import GRDB
import GeoSpend
import GeoSpendSpatiaLite
import Testing

/// One identity rule for ids and names (`Identity`): NFC where text comes in, bytes compared
/// in Swift caches and SQL alike, invisible characters refused in ids (issue 22, items 7, 12).
@Suite struct IdentityTests {
    static let header = "id,user,kind,amount,currency,occurred_at,title,category,merchant,lat,lon,accuracy_m,store_id,notes\n"
    static let nfc = "Jos\u{E9}", nfd = "Jose\u{301}"

    static func row(_ id: String, user: String, category: String = "Food") -> String {
        "\(id),\(user),expense,1.00,EUR,2025-03-01T08:15:00+02:00,,\(category),,60.17,24.94,,,\n"
    }

    /// The user ids as stored, as UTF-8 bytes (Swift would compare the strings as equal).
    static func storedUsers(_ store: SpatiaLiteStore) throws -> [[UInt8]] {
        try store.column("SELECT hex(id) FROM users ORDER BY id").map { hex in
            stride(from: 0, to: hex.count, by: 2).map { i in
                UInt8(hex[hex.index(hex.startIndex, offsetBy: i)..<hex.index(hex.startIndex, offsetBy: i + 2)], radix: 16)!
            }
        }
    }

    @Test func composedAndDecomposedIdsInOneFileAreOneUser() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let file = scratch.file("e.csv", Self.header + Self.row("e1", user: Self.nfc) + Self.row("e2", user: Self.nfd))
        let report = try await Importer.importExpenses(from: file, into: store)  // was: FOREIGN KEY constraint failed
        #expect(report.inserted == 2)
        #expect(try Self.storedUsers(store) == [Array(Self.nfc.utf8)])
        #expect(try store.scalar("SELECT count(DISTINCT user_id) FROM expenses") == 1)
    }

    @Test func composedAndDecomposedIdsInTwoFilesAreOneUser() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        _ = try await Importer.importExpenses(from: scratch.file("a.csv", Self.header + Self.row("e1", user: Self.nfc)), into: store)
        _ = try await Importer.importExpenses(from: scratch.file("b.csv", Self.header + Self.row("e2", user: Self.nfd)), into: store)
        #expect(try Self.storedUsers(store) == [Array(Self.nfc.utf8)])
        // Store ids too: an expense naming the store in NFD links to the store stored from NFC.
        _ = try await Importer.importStores(
            from: scratch.file("s.csv", "id,name,lat,lon\nCaf\u{E9}-1,Caf\u{E9},60.17,24.94\n"), into: store)
        let linked = Self.header + "e3,ann,expense,1.00,EUR,2025-03-01,,,,60.17,24.94,,Cafe\u{301}-1,\n"
        #expect(try await Importer.importExpenses(from: scratch.file("c.csv", linked), into: store).inserted == 1)
    }

    @Test func categoryNamesFollowTheSameRuleInAndAcrossFiles() async throws {
        // NFC/NFD forms of a category are one category; ASCII case folds (SQLite NOCASE), other
        // case does not — the same whether the rows come in one file or in two.
        let rows = [
            Self.row("e1", user: "ann", category: "Caf\u{E9}"), Self.row("e2", user: "ann", category: "Cafe\u{301}"),
            Self.row("e3", user: "ann", category: "CAF\u{C9}"), Self.row("e4", user: "ann", category: "caf\u{E9}"),
        ]
        func categories(_ files: [[String]]) async throws -> [String] {
            let scratch = Scratch()
            let store = try scratch.store()
            for (n, rows) in files.enumerated() {
                _ = try await Importer.importExpenses(from: scratch.file("f\(n).csv", Self.header + rows.joined()), into: store)
            }
            #expect(try store.scalar("SELECT count(*) FROM expenses WHERE category_id IS NULL") == 0)
            return try store.column("SELECT hex(name) FROM categories WHERE user_id = 'ann' AND name LIKE 'ca%' ORDER BY 1")
        }
        let oneFile = try await categories([rows])
        let fourFiles = try await categories(rows.map { [$0] })
        #expect(oneFile == fourFiles)
        #expect(oneFile.count == 2)  // Café (= café, = its NFD form) and CAFÉ
    }

    @Test func filtersGivenInAnotherNormalFormFindTheStoredRows() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        _ = try await Importer.importExpenses(
            from: scratch.file("e.csv", Self.header + Self.row("e1", user: Self.nfc, category: "Caf\u{E9}")), into: store)
        #expect(try store.readHere { try $0.spendingPoints(ExpenseFilter(userID: Self.nfd)) }.count == 1)
        #expect(try store.readHere { try $0.spendingPoints(ExpenseFilter(userID: Self.nfd, categories: ["Cafe\u{301}"])) }.count == 1)
        var filter = ExpenseFilter(userID: nil)
        filter.userID = Self.nfd
        #expect(try store.readHere { try $0.spendingPoints(filter) }.count == 1)
        #expect(try store.readHere { try $0.expensesWithoutStore(userID: SnapRequest(userID: Self.nfd).userID) }.count == 1)
    }

    @Test(arguments: [
        ("\u{202E}nna", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("an\u{200B}n", "U+200B ZERO WIDTH SPACE"),
        ("ann\u{A0}", "U+00A0 NO-BREAK SPACE"),
        ("an\u{2066}n", "U+2066 LEFT-TO-RIGHT ISOLATE"),
        ("\u{FEFF}ann", "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
        ("an\u{2028}n", "U+2028 LINE SEPARATOR"),
        ("an\tn", "U+0009 CHARACTER TABULATION"),
        ("\"an\nn\"", "U+000A LINE FEED"),
        // Found by a review: default-ignorable letters and marks that draw nothing.
        ("ann\u{3164}", "U+3164 HANGUL FILLER"),
        ("an\u{34F}n", "U+034F COMBINING GRAPHEME JOINER"),
    ])
    func invisibleCharactersInIdsAreRefused(id: String, named: String) async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let file = scratch.file("e.csv", Self.header + Self.row("e1", user: "ann") + Self.row("e2", user: id))
        await #expect {
            _ = try await Importer.importExpenses(from: file, into: store)
        } throws: { error in
            guard case ImportError.rejected(let errors, 1) = error, let e = errors.first else { return false }
            return e.description.hasPrefix("\(file):3: user: contains \(named)")
                && e.reason.contains(named.hasPrefix("U+000") ? ", a control character that makes ids look alike" : ", an invisible character that")
                && e.reason.hasSuffix("; remove it")
        }
        #expect(try store.readHere { try $0.counts() }.expenses == 0)
        #expect(try store.readHere { try $0.counts() }.users == 0)
        // The expense and store ids follow the same rule.
        let store2 = try scratch.store("b.sqlite")
        let bad = scratch.file("x.csv", Self.header + "e\u{200D}1,ann,expense,1.00,EUR,2025-03-01,,,,,,,,\n")
        await #expect(throws: ImportError.self) { _ = try await Importer.importExpenses(from: bad, into: store2) }
    }

    @Test func bidiControlsInNamesAreRefused() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let file = scratch.file("e.csv", Self.header + Self.row("e1", user: "ann", category: "Fo\u{202E}od"))
        await #expect {
            _ = try await Importer.importExpenses(from: file, into: store)
        } throws: { error in
            guard case ImportError.rejected(let errors, _) = error, let e = errors.first else { return false }
            return e.description == "\(file):2: category: contains U+202E RIGHT-TO-LEFT OVERRIDE, a bidi control that reorders the text shown after it; remove it"
        }
        // Direction marks and joiners are part of real text and stay allowed in names.
        let fine = scratch.file("f.csv", Self.header + Self.row("e1", user: "ann", category: "\u{5D0}\u{200F}x \u{1F469}\u{200D}\u{1F52C}"))
        #expect(try await Importer.importExpenses(from: fine, into: store).inserted == 1)
    }

    @Test func storeNamesAndIdsAreStoredInNFC() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        _ = try await Importer.importStores(from: scratch.file("s.csv", "id,name,lat,lon\nS1,Cafe\u{301},60.17,24.94\n"), into: store)
        #expect(try store.column("SELECT hex(name) FROM stores") == ["436166C3A9"])
    }
}
