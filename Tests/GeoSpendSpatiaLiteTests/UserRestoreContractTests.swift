import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// `UserDataStore.restore` (`geospend users import`), the same on the file, the memory store and
/// PostgreSQL (where `$GEOSPEND_TEST_POSTGRES` names a server): export → delete → restore → export gives
/// the same bytes; a user with data is refused and nothing is written; a corrupt document is
/// refused with the JSON path of the bad value; a failure halfway leaves the user absent;
/// `as:` restores under another id and leaves the original and bob alone.
@Suite struct UserRestoreContractTests {
    typealias Kind = EditingStoreKind
    typealias Database = ExpenseStore & ExpenseEditing & CategoryEditing & PeriodStore & PositionStore & UserSettingsStore
        & NotificationStore & UserProfileStore & UserDataStore & BudgetStore & RecurringStore & PantryStore & PriceStore & ReceiptStore
        & ShoppingListStore & ProductStore & CommunityStore & StoreChoiceStore

    static func make(_ kind: Kind, _ scratch: Scratch) async throws -> any Database {
        try await kind.make(in: scratch)
    }

    /// ann with a row of every table restore writes; bob with some of his own.
    static func loaded(_ kind: Kind, _ scratch: Scratch) async throws -> any Database {
        let store = try await make(kind, scratch)
        try await EditingRestoreContractTests.addOwnRecords(to: store, scratch)
        #expect(try await store.setNotificationSettings(
            NotificationSettings(events: ["budget.threshold"], quietHours: NotificationSettings.QuietHours(parsing: "22:00-07:00"), reminderLeadMinutes: 30),
            userID: "ann"))
        // A recurring rule that names a store; pantry items open and used.
        _ = try await RecurringChanges.add(
            ["every": "monthly", "from": "2026-01-31", "amount": "950", "currency": "EUR", "title": "Rent", "category": "Bills", "store_id": "s2"],
            user: "ann", store: store)
        _ = try await store.addPantryItem(userID: "ann", PantryFields(name: "Milch", quantity: "2 l", expires: try LocalDay(parsing: "2026-03-20")))
        let used = try #require(try await store.addPantryItem(userID: "ann", PantryFields(name: "Brot", quantity: nil, expires: nil)))
        _ = try await store.closePantryItem(userID: "ann", id: used.id, as: .used)
        try await addShared(store)
        return store
    }

    /// ann's rows beside the catalogue: price records (one product with a barcode only she
    /// records, one bob records too), receipts (one kept photo, one corrected, one waiting for
    /// review), tags with and without a colour, favourite and on-sale marks, a shopping list with
    /// a checked item, and the community layer (automatic and written entries, a comment on her
    /// own entry and one on bob's).
    static func addShared(_ store: any Database) async throws {
        let eur = try Currency(code: "EUR")
        _ = try await store.joinCommunity(userID: "ann", displayName: "Ann")
        _ = try await store.joinCommunity(userID: "bob", displayName: "Bob")
        let at = try Timestamp(parsing: "2026-03-05T09:15:00+02:00")
        let saved = try await store.savePrices([
            PriceEntry(
                productName: "Vollmilch 1,5%", brand: "Valio", barcode: try Barcode(parsing: "4006381333931"), category: "Dairy", store: .id("s1"),
                price: Money(minorUnits: 129, currency: eur), quantity: 1.5, unit: .l, recordedAt: at, source: .manual),
            PriceEntry(productName: "Roggenbrot", store: .id("s2"), price: Money(minorUnits: 249, currency: eur), recordedAt: at, source: .import),
        ], userID: "ann")
        _ = try await store.savePrices([
            PriceEntry(productName: "Roggenbrot", store: .id("s1"), price: Money(minorUnits: 259, currency: eur), recordedAt: at, source: .import),
        ], userID: "bob")
        var ids: [Int64] = []
        for case .inserted(let r, _) in saved { ids.append(r.product.id) }
        #expect(ids.count == 2)
        // A photo whose base64 needs padding; bytes JSON would otherwise escape.
        let photo: [UInt8] = [0xFF, 0xD8, 0xFF, 0x00, 0x22, 0x5C, 0x0A, 0x80]
        let kept = try await ReceiptRecording.importReceipt(
            .init(text: "Kiosk\n16.12.2024 15:53\nMilk 1,29\nBrot Vollkorn 2,49\nSUMME 3,78\n", name: "IMG_7.jpg", isPhoto: true,
                  imageHash: "ab12", keptImage: photo, user: "ann", storeID: "s1", at: nil), db: store).receipt
        _ = try await ReceiptRecording.correct(id: kept.id, user: "ann", .init(line: 3, price: "1,39", total: "3,88"), db: store)
        _ = try await ReceiptRecording.importReceipt(.init(text: "Nowhere Shop\nTee 1,10\nSUMME 9,99\n", name: "t.txt", user: "ann", storeID: nil, at: nil), db: store)
        _ = try #require(try await store.tagProduct(userID: "ann", productID: ids[0], tag: "dairy", color: "#007AFF"))
        _ = try #require(try await store.tagProduct(userID: "ann", productID: ids[1], tag: "bread", color: nil))
        _ = try #require(try await store.tagProduct(userID: "ann", productID: ids[0], tag: "bread", color: nil))
        #expect(try await store.markProduct(userID: "ann", productID: ids[0], favourite: true, onSale: nil))
        #expect(try await store.markProduct(userID: "ann", productID: ids[1], favourite: nil, onSale: true))
        let list = try await store.addList(userID: "ann", name: "Week", budget: Money(minorUnits: 4_000, currency: eur))
        _ = try await store.setItems(userID: "ann", id: list.id, [try ShoppingListItem(parsing: "Milch=2"), try ShoppingListItem(parsing: "Äpfel=1.5kg")])
        _ = try #require(try await store.checkItem(
            userID: "ann", id: list.id, position: 1,
            expense: Expense(id: "list-\(list.id)", userID: "ann", amount: Money(minorUnits: 258, currency: eur), occurredAt: at, storeID: "s1"),
            price: PriceEntry(productName: "Milch", store: .id("s1"), price: Money(minorUnits: 129, currency: eur), recordedAt: at, source: .manual),
            pantry: nil))
        let bobs = try await store.addCommunityPost(userID: "bob", CommunityPostFields(type: .general, text: "Hello"), at: at)
        let review = try await store.addCommunityPost(
            userID: "ann", CommunityPostFields(type: .storeReview, storeID: "s1", rating: 4, text: "Friendly \"kiosk\""), at: at)
        _ = try await store.addCommunityComment(userID: "ann", postID: review.id, text: "Open on Sundays too", at: at)
        _ = try await store.addCommunityComment(userID: "ann", postID: bobs.id, text: "Hi Bob", at: at)
    }

    static func export(_ store: any UserDataStore, _ user: String) async throws -> String? {
        try await store.withUserData(user) { data in
            let sink = ByteSink()
            _ = try UserExport.write(data, generatedAt: "2026-01-01T00:00:00Z", to: sink)
            return String(decoding: sink.bytes, as: UTF8.self)
        }
    }

    @Test(arguments: Kind.allCases)
    func exportDeleteRestoreExportIsByteIdentical(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.loaded(kind, scratch)
        let before = try #require(try await Self.export(store, "ann"))
        let bobBefore = try #require(try await Self.export(store, "bob"))
        // The fixture holds what the test claims: every section restore writes is non-empty.
        for key in [
            "\"expense_times\":[\n", "\"periods\":[\n", "\"positions\":[\n", "\"visits\":[\n", "\"time_zone\":\"Europe", "\"quiet_hours\":\"22:00-07:00\"",
            "\"icon\":\"🍫\"", "\"type\":\"circle\"", "\"type\":\"polygon\"", "\"thresholds\":[50,90,120]", "\"recurring\":[\n", "\"status\":\"used\"",
            "\"price_records\":[\n", "\"barcode\":\"4006381333931\"", "\"receipt_id\":\"receipt-", "\"image_base64\":\"/9j/ACJcCoA=\"",
            "\"status\":\"needs_review\"", "\"price\":\"1.39\"", "\"product_tags\":[{\"name\":\"bread\",\"color\":null,\"products\":2}",
            "\"favourite\":true", "\"on_sale\":true", "\"shopping_lists\":[\n", "\"expense_id\":\"list-1-1\",\"paid\":\"2.58\"",
            "\"quantity\":\"2\"", "\"member\":{\"display_name\":\"Ann\"", "\"type\":\"price_update\"", "\"type\":\"store_review\"",
            "\"text\":\"Hi Bob\"",
        ] {
            #expect(before.contains(key), "\(key)")
        }
        let data = try UserRestore.read(Array(before.utf8))
        #expect(data.expenses.count == 6 && data.periods.count == 1 && data.positions.count == 3 && data.visits.count == 2)
        #expect(data.budgets.count == 2 && data.recurring.count == 1 && data.pantry.count == 2)
        #expect(data.priceRecords.count == 5 && data.receipts.count == 2 && data.productTags.count == 2 && data.productMarks.count == 2)
        #expect(data.shoppingLists.count == 1 && data.community.comments.count == 2)
        let priceUpdates = data.community.posts.count { $0.type == CommunityPostType.priceUpdate }
        #expect(priceUpdates >= 5, "one per price record at least, as she is a member")
        #expect(data.community.posts.last?.type == .storeReview)
        #expect(try await store.deleteUser("ann", rewriteFile: false) != nil)
        #expect(try await Self.export(store, "ann") == nil)
        try await store.restore(data, as: "ann")
        let after = try #require(try await Self.export(store, "ann"))
        #expect(after == before)
        #expect(try await Self.export(store, "bob") == bobBefore, "bob untouched")
        // The period counter resumes after the restored ids: a new period is 3, as before the delete.
        #expect(try await store.addPeriod(userID: "ann", try PeriodFields(name: "Next", start: try Timestamp(parsing: "2026-04-01"), end: nil)).id == 3)
        #expect(try await store.addPantryItem(userID: "ann", PantryFields(name: "Käse", quantity: nil, expires: nil))?.id == 3)
    }

    /// The one documented exception to byte identity (docs/DOMAIN.md § Restore): bob's comment
    /// on ann's entry went with the entry at `users delete`, so the entry's count comes back one
    /// lower; everything else reads as before.
    @Test(arguments: Kind.allCases)
    func anotherMembersCommentIsTheOneDifference(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.loaded(kind, scratch)
        let review = try #require(try await store.communityFeed(CommunityFeedFilter(), limit: 100).first { $0.fields.type == .storeReview })
        _ = try await store.addCommunityComment(userID: "bob", postID: review.id, text: "Agreed", at: try Timestamp(parsing: "2026-03-06T10:00:00Z"))
        let before = try #require(try await Self.export(store, "ann"))
        #expect(before.contains("\"comments\":2,"))
        let data = try UserRestore.read(Array(before.utf8))
        #expect(try await store.deleteUser("ann", rewriteFile: false) != nil)
        try await store.restore(data, as: "ann")
        let after = try #require(try await Self.export(store, "ann"))
        #expect(after == before.replacingOccurrences(of: "\"comments\":2,", with: "\"comments\":1,"))
        #expect(after != before)
    }

    @Test(arguments: Kind.allCases)
    func aUserWithDataIsRefusedAndNothingIsWritten(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.loaded(kind, scratch)
        let ann = try #require(try await Self.export(store, "ann"))
        let bob = try #require(try await Self.export(store, "bob"))
        let data = try UserRestore.read(Array(ann.utf8))
        for user in ["ann", "bob"] {
            await #expect(throws: UserRestoreError.self) { try await store.restore(data, as: user) }
            do { try await store.restore(data, as: user) } catch let error as UserRestoreError {
                guard case .notEmpty(let named, let rows) = error else { Issue.record("\(error)"); continue }
                #expect(named == user && rows > 0)
                #expect(error.description.contains("geospend users delete \(user)") && error.description.contains("--as NEWID"))
            }
        }
        #expect(try await Self.export(store, "ann") == ann)
        #expect(try await Self.export(store, "bob") == bob)
    }

    @Test(arguments: Kind.allCases)
    func asAnotherIDLeavesTheOriginalAlone(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.loaded(kind, scratch)
        let ann = try #require(try await Self.export(store, "ann"))
        let bob = try #require(try await Self.export(store, "bob"))
        // ann is a member still: her display name is hers, so the copy's member must be renamed.
        let copy = ann.replacingOccurrences(of: "\"display_name\":\"Ann\"", with: "\"display_name\":\"Carol\"")
        let named = await #expect(throws: UserRestoreError.self) { try await store.restore(try UserRestore.read(Array(ann.utf8)), as: "carol") }
        #expect(named == .invalid(
            path: "community.member.display_name", reason: "\"Ann\" is another member's display name now; change it in the document and import again"))
        #expect(try await Self.export(store, "carol") == nil, "nothing written")
        try await store.restore(try UserRestore.read(Array(copy.utf8)), as: "carol")
        let carol = try #require(try await Self.export(store, "carol"))
        // The same document but for the user's id (the header, each expense's and receipt's
        // `user`), and for what is global: receipts' row numbers and feed ids, taken by ann's,
        // are the next free ones.
        let expected = copy.replacingOccurrences(of: "{\"id\":\"ann\",", with: "{\"id\":\"carol\",")
            .replacingOccurrences(of: "\"user\":\"ann\"", with: "\"user\":\"carol\"")
        #expect(Self.maskingGlobalIDs(carol) == Self.maskingGlobalIDs(expected))
        #expect(carol != expected, "the global ids differ")
        #expect(carol.contains("\"user\":\"carol\"") && !carol.contains("\"ann\""))
        #expect(try await Self.export(store, "ann") == ann)
        // bob's entry has one comment more: carol's copy of ann's.
        let bobNow = try #require(try await Self.export(store, "bob"))
        #expect(bobNow == bob.replacingOccurrences(of: "\"text\":\"Hello\",\"price\":null,\"currency\":null,\"comments\":1", with: "\"text\":\"Hello\",\"price\":null,\"currency\":null,\"comments\":2"))
        #expect(bobNow != bob)
    }

    /// The export with receipts' `sequence` and the community line's `id`/`post_id` blanked.
    static func maskingGlobalIDs(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            var l = String(line)
            let patterns = l.hasPrefix("\"community\":") ? [#""(id|post_id)":\d+"#] : [#""sequence":\d+"#]
            for p in patterns { l = l.replacingOccurrences(of: p, with: "\"#\":0", options: .regularExpression) }
            return l
        }.joined(separator: "\n")
    }

    /// A bad value is named by its JSON path, before anything is written.
    @Test func aCorruptDocumentIsRefusedWithThePath() async throws {
        let scratch = Scratch()
        let store = try await Self.loaded(.spatiaLite, scratch)
        let ann = try #require(try await Self.export(store, "ann"))
        func refusal(_ text: String) -> UserRestoreError? {
            do { _ = try UserRestore.read(Array(text.utf8)); return nil } catch { return error }
        }
        let badAmount = ann.replacingOccurrences(of: "\"amount\":\"2.00\"", with: "\"amount\":\"2.0x\"")
        guard case .invalid(let path, _)? = refusal(badAmount) else { Issue.record("not refused"); return }
        #expect(path == "expenses[1].amount")
        #expect(refusal(ann.replacingOccurrences(of: "\"version\":1", with: "\"version\":2"))?.description.hasPrefix("version: 2 is not a version") == true)
        guard case .invalid(let accuracyPath, _)? = refusal(ann.replacingOccurrences(of: "\"accuracy_m\":8.0", with: "\"accuracy_m\":-8.0")) else {
            Issue.record("a negative accuracy was read"); return
        }
        #expect(accuracyPath == "expenses[2].accuracy_m")
        #expect(refusal(String(ann.dropLast(3))) != nil)
        guard case .invalid(let latPath, _)? = refusal(ann.replacingOccurrences(of: "\"lat\":60.171,", with: "\"lat\":91,")) else {
            Issue.record("a latitude of 91 was read"); return
        }
        #expect(latPath == "positions[2]")
        // One refusal per section beside the catalogue, each with its path.
        func pathOf(_ text: String) -> String? {
            guard case .invalid(let path, _)? = refusal(text) else { return nil }
            return path
        }
        #expect(pathOf(ann.replacingOccurrences(of: "\"image_base64\":\"/9j/ACJcCoA=\"", with: "\"image_base64\":\"/9j/AC*JcCoA\"")) == "receipts[0].image_base64")
        #expect(pathOf(ann.replacingOccurrences(of: "\"status\":\"needs_review\"", with: "\"status\":\"unsure\"")) == "receipts[1].status")
        #expect(pathOf(ann.replacingOccurrences(of: "\"color\":\"#007AFF\"", with: "\"color\":\"blue\"")) == "product_tags[1].color")
        #expect(pathOf(ann.replacingOccurrences(of: "\"tags\":[\"bread\",\"dairy\"]", with: "\"tags\":[\"bread\",\"milk\"]")) == "product_marks[0].tags[1]")
        #expect(pathOf(ann.replacingOccurrences(of: "\"quantity\":\"2\"", with: "\"quantity\":\"2x\"")) == "shopping_lists[0].items[0].quantity")
        let review = try #require(try UserRestore.read(Array(ann.utf8)).community.posts.firstIndex { $0.type == .storeReview })
        #expect(pathOf(ann.replacingOccurrences(of: "\"rating\":4", with: "\"rating\":9")) == "community.posts[\(review)].rating")
        #expect(pathOf(ann.replacingOccurrences(of: "\"price\":\"1.29\",\"currency\":\"EUR\",\"recorded_at\"", with: "\"price\":\"1.2.9\",\"currency\":\"EUR\",\"recorded_at\"")) == "price_records[2].price")
        #expect(refusal(ann.replacingOccurrences(of: "\"thresholds\":[50,90,120]", with: "\"thresholds\":[90,50]"))
            == .invalid(path: "budgets[0].thresholds", reason: "are not at most 10 distinct percentages in ascending order"))
        #expect(refusal(String(repeating: " ", count: UserRestore.maximumBytes + 1)) == .tooLarge(bytes: UserRestore.maximumBytes + 1, limit: UserRestore.maximumBytes))
    }

    /// A failure halfway through the transaction (a position twice: the table's key refuses the
    /// second, after the user, categories and expenses were written) leaves no trace; so does a
    /// store the database does not have.
    @Test(arguments: Kind.allCases)
    func aFailureHalfwayWritesNothing(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.loaded(kind, scratch)
        let ann = try #require(try await Self.export(store, "ann"))
        var data = try UserRestore.read(Array(ann.utf8))
        data.positions.append(data.positions[0])
        await #expect(throws: (any Error).self) { try await store.restore(data, as: "dave") }
        #expect(try await Self.export(store, "dave") == nil)
        var missing = try UserRestore.read(Array(ann.utf8))
        missing.storeIDs.append("nowhere")
        await #expect(throws: UserRestoreError.unknownStore(id: "nowhere")) { try await store.restore(missing, as: "dave") }
        // A price record at a store this database lacks: refused by its id, nothing written.
        let elsewhere = ann.replacingOccurrences(of: "\"store_id\":\"s2\",\"price\":\"2.49\"", with: "\"store_id\":\"s9\",\"price\":\"2.49\"")
        #expect(elsewhere != ann)
        await #expect(throws: UserRestoreError.unknownStore(id: "s9")) { try await store.restore(try UserRestore.read(Array(elsewhere.utf8)), as: "dave") }
        // The last section fails (the member's name is ann's), after every other table was written.
        let last = await #expect(throws: UserRestoreError.self) { try await store.restore(try UserRestore.read(Array(ann.utf8)), as: "dave") }
        guard case .invalid(let path, _)? = last else { Issue.record("\(String(describing: last))"); return }
        #expect(path == "community.member.display_name")
        #expect(try await Self.export(store, "dave") == nil)
        #expect(try await store.users().map(\.id) == ["ann", "bob"])
        #expect(try await Self.export(store, "ann") == ann)
    }
}
