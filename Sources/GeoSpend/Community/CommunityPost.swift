import Foundation

/// The community layer (issue 38, "CartWise: the community layer"): members who chose to be
/// public under a display name post experiences about stores and products, comment on them, and
/// earn levels from their verified price updates. The rules live here; stores keep rows.

/// What an experience is about.
public enum CommunityPostType: String, Sendable, Hashable, CaseIterable {
    case priceUpdate = "price_update"
    case storeReview = "store_review"
    case productReview = "product_review"
    case newProduct = "new_product"
    case general

    /// Reviews carry a rating (required); other types may not.
    public var isReview: Bool { self == .storeReview || self == .productReview }

    public init(checking text: String) throws {
        guard let t = CommunityPostType(rawValue: text) else {
            throw UsageError("--type \(text): expected one of \(Self.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self = t
    }
}

/// A member: a user who joined, known to others only by `displayName`.
public struct CommunityMember: Sendable, Hashable {
    public let userID: String
    public let displayName: String
    public let joinedAt: String
    public init(userID: String, displayName: String, joinedAt: String) {
        self.userID = userID
        self.displayName = displayName
        self.joinedAt = joinedAt
    }
}

/// What a member posts, checked (`CommunityRules.fields`).
public struct CommunityPostFields: Sendable, Hashable {
    public var type: CommunityPostType
    public var storeID: String?
    public var productID: Int64?
    public var rating: Int?
    public var text: String?
    /// A price the entry reports (price updates made from a price record).
    public var price: Money?
    public init(type: CommunityPostType, storeID: String? = nil, productID: Int64? = nil, rating: Int? = nil, text: String? = nil, price: Money? = nil) {
        self.type = type
        self.storeID = storeID
        self.productID = productID
        self.rating = rating
        self.text = text
        self.price = price
    }
}

/// A feed entry as everyone sees it: the poster's display name and level, never a user id.
public struct CommunityPost: Sendable, Hashable {
    public let id: Int64
    /// The poster, for the store's own checks (deleting, own-data export); never written to the feed.
    public let userID: String
    public let displayName: String
    public let fields: CommunityPostFields
    /// The store's position (for the distance filter), from the shared stores table.
    public let storeLocation: Coordinate?
    public let verified: Bool
    /// The poster's verified price updates now (their level's count).
    public let posterUpdates: Int
    public let commentCount: Int
    public let createdAt: String
    public init(
        id: Int64, userID: String, displayName: String, fields: CommunityPostFields, storeLocation: Coordinate?, verified: Bool,
        posterUpdates: Int, commentCount: Int, createdAt: String
    ) {
        self.id = id
        self.userID = userID
        self.displayName = displayName
        self.fields = fields
        self.storeLocation = storeLocation
        self.verified = verified
        self.posterUpdates = posterUpdates
        self.commentCount = commentCount
        self.createdAt = createdAt
    }
}

/// A comment on an entry.
public struct CommunityComment: Sendable, Hashable {
    public let id: Int64
    public let postID: Int64
    public let userID: String
    public let displayName: String
    public let text: String
    public let createdAt: String
    public init(id: Int64, postID: Int64, userID: String, displayName: String, text: String, createdAt: String) {
        self.id = id
        self.postID = postID
        self.userID = userID
        self.displayName = displayName
        self.text = text
        self.createdAt = createdAt
    }
}

/// The seed's levels by count of price updates (GeoSpend: verified ones).
public enum CommunityLevel: String, Sendable, Hashable, CaseIterable {
    case newShopper = "New Shopper"
    case regularShopper = "Regular Shopper"
    case smartShopper = "Smart Shopper"
    case expertShopper = "Expert Shopper"
    case masterShopper = "Master Shopper"
    case legendaryShopper = "Legendary Shopper"

    /// The fewest updates of each level, as the seed lists them.
    public var minimumUpdates: Int {
        switch self {
        case .newShopper: 0
        case .regularShopper: 10
        case .smartShopper: 25
        case .expertShopper: 50
        case .masterShopper: 100
        case .legendaryShopper: 200
        }
    }

    /// The highest level whose minimum `updates` reaches. - Complexity: O(1).
    public init(updates: Int) {
        self = Self.allCases.last { updates >= $0.minimumUpdates } ?? .newShopper
    }
}

/// The checks and bounds of the community layer.
public enum CommunityRules {
    /// The longest comment or post text, in characters (after NFC).
    public static let maximumTextLength = 2000
    /// The longest display name, in characters.
    public static let maximumDisplayNameLength = 40
    /// Posts plus comments one member may make in `rateWindowMilliseconds` (price updates made
    /// from price records are not counted: an import is one act).
    public static let postsPerWindow = 30
    public static let rateWindowMilliseconds: Int64 = 3_600_000
    /// How near a geotagged expense or a location fix must be to the store to verify an update.
    public static let verificationMeters = 100.0

    /// NFC, trimmed, non-empty, bounded, no control characters (newlines and tabs aside).
    public static func text(_ raw: String, option: String, maximum: Int = maximumTextLength, allowNewlines: Bool = true) throws -> String {
        let t = raw.precomposedStringWithCanonicalMapping.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !t.isEmpty else { throw UsageError("\(option) is empty: write some text") }
        guard t.count <= maximum else { throw UsageError("\(option) is \(t.count) characters: at most \(maximum)") }
        for s in t.unicodeScalars where s.properties.generalCategory == .control || s.properties.generalCategory == .format {
            if allowNewlines && (s == "\n" || s == "\t") { continue }
            throw UsageError("\(option) contains the control character U+\(String(s.value, radix: 16, uppercase: true)): remove it")
        }
        return t
    }

    public static func displayName(_ raw: String) throws -> String {
        try text(raw, option: "--display-name", maximum: maximumDisplayNameLength, allowNewlines: false)
    }

    /// A post's fields checked as the seed rules them: a rating 1–5, required for reviews and
    /// refused otherwise; a store review names a store, a product review a product.
    public static func fields(type: String, storeID: String?, productID: Int64?, rating: Int?, text raw: String?) throws -> CommunityPostFields {
        let type = try CommunityPostType(checking: type)
        if type.isReview {
            guard let rating else { throw UsageError("--rating is required for a \(type.rawValue): give 1 to 5") }
            guard (1...5).contains(rating) else { throw UsageError("--rating \(rating): expected 1 to 5") }
        } else if let rating {
            throw UsageError("--rating \(rating): only a store_review or product_review has a rating; leave it out")
        }
        if type == .storeReview && storeID == nil { throw UsageError("a store_review names its store: give --store ID") }
        if type == .productReview && productID == nil { throw UsageError("a product_review names its product: give --product ID") }
        let text = try raw.map { try Self.text($0, option: "--text") }
        if text == nil && !type.isReview { throw UsageError("--text is required for a \(type.rawValue)") }
        return CommunityPostFields(type: type, storeID: storeID, productID: productID, rating: rating, text: text)
    }
}

/// Why a community write was refused (the store's answer; the CLI and service word it).
public enum CommunityRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    case noSuchUser(String)
    case notMember(String)
    case displayNameTaken(String)
    case rateLimited(limit: Int)
    case unknownStore(String)
    case unknownProduct(Int64)
    case noSuchPost(Int64)

    public var description: String {
        switch self {
        case .noSuchUser(let u): "no user \"\(u)\""
        case .notMember(let u): "user \"\(u)\" has not joined the community: run `geospend community join --user \(u) --display-name NAME` first"
        case .displayNameTaken(let n): "the display name \"\(n)\" is taken: choose another"
        case .rateLimited(let n): "at most \(n) posts and comments an hour: wait and try again"
        case .unknownStore(let s): "no store \"\(s)\": see `geospend stores`"
        case .unknownProduct(let p): "no product \(p): see `geospend products`"
        case .noSuchPost(let p): "no post \(p) in the feed"
        }
    }
}

extension CommunityRules {
    /// The instant `date` as a timestamp at `zone`'s offset then: a post's time, whose local
    /// day is the one verification looks at.
    public static func timestamp(_ date: Date, in zone: TimeZone) -> Timestamp {
        let ms = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let offset = zone.secondsFromGMT(for: date) / 60
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.calendar = Calendar(identifier: .gregorian)
        f.timeZone = TimeZone(secondsFromGMT: offset * 60)
        f.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSSxxx"
        let text = f.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
        return Timestamp(text: text, epochMilliseconds: ms, utcOffsetMinutes: offset, localDate: String(text.prefix(10)))
    }
}
