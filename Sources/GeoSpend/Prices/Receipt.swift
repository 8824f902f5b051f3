import Foundation

/// A receipt kept as a record (`geospend receipts import|list|show|correct|confirm|delete`,
/// issue 42 §2): what was read from its photo or text, whether it can be trusted, and the expense
/// and price records it made.
///
/// - `status` `ok`: its expense (id = the receipt's id) and one price record per item with a
///   positive amount are stored, each record carrying the receipt's id; they go with it.
/// - `needsReview`: nothing but the receipt is stored; `problems` say why, until
///   `receipts correct` clears them or `receipts confirm` accepts the receipt as it is.
/// - Money in minor units of `currency`; `date` is the receipt's own day (`YYYY-MM-DD`) and
///   `time` its printed `HH:MM`, with no offset: a till prints local time.
public struct Receipt: Sendable, Hashable {
    public enum Status: String, Sendable, Codable { case ok, needsReview = "needs_review" }

    /// One line read as an item. `quantity` is pieces, or thousandths of a kilogram when
    /// `unit` is "kg"; `unitPriceMinor` what the quantity line says one costs; `productID` the
    /// catalogue's product its price record was matched to (nil before the record exists).
    public struct Item: Sendable, Hashable, Codable {
        public var line: Int
        public var text: String
        public var name: String
        public var quantity: Int64
        public var unit: String
        public var unitPriceMinor: Int64?
        public var priceMinor: Int64
        public var productID: Int64?

        enum CodingKeys: String, CodingKey {
            case line, text, name, quantity, unit
            case unitPriceMinor = "unit_price_minor", priceMinor = "price_minor", productID = "product_id"
        }

        public init(line: Int, text: String, name: String, quantity: Int64, unit: String, unitPriceMinor: Int64?, priceMinor: Int64, productID: Int64? = nil) {
            (self.line, self.text, self.name, self.quantity, self.unit) = (line, text, name, quantity, unit)
            (self.unitPriceMinor, self.priceMinor, self.productID) = (unitPriceMinor, priceMinor, productID)
        }
    }

    /// The receipt's id, also its expense's: `receipt-` and a hash of the user and the text.
    public var id: String
    public var userID: String
    /// The store's row order among all receipts: the list's keyset cursor (0 before it is stored).
    public var sequence: Int64 = 0
    public var storeID: String?
    public var date: String?
    public var time: String?
    public var totalMinor: Int64?
    public var currency: Currency
    /// SHA-256 of the photo's bytes, hex; nil for a text.
    public var imageHash: String?
    /// The photo's file name as given (its last path component).
    public var imageName: String?
    /// The photo's bytes when kept (`--keep-image`).
    public var image: [UInt8]?
    public var text: String
    public var status: Status
    public var problems: [String]
    public var items: [Item]
    /// The expense it made (its own id) once `ok`; nil while it waits for review.
    public var expenseID: String?
    /// When it was stored, `YYYY-MM-DDTHH:MM:SSZ`.
    public var createdAt: String

    public init(
        id: String, userID: String, storeID: String?, date: String?, time: String?, totalMinor: Int64?, currency: Currency,
        imageHash: String?, imageName: String?, image: [UInt8]?, text: String, status: Status, problems: [String], items: [Item],
        expenseID: String?, createdAt: String, sequence: Int64 = 0
    ) {
        (self.id, self.userID, self.storeID, self.date, self.time, self.totalMinor, self.currency) = (id, userID, storeID, date, time, totalMinor, currency)
        (self.imageHash, self.imageName, self.image, self.text) = (imageHash, imageName, image, text)
        (self.status, self.problems, self.items, self.expenseID, self.createdAt, self.sequence) = (status, problems, items, expenseID, createdAt, sequence)
    }

    public var total: Money? { totalMinor.map { Money(minorUnits: $0, currency: currency) } }

    /// The items as the store's `items` column keeps them (JSON).
    public static func encodeItems(_ items: [Item]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(items)) ?? Data("[]".utf8), as: UTF8.self)
    }

    public static func decodeItems(_ text: String) throws -> [Item] {
        try JSONDecoder().decode([Item].self, from: Data(text.utf8))
    }

    public static func encodeProblems(_ problems: [String]) -> String {
        JSONOutput.array(problems.map { .string($0) }).serialized(pretty: false)
    }

    public static func decodeProblems(_ text: String) throws -> [String] {
        try JSONDecoder().decode([String].self, from: Data(text.utf8))
    }

    /// `receipts show --format json`, the service's receipt object; `withImage` adds the kept
    /// photo as base64 (`users export`).
    public func json(withImage: Bool = false) -> JSONOutput {
        let digits = currency.minorDigits
        func show(_ m: Int64?) -> JSONOutput { m.map { .string(Money.decimalString($0, digits: digits)) } ?? .null }
        var fields: [(String, JSONOutput)] = [
            ("id", .string(id)), ("user", .string(userID)), ("sequence", .integer(sequence)), ("store", storeID.map { .string($0) } ?? .null),
            ("date", date.map { .string($0) } ?? .null), ("time", time.map { .string($0) } ?? .null),
            ("total", show(totalMinor)), ("currency", .string(currency.code)), ("status", .string(status.rawValue)),
            ("problems", .array(problems.map { .string($0) })), ("expense_id", expenseID.map { .string($0) } ?? .null),
            ("image_sha256", imageHash.map { .string($0) } ?? .null), ("image_name", imageName.map { .string($0) } ?? .null),
            ("image_kept", .bool(image != nil)), ("created_at", .string(createdAt)),
            ("items", .array(items.map { i in
                .object([
                    ("line", .integer(Int64(i.line))), ("text", .string(i.text)), ("name", .string(i.name)),
                    ("quantity", .string(i.unit == "kg" ? Money.decimalString(i.quantity, digits: 3) : String(i.quantity))),
                    ("unit", .string(i.unit)), ("unit_price", show(i.unitPriceMinor)), ("price", show(i.priceMinor)),
                    ("product_id", i.productID.map { .integer($0) } ?? .null),
                ])
            })),
            ("text", .string(text)),
        ]
        if withImage { fields.append(("image_base64", image.map { .string(Data($0).base64EncodedString()) } ?? .null)) }
        return .object(fields)
    }
}

/// What a receipt makes once `ok`: its expense and its price records, each record with the
/// index of the item it came from (so the item learns its product).
public struct ReceiptRecords: Sendable {
    public let expense: Expense
    public let prices: [(item: Int, entry: PriceEntry)]
    /// Pantry items the purchase adds (`receipts confirm --expires`), stored in the same
    /// transaction with source `receipt` and the expense as their purchase.
    public var pantry: [PantryFields]

    public init(expense: Expense, prices: [(item: Int, entry: PriceEntry)], pantry: [PantryFields] = []) {
        self.expense = expense
        self.prices = prices
        self.pantry = pantry
    }
}
