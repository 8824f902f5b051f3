/// A pack's size: an amount of mass, volume or pieces, in thousandths of g, ml or a piece so
/// that `1.5kg`, `330ml` and `0.5l` are exact integers and unit prices compare per kg / l.
public struct PackSize: Sendable, Hashable, CustomStringConvertible {
    public enum Dimension: String, Sendable, Hashable { case mass, volume, count }
    public let dimension: Dimension
    /// Thousandths of a gram (mass), of a millilitre (volume) or of a piece (count).
    public let thousandths: Int64

    public init(dimension: Dimension, thousandths: Int64) {
        self.dimension = dimension
        self.thousandths = thousandths
    }

    public static let onePiece = PackSize(dimension: .count, thousandths: 1000)

    /// The units read: pcs, kg, g, l, ml (as in price records).
    static let units: [String: (Dimension, Int64)] = [
        "pcs": (.count, 1000), "kg": (.mass, 1_000_000), "g": (.mass, 1000),
        "l": (.volume, 1_000_000), "ml": (.volume, 1000),
    ]

    /// A quantity and its unit (`1.5`, `kg`); up to three decimals.
    public init(quantity: String, unit: String) throws(ValueError) {
        guard let (dimension, factor) = PackSize.units[unit.lowercased()] else {
            throw .invalidValue(unit, reason: "is not a unit; use pcs, kg, g, l or ml")
        }
        let parts = quantity.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            parts.count == 1 || (1...3).contains(parts[1].count), let whole = Int64(parts[0]), whole < 1_000_000
        else { throw .invalidNumber(quantity, reason: "is not a quantity like 2, 0.5 or 1.25") }
        var fraction: Int64 = 0
        if parts.count == 2 {
            fraction = Int64(parts[1])!
            for _ in parts[1].count..<3 { fraction *= 10 }
        }
        let thousandths = (whole * 1000 + fraction) * factor / 1000
        guard thousandths > 0 else { throw .invalidNumber(quantity, reason: "is zero; a quantity is positive") }
        self.init(dimension: dimension, thousandths: thousandths)
    }

    /// `1.5kg`, `500g`, `2l`, `3pcs` or a bare count `3` (pieces).
    public init(parsing text: String) throws(ValueError) {
        let digits = text.prefix(while: { $0.isNumber || $0 == "." })
        let unit = text.dropFirst(digits.count).trimmingCharacters(in: " ")
        try self.init(quantity: String(digits), unit: unit.isEmpty ? "pcs" : unit)
    }

    /// Per kg, per l or per piece: the unit a unit price is quoted in.
    public var perUnit: String { dimension == .mass ? "kg" : dimension == .volume ? "l" : "pcs" }

    /// The amount in the unit of `perUnit` (1.5 for 1.5 kg).
    public var inPerUnit: Double { Double(thousandths) / (dimension == .count ? 1000 : 1_000_000) }

    public var description: String {
        formatDecimal(inPerUnit, digits: 6) + " " + perUnit
    }
}

extension Substring {
    func trimmingCharacters(in set: Character) -> String {
        String(drop(while: { $0 == set }).reversed().drop(while: { $0 == set }).reversed())
    }
}

/// One price seen at a store: what the basket and inflation read from price records.
public struct PriceObservation: Sendable, Hashable {
    public var productID: String
    public var storeID: String
    /// The price of the pack.
    public var price: Money
    public var pack: PackSize
    /// The local day of `recorded_at` (its own offset).
    public var day: LocalDay
    /// `recorded_at` as UTC milliseconds: orders records of one day.
    public var instantMilliseconds: Int64
    /// Who recorded it; nil for public data (an Open Prices export).
    public var userID: String?

    public init(
        productID: String, storeID: String, price: Money, pack: PackSize = .onePiece, day: LocalDay,
        instantMilliseconds: Int64, userID: String? = nil
    ) {
        self.productID = productID
        self.storeID = storeID
        self.price = price
        self.pack = pack
        self.day = day
        self.instantMilliseconds = instantMilliseconds
        self.userID = userID
    }

    /// A stored price record as the basket and inflation read it. The pack's quantity is kept to
    /// thousandths of a g, ml or piece (records hold a `Double`; 0.0005 g is below any pack).
    public init(_ r: PriceRecord) {
        let dimension: PackSize.Dimension = switch r.unit.base {
        case .piece: .count
        case .kg: .mass
        case .l: .volume
        }
        let perUnit: Double = switch r.unit {
        case .pcs, .g, .ml: 1000
        case .kg, .l: 1_000_000
        }
        self.init(
            productID: String(r.product.id), storeID: r.storeID, price: r.price,
            pack: PackSize(dimension: dimension, thousandths: Self.thousandths(r.quantity * perUnit)),
            day: LocalDay(dayNumber: Timestamp.days(of: r.recordedAt.localDate)), instantMilliseconds: r.recordedAt.epochMilliseconds,
            userID: r.userID)
    }

    /// A record's quantity in thousandths, at least 1 and at most 2^62: `Int64(_:)` of a Double
    /// beyond Int64 traps, and a record may say 1e300 g (issue 35).
    static func thousandths(_ value: Double) -> Int64 {
        let limit = Double(Int64(1) << 62)
        guard value.isFinite else { return value > 0 ? Int64(1) << 62 : 1 }
        return max(1, Int64(min(value.rounded(), limit)))
    }

    /// The price per kg, l or piece, in major units: for comparing and rates only, never summed.
    public var unitPrice: Double { price.majorUnits / pack.inPerUnit }
}

/// One line of a basket: a product and how much of it.
public struct BasketItem: Sendable, Hashable {
    public enum Want: Sendable, Hashable {
        /// So many packs, whatever their size (the seed's rule).
        case packs(Int64)
        /// An amount (`2l`, `500g`), priced by each store's unit price.
        case amount(PackSize)
    }
    /// The name shown (as the user typed it).
    public var name: String
    public var productID: String
    public var want: Want

    public init(name: String, productID: String, want: Want = .packs(1)) {
        self.name = name
        self.productID = productID
        self.want = want
    }

    /// `Milch`, `Milch=2` (packs) or `Milch=1.5l` (an amount).
    public static func parseSpec(_ spec: String) throws(ValueError) -> (name: String, want: Want) {
        guard let eq = spec.lastIndex(of: "=") else {
            guard !spec.trimmingWhitespaceCharacters.isEmpty else { throw .invalidValue(spec, reason: "is empty; give an item like Milch or Milch=2") }
            return (spec.trimmingWhitespaceCharacters, .packs(1))
        }
        let name = String(spec[..<eq]).trimmingWhitespaceCharacters, quantity = String(spec[spec.index(after: eq)...])
        guard !name.isEmpty else { throw .invalidValue(spec, reason: "has no item name before `=`; write Milch=2") }
        if let n = Int64(quantity), n > 0, n <= 1_000_000 { return (name, .packs(n)) }
        do {
            let size = try PackSize(parsing: quantity)
            return (name, size.dimension == .count && size.thousandths % 1000 == 0 ? .packs(size.thousandths / 1000) : .amount(size))
        } catch {
            throw .invalidValue(spec, reason: "has no quantity after `=` like Milch=2 (packs) or Milch=1.5l (an amount in kg, g, l or ml)")
        }
    }
}

extension String {
    var trimmingWhitespaceCharacters: String { Substring(self).trimmingWhitespace() }
}
