/// The features a layer wrote, as values: each one's id, where its JSON text lies in the sink's
/// bytes, and the box of its positions. The OGC API pages and filters a layer by these; it
/// does not read the GeoJSON text back (docs/ARCHITECTURE.md § Logic once).
///
/// ```swift
/// let index = FeatureIndex(), sink = ByteSink()
/// var request = MapExportRequest(filter: ExpenseFilter(userID: "user1"))
/// request.featureIndex = index
/// _ = try await MapExport.geoJSON(.points, request, store: store, to: sink)
/// let first = index.features(in: sink.bytes).first  // (id, json, box)
/// ```
///
/// The sink must collect in memory (`ByteSink()`): the byte ranges count from its start.
public final class FeatureIndex: @unchecked Sendable {  // one writer at a time, as its sink
    /// One feature: its id, its text's bytes, and its box (west, south, east, north) as
    /// written, that is rounded to the layer's precision.
    public struct Feature: Sendable {
        public let id: String
        public let json: String
        public let box: (west: Double, south: Double, east: Double, north: Double)
    }

    private var ids: [String] = []
    private var ranges: [Range<Int>] = []
    private var boxes: [(Double, Double, Double, Double)] = []
    private var open: (id: String, start: Int)?
    private var box = FeatureIndex.empty
    private static let empty = (Double.infinity, Double.infinity, -Double.infinity, -Double.infinity)

    public init() {}

    func begin(id: String, at offset: Int) {
        open = (id, offset)
        box = Self.empty
    }

    func position(longitude: Double, latitude: Double) {
        box = (min(box.0, longitude), min(box.1, latitude), max(box.2, longitude), max(box.3, latitude))
    }

    func end(at offset: Int) {
        guard let feature = open else { return }
        open = nil
        ids.append(feature.id)
        ranges.append(feature.start..<offset)
        boxes.append(box)
    }

    /// The features in the order they were written, their texts cut from `bytes` (the sink's).
    public func features(in bytes: [UInt8]) -> [Feature] {
        ids.indices.map { k in
            let (w, s, e, n) = boxes[k]
            return Feature(id: ids[k], json: String(decoding: bytes[ranges[k]], as: UTF8.self), box: (w, s, e, n))
        }
    }
}
