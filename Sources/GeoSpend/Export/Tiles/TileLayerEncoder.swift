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
    private var keys: [String] = []
    private var keyIndex: [String: UInt32] = [:]
    private var values: [TileValue] = []
    private var valueIndex: [TileValue: UInt32] = [:]
    private var features = ProtobufWriter()
    private(set) var featureCount = 0

    init(name: String) { self.name = name }

    /// Adds a feature; `properties` keys must be distinct (§ 4.4: every key index unique).
    mutating func add(type: GeometryType, geometry: [UInt32], properties: [(String, TileValue)], id: UInt64? = nil) {
        var tags: [UInt32] = []
        tags.reserveCapacity(properties.count * 2)
        for (key, value) in properties {
            tags.append(index(of: key))
            tags.append(index(of: value))
        }
        var feature = ProtobufWriter()
        if let id { feature.varintField(1, id) }
        feature.packedField(2, tags)
        feature.varintField(3, type.rawValue)
        feature.packedField(4, geometry)
        features.bytesField(2, feature.bytes)  // Layer.features = 2
        featureCount += 1
    }

    private mutating func index(of key: String) -> UInt32 {
        if let k = keyIndex[key] { return k }
        let k = UInt32(keys.count)
        keys.append(key)
        keyIndex[key] = k
        return k
    }

    private mutating func index(of value: TileValue) -> UInt32 {
        if let k = valueIndex[value] { return k }
        let k = UInt32(values.count)
        values.append(value)
        valueIndex[value] = k
        return k
    }

    /// The `Layer` message: name = 1, features = 2, keys = 3, values = 4, extent = 5, version = 15.
    var message: [UInt8] {
        var layer = ProtobufWriter()
        layer.varintField(15, 2)
        layer.stringField(1, name)
        var out = layer.bytes + features.bytes
        layer = ProtobufWriter()
        for key in keys { layer.stringField(3, key) }
        for value in values {
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
