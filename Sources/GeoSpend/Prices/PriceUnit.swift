/// The unit a price record's quantity is in. Unit prices are per kilogram, litre or piece
/// (`base`), so a 500 g pack and a 1 kg pack compare.
public enum PriceUnit: String, Sendable, Hashable, CaseIterable {
    case pcs, kg, g, l, ml

    /// What unit prices are per.
    public enum Base: String, Sendable, Hashable {
        case piece, kg, l
    }

    public var base: Base {
        switch self {
        case .pcs: .piece
        case .kg, .g: .kg
        case .l, .ml: .l
        }
    }

    /// How many base units one of this unit is: 0.001 for g and ml.
    public var baseFactor: Double {
        switch self {
        case .pcs, .kg, .l: 1
        case .g, .ml: 0.001
        }
    }

    /// Reads `pcs`, `kg`, `g`, `l`, `ml` (any case). - Throws: `ValueError.invalidValue`.
    public init(parsing text: String) throws(ValueError) {
        guard let unit = PriceUnit(rawValue: text.lowercased()) else {
            throw .invalidValue(text, reason: "is not a unit; write one of pcs, kg, g, l, ml")
        }
        self = unit
    }
}

/// Where a price record came from.
public enum PriceSource: String, Sendable, Hashable, CaseIterable {
    case receipt, manual, `import`
}
