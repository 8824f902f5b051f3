// Fuzz target `geojson`: the GeoJSON store reader (a FeatureCollection of Points).
// Invariants: errors name `feature N` with N within the collection (or the document, or its
// encoding when it is UTF-16/32); every
// store accepted has an id, a coordinate in range, and round-trips through the store CSV.
@testable import GeoSpend

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGeoJSONStores(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = bytes(data, size)
    var featureCount = 0
    if let document = try? StrictJSONParser.parse(input.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(input.dropFirst(3)) : input),
        case .array(let features)? = document["features"]
    {
        featureCount = features.count
    }
    let path = writeScratch(input)
    var stores: [Store] = []
    var results = 0
    do {
        // One result per feature, in order: a store or an error located at that feature.
        _ = try RecordReaders.geoJSONStores(path: path, displayName: path) { result in
            results += 1
            switch result {
            case .success(let found):
                stores.append(found.store)
                check(found.location == "feature \(results)", "store \(results) located at \(found.location)")
            case .failure(let e):
                checkLocated(e, lines: 1)
                check(e.location == "feature \(results)", "error for feature \(results) located at \(e.location): \(e)")
            }
        }
        check(results == featureCount, "\(results) results for \(featureCount) features")
    } catch let ImportError.badFile(e) {
        // Streamed: a document error may follow features already read (an import rolls them back).
        check(e.location == "1" && (e.column == "document" || e.column == "encoding"), "document error not at the document: \(e)")
        check(e.column != "encoding" || e.reason.contains("convert it with `iconv -f"), "encoding error without the conversion: \(e)")
    } catch {
        check(false, "unexpected error \(error)")
    }
    checkStores(stores)
    return 0
}
