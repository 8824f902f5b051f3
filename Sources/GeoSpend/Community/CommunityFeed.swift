/// Which entries a feed page shows; nil fields do not narrow.
public struct CommunityFeedFilter: Sendable, Hashable {
    public var storeID: String?
    public var productID: Int64?
    public var type: CommunityPostType?
    /// Only entries about a store in one of these boxes (the distance filter's candidates).
    public var boxes: [LatLonBox]?
    /// Keyset paging: only entries with an id below this one.
    public var before: Int64?
    public init(storeID: String? = nil, productID: Int64? = nil, type: CommunityPostType? = nil, boxes: [LatLonBox]? = nil, before: Int64? = nil) {
        self.storeID = storeID
        self.productID = productID
        self.type = type
        self.boxes = boxes
        self.before = before
    }
}

/// The feed: newest first (by id, which only grows), paged by keyset (`next_before`), filtered
/// by store, product, type and distance of the entry's store from a point.
public enum CommunityFeed {
    public static let defaultLimit = 50
    public static let maximumLimit = 500

    /// One page. With `near`, the store answers a search box and the geodesic distance
    /// (`Geodesic.isWithin`) decides; the store is asked again until the page is full or the
    /// feed ends. - Returns: the entries and the `before` of the next page (nil: no more).
    public static func page(
        _ store: any CommunityStore, _ filter: CommunityFeedFilter, near: Coordinate?, radius: Distance?, limit: Int
    ) async throws -> (posts: [CommunityPost], nextBefore: Int64?) {
        guard (1...maximumLimit).contains(limit) else { throw UsageError("--limit \(limit): expected 1 to \(maximumLimit)") }
        var f = filter
        var posts: [CommunityPost] = []
        let center = near
        let meters = (radius ?? .meters(1000)).meters
        if let center { f.boxes = SearchBox.boxes(around: center, radius: .meters(meters)) }
        while true {
            // One more than asked: it only tells whether the feed goes on.
            let batch = try await store.communityFeed(f, limit: limit + 1)
            for (i, p) in batch.enumerated() where i < limit {
                if let center {
                    guard let at = p.storeLocation, Geodesic.isWithin(at, center, meters: meters) else { continue }
                }
                posts.append(p)
                if posts.count == limit { return (posts, i < batch.count - 1 ? p.id : nil) }
            }
            guard batch.count > limit else { return (posts, nil) }
            f.before = batch[limit - 1].id
        }
    }

    /// `--near LAT,LON` and `--radius R` as the CLI and service read them (radius default 1 km,
    /// as `near`'s).
    public static func distanceFilter(near: String?, radius: String?) throws -> (Coordinate, Distance)? {
        guard let near else {
            if let radius { throw UsageError("--radius \(radius) needs --near LAT,LON") }
            return nil
        }
        let c = try BasketReach.coordinate(near, option: "--near")
        guard let radius else { return (c, .meters(1000)) }
        let d: Distance
        do { d = try Distance(parsing: radius) } catch { throw UsageError("--radius \(radius): \(error)") }
        guard d.meters > 0, d.meters <= 20_000_000 else { throw UsageError("--radius \(radius): expected more than 0 and at most 20000km") }
        return (c, d)
    }
}

/// The poster's standing: price updates made, how many verified, and the level they earn.
public struct CommunityStanding: Sendable, Hashable {
    public let displayName: String
    public let priceUpdates: Int
    public let verifiedUpdates: Int
    public var level: CommunityLevel { CommunityLevel(updates: verifiedUpdates) }
    public init(displayName: String, priceUpdates: Int, verifiedUpdates: Int) {
        self.displayName = displayName
        self.priceUpdates = priceUpdates
        self.verifiedUpdates = verifiedUpdates
    }
}

/// The feed's JSON (CLI `--format json`, the service): display names and levels, never user ids.
public enum CommunityJSON {
    public static func post(_ p: CommunityPost) -> JSONOutput {
        let f = p.fields
        return .object([
            ("id", .integer(p.id)), ("type", .string(f.type.rawValue)), ("display_name", .string(p.displayName)),
            ("level", .string(CommunityLevel(updates: p.posterUpdates).rawValue)), ("verified", .bool(p.verified)),
            ("store_id", .text(f.storeID)), ("product_id", f.productID.map(JSONOutput.integer) ?? .null),
            ("rating", f.rating.map { JSONOutput.integer(Int64($0)) } ?? .null), ("text", .text(f.text)),
            ("price", .text(f.price?.decimalString)), ("currency", .text(f.price?.currency.code)),
            ("comments", .integer(Int64(p.commentCount))), ("created_at", .string(p.createdAt)),
        ])
    }

    public static func comment(_ c: CommunityComment) -> JSONOutput {
        .object([
            ("id", .integer(c.id)), ("post_id", .integer(c.postID)), ("display_name", .string(c.displayName)), ("text", .string(c.text)),
            ("created_at", .string(c.createdAt)),
        ])
    }

    public static func feed(_ posts: [CommunityPost], nextBefore: Int64?) -> JSONOutput {
        .object([("posts", .array(posts.map(post))), ("next_before", nextBefore.map(JSONOutput.integer) ?? .null)])
    }

    public static func thread(_ p: CommunityPost, _ comments: [CommunityComment]) -> JSONOutput {
        .object([("post", post(p)), ("comments", .array(comments.map(comment)))])
    }

    public static func standing(_ s: CommunityStanding) -> JSONOutput {
        .object([
            ("display_name", .string(s.displayName)), ("price_updates", .integer(Int64(s.priceUpdates))),
            ("verified_updates", .integer(Int64(s.verifiedUpdates))), ("level", .string(s.level.rawValue)),
        ])
    }
}
