/// A property value of a vector tile feature (vector_tile.proto's `Value`, one field set).
enum TileValue: Hashable {
    case string(String)
    case double(Double)
    /// `sint_value` (zigzag): amounts in minor units may be any Int64.
    case sint(Int64)
    case uint(UInt64)

    /// The `fields` type MBTiles' `json` metadata row names (MBTiles 1.3 § Vector tileset metadata).
    var fieldType: String {
        if case .string = self { return "String" }
        return "Number"
    }
}

/// One layer of a Mapbox Vector Tile 2.1 (vector_tile.proto, https://github.com/mapbox/vector-tile-spec/blob/master/2.1/vector_tile.proto):
/// features with tags that index into the layer's `keys` and `values`, each key and value
/// stored once (§ 4.4), extent 4096.
struct TileLayerEncoder {
    static let extent: Int32 = 4096
    enum GeometryType: UInt64 { case point = 1, polygon = 3 }

    let name: String
    private var keys = StoredOnce<String>()
    private var values = StoredOnce<TileValue>()
    private var features = ProtobufWriter()
    private(set) var featureCount = 0

    init(name: String) { self.name = name }

    /// Adds a feature; `properties` keys must be distinct (§ 4.4: every key index unique).
    mutating func add(type: GeometryType, geometry: [UInt32], properties: [(String, TileValue)], id: UInt64? = nil) {
        var tags: [UInt32] = []
        tags.reserveCapacity(properties.count * 2)
        for (key, value) in properties {
            tags.append(keys.index(of: key))
            tags.append(values.index(of: value))
        }
        var feature = ProtobufWriter()
        if let id { feature.varintField(1, id) }
        feature.packedField(2, tags)
        feature.varintField(3, type.rawValue)
        feature.packedField(4, geometry)
        features.bytesField(2, feature.bytes)  // Layer.features = 2
        featureCount += 1
    }

    /// The `Layer` message: name = 1, features = 2, keys = 3, values = 4, extent = 5, version = 15.
    var message: [UInt8] {
        var layer = ProtobufWriter()
        layer.varintField(15, 2)
        layer.stringField(1, name)
        var out = layer.bytes + features.bytes
        layer = ProtobufWriter()
        for key in keys.items { layer.stringField(3, key) }
        for value in values.items {
            var v = ProtobufWriter()
            switch value {
            case .string(let s): v.stringField(1, s)
            case .double(let d): v.doubleField(3, d)
            case .uint(let u): v.varintField(5, u)
            case .sint(let i): v.varintField(6, ProtobufWriter.zigzag(i))
            }
            layer.bytesField(4, v.bytes)
        }
        layer.varintField(5, UInt64(Self.extent))
        out += layer.bytes
        return out
    }

    /// A whole tile of these layers (`Tile.layers` = 3); empty layers are left out.
    static func tile(_ layers: [TileLayerEncoder]) -> [UInt8] {
        var tile = ProtobufWriter()
        for layer in layers where layer.featureCount > 0 { tile.bytesField(3, layer.message) }
        return tile.bytes
    }
}

/// A layer's keys or values: each stored once, in first-seen order, tags point at its index.
private struct StoredOnce<Element: Hashable> {
    private(set) var items: [Element] = []
    private var indices: [Element: UInt32] = [:]

    mutating func index(of item: Element) -> UInt32 {
        if let k = indices[item] { return k }
        let k = UInt32(items.count)
        items.append(item)
        indices[item] = k
        return k
    }
}
