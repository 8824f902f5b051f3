// Fuzz target `gpx`: the GPX waypoint store reader (`RecordReaders.gpxStores`).
// Invariants: the file is read or refused as a whole with `badFile` at the document or its
// encoding, on a line of the input; every waypoint's store or row error is located on a line of
// the input, in order; a store has an id, a coordinate in range, and round-trips through the
// store CSV; reading the same bytes twice gives the same ids (derived, so re-imports match).
@testable import GeoSpend

func readGPX(_ path: String, lines: Int) -> [Store]? {
    var stores: [Store] = []
    var previous = 0
    do {
        _ = try RecordReaders.gpxStores(path: path, displayName: path) { result in
            let location: String
            switch result {
            case .success(let found):
                stores.append(found.store)
                location = found.location
            case .failure(let e):
                checkLocated(e, lines: lines)
                location = e.location
            }
            let line = Int(location) ?? 0
            check(line >= 1 && line <= lines && line >= previous, "waypoint at \(location) after \(previous), \(lines) lines")
            previous = line
        }
    } catch let ImportError.badFile(e) {
        checkLocated(e, lines: lines)
        check(e.column == "document" || e.column == "encoding", "a file error not at the document or its encoding: \(e)")
        return nil
    } catch {
        check(false, "unexpected error \(error)")
    }
    return stores
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGPXStores(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = bytes(data, size)
    let lines = lineCount(input)
    guard let stores = readGPX(writeScratch(input), lines: lines) else { return 0 }
    let again = readGPX(writeScratch(input), lines: lines) ?? []
    check(again.map(\.id) == stores.map(\.id), "ids differ between two reads of the same file")
    check(Set(stores.map(\.id)).count == stores.count, "two waypoints with the same id")
    checkStores(stores)
    return 0
}
