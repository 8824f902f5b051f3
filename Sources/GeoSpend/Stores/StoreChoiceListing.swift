/// A store a user adds (`stores add`, `POST /api/v1/stores`), checked.
public struct AddedStoreFields: Sendable, Hashable {
    public var name: String
    /// `shop:<value>` or `amenity:<value>`, as the registry's stores are kinded.
    public var kind: String
    public var region: String?
    public var coordinate: Coordinate

    public init(name: String, kind: String, region: String?, coordinate: Coordinate) {
        self.name = name
        self.kind = kind
        self.region = region
        self.coordinate = coordinate
    }

    /// The OpenStreetMap `amenity=` values a bare `--kind` is taken as; any other bare word is a
    /// `shop=` value (`supermarket` → `shop:supermarket`), as OpenStreetMap tags them.
    public static let amenityKinds: Set<String> = [
        "bar", "cafe", "fast_food", "fuel", "ice_cream", "marketplace", "pharmacy", "pub", "restaurant",
    ]

    /// The longest kind value and region accepted.
    public static let maxKindLength = 60

    /// The fields as the CLI's options give them, checked with the CLI's words.
    /// - Throws: `UsageError` naming the option and the fix.
    public static func checked(name: String, lat: Double, lon: Double, kind: String, region: String?) throws -> AddedStoreFields {
        let n: String
        do { n = try DisplayName.checked(name, of: "store", example: "K-Market Kallio") } catch { throw UsageError("--name: \(error)") }
        let coordinate: Coordinate
        do { coordinate = try Coordinate(latitude: lat, longitude: lon) } catch {
            throw UsageError("--lat/--lon: \(error); give WGS84 degrees, e.g. --lat 60.1841 --lon 24.9500")
        }
        return AddedStoreFields(name: n, kind: try checkedKind(kind), region: try region.map(checkedRegion), coordinate: coordinate)
    }

    /// `supermarket`, `shop:supermarket` or `amenity:cafe`, in the registry's form.
    public static func checkedKind(_ text: String) throws -> String {
        let t = text.trimmingWhiteSpace.lowercased()
        var prefix: String?
        var value = t
        for p in ["shop:", "amenity:"] where t.hasPrefix(p) {
            prefix = p
            value = String(t.dropFirst(p.count))
        }
        guard !value.isEmpty, value.count <= maxKindLength,
            value.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" })
        else {
            throw UsageError(
                "--kind \(OutputEscaping.visible(text)): give an OpenStreetMap shop or amenity value (letters, digits, _; "
                    + "at most \(maxKindLength)), e.g. --kind supermarket or --kind amenity:cafe")
        }
        return (prefix ?? (amenityKinds.contains(value) ? "amenity:" : "shop:")) + value
    }

    /// A region's name, checked like a display name.
    public static func checkedRegion(_ text: String) throws -> String {
        do { return try DisplayName.checked(text, of: "region", example: "Uusimaa") } catch {
            throw UsageError("--region: \("\(error)".replacingOccurrences(of: "--name", with: "--region"))")
        }
    }
}

/// The ids of the stores users add: `mine-1`, `mine-2` …, numbered per user and never reused.
/// The registry's ids are OpenStreetMap numbers or an import's own; should an imported store
/// be called `mine-N` too, the user's own store is the one they find under that id.
public enum AddedStoreID {
    public static let prefix = "mine-"

    public static func id(_ number: Int64) -> String { prefix + String(number) }

    /// The number in `mine-N`, or nil for any other id.
    public static func number(_ id: String) -> Int64? {
        guard id.hasPrefix(prefix), let n = Int64(id.dropFirst(prefix.count)), n > 0, id == Self.id(n) else { return nil }
        return n
    }
}

/// `stores list|show`'s rows and JSON, shared by the CLI and the service.
public enum StoreChoiceListing {
    /// One store the user sees, with their marks on it.
    public struct Row: Sendable, Hashable {
        public var entry: StoreEntry
        public var favourite: Bool
        public var isDefault: Bool

        public init(entry: StoreEntry, favourite: Bool, isDefault: Bool) {
            self.entry = entry
            self.favourite = favourite
            self.isDefault = isDefault
        }
    }

    /// The user's stores: the default first, then favourites by id, then added stores by
    /// number; each store once.
    /// - Complexity: O(n).
    public static func rows(_ c: StoreChoices) -> [Row] {
        let favourites = Set(c.favourites.map(\.id))
        var seen = Set<String>()
        var rows: [Row] = []
        for e in [c.defaultStore].compactMap({ $0 }) + c.favourites + c.added where seen.insert(e.id).inserted {
            rows.append(Row(entry: e, favourite: favourites.contains(e.id), isDefault: c.defaultStore?.id == e.id))
        }
        return rows
    }

    /// The row for one store the user sees.
    public static func row(_ entry: StoreEntry, in c: StoreChoices) -> Row {
        Row(entry: entry, favourite: c.favourites.contains { $0.id == entry.id }, isDefault: c.defaultStore?.id == entry.id)
    }

    public static func json(_ r: Row) -> JSONOutput {
        var members = entryMembers(r.entry)
        members.append(("favourite", .bool(r.favourite)))
        members.append(("default", .bool(r.isDefault)))
        return .object(members)
    }

    /// A store's keys: the registry's, then region, whether the user added it, and when.
    public static func entryMembers(_ e: StoreEntry) -> [(String, JSONOutput)] {
        let s = e.store
        return [
            ("id", .string(s.id)), ("name", .text(s.name)), ("kind", .text(s.kind)), ("region", .text(e.region)),
            ("brand", .text(s.brand)), ("street", .text(s.street)), ("postcode", .text(s.postcode)), ("city", .text(s.city)),
            ("country", .text(s.country)), ("lat", .number(s.coordinate.latitude, decimals: 9)),
            ("lon", .number(s.coordinate.longitude, decimals: 9)), ("added", .bool(e.addedBy != nil)),
            ("created_at", .text(e.createdAt)),
        ]
    }

    /// `users export`'s `user_stores` section: added stores in `entryMembers`' shape, without
    /// the user (the export's), and the ids as chosen.
    public static func exportJSON(_ r: StoreChoiceRecord) -> JSONOutput {
        .object([
            ("added", .array(r.added.map { .object(entryMembers($0)) })),
            ("favourites", .array(r.favouriteIDs.map { .string($0) })),
            ("default", .text(r.defaultID)),
        ])
    }

    /// `stores list`'s table.
    public static func table(_ rows: [Row]) -> String {
        guard !rows.isEmpty else { return "no stores: `geospend stores favourite|default|add` choose or add them\n" }
        return TextTable(
            headers: ["id", "name", "kind", "region", "lat", "lon", "marks"],
            rows: rows.map { r in
                let s = r.entry.store
                let marks = [r.isDefault ? "default" : nil, r.favourite ? "favourite" : nil, r.entry.addedBy != nil ? "added" : nil]
                return [
                    OutputEscaping.visible(s.id), OutputEscaping.visible(s.name ?? ""), OutputEscaping.visible(s.kind ?? ""),
                    OutputEscaping.visible(r.entry.region ?? ""), Self.degrees(s.coordinate.latitude),
                    Self.degrees(s.coordinate.longitude), marks.compactMap { $0 }.joined(separator: ","),
                ]
            }, rightAligned: [4, 5]
        ).rendered()
    }

    static func degrees(_ d: Double) -> String {
        JSONOutput.number(d, decimals: 7).serialized(pretty: false)
    }

    /// The store as the user sees it, with their marks. - Throws: `noStore` when they cannot see it.
    public static func show(user: String, id: String, store: some StoreChoiceStore) async throws -> Row {
        guard let entry = try await store.store(userID: user, id: id) else { throw noStore(id, user) }
        return row(entry, in: try await store.storeChoices(userID: user))
    }

    /// Marks or unmarks a favourite; the store as it now is, nil for an unmarked store that has
    /// left the registry since. - Throws: `noStore`.
    public static func favourite(user: String, id: String, _ on: Bool, store: some StoreChoiceStore) async throws -> Row? {
        guard try await store.setFavouriteStore(userID: user, storeID: id, on) else { throw noStore(id, user) }
        guard let entry = try await store.store(userID: user, id: id) else { return nil }
        return row(entry, in: try await store.storeChoices(userID: user))
    }

    /// Sets the user's default store; nil when `id` is nil (cleared). - Throws: `noStore`.
    public static func setDefault(user: String, id: String?, store: some StoreChoiceStore) async throws -> Row? {
        guard try await store.setDefaultStore(userID: user, storeID: id) else { throw noStore(id ?? "", user) }
        guard let id else { return nil }
        return try await show(user: user, id: id, store: store)
    }

    /// The registry's nearest stores (`shared`) with the user's own added stores merged in,
    /// under the same limits: geodesic metres (Karney), nearest first, ties by id, at most
    /// `limit`, none past `maxDistance`, only `kind` when given.
    /// - Complexity: O((k + a) log(k + a)) for k shared and a added stores.
    public static func nearest(
        _ shared: NearestStoresResult, added: [StoreEntry], limit: Int, maxDistance: Distance?, kind: String?
    ) -> NearestStoresResult {
        let own = added.compactMap { e -> StoreHit? in
            if let kind, e.store.kind != kind { return nil }
            let d = Geodesic.distance(shared.center, e.store.coordinate)
            if let maxDistance, d > maxDistance.meters { return nil }
            return StoreHit(store: e.store, distanceMeters: d)
        }
        guard !own.isEmpty else { return shared }
        return NearestStoresResult(center: shared.center, stores: Array((shared.stores + own).sorted(by: Ranking.byDistance).prefix(limit)))
    }

    /// The usage error for a store the user cannot see.
    public static func noStore(_ id: String, _ user: String) -> UsageError {
        let u = OutputEscaping.visible(Identity.normalized(user))
        return UsageError(
            "no store \"\(OutputEscaping.visible(id))\" for user \"\(u)\"; `geospend nearest-stores` finds shared ones, "
                + "`geospend stores list --user \(u)` lists the user's own")
    }
}
