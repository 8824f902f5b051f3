/// Ids for stores whose file gives none (GPX waypoints, GeoJSON features without `id`), stable
/// across re-imports of the same file: the same place gives the same id, so a second import
/// changes nothing.
///
/// The id is `p` + 16 hex digits of a 64-bit FNV-1a hash of the name and the position rounded to
/// 7 decimals (about 1 cm: a file rewritten with other number formatting keeps its ids). Places
/// identical in name and position are numbered in file order (`…-1`, `…-2`), as expenses are.
/// A renamed or moved place gets a new id, and so a new store: the old one stays, since
/// expenses may refer to it.
struct DerivedStoreID {
    private var seen: [String: Int] = [:]

    mutating func next(name: String?, coordinate: Coordinate) -> String {
        var h = FNV1a()
        h.add(name)
        h.add(Self.rounded(coordinate.latitude))
        h.add(Self.rounded(coordinate.longitude))
        let hex = String(h.value, radix: 16)
        let base = "p" + String(repeating: "0", count: 16 - hex.count) + hex
        let ordinal = seen[base, default: 0]
        seen[base] = ordinal + 1
        return ordinal == 0 ? base : "\(base)-\(ordinal)"
    }

    private static func rounded(_ degrees: Double) -> String {
        let scaled = (degrees * 1e7).rounded()
        return String(Int64(scaled))
    }
}

/// What OpenStreetMap's tags say about a place, for the store columns the file leaves empty.
enum OSMTags {
    /// The keys that say what a place is, in the order they are tried: `amenity=cafe` gives the
    /// kind `amenity:cafe`. A place tagged both `shop` and `amenity` takes the amenity.
    static let kindKeys = ["amenity", "shop", "tourism", "leisure", "craft", "office", "healthcare"]

    static func kind(_ tag: (String) -> String?) -> String? {
        for key in kindKeys { if let v = tag(key), !v.isEmpty { return "\(key):\(v)" } }
        return nil
    }

    /// `addr:street` with `addr:housenumber` after it, as Finnish and most European addresses
    /// are written ("Mannerheimintie 12").
    static func street(_ tag: (String) -> String?) -> String? {
        guard let street = tag("addr:street") else { return nil }
        guard let number = tag("addr:housenumber") else { return street }
        return "\(street) \(number)"
    }

    /// `node/123`, `way/45`, `relation/6` → `osm:node/123`; nil for anything else.
    static func sourceID(_ reference: String) -> String? {
        let parts = reference.split(separator: "/")
        guard parts.count == 2, ["node", "way", "relation"].contains(parts[0]),
            !parts[1].isEmpty, parts[1].allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        return "osm:\(reference)"
    }
}
