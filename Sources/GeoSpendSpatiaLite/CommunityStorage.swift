import GeoSpend
import GRDB

/// The tables behind `CommunityStore` (migration v24).
/// - `community_members`: who joined, under which display name (`display_key`, its lowercase,
///   is unique).
/// - `community_posts`: feed entries; ids grow and are never reused (AUTOINCREMENT), so the
///   feed pages by id. An entry goes with its member (`leave` deletes them; `users delete`
///   deletes every table's rows of the user, so each table reports its own count); a deleted
///   store, product or price record only loses its link. `automatic`: made from a price record.
/// - `community_comments`: comments, gone with their entry or their author.
enum CommunitySchema {
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE community_members (
                user_id TEXT PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                display_name TEXT NOT NULL,
                display_key TEXT NOT NULL UNIQUE,
                joined_at TEXT NOT NULL
            );
            CREATE TABLE community_posts (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                type TEXT NOT NULL CHECK (type IN ('price_update', 'store_review', 'product_review', 'new_product', 'general')),
                store_id TEXT REFERENCES stores(id) ON DELETE SET NULL ON UPDATE CASCADE,
                product_id INTEGER REFERENCES products(id) ON DELETE SET NULL,
                rating INTEGER CHECK (rating BETWEEN 1 AND 5),
                body TEXT,
                price_minor BIGINT,
                currency TEXT,
                price_record_pk INTEGER REFERENCES price_records(pk) ON DELETE SET NULL,
                automatic INTEGER NOT NULL,
                verified INTEGER NOT NULL,
                created_at TEXT NOT NULL,
                created_ms BIGINT NOT NULL
            );
            CREATE INDEX community_posts_user ON community_posts(user_id, created_ms);
            CREATE INDEX community_posts_store ON community_posts(store_id, id);
            CREATE INDEX community_posts_product ON community_posts(product_id, id);
            CREATE TABLE community_comments (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                post_id INTEGER NOT NULL REFERENCES community_posts(id) ON DELETE CASCADE,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                body TEXT NOT NULL,
                created_at TEXT NOT NULL,
                created_ms BIGINT NOT NULL
            );
            CREATE INDEX community_comments_post ON community_comments(post_id, id);
            CREATE INDEX community_comments_user ON community_comments(user_id, created_ms);
            """)
    }

    static let postColumns = """
        p.id, p.user_id, m.display_name, p.type, p.store_id, p.product_id, p.rating, p.body, p.price_minor, p.currency, s.lat, s.lon, \
        p.verified, (SELECT count(*) FROM community_posts AS v WHERE v.user_id = p.user_id AND v.type = 'price_update' AND v.verified), \
        (SELECT count(*) FROM community_comments AS c WHERE c.post_id = p.id), p.created_at
        FROM community_posts AS p JOIN community_members AS m ON m.user_id = p.user_id LEFT JOIN stores AS s ON s.id = p.store_id
        """

    static func post(_ row: Row) throws -> CommunityPost {
        let lat: Double? = row[10], lon: Double? = row[11]
        let minor: Int64? = row[8], code: String? = row[9]
        let price = try minor.flatMap { m in try code.map { Money(minorUnits: m, currency: try Currency(code: $0)) } }
        return CommunityPost(
            id: row[0], userID: row[1], displayName: row[2],
            fields: CommunityPostFields(
                type: CommunityPostType(rawValue: row[3]) ?? .general, storeID: row[4], productID: row[5], rating: row[6], text: row[7],
                price: price),
            storeLocation: try lat.flatMap { la in try lon.map { try Coordinate(latitude: la, longitude: $0) } },
            verified: row[12], posterUpdates: row[13], commentCount: row[14], createdAt: row[15])
    }

    static func post(_ db: Database, id: Int64) throws -> CommunityPost? {
        try Row.fetchOne(db, sql: "SELECT \(postColumns) WHERE p.id = ?", arguments: [id]).map(post)
    }

    static func comments(_ db: Database, where condition: String, _ arguments: StatementArguments) throws -> [CommunityComment] {
        try Row.fetchAll(db, sql: """
            SELECT c.id, c.post_id, c.user_id, m.display_name, c.body, c.created_at
            FROM community_comments AS c JOIN community_members AS m ON m.user_id = c.user_id WHERE \(condition) ORDER BY c.id
            """, arguments: arguments
        ).map { CommunityComment(id: $0[0], postID: $0[1], userID: $0[2], displayName: $0[3], text: $0[4], createdAt: $0[5]) }
    }

    static func member(_ db: Database, _ user: String) throws -> CommunityMember? {
        try Row.fetchOne(db, sql: "SELECT user_id, display_name, joined_at FROM community_members WHERE user_id = ?", arguments: [user])
            .map { CommunityMember(userID: $0[0], displayName: $0[1], joinedAt: $0[2]) }
    }

    /// Throws `.rateLimited` when the member made `postsPerWindow` posts and comments in the
    /// window before `at` (price updates from price records aside).
    static func checkRate(_ db: Database, _ user: String, at: Timestamp) throws {
        let since = at.epochMilliseconds - CommunityRules.rateWindowMilliseconds
        let made = try Int.fetchOne(db, sql: """
            SELECT (SELECT count(*) FROM community_posts WHERE user_id = ?1 AND created_ms > ?2 AND NOT automatic)
                 + (SELECT count(*) FROM community_comments WHERE user_id = ?1 AND created_ms > ?2)
            """, arguments: [user, since]) ?? 0
        if made >= CommunityRules.postsPerWindow { throw CommunityRefusal.rateLimited(limit: CommunityRules.postsPerWindow) }
    }

    /// The evidence for `user` at `storeID` on the local day of `at` (`CommunityVerification`).
    static func verified(_ db: Database, _ user: String, storeID: String?, at: Timestamp) throws -> Bool {
        guard let storeID,
            let s = try Row.fetchOne(db, sql: "SELECT lat, lon FROM stores WHERE id = ?", arguments: [storeID])
        else { return false }
        let store = try Coordinate(latitude: s[0], longitude: s[1])
        let linked = try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM expenses WHERE user_id = ? AND store_id = ? AND local_date = ?)
            """, arguments: [user, storeID, at.localDate]) ?? false
        if linked { return true }
        let (start, end) = CommunityVerification.dayWindow(at)
        var points: [Coordinate] = []
        for b in CommunityVerification.boxes(around: store) {
            let box: StatementArguments = [b.south, b.north, b.west, b.east]
            let inBox = "lat BETWEEN ? AND ? AND lon BETWEEN ? AND ?"
            var arguments: StatementArguments = [user, at.localDate]
            arguments += box
            arguments += [user, start, end]
            arguments += box
            arguments += [user, start, end]
            arguments += box
            for r in try Row.fetchAll(db, sql: """
                SELECT lat, lon FROM expenses WHERE user_id = ? AND local_date = ? AND lat IS NOT NULL AND \(inBox)
                UNION ALL SELECT lat, lon FROM positions WHERE user_id = ? AND t_ms >= ? AND t_ms < ? AND \(inBox)
                UNION ALL SELECT lat, lon FROM visits WHERE user_id = ? AND end_ms >= ? AND start_ms < ? AND \(inBox)
                """, arguments: arguments) {
                points.append(try Coordinate(latitude: r[0], longitude: r[1]))
            }
        }
        return CommunityVerification.verified(.init(storeLinked: false, store: store, points: points))
    }

    /// The `price_update` entries of newly stored price records, for a member only (a
    /// non-member's prices stay private) and at registry stores only (an added store is its
    /// user's alone); call in the transaction that stores the records.
    static func recordPriceUpdates(_ db: Database, _ user: String, _ outcomes: [PriceSaveOutcome]) throws {
        guard try member(db, user) != nil else { return }
        for case .inserted(let r, _) in outcomes {
            // A record at the user's own added store stays theirs: the feed is everyone's.
            guard try String.fetchOne(db, sql: "SELECT store_id FROM price_records WHERE pk = ?", arguments: [r.id]) != nil else { continue }
            try db.execute(sql: """
                INSERT INTO community_posts (user_id, type, store_id, product_id, price_minor, currency, price_record_pk, automatic,
                    verified, created_at, created_ms)
                VALUES (?, 'price_update', ?, ?, ?, ?, ?, 1, ?, ?, ?)
                """, arguments: [user, r.storeID, r.product.id, r.price.minorUnits, r.price.currency.code, r.id,
                                 try verified(db, user, storeID: r.storeID, at: r.recordedAt), r.recordedAt.text,
                                 r.recordedAt.epochMilliseconds])
        }
    }
}

extension SpatiaLiteStore: CommunityStore {
    public func joinCommunity(userID: String, displayName: String) async throws -> CommunityMember {
        let user = Identity.normalized(userID)
        return try await writeTransaction { db -> CommunityMember in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM users WHERE id = ?)", arguments: [user]) == true else {
                throw CommunityRefusal.noSuchUser(user)
            }
            let key = displayName.lowercased()
            if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM community_members WHERE display_key = ? AND user_id <> ?)",
                                 arguments: [key, user]) == true {
                throw CommunityRefusal.displayNameTaken(displayName)
            }
            try db.execute(sql: """
                INSERT INTO community_members (user_id, display_name, display_key, joined_at) VALUES (?, ?, ?, \(Self.nowSQL))
                ON CONFLICT (user_id) DO UPDATE SET display_name = excluded.display_name, display_key = excluded.display_key
                """, arguments: [user, displayName, key])
            return try CommunitySchema.member(db, user)!
        }
    }

    public func leaveCommunity(userID: String) async throws -> Bool {
        let user = Identity.normalized(userID)
        return try await writeTransaction { db in
            try db.execute(sql: "DELETE FROM community_comments WHERE user_id = ?1 OR post_id IN (SELECT id FROM community_posts WHERE user_id = ?1)", arguments: [user])
            try db.execute(sql: "DELETE FROM community_posts WHERE user_id = ?", arguments: [user])
            try db.execute(sql: "DELETE FROM community_members WHERE user_id = ?", arguments: [user])
            return db.changesCount > 0
        }
    }

    public func addCommunityPost(userID: String, _ fields: CommunityPostFields, at: Timestamp) async throws -> CommunityPost {
        let user = Identity.normalized(userID)
        return try await writeTransaction { db -> CommunityPost in
            guard try CommunitySchema.member(db, user) != nil else { throw CommunityRefusal.notMember(user) }
            try CommunitySchema.checkRate(db, user, at: at)
            if let s = fields.storeID,
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM stores WHERE id = ?)", arguments: [s]) != true {
                throw CommunityRefusal.unknownStore(s)
            }
            if let p = fields.productID,
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM products WHERE id = ?)", arguments: [p]) != true {
                throw CommunityRefusal.unknownProduct(p)
            }
            let verified = try CommunitySchema.verified(db, user, storeID: fields.storeID, at: at)
            try db.execute(sql: """
                INSERT INTO community_posts (user_id, type, store_id, product_id, rating, body, price_minor, currency, automatic,
                    verified, created_at, created_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)
                """, arguments: [user, fields.type.rawValue, fields.storeID, fields.productID, fields.rating, fields.text,
                                 fields.price?.minorUnits, fields.price?.currency.code, verified, at.text, at.epochMilliseconds])
            return try CommunitySchema.post(db, id: db.lastInsertedRowID)!
        }
    }

    public func addCommunityComment(userID: String, postID: Int64, text: String, at: Timestamp) async throws -> CommunityComment {
        let user = Identity.normalized(userID)
        return try await writeTransaction { db -> CommunityComment in
            guard try CommunitySchema.member(db, user) != nil else { throw CommunityRefusal.notMember(user) }
            try CommunitySchema.checkRate(db, user, at: at)
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM community_posts WHERE id = ?)", arguments: [postID]) == true else {
                throw CommunityRefusal.noSuchPost(postID)
            }
            try db.execute(sql: """
                INSERT INTO community_comments (post_id, user_id, body, created_at, created_ms) VALUES (?, ?, ?, ?, ?)
                """, arguments: [postID, user, text, at.text, at.epochMilliseconds])
            return try CommunitySchema.comments(db, where: "c.id = ?", [db.lastInsertedRowID])[0]
        }
    }

    public func deleteCommunityPost(userID: String, id: Int64) async throws -> Bool {
        let user = Identity.normalized(userID)
        return try await writeTransaction { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM community_posts WHERE id = ? AND user_id = ?)", arguments: [id, user]) == true else {
                return false
            }
            try db.execute(sql: "DELETE FROM community_comments WHERE post_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM community_posts WHERE id = ?", arguments: [id])
            return true
        }
    }

    public func deleteCommunityComment(userID: String, id: Int64) async throws -> Bool {
        let user = Identity.normalized(userID)
        return try await writeTransaction { db in
            try db.execute(sql: "DELETE FROM community_comments WHERE id = ? AND user_id = ?", arguments: [id, user])
            return db.changesCount > 0
        }
    }
}

/// The community reads of a read scope, on its connection and snapshot.
extension SpatiaLiteReader: CommunityReader {
    public func communityMember(userID: String) throws -> CommunityMember? {
        try CommunitySchema.member(db, Identity.normalized(userID))
    }

    public func communityFeed(_ filter: CommunityFeedFilter, limit: Int) throws -> [CommunityPost] {
        var conditions = ["1"]
        var arguments: StatementArguments = []
        if let b = filter.before { conditions.append("p.id < ?"); arguments += [b] }
        if let s = filter.storeID { conditions.append("p.store_id = ?"); arguments += [s] }
        if let p = filter.productID { conditions.append("p.product_id = ?"); arguments += [p] }
        if let t = filter.type { conditions.append("p.type = ?"); arguments += [t.rawValue] }
        if let boxes = filter.boxes {
            conditions.append("(" + (["0"] + boxes.map { _ in "(s.lat BETWEEN ? AND ? AND s.lon BETWEEN ? AND ?)" }).joined(separator: " OR ") + ")")
            for b in boxes { arguments += [b.south, b.north, b.west, b.east] }
        }
        arguments += [limit]
        return try Row.fetchAll(db, sql: """
            SELECT \(CommunitySchema.postColumns) WHERE \(conditions.joined(separator: " AND ")) ORDER BY p.id DESC LIMIT ?
            """, arguments: arguments).map(CommunitySchema.post)
    }

    public func communityThread(id: Int64) throws -> CommunityThread? {
        guard let post = try CommunitySchema.post(db, id: id) else { return nil }
        return CommunityThread(post: post, comments: try CommunitySchema.comments(db, where: "c.post_id = ?", [id]))
    }

    public func communityStanding(userID: String) throws -> CommunityStanding? {
        let user = Identity.normalized(userID)
        guard let m = try CommunitySchema.member(db, user) else { return nil }
        let r = try Row.fetchOne(db, sql: """
            SELECT count(*), coalesce(sum(verified), 0) FROM community_posts WHERE user_id = ? AND type = 'price_update'
            """, arguments: [user])!
        return CommunityStanding(displayName: m.displayName, priceUpdates: r[0], verifiedUpdates: r[1])
    }
}
