extension RecordReaders {
    /// A GeoJSON FeatureCollection of places; each feature becomes a store located as
    /// `feature N`.
    ///
    /// - Geometry: a Point, or a Polygon/MultiPolygon (a building drawn as an area), which is
    ///   placed at its point on surface (`PointOnSurface`, GEOS).
    /// - Id: the feature's `id`, else a property `id`, else its OpenStreetMap id as
    ///   `osm:node/123` (from `@id`, `osm_id`, or an `id` written `node/123`), else one derived
    ///   from its name and position (`DerivedStoreID`).
    /// - Properties `name`, `kind`, `brand`, `street`, `postcode`, `city`, `country`; where
    ///   `kind` or an address column is absent, OpenStreetMap tags fill it (`OSMTags`:
    ///   `amenity=cafe` → `amenity:cafe`, `addr:street` + `addr:housenumber` → street,
    ///   `addr:postcode`, `addr:city`, `addr:country`). Other properties are ignored.
    static func geoJSONStores(
        path: String, displayName: String, body: (Result<(store: Store, location: String), RowError>) throws -> Void
    ) throws -> Int64 {
        let source = try ByteSource(path: path)
        try TextEncoding.requireUTF8(source.peek(4), file: displayName)
        func bad(_ reason: String) -> ImportError {
            .badFile(RowError(file: displayName, location: "1", column: "document", reason: reason))
        }
        var derived = DerivedStoreID()
        /// One feature: a store, or an error located at the feature.
        func storeOf(_ feature: JSONValue, _ n: Int) throws {
            let location = "feature \(n + 1)"
            func fail(_ column: String, _ reason: String) throws {
                try body(.failure(RowError(file: displayName, location: location, column: column, reason: reason)))
            }
            guard feature["type"] == .string("Feature") else { return try fail("type", "is not a GeoJSON Feature") }
            var idText: String?
            var sourceID: String?
            switch feature["id"] {
            case .string(let s)?:
                idText = s
                sourceID = OSMTags.sourceID(s)
            case .number(let s)?: idText = s
            case nil, .null?: break
            case let other?: return try fail("id", "must be a string or number, not \(other.typeName)")
            }
            var properties: [String: RawRecord.RawValue] = [:]
            var tags: [String: String] = [:]
            if case .object(let members)? = feature["properties"] {
                for (key, v) in members {
                    switch v {
                    case .string(let s):
                        properties[key] = .text(s)
                        tags[key] = s
                    case .number(let s): properties[key] = .number(s)
                    // A known column given as an object, array or boolean is an error at that
                    // column, not a missing value (an object id read as "is empty").
                    case .null: break
                    default: if StoreRecord.columns.contains(key) { properties[key] = .invalid(v.typeName) }
                    }
                }
            }
            if idText == nil, case .text(let s)? = properties["id"] {
                idText = s
                sourceID = sourceID ?? OSMTags.sourceID(s)
            }
            if let osm = tags["@id"] { sourceID = sourceID ?? OSMTags.sourceID(osm) }
            if case .number(let osm)? = properties["osm_id"] {
                let type = tags["osm_type"].flatMap { ["n": "node", "w": "way", "r": "relation"][String($0.prefix(1)).lowercased()] }
                sourceID = sourceID ?? "osm:\(type ?? "node")/\(osm)"
            }
            let tag = { (key: String) -> String? in tags[key].flatMap { $0.isEmpty ? nil : $0 } }
            if properties["kind"] == nil, let kind = OSMTags.kind(tag) { properties["kind"] = .text(kind) }
            if properties["street"] == nil, let street = OSMTags.street(tag) { properties["street"] = .text(street) }
            for (column, key) in [("postcode", "addr:postcode"), ("city", "addr:city"), ("country", "addr:country")]
            where properties[column] == nil {
                if let v = tag(key) { properties[column] = .text(v) }
            }
            do {
                let coordinate = try position(of: feature["geometry"])
                if idText == nil {
                    idText = sourceID ?? derived.next(name: tag("name"), coordinate: coordinate)
                }
                properties["id"] = idText.map { .text($0) }
                let record = RawRecord(location: location) { properties[$0] }
                try body(.success((try StoreRecord.parse(record, coordinate: coordinate, sourceID: sourceID, nameRequired: false), location)))
            } catch let e as FieldError {
                try fail(e.column, e.reason)
            }
        }
        var reader = FeatureCollectionReader(source)
        let document: FeatureCollectionReader.Document
        do { document = try reader.read(storeOf) } catch let error as StrictJSONParser.SyntaxError {
            throw bad("is not valid JSON at byte \(error.offset): \(error.reason)")
        }
        guard document.type == .string("FeatureCollection"), document.hasFeatureArray else {
            throw bad("is not a GeoJSON FeatureCollection (expected \"type\": \"FeatureCollection\" and a \"features\" array)")
        }
        return source.bytesRead
    }

    /// A Point's position, or a Polygon's or MultiPolygon's point on surface.
    private static func position(of geometry: JSONValue?) throws(FieldError) -> Coordinate {
        func fail(_ reason: String) -> FieldError { FieldError(column: "geometry", reason: reason) }
        guard let geometry, case .string(let type)? = geometry["type"] else {
            throw fail("is missing; a store is a Point, Polygon or MultiPolygon")
        }
        let coordinates = geometry["coordinates"]
        func point(_ v: JSONValue) throws(FieldError) -> (lon: Double, lat: Double) {
            guard case .array(let p) = v, p.count == 2 || p.count == 3, case .number(let lon) = p[0], case .number(let lat) = p[1] else {
                throw fail("coordinates must be [longitude, latitude]")
            }
            let record = RawRecord(location: "") { $0 == "lat" ? .number(lat) : .number(lon) }
            guard let c = try parseCoordinate(record, latitude: "lat", longitude: "lon") else { throw fail("coordinates must be [longitude, latitude]") }
            return (c.longitude, c.latitude)
        }
        func polygon(_ v: JSONValue?) throws(FieldError) -> PointOnSurface.Polygon {
            guard case .array(let rings)? = v, !rings.isEmpty else { throw fail("a Polygon's coordinates must be an array of rings") }
            var out: PointOnSurface.Polygon = []
            for ring in rings {
                guard case .array(let positions) = ring else { throw fail("a Polygon's ring must be an array of positions") }
                var r: PointOnSurface.Ring = []
                for p in positions { r.append(try point(p)) }
                out.append(r)
            }
            return out
        }
        switch type {
        case "Point":
            guard let coordinates else { throw fail("coordinates must be [longitude, latitude]") }
            let p = try point(coordinates)
            return Coordinate(uncheckedLatitude: p.lat, longitude: p.lon)
        case "Polygon":
            return try PointOnSurface.compute([try polygon(coordinates)])
        case "MultiPolygon":
            guard case .array(let polygons)? = coordinates, !polygons.isEmpty else {
                throw fail("a MultiPolygon's coordinates must be an array of polygons")
            }
            var all: [PointOnSurface.Polygon] = []
            for p in polygons { all.append(try polygon(p)) }
            return try PointOnSurface.compute(all)
        default:
            throw fail("is a \(type); a store is a Point, Polygon or MultiPolygon")
        }
    }
}
