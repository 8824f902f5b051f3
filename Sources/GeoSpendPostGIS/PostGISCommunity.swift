import GeoSpend
import PostgresNIO

/// The community layer on PostgreSQL (migration v15), with the file's rules
/// (Sources/GeoSpendSpatiaLite/CommunityStorage.swift). Writes hold the writers' lock, so the
/// rate limit's count and the insert cannot interleave with another process's.
extension PostGISStore: CommunityStore {
    static let communityPostColumns = """
        p.id, p.user_id, m.display_name, p.type, p.store_id, p.product_id, p.rating, p.body, p.price_minor, p.currency, s.lat, s.lon, \
        p.verified, (SELECT count(*) FROM community_posts AS v WHERE v.user_id = p.user_id AND v.type = 'price_update' AND v.verified), \
        (SELECT count(*) FROM community_comments AS c WHERE c.post_id = p.id), p.created_at
        FROM community_posts AS p JOIN community_members AS m ON m.user_id = p.user_id LEFT JOIN stores AS s ON s.id = p.store_id
        """

    static func communityPost(_ row: PostgresRow) throws -> CommunityPost {
        let r = row.makeRandomAccess()
        let lat = try r[10].decode(Double?.self), lon = try r[11].decode(Double?.self)
        let minor = try r[8].decode(Int64?.self), code = try r[9].decode(String?.self)
        let price = try minor.flatMap { m in try code.map { Money(minorUnits: m, currency: try Currency(code: $0)) } }
        return CommunityPost(
            id: try r[0].decode(Int64.self), userID: try r[1].decode(String.self), displayName: try r[2].decode(String.self),
            fields: CommunityPostFields(
                type: CommunityPostType(rawValue: try r[3].decode(String.self)) ?? .general, storeID: try r[4].decode(String?.self),
                productID: try r[5].decode(Int64?.self), rating: try r[6].decode(Int32?.self).map(Int.init), text: try r[7].decode(String?.self),
                price: price),
            storeLocation: try lat.flatMap { la in try lon.map { try Coordinate(latitude: la, longitude: $0) } },
            verified: try r[12].decode(Bool.self), posterUpdates: Int(try r[13].decode(Int64.self)),
            commentCount: Int(try r[14].decode(Int64.self)), createdAt: try r[15].decode(String.self))
    }

    static func communityPost(_ r: PostGISReader, id: Int64) throws -> CommunityPost? {
        try r.rows("SELECT \(unescaped: communityPostColumns) WHERE p.id = \(id)").first.map(communityPost)
    }

    static func communityComments(_ r: PostGISReader, postID: Int64?, commentID: Int64?, user: String?) throws -> [CommunityComment] {
        try r.rows("""
            SELECT c.id, c.post_id, c.user_id, m.display_name, c.body, c.created_at
            FROM community_comments AS c JOIN community_members AS m ON m.user_id = c.user_id
            WHERE (\(postID)::bigint IS NULL OR c.post_id = \(postID)) AND (\(commentID)::bigint IS NULL OR c.id = \(commentID))
                AND (\(user)::text IS NULL OR c.user_id = \(user))
            ORDER BY c.id
            """).map {
            let (id, post, user, name, text, at) = try $0.decode((Int64, Int64, String, String, String, String).self)
            return CommunityComment(id: id, postID: post, userID: user, displayName: name, text: text, createdAt: at)
        }
    }

    static func communityMember(_ r: PostGISReader, _ user: String) throws -> CommunityMember? {
        try r.rows("SELECT user_id, display_name, joined_at FROM community_members WHERE user_id = \(user)").first.map {
            let (u, n, j) = try $0.decode((String, String, String).self)
            return CommunityMember(userID: u, displayName: n, joinedAt: j)
        }
    }

    static func checkCommunityRate(_ r: PostGISReader, _ user: String, at: Timestamp) throws {
        let since = at.epochMilliseconds - CommunityRules.rateWindowMilliseconds
        let made = try r.rows("""
            SELECT (SELECT count(*) FROM community_posts WHERE user_id = \(user) AND created_ms > \(since) AND NOT automatic)
                 + (SELECT count(*) FROM community_comments WHERE user_id = \(user) AND created_ms > \(since))
            """)[0].decode(Int64.self)
        if made >= Int64(CommunityRules.postsPerWindow) { throw CommunityRefusal.rateLimited(limit: CommunityRules.postsPerWindow) }
    }

    /// As the file's `CommunitySchema.verified`: evidence gathered here, decided by the core.
    static func communityVerified(_ r: PostGISReader, _ user: String, storeID: String?, at: Timestamp) throws -> Bool {
        guard let storeID, let s = try r.rows("SELECT lat, lon FROM stores WHERE id = \(storeID)").first else { return false }
        let (lat, lon) = try s.decode((Double, Double).self)
        let store = try Coordinate(latitude: lat, longitude: lon)
        let day = at.localDate
        if try r.rows("SELECT EXISTS (SELECT 1 FROM expenses WHERE user_id = \(user) AND store_id = \(storeID) AND local_date = \(day))")[0]
            .decode(Bool.self) {
            return true
        }
        let (start, end) = CommunityVerification.dayWindow(at)
        var points: [Coordinate] = []
        for b in CommunityVerification.boxes(around: store) {
            for row in try r.rows("""
                SELECT lat, lon FROM expenses WHERE user_id = \(user) AND local_date = \(day) AND lat IS NOT NULL
                    AND lat BETWEEN \(b.south) AND \(b.north) AND lon BETWEEN \(b.west) AND \(b.east)
                UNION ALL SELECT lat, lon FROM positions WHERE user_id = \(user) AND t_ms >= \(start) AND t_ms < \(end)
                    AND lat BETWEEN \(b.south) AND \(b.north) AND lon BETWEEN \(b.west) AND \(b.east)
                UNION ALL SELECT lat, lon FROM visits WHERE user_id = \(user) AND end_ms >= \(start) AND start_ms < \(end)
                    AND lat BETWEEN \(b.south) AND \(b.north) AND lon BETWEEN \(b.west) AND \(b.east)
                """) {
                let (la, lo) = try row.decode((Double, Double).self)
                points.append(try Coordinate(latitude: la, longitude: lo))
            }
        }
        return CommunityVerification.verified(.init(storeLinked: false, store: store, points: points))
    }

    /// A member's new price records as `price_update` entries, in the transaction that stores them.
    static func recordPriceUpdates(_ r: PostGISReader, _ user: String, _ outcomes: [PriceSaveOutcome]) throws {
        guard try communityMember(r, user) != nil else { return }
        let ids = outcomes.compactMap { if case .inserted(let p, _) = $0 { p.id } else { nil } }
        // A record at the user's own added store stays theirs: the feed is everyone's.
        let atRegistry = Set(try r.rows("""
            SELECT pk FROM price_records WHERE user_id = \(user) AND pk = ANY(\(ids)) AND store_id IS NOT NULL
            """).map { try $0.decode(Int64.self) })
        for case .inserted(let p, _) in outcomes where atRegistry.contains(p.id) {
            let verified = try communityVerified(r, user, storeID: p.storeID, at: p.recordedAt)
            _ = try r.rows("""
                INSERT INTO community_posts (user_id, type, store_id, product_id, price_minor, currency, price_record_pk, automatic,
                    verified, created_at, created_ms)
                VALUES (\(user), 'price_update', \(p.storeID), \(p.product.id), \(p.price.minorUnits), \(p.price.currency.code), \(p.id), true,
                    \(verified), \(p.recordedAt.text), \(p.recordedAt.epochMilliseconds))
                """)
        }
    }

    public func joinCommunity(userID: String, displayName: String) async throws -> CommunityMember {
        let user = Identity.normalized(userID)
        let key = displayName.lowercased()
        return try await editing { r -> CommunityMember in
            guard try r.hasUser(user) else { throw CommunityRefusal.noSuchUser(user) }
            if try r.rows("SELECT EXISTS (SELECT 1 FROM community_members WHERE display_key = \(key) AND user_id <> \(user))")[0].decode(Bool.self) {
                throw CommunityRefusal.displayNameTaken(displayName)
            }
            _ = try r.rows("""
                INSERT INTO community_members (user_id, display_name, display_key, joined_at)
                VALUES (\(user), \(displayName), \(key), \(unescaped: Self.nowSQL))
                ON CONFLICT (user_id) DO UPDATE SET display_name = excluded.display_name, display_key = excluded.display_key
                """)
            return try Self.communityMember(r, user)!
        }
    }

    public func leaveCommunity(userID: String) async throws -> Bool {
        let user = Identity.normalized(userID)
        return try await editing { r in
            _ = try r.rows("DELETE FROM community_comments WHERE user_id = \(user)")
            _ = try r.rows("DELETE FROM community_posts WHERE user_id = \(user)")  // others' comments on them cascade
            return !(try r.rows("DELETE FROM community_members WHERE user_id = \(user) RETURNING 1")).isEmpty
        }
    }

    public func addCommunityPost(userID: String, _ fields: CommunityPostFields, at: Timestamp) async throws -> CommunityPost {
        let user = Identity.normalized(userID)
        let f = fields
        return try await editing { r -> CommunityPost in
            guard try Self.communityMember(r, user) != nil else { throw CommunityRefusal.notMember(user) }
            try Self.checkCommunityRate(r, user, at: at)
            if let s = f.storeID, try r.rows("SELECT 1 FROM stores WHERE id = \(s)").isEmpty { throw CommunityRefusal.unknownStore(s) }
            if let p = f.productID, try r.rows("SELECT 1 FROM products WHERE id = \(p)").isEmpty { throw CommunityRefusal.unknownProduct(p) }
            let verified = try Self.communityVerified(r, user, storeID: f.storeID, at: at)
            let id = try r.rows("""
                INSERT INTO community_posts (user_id, type, store_id, product_id, rating, body, price_minor, currency, automatic, verified,
                    created_at, created_ms)
                VALUES (\(user), \(f.type.rawValue), \(f.storeID), \(f.productID), \(f.rating.map(Int32.init)), \(f.text),
                    \(f.price?.minorUnits), \(f.price?.currency.code), false, \(verified), \(at.text), \(at.epochMilliseconds))
                RETURNING id
                """)[0].decode(Int64.self)
            return try Self.communityPost(r, id: id)!
        }
    }

    public func addCommunityComment(userID: String, postID: Int64, text: String, at: Timestamp) async throws -> CommunityComment {
        let user = Identity.normalized(userID)
        return try await editing { r -> CommunityComment in
            guard try Self.communityMember(r, user) != nil else { throw CommunityRefusal.notMember(user) }
            try Self.checkCommunityRate(r, user, at: at)
            guard !(try r.rows("SELECT 1 FROM community_posts WHERE id = \(postID)")).isEmpty else { throw CommunityRefusal.noSuchPost(postID) }
            let id = try r.rows("""
                INSERT INTO community_comments (post_id, user_id, body, created_at, created_ms)
                VALUES (\(postID), \(user), \(text), \(at.text), \(at.epochMilliseconds)) RETURNING id
                """)[0].decode(Int64.self)
            return try Self.communityComments(r, postID: nil, commentID: id, user: nil)[0]
        }
    }

    public func deleteCommunityPost(userID: String, id: Int64) async throws -> Bool {
        let user = Identity.normalized(userID)
        return try await editing { r in
            !(try r.rows("DELETE FROM community_posts WHERE id = \(id) AND user_id = \(user) RETURNING 1")).isEmpty
        }
    }

    public func deleteCommunityComment(userID: String, id: Int64) async throws -> Bool {
        let user = Identity.normalized(userID)
        return try await editing { r in
            !(try r.rows("DELETE FROM community_comments WHERE id = \(id) AND user_id = \(user) RETURNING 1")).isEmpty
        }
    }
}

/// The community reads of a read scope, on its connection and snapshot.
extension PostGISReader: CommunityReader {
    public func communityMember(userID: String) throws -> CommunityMember? {
        try PostGISStore.communityMember(self, Identity.normalized(userID))
    }

    public func communityFeed(_ filter: CommunityFeedFilter, limit: Int) throws -> [CommunityPost] {
        var binds = PostgresBindings()
        var n = 0
        func bind<V: PostgresThrowingDynamicTypeEncodable>(_ v: V) throws -> String {
            n += 1
            try binds.append(v)
            return "$\(n)"
        }
        var sql = "SELECT \(PostGISStore.communityPostColumns) WHERE true"
        if let b = filter.before { sql += " AND p.id < \(try bind(b))" }
        if let s = filter.storeID { sql += " AND p.store_id = \(try bind(s))" }
        if let p = filter.productID { sql += " AND p.product_id = \(try bind(p))" }
        if let t = filter.type { sql += " AND p.type = \(try bind(t.rawValue))" }
        if let boxes = filter.boxes {
            sql += " AND (false"
            for b in boxes {
                sql += " OR (s.lat BETWEEN \(try bind(b.south)) AND \(try bind(b.north)) AND s.lon BETWEEN \(try bind(b.west)) AND \(try bind(b.east)))"
            }
            sql += ")"
        }
        sql += " ORDER BY p.id DESC LIMIT \(limit)"
        return try rows(PostgresQuery(unsafeSQL: sql, binds: binds)).map(PostGISStore.communityPost)
    }

    public func communityThread(id: Int64) throws -> CommunityThread? {
        guard let post = try PostGISStore.communityPost(self, id: id) else { return nil }
        return CommunityThread(post: post, comments: try PostGISStore.communityComments(self, postID: id, commentID: nil, user: nil))
    }

    public func communityStanding(userID: String) throws -> CommunityStanding? {
        let user = Identity.normalized(userID)
        guard let m = try PostGISStore.communityMember(self, user) else { return nil }
        let (all, verified) = try rows("""
            SELECT count(*), count(*) FILTER (WHERE verified) FROM community_posts WHERE user_id = \(user) AND type = 'price_update'
            """)[0].decode((Int64, Int64).self)
        return CommunityStanding(displayName: m.displayName, priceUpdates: Int(all), verifiedUpdates: Int(verified))
    }
}
