/// The community layer's rows (issue 38): members, feed entries, comments. Writes are one
/// transaction each; the store checks membership, the rate limit
/// (`CommunityRules.postsPerWindow` in `rateWindowMilliseconds`, counted inside the write
/// transaction so two processes cannot both pass) and gathers the verification evidence
/// (`CommunityVerification`) there too. Refusals are thrown as `CommunityRefusal`.
public protocol CommunityStore: Sendable {
    /// Makes the user a member under `displayName` (a member renames). Throws `.noSuchUser`,
    /// `.displayNameTaken` (names are unique, compared case-insensitively).
    func joinCommunity(userID: String, displayName: String) async throws -> CommunityMember

    /// Ends the membership; the member's entries and comments go with it. - Returns: false when
    /// the user was not a member.
    func leaveCommunity(userID: String) async throws -> Bool

    func communityMember(userID: String) async throws -> CommunityMember?

    /// Posts an entry at `at`, verified from the user's own data when it names a store.
    /// Throws `.notMember`, `.rateLimited`, `.unknownStore`, `.unknownProduct`.
    func addCommunityPost(userID: String, _ fields: CommunityPostFields, at: Timestamp) async throws -> CommunityPost

    /// Throws `.notMember`, `.rateLimited`, `.noSuchPost`.
    func addCommunityComment(userID: String, postID: Int64, text: String, at: Timestamp) async throws -> CommunityComment

    /// Entries matching `filter`, newest (highest id) first, at most `limit`.
    func communityFeed(_ filter: CommunityFeedFilter, limit: Int) async throws -> [CommunityPost]

    /// One entry and its comments (oldest first), or nil.
    func communityThread(id: Int64) async throws -> CommunityThread?

    /// Deletes the user's own entry (with its comments) or own comment. - Returns: false when the
    /// user has none with that id.
    func deleteCommunityPost(userID: String, id: Int64) async throws -> Bool
    func deleteCommunityComment(userID: String, id: Int64) async throws -> Bool

    /// The member's price updates and verified ones; nil when not a member.
    func communityStanding(userID: String) async throws -> CommunityStanding?
}

/// The community as a read scope hands it out (every `ExpenseReader` is one), in the scope's
/// snapshot. A store that keeps none finds none.
public protocol CommunityReader {
    /// `CommunityStore.communityMember(userID:)`, in the scope's snapshot.
    func communityMember(userID: String) throws -> CommunityMember?
    /// `CommunityStore.communityFeed(_:limit:)`, in the scope's snapshot.
    func communityFeed(_ filter: CommunityFeedFilter, limit: Int) throws -> [CommunityPost]
    /// `CommunityStore.communityThread(id:)`: the entry and its comments in one snapshot.
    func communityThread(id: Int64) throws -> CommunityThread?
    /// `CommunityStore.communityStanding(userID:)`, in the scope's snapshot.
    func communityStanding(userID: String) throws -> CommunityStanding?
}

/// A backend's community reads are its read scope's (written once, in its reader).
extension CommunityStore where Self: ExpenseStore {
    public func communityMember(userID: String) async throws -> CommunityMember? { try await read { try $0.communityMember(userID: userID) } }

    public func communityFeed(_ filter: CommunityFeedFilter, limit: Int) async throws -> [CommunityPost] {
        try await read { try $0.communityFeed(filter, limit: limit) }
    }

    public func communityThread(id: Int64) async throws -> CommunityThread? { try await read { try $0.communityThread(id: id) } }

    public func communityStanding(userID: String) async throws -> CommunityStanding? {
        try await read { try $0.communityStanding(userID: userID) }
    }
}

/// One user's part of the community, for `users export`.
public struct CommunityActivity: Sendable, Hashable {
    public let member: CommunityMember?
    public let posts: [CommunityPost]
    public let comments: [CommunityComment]
    public init(member: CommunityMember?, posts: [CommunityPost], comments: [CommunityComment]) {
        self.member = member
        self.posts = posts
        self.comments = comments
    }
}

/// An entry with its comments.
public struct CommunityThread: Sendable, Hashable {
    public let post: CommunityPost
    public let comments: [CommunityComment]
    public init(post: CommunityPost, comments: [CommunityComment]) {
        self.post = post
        self.comments = comments
    }
}
