import Foundation
import GeoSpend
import Hummingbird

/// `/api/v1/community`: the community layer as `geospend community` has it, answering with its
/// `--format json` output. The feed is shared by design: it names posters by display name and
/// level, never by user id, and carries no one's expenses, positions or private prices (only a
/// `verified` flag). The user who joins, posts, comments or deletes is the token's.
/// - POST `join` `{"display_name"}`, DELETE `membership` (leave), GET `level`
/// - POST `posts` `{"type", "store", "product", "rating", "text"}` (201), GET `posts/{id}`,
///   DELETE `posts/{id}` (own only; another's is a 404), POST `posts/{id}/comments` `{"text"}`,
///   DELETE `comments/{id}`
/// - GET `feed?store=&product=&type=&near=LAT,LON&radius=&before=&limit=`
struct CommunityRoutes {
    let store: any Backend

    func add(to group: RouterGroup<ServiceContext>) {
        group.post("community/join", use: join)
        group.delete("community/membership", use: leave)
        group.get("community/level", use: level)
        group.post("community/posts", use: post)
        group.get("community/posts/{id}", use: show)
        group.delete("community/posts/{id}", use: deletePost)
        group.post("community/posts/{id}/comments", use: comment)
        group.delete("community/comments/{id}", use: deleteComment)
        group.get("community/feed", use: feed)
    }

    /// The store's refusals as problems: the CLI's words, the status that fits.
    static func problem(_ r: CommunityRefusal) -> Problem {
        switch r {
        case .noSuchUser, .noSuchPost: Problem(.notFound, r.description)
        case .notMember: Problem(.forbidden, r.description)
        case .displayNameTaken: Problem(.conflict, r.description)
        case .rateLimited: Problem(.tooManyRequests, r.description)
        case .unknownStore, .unknownProduct: Problem(.badRequest, r.description)
        }
    }

    func refusing<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let r as CommunityRefusal { throw Self.problem(r) }
    }

    func checkedUser(_ context: ServiceContext) async throws -> String {
        let user = try context.user()
        try await NameChecks.user(user, in: store, database: QueryRoutes.database)
        return user
    }

    func now(_ user: String) async throws -> Timestamp {
        CommunityRules.timestamp(Date(), in: try await store.timeZone(of: user, else: TimeZone(identifier: "UTC")!))
    }

    static func id(_ context: ServiceContext) throws -> Int64 {
        let text = try context.parameters.require("id")
        guard let id = Int64(text) else {
            throw Problem(.notFound, "no entry \"\(OutputEscaping.visible(text))\": ids are whole numbers; GET /api/v1/community/feed lists them")
        }
        return id
    }

    /// A JSON number or string that is a whole number (a body's 5 arrives as "5.0").
    static func whole(_ t: String) -> Int64? {
        if let v = Int64(t) { return v }
        guard let d = Double(t), d == d.rounded(.towardZero) else { return nil }
        return Int64(exactly: d)
    }

    static func body(_ request: Request, _ names: [String: String], example: String) async throws -> [String: String] {
        try await ExpenseRoutes.object(request, names: names, example: example)
    }

    @Sendable func join(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let f = try await Self.body(request, ["display_name": "display_name"], example: #"{"display_name": "Ann"}"#)
        guard let raw = f["display_name"] else { throw Problem(.badRequest, "display_name is required: {\"display_name\": \"Ann\"}") }
        let name = try CommunityRules.displayName(raw)
        let m = try await refusing { try await store.joinCommunity(userID: user, displayName: name) }
        return JSONResponse.make(.object([("display_name", .string(m.displayName)), ("joined_at", .string(m.joinedAt))]))
    }

    @Sendable func leave(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        return JSONResponse.make(.object([("left", .bool(try await store.leaveCommunity(userID: user)))]))
    }

    @Sendable func level(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        guard let s = try await store.communityStanding(userID: user) else { throw Self.problem(.notMember(user)) }
        return JSONResponse.make(CommunityJSON.standing(s))
    }

    @Sendable func post(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let f = try await Self.body(
            request, ["type": "type", "store": "store", "product": "product", "rating": "rating", "text": "text"],
            example: #"{"type": "store_review", "store": "317766538", "rating": 4, "text": "Fresh bread"}"#)
        guard let type = f["type"] else { throw Problem(.badRequest, "type is required: one of \(CommunityPostType.allCases.map(\.rawValue).joined(separator: ", "))") }
        let product = try f["product"].map { t in
            guard let v = Self.whole(t) else { throw Problem(.badRequest, "product: \"\(OutputEscaping.visible(t))\" is not a whole number") }
            return v
        }
        let rating = try f["rating"].map { t in
            guard let v = Self.whole(t) else { throw Problem(.badRequest, "rating: \"\(OutputEscaping.visible(t))\" is not 1 to 5") }
            return Int(clamping: v)
        }
        let fields = try CommunityRules.fields(type: type, storeID: f["store"], productID: product, rating: rating, text: f["text"])
        let at = try await now(user)
        let p = try await refusing { try await store.addCommunityPost(userID: user, fields, at: at) }
        var response = JSONResponse.make(CommunityJSON.post(p))
        response.status = .created
        return response
    }

    @Sendable func comment(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let id = try Self.id(context)
        let f = try await Self.body(request, ["text": "text"], example: #"{"text": "Still true"}"#)
        let text = try CommunityRules.text(f["text"] ?? "", option: "text")
        let at = try await now(user)
        let c = try await refusing { try await store.addCommunityComment(userID: user, postID: id, text: text, at: at) }
        var response = JSONResponse.make(CommunityJSON.comment(c))
        response.status = .created
        return response
    }

    @Sendable func show(_ request: Request, context: ServiceContext) async throws -> Response {
        _ = try await checkedUser(context)
        let id = try Self.id(context)
        guard let t = try await store.communityThread(id: id) else { throw Self.problem(.noSuchPost(id)) }
        return JSONResponse.make(CommunityJSON.thread(t.post, t.comments))
    }

    @Sendable func deletePost(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let id = try Self.id(context)
        guard try await store.deleteCommunityPost(userID: user, id: id) else {
            throw Problem(.notFound, "you have no entry \(id): GET /api/v1/community/feed lists the entries")
        }
        return JSONResponse.make(.object([("deleted", .integer(id))]))
    }

    @Sendable func deleteComment(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try await checkedUser(context)
        let id = try Self.id(context)
        guard try await store.deleteCommunityComment(userID: user, id: id) else {
            throw Problem(.notFound, "you have no comment \(id)")
        }
        return JSONResponse.make(.object([("deleted", .integer(id))]))
    }

    /// `community feed --format json`, the same filters by the options' names.
    @Sendable func feed(_ request: Request, context: ServiceContext) async throws -> Response {
        _ = try await checkedUser(context)
        let q = QueryParameters(request)
        let distance = try CommunityFeed.distanceFilter(near: q.string("near"), radius: q.string("radius"))
        let type = try q.string("type").map { try CommunityPostType(checking: $0) }
        let filter = CommunityFeedFilter(storeID: q.string("store"), productID: try q.int64("product"), type: type, before: try q.int64("before"))
        let limit = try q.int("limit", in: 1...CommunityFeed.maximumLimit) ?? CommunityFeed.defaultLimit
        let page = try await CommunityFeed.page(store, filter, near: distance?.0, radius: distance?.1, limit: limit)
        return JSONResponse.make(CommunityJSON.feed(page.posts, nextBefore: page.nextBefore))
    }
}
