import GeoSpend

/// The community layer as the memory store keeps it (the file's `community_members`,
/// `community_posts`, `community_comments`): entries and comments by id, their ids never
/// reused (the file's `AUTOINCREMENT`).
struct MemoryCommunity {
    struct Post {
        let id: Int64
        let user: ExactText
        var fields: CommunityPostFields
        /// Made from a price record (not counted by the rate limit).
        let automatic: Bool
        let verified: Bool
        let createdAt: String
        let createdMilliseconds: Int64
    }

    struct Comment {
        let id: Int64
        let postID: Int64
        let user: ExactText
        let text: String
        let createdAt: String
        let createdMilliseconds: Int64
    }

    var members: [ExactText: CommunityMember] = [:]
    var posts: [Post] = []
    var comments: [Comment] = []
    var lastPostID: Int64 = 0
    var lastCommentID: Int64 = 0

    func rows(of user: ExactText) -> Int {
        (members[user] == nil ? 0 : 1) + posts.count { $0.user == user } + comments.count { $0.user == user }
    }

    /// The user's membership, entries (with every comment on them) and comments gone.
    /// - Returns: rows per table.
    mutating func removeUser(_ user: ExactText) -> [UserDeletion.TableRows] {
        let gonePosts = Set(posts.filter { $0.user == user }.map(\.id))
        let rows: [UserDeletion.TableRows] = [
            .init(table: "community_comments", rows: comments.count { $0.user == user }),
            .init(table: "community_members", rows: members[user] == nil ? 0 : 1),
            .init(table: "community_posts", rows: gonePosts.count),
        ]
        comments.removeAll { $0.user == user || gonePosts.contains($0.postID) }
        posts.removeAll { $0.user == user }
        members[user] = nil
        return rows
    }

    mutating func addPost(_ user: ExactText, _ fields: CommunityPostFields, automatic: Bool, verified: Bool, at: Timestamp) -> Int64 {
        lastPostID += 1
        posts.append(Post(
            id: lastPostID, user: user, fields: fields, automatic: automatic, verified: verified, createdAt: at.text,
            createdMilliseconds: at.epochMilliseconds))
        return lastPostID
    }
}

/// The community with the file's rules (Sources/GeoSpendSpatiaLite/CommunityStorage.swift):
/// members only, display names unique without case, a rate limit counted in the edit, an
/// entry verified from the poster's own data of that day, a member's price records feed
/// entries when they are at a registry store.
extension MemoryStore: CommunityStore {
    public func joinCommunity(userID: String, displayName: String) async throws -> CommunityMember {
        let user = Identity.normalized(userID)
        return try await edit { state in
            guard state.users.contains(ExactText(user)) else { throw CommunityRefusal.noSuchUser(user) }
            let key = displayName.lowercased()
            if state.community.members.contains(where: { $0.key != ExactText(user) && $0.value.displayName.lowercased() == key }) {
                throw CommunityRefusal.displayNameTaken(displayName)
            }
            let joined = state.community.members[ExactText(user)]?.joinedAt ?? MemoryClock.now()
            let member = CommunityMember(userID: user, displayName: displayName, joinedAt: joined)
            state.community.members[ExactText(user)] = member
            return member
        }
    }

    public func leaveCommunity(userID: String) async throws -> Bool {
        let user = ExactText(Identity.normalized(userID))
        return try await edit { state in
            let was = state.community.members[user] != nil
            _ = state.community.removeUser(user)
            return was
        }
    }

    public func addCommunityPost(userID: String, _ fields: CommunityPostFields, at: Timestamp) async throws -> CommunityPost {
        let user = Identity.normalized(userID)
        return try await edit { state in
            guard state.community.members[ExactText(user)] != nil else { throw CommunityRefusal.notMember(user) }
            try state.checkRate(user, at: at)
            if let s = fields.storeID, state.stores[ExactText(s)] == nil { throw CommunityRefusal.unknownStore(s) }
            if let p = fields.productID, state.products[p] == nil { throw CommunityRefusal.unknownProduct(p) }
            let id = state.community.addPost(
                ExactText(user), fields, automatic: false, verified: state.verified(user, storeID: fields.storeID, at: at), at: at)
            return MemoryReader(state: state).post(id)!
        }
    }

    public func addCommunityComment(userID: String, postID: Int64, text: String, at: Timestamp) async throws -> CommunityComment {
        let user = Identity.normalized(userID)
        return try await edit { state in
            guard let member = state.community.members[ExactText(user)] else { throw CommunityRefusal.notMember(user) }
            try state.checkRate(user, at: at)
            guard state.community.posts.contains(where: { $0.id == postID }) else { throw CommunityRefusal.noSuchPost(postID) }
            state.community.lastCommentID += 1
            let comment = MemoryCommunity.Comment(
                id: state.community.lastCommentID, postID: postID, user: ExactText(user), text: text, createdAt: at.text,
                createdMilliseconds: at.epochMilliseconds)
            state.community.comments.append(comment)
            return CommunityComment(id: comment.id, postID: postID, userID: user, displayName: member.displayName, text: text, createdAt: at.text)
        }
    }

    public func deleteCommunityPost(userID: String, id: Int64) async throws -> Bool {
        let user = ExactText(Identity.normalized(userID))
        return try await edit { state in
            guard state.community.posts.contains(where: { $0.id == id && $0.user == user }) else { return false }
            state.community.comments.removeAll { $0.postID == id }
            state.community.posts.removeAll { $0.id == id }
            return true
        }
    }

    public func deleteCommunityComment(userID: String, id: Int64) async throws -> Bool {
        let user = ExactText(Identity.normalized(userID))
        return try await edit { state in
            guard let at = state.community.comments.firstIndex(where: { $0.id == id && $0.user == user }) else { return false }
            state.community.comments.remove(at: at)
            return true
        }
    }
}

extension MemoryState {
    /// Refuses a member who has made `CommunityRules.postsPerWindow` entries and comments
    /// within the window before `at` (entries made from price records do not count).
    func checkRate(_ user: String, at: Timestamp) throws {
        let since = at.epochMilliseconds - CommunityRules.rateWindowMilliseconds
        let made = community.posts.count { $0.user == ExactText(user) && $0.createdMilliseconds > since && !$0.automatic }
            + community.comments.count { $0.user == ExactText(user) && $0.createdMilliseconds > since }
        if made >= CommunityRules.postsPerWindow { throw CommunityRefusal.rateLimited(limit: CommunityRules.postsPerWindow) }
    }

    /// Whether the user was at the registry store on `at`'s local day: an expense linked to it
    /// that day, or an expense, fix or visit of that day near it (`CommunityVerification`).
    func verified(_ user: String, storeID: String?, at: Timestamp) -> Bool {
        guard let storeID, let store = stores[ExactText(storeID)]?.store.coordinate else { return false }
        let key = ExactText(user)
        let day = expenses.map(\.expense).filter { ExactText($0.userID) == key && $0.occurredAt.localDate == at.localDate }
        if day.contains(where: { $0.storeID.map(ExactText.init) == ExactText(storeID) }) { return true }
        let (start, end) = CommunityVerification.dayWindow(at)
        let boxes = CommunityVerification.boxes(around: store)
        let points = day.compactMap(\.location?.coordinate)
            + (positions[key] ?? [:]).values.filter { $0.epochMilliseconds >= start && $0.epochMilliseconds < end }.map(\.coordinate)
            + (visits[key] ?? [:]).values.filter { $0.endEpochMilliseconds >= start && $0.startEpochMilliseconds < end }.map(\.centre)
        return CommunityVerification.verified(.init(storeLinked: false, store: store, points: points.filter { c in boxes.contains { $0.contains(c) } }))
    }

    /// A member's new price records at registry stores become feed entries, in the same edit.
    mutating func recordPriceUpdates(_ user: String, _ outcomes: [PriceSaveOutcome]) {
        guard community.members[ExactText(user)] != nil else { return }
        for case .inserted(let r, _) in outcomes {
            // A record at the user's own added store stays theirs: the feed is everyone's.
            guard let record = priceRecords.first(where: { $0.id == r.id }), record.store.sharedID != nil else { continue }
            _ = community.addPost(
                ExactText(user), CommunityPostFields(type: .priceUpdate, storeID: r.storeID, productID: r.product.id, price: r.price),
                automatic: true, verified: verified(user, storeID: r.storeID, at: r.recordedAt), at: r.recordedAt)
        }
    }

    /// `UserDataStore.restore`'s community: the membership, then entries and comments with their
    /// ids when free, products followed to where they were restored.
    mutating func restoreCommunity(_ c: RestoredCommunity, products exported: [Int64: Int64], user: String) throws {
        guard let member = c.member else { return }
        let key = member.displayName.lowercased()
        if community.members.values.contains(where: { $0.displayName.lowercased() == key }) {
            throw UserRestoreError.invalid(
                path: "community.member.display_name",
                reason: "\"\(member.displayName)\" is another member's display name now; change it in the document and import again")
        }
        community.members[ExactText(user)] = CommunityMember(userID: user, displayName: member.displayName, joinedAt: member.joinedAt)
        var moved: [Int64: Int64] = [:]
        for p in c.posts {
            let id = community.posts.contains { $0.id == p.id } ? community.lastPostID + 1 : p.id
            community.lastPostID = max(community.lastPostID, id)
            let product = p.productID.flatMap { id in exported[id] ?? (products[id] == nil ? nil : id) }
            community.posts.append(MemoryCommunity.Post(
                id: id, user: ExactText(user),
                fields: CommunityPostFields(type: p.type, storeID: p.storeID, productID: product, rating: p.rating.map(Int.init), text: p.text, price: p.price),
                automatic: p.type == .priceUpdate, verified: p.verified, createdAt: p.createdAt, createdMilliseconds: p.createdMilliseconds))
            moved[p.id] = id
        }
        community.posts.sort { $0.id < $1.id }
        for comment in c.comments {
            let post = moved[comment.postID] ?? comment.postID
            guard community.posts.contains(where: { $0.id == post }) else { continue }
            let id = community.comments.contains { $0.id == comment.id } ? community.lastCommentID + 1 : comment.id
            community.lastCommentID = max(community.lastCommentID, id)
            community.comments.append(MemoryCommunity.Comment(
                id: id, postID: post, user: ExactText(user), text: comment.text, createdAt: comment.createdAt,
                createdMilliseconds: comment.createdMilliseconds))
        }
        community.comments.sort { $0.id < $1.id }
    }
}

extension MemoryReader {
    /// An entry as everyone sees it; nil when its poster is no member (the file's inner join).
    func post(_ id: Int64) -> CommunityPost? { state.community.posts.first { $0.id == id }.flatMap(post) }

    func post(_ p: MemoryCommunity.Post) -> CommunityPost? {
        guard let member = state.community.members[p.user] else { return nil }
        return CommunityPost(
            id: p.id, userID: p.user.text, displayName: member.displayName, fields: p.fields,
            storeLocation: p.fields.storeID.flatMap { state.stores[ExactText($0)]?.store.coordinate }, verified: p.verified,
            posterUpdates: state.community.posts.count { $0.user == p.user && $0.fields.type == .priceUpdate && $0.verified },
            commentCount: state.community.comments.count { $0.postID == p.id }, createdAt: p.createdAt)
    }

    func comments(_ include: (MemoryCommunity.Comment) -> Bool) -> [CommunityComment] {
        state.community.comments.filter(include).compactMap { c in
            state.community.members[c.user].map {
                CommunityComment(id: c.id, postID: c.postID, userID: c.user.text, displayName: $0.displayName, text: c.text, createdAt: c.createdAt)
            }
        }
    }

    func communityMember(userID: String) throws -> CommunityMember? { state.community.members[ExactText(Identity.normalized(userID))] }

    /// Newest (highest id) first.
    func communityFeed(_ filter: CommunityFeedFilter, limit: Int) throws -> [CommunityPost] {
        let found = state.community.posts.reversed().lazy.compactMap(post).filter { p in
            if let b = filter.before, p.id >= b { return false }
            if let s = filter.storeID, p.fields.storeID != s { return false }
            if let id = filter.productID, p.fields.productID != id { return false }
            if let t = filter.type, p.fields.type != t { return false }
            if let boxes = filter.boxes {
                guard let at = p.storeLocation, boxes.contains(where: { $0.contains(at) }) else { return false }
            }
            return true
        }
        return Array(found.prefix(max(limit, 0)))
    }

    func communityThread(id: Int64) throws -> CommunityThread? {
        post(id).map { CommunityThread(post: $0, comments: comments { $0.postID == id }) }
    }

    func communityStanding(userID: String) throws -> CommunityStanding? {
        let user = ExactText(Identity.normalized(userID))
        guard let m = state.community.members[user] else { return nil }
        let updates = state.community.posts.filter { $0.user == user && $0.fields.type == .priceUpdate }
        return CommunityStanding(displayName: m.displayName, priceUpdates: updates.count, verifiedUpdates: updates.count(where: \.verified))
    }
}
