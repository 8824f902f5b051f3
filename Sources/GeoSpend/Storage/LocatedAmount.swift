/// A geotagged expense as grids see it.
public struct LocatedAmount: Sendable, Hashable {
    public let latitude: Double
    public let longitude: Double
    public let amountMinor: Int64
    /// The currency code's three ASCII bytes packed (`currencyKey(_:)`): no string per row.
    public let currencyKey: UInt32
    /// A 64-bit FNV-1a hash of the user id (`userKey(_:)`): distinct-user counts without a
    /// string per row.
    public let userKey: UInt64

    public init(latitude: Double, longitude: Double, amountMinor: Int64, currencyKey: UInt32, userKey: UInt64) {
        self.latitude = latitude
        self.longitude = longitude
        self.amountMinor = amountMinor
        self.currencyKey = currencyKey
        self.userKey = userKey
    }

    /// The key of a user id: the 64-bit FNV-1a hash of its UTF-8 bytes.
    public static func userKey(_ userID: String) -> UInt64 {
        FNV1a.hash(userID.utf8)
    }

    /// The key of a currency: its code's three ASCII letters packed into one number.
    public static func currencyKey(_ currency: Currency) -> UInt32 {
        currency.code.utf8.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The currency a key stands for.
    public static func currency(key: UInt32) throws -> Currency {
        let bytes = [UInt8(truncatingIfNeeded: key >> 16), UInt8(truncatingIfNeeded: key >> 8), UInt8(truncatingIfNeeded: key)]
        return try Currency(code: String(decoding: bytes, as: UTF8.self))
    }
}

/// One value per currency met in a pass over `LocatedAmount`s (usually a single currency): the
/// last currency's slot is remembered, so a row costs one comparison in the common case.
public struct PerCurrency<Value> {
    public private(set) var keys: [UInt32] = []
    public var values: [Value] = []
    private var last = -1
    private let make: @Sendable () -> Value

    public init(_ make: @escaping @Sendable () -> Value) { self.make = make }

    /// The slot of `key` in `values`, created on first sight.
    @inline(__always)
    public mutating func slot(_ key: UInt32) -> Int {
        if last >= 0 && keys[last] == key { return last }
        if let k = keys.firstIndex(of: key) { last = k; return k }
        keys.append(key)
        values.append(make())
        last = keys.count - 1
        return last
    }
}

extension PerCurrency: Sendable where Value: Sendable {}

