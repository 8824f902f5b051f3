import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// `CommunityStore` the same on the file, the memory store and PostgreSQL (where
/// `$GEOSPEND_TEST_POSTGRES` names a server): membership and display names, the feed (newest first, keyset pages, filters, the
/// geodesic distance), verification from the poster's own expenses and location history (only
/// the flag leaves it), price records becoming entries for members only, levels from verified
/// updates, the rate limit, deletion with the user.
@Suite struct CommunityContractTests {
    typealias Kind = EditingStoreKind
    typealias Database = ExpenseStore & ExpenseEditing & PriceStore & PositionStore & CommunityStore & UserDataStore

    /// Two stores 3.3 km apart in Helsinki; ann and bob exist, with no data of note.
    static func fresh(_ kind: Kind, _ scratch: Scratch) async throws -> any Database {
        let store: any Database = try await kind.make(in: scratch)
        _ = try await Importer.importStores(
            from: scratch.file("stores.csv", "id,name,lat,lon\ns1,Kiosk,60.17,24.94\ns2,Market,60.20,24.94\n"), into: store)
        try await addUsers(["ann", "bob", "cy"], to: store)
        return store
    }

    static let s1 = try! Coordinate(latitude: 60.17, longitude: 24.94)
    static let day = "2026-03-05T12:00:00+02:00"

    static func at(_ text: String = day, plusMilliseconds ms: Int64 = 0) throws -> Timestamp {
        let t = try Timestamp(parsing: text)
        guard ms != 0 else { return t }
        return Timestamp(text: t.text + "+\(ms)ms", epochMilliseconds: t.epochMilliseconds + ms, utcOffsetMinutes: t.utcOffsetMinutes, localDate: t.localDate)
    }

    static func general(_ text: String, store: String? = nil) -> CommunityPostFields {
        CommunityPostFields(type: .general, storeID: store, text: text)
    }

    static func price(_ name: String, _ amount: String, at: String = day, store: String = "s1") throws -> PriceEntry {
        PriceEntry(
            productName: name, store: .id(store), price: try Money(parsing: amount, currency: try Currency(code: "EUR")), quantity: 1,
            unit: .pcs, recordedAt: try Timestamp(parsing: at), source: .manual)
    }

    @Test(arguments: Kind.allCases)
    func membershipDisplayNamesAndPosting(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        await #expect(throws: CommunityRefusal.notMember("ann")) { try await store.addCommunityPost(userID: "ann", Self.general("hi"), at: try Self.at()) }
        #expect(try await store.joinCommunity(userID: "ann", displayName: "Ann").displayName == "Ann")
        await #expect(throws: CommunityRefusal.displayNameTaken("ANN")) { try await store.joinCommunity(userID: "bob", displayName: "ANN") }
        await #expect(throws: CommunityRefusal.noSuchUser("zed")) { try await store.joinCommunity(userID: "zed", displayName: "Zed") }
        #expect(try await store.joinCommunity(userID: "ann", displayName: "Annie").displayName == "Annie", "joining again renames")
        _ = try await store.joinCommunity(userID: "bob", displayName: "Ann")
        await #expect(throws: CommunityRefusal.unknownStore("nowhere")) {
            try await store.addCommunityPost(userID: "ann", Self.general("x", store: "nowhere"), at: try Self.at())
        }
        await #expect(throws: CommunityRefusal.unknownProduct(99)) {
            try await store.addCommunityPost(userID: "ann", CommunityPostFields(type: .productReview, productID: 99, rating: 3), at: try Self.at())
        }
        let review = try await store.addCommunityPost(
            userID: "ann", CommunityPostFields(type: .storeReview, storeID: "s1", rating: 4, text: "Fresh bread"), at: try Self.at())
        #expect(review.displayName == "Annie" && review.fields.rating == 4 && !review.verified)
        let c = try await store.addCommunityComment(userID: "bob", postID: review.id, text: "Agreed", at: try Self.at())
        await #expect(throws: CommunityRefusal.noSuchPost(review.id + 100)) {
            try await store.addCommunityComment(userID: "bob", postID: review.id + 100, text: "?", at: try Self.at())
        }
        let thread = try #require(try await store.communityThread(id: review.id))
        #expect(thread.comments.map(\.displayName) == ["Ann"] && thread.comments[0].text == "Agreed" && thread.post.commentCount == 1)
        // Only the author deletes.
        #expect(try await !store.deleteCommunityPost(userID: "bob", id: review.id))
        #expect(try await !store.deleteCommunityComment(userID: "ann", id: c.id))
        #expect(try await store.deleteCommunityComment(userID: "bob", id: c.id))
        #expect(try await store.deleteCommunityPost(userID: "ann", id: review.id))
        #expect(try await store.communityThread(id: review.id) == nil)
        // Leaving takes the member's entries and comments.
        let kept = try await store.addCommunityPost(userID: "bob", Self.general("bob's"), at: try Self.at())
        _ = try await store.addCommunityComment(userID: "ann", postID: kept.id, text: "ann's", at: try Self.at())
        #expect(try await store.leaveCommunity(userID: "ann"))
        #expect(try await !store.leaveCommunity(userID: "ann"))
        #expect(try await store.communityThread(id: kept.id)?.comments.isEmpty == true)
        #expect(try await store.communityMember(userID: "ann") == nil)
    }

    @Test(arguments: Kind.allCases)
    func feedIsNewestFirstPagedAndFiltered(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        _ = try await store.joinCommunity(userID: "ann", displayName: "Ann")
        var ids: [Int64] = []
        for n in 0..<7 {
            let f = n % 2 == 0 ? Self.general("g\(n)", store: n < 4 ? "s1" : "s2") : CommunityPostFields(type: .storeReview, storeID: "s2", rating: 3)
            ids.append(try await store.addCommunityPost(userID: "ann", f, at: try Self.at(plusMilliseconds: Int64(n))).id)
        }
        #expect(ids == ids.sorted() && Set(ids).count == 7)
        let all = try await CommunityFeed.page(store, CommunityFeedFilter(), near: nil, radius: nil, limit: 50)
        #expect(all.posts.map(\.id) == ids.reversed() && all.nextBefore == nil)
        // Keyset pages of 3 walk the feed once.
        var seen: [Int64] = []
        var before: Int64?
        repeat {
            let page = try await CommunityFeed.page(store, CommunityFeedFilter(before: before), near: nil, radius: nil, limit: 3)
            seen += page.posts.map(\.id)
            before = page.nextBefore
        } while before != nil
        #expect(seen == ids.reversed())
        let reviews = try await CommunityFeed.page(store, CommunityFeedFilter(type: .storeReview), near: nil, radius: nil, limit: 50)
        #expect(reviews.posts.map(\.id) == [ids[5], ids[3], ids[1]])
        let atS1 = try await CommunityFeed.page(store, CommunityFeedFilter(storeID: "s1"), near: nil, radius: nil, limit: 50)
        #expect(atS1.posts.map(\.id) == [ids[2], ids[0]])
        // Near s1: within 1 km is s1 only (s2 is 3.3 km north); 4 km takes both.
        #expect(Geodesic.distance(Self.s1, try Coordinate(latitude: 60.20, longitude: 24.94)) > 3000)
        let near = try await CommunityFeed.page(store, CommunityFeedFilter(), near: Self.s1, radius: .meters(1000), limit: 1)
        #expect(near.posts.map(\.id) == [ids[2]] && near.nextBefore != nil)
        let next = try await CommunityFeed.page(store, CommunityFeedFilter(before: near.nextBefore), near: Self.s1, radius: .meters(1000), limit: 1)
        #expect(next.posts.map(\.id) == [ids[0]])
        let wide = try await CommunityFeed.page(store, CommunityFeedFilter(), near: Self.s1, radius: .kilometers(4), limit: 50)
        #expect(wide.posts.map(\.id) == ids.reversed(), "every entry names s1 or s2, both within 4 km")
        // An entry without a store is near nothing.
        let plain = try await store.addCommunityPost(userID: "ann", Self.general("no store"), at: try Self.at(plusMilliseconds: 9))
        let wideAgain = try await CommunityFeed.page(store, CommunityFeedFilter(), near: Self.s1, radius: .kilometers(4), limit: 50)
        #expect(!wideAgain.posts.map(\.id).contains(plain.id) && wideAgain.posts.count == 7)
        // The feed's JSON names no user.
        let json = CommunityJSON.feed(all.posts, nextBefore: nil).serialized()
        #expect(!json.contains("\"ann\"") && json.contains("\"Ann\""))
    }

    /// ann's price records are entries (she joined); cy's stay private. A record is verified by
    /// an expense at the store that day, or a fix within 100 m that local day, never otherwise.
    @Test(arguments: Kind.allCases)
    func priceRecordsOfMembersBecomeVerifiedEntries(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        _ = try await store.joinCommunity(userID: "ann", displayName: "Ann")
        _ = try await store.joinCommunity(userID: "bob", displayName: "Bob")
        // cy is no member: her prices stay out of the feed.
        _ = try await store.savePrices([try Self.price("Milk", "1.29")], userID: "cy")
        #expect(try await store.communityFeed(CommunityFeedFilter(), limit: 50).isEmpty)
        // ann: not there that day → unverified.
        _ = try await store.savePrices([try Self.price("Milk", "1.29")], userID: "ann")
        // ann: an expense linked to s1 on the 6th → the 6th's record is verified.
        let eur = try Currency(code: "EUR")
        _ = try await store.addExpense(
            Expense(id: "bread", userID: "ann", amount: Money(minorUnits: 250, currency: eur), occurredAt: try Timestamp(parsing: "2026-03-06T09:00:00+02:00"),
                    storeID: "s1"), remindAt: nil)
        _ = try await store.savePrices([try Self.price("Butter", "2.49", at: "2026-03-06T10:00:00+02:00")], userID: "ann")
        // bob: fixes 60 m and 150 m from s1 (Geodesic.destination), on the 5th local time.
        let near = Geodesic.destination(from: Self.s1, azimuth: 90, distance: 60)
        let far = Geodesic.destination(from: Self.s1, azimuth: 0, distance: 150)
        let t5 = try Timestamp(parsing: "2026-03-05T08:00:00+02:00").epochMilliseconds
        _ = try await store.addLocationHistory(
            LocationHistory(positions: [Position(epochMilliseconds: t5, coordinate: far, source: .googleRecords)]), userID: "bob")
        _ = try await store.savePrices([try Self.price("Tea", "3.10")], userID: "bob")
        // The 60 m fix on the 7th: only the 7th's record is verified by it.
        let t7 = try Timestamp(parsing: "2026-03-07T08:00:00+02:00").epochMilliseconds
        _ = try await store.addLocationHistory(
            LocationHistory(positions: [Position(epochMilliseconds: t7, coordinate: near, source: .googleRecords)]), userID: "bob")
        _ = try await store.savePrices([try Self.price("Coffee", "5.10", at: "2026-03-07T18:00:00+02:00")], userID: "bob")
        let feed = try await store.communityFeed(CommunityFeedFilter(type: .priceUpdate), limit: 50)
        #expect(feed.map(\.displayName) == ["Bob", "Bob", "Ann", "Ann"])
        #expect(feed.map(\.verified) == [true, false, true, false])
        #expect(feed.map { $0.fields.price?.decimalString } == ["5.10", "3.10", "2.49", "1.29"])
        #expect(try await store.communityStanding(userID: "ann") == CommunityStanding(displayName: "Ann", priceUpdates: 2, verifiedUpdates: 1))
        #expect(try await store.communityStanding(userID: "cy") == nil)
        // Bob's verification shows as a flag alone: no coordinate of his in the entry or its JSON.
        let json = CommunityJSON.feed(feed, nextBefore: nil).serialized()
        for c in [near, far] {
            #expect(!json.contains(String(format: "%.4f", c.latitude)) && !json.contains(String(format: "%.4f", c.longitude)))
        }
        #expect(!json.contains("\"bob\"") && !json.contains("bread"))
        // The same record again is no new entry.
        _ = try await store.savePrices([try Self.price("Coffee", "5.10", at: "2026-03-07T18:00:00+02:00")], userID: "bob")
        #expect(try await store.communityFeed(CommunityFeedFilter(), limit: 50).count == 4)
    }

    /// Ten verified updates make a Regular Shopper, and the feed says so; nine do not.
    @Test(arguments: Kind.allCases)
    func levelsCountVerifiedUpdates(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        _ = try await store.joinCommunity(userID: "ann", displayName: "Ann")
        let eur = try Currency(code: "EUR")
        _ = try await store.addExpense(
            Expense(id: "visit", userID: "ann", amount: Money(minorUnits: 100, currency: eur), occurredAt: try Timestamp(parsing: Self.day),
                    storeID: "s1"), remindAt: nil)
        _ = try await store.savePrices(try (1...9).map { try Self.price("Item \($0)", "1.0\($0)") }, userID: "ann")
        _ = try await store.savePrices([try Self.price("Unverified", "1.00", at: "2026-03-09T10:00:00+02:00")], userID: "ann")
        #expect(try await store.communityStanding(userID: "ann")?.level == .newShopper)
        #expect(try await store.communityFeed(CommunityFeedFilter(), limit: 1)[0].posterUpdates == 9)
        _ = try await store.savePrices([try Self.price("Item 10", "1.10")], userID: "ann")
        let s = try #require(try await store.communityStanding(userID: "ann"))
        #expect(s.priceUpdates == 11 && s.verifiedUpdates == 10 && s.level == .regularShopper)
        let post = try await store.addCommunityPost(userID: "ann", Self.general("hello"), at: try Self.at())
        #expect(CommunityJSON.post(post).serialized().contains("\"level\": \"Regular Shopper\""))
    }

    /// 30 posts and comments an hour: the 31st is refused until the first is an hour old; two
    /// writers at 29 cannot both pass. Price updates from records do not count.
    @Test(arguments: Kind.allCases)
    func postingIsRateLimited(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        _ = try await store.joinCommunity(userID: "ann", displayName: "Ann")
        _ = try await store.savePrices(try (1...40).map { try Self.price("P\($0)", "2.\($0 + 10)") }, userID: "ann")
        let first = try await store.addCommunityPost(userID: "ann", Self.general("0"), at: try Self.at())
        for n in 1..<28 { _ = try await store.addCommunityPost(userID: "ann", Self.general("\(n)"), at: try Self.at(plusMilliseconds: Int64(n))) }
        _ = try await store.addCommunityComment(userID: "ann", postID: first.id, text: "28th", at: try Self.at(plusMilliseconds: 28))
        // 29 made; two writers race for the 30th (another handle on the file: another connection pool).
        let other: any Database = kind == .spatiaLite ? try scratch.store() : store
        async let a: Bool = (try? await store.addCommunityPost(userID: "ann", Self.general("a"), at: try Self.at(plusMilliseconds: 29))) != nil
        async let b: Bool = (try? await other.addCommunityPost(userID: "ann", Self.general("b"), at: try Self.at(plusMilliseconds: 29))) != nil
        let (wonA, wonB) = await (a, b)
        #expect([wonA, wonB].filter { $0 }.count == 1)
        let hour = CommunityRules.rateWindowMilliseconds
        await #expect(throws: CommunityRefusal.rateLimited(limit: 30)) {
            try await store.addCommunityPost(userID: "ann", Self.general("late"), at: try Self.at(plusMilliseconds: hour - 1))
        }
        await #expect(throws: CommunityRefusal.rateLimited(limit: 30)) {
            try await store.addCommunityComment(userID: "ann", postID: first.id, text: "late", at: try Self.at(plusMilliseconds: hour - 1))
        }
        // An hour after the first, one slot is free again.
        _ = try await store.addCommunityPost(userID: "ann", Self.general("next"), at: try Self.at(plusMilliseconds: hour))
        // bob has his own 30.
        _ = try await store.joinCommunity(userID: "bob", displayName: "Bob")
        _ = try await store.addCommunityPost(userID: "bob", Self.general("bob"), at: try Self.at(plusMilliseconds: 30))
    }

    /// `users delete` takes bob's entries and comments from everyone's feed; `users export` has
    /// a user's own entries, comments and membership.
    @Test(arguments: Kind.allCases)
    func deletionAndExport(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        _ = try await store.joinCommunity(userID: "ann", displayName: "Ann")
        _ = try await store.joinCommunity(userID: "bob", displayName: "Bob")
        let annPost = try await store.addCommunityPost(userID: "ann", Self.general("ann's"), at: try Self.at())
        let bobPost = try await store.addCommunityPost(userID: "bob", Self.general("bob's", store: "s1"), at: try Self.at())
        _ = try await store.addCommunityComment(userID: "bob", postID: annPost.id, text: "bob on ann", at: try Self.at())
        _ = try await store.addCommunityComment(userID: "ann", postID: bobPost.id, text: "ann on bob", at: try Self.at())
        let exported = try #require(try await store.withUserData("bob") { try $0.communityActivity() })
        #expect(exported.member?.displayName == "Bob" && exported.posts.map(\.id) == [bobPost.id] && exported.comments.map(\.text) == ["bob on ann"])
        #expect(try await store.deleteUser("bob", rewriteFile: false) != nil)
        let feed = try await store.communityFeed(CommunityFeedFilter(), limit: 50)
        #expect(feed.map(\.id) == [annPost.id])
        #expect(try await store.communityThread(id: annPost.id)?.comments.isEmpty == true)
        #expect(try await store.withUserData("ann") { try $0.communityActivity() }?.comments.isEmpty == true, "ann's comment went with bob's entry")
    }
}
