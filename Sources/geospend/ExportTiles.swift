import ArgumentParser
import Foundation
import GeoSpend
import GeoSpendSpatiaLite

/// `geospend export tiles`: a vector tile set (Mapbox Vector Tile 2.1) in an MBTiles file.
extension ExportCommand {
    /// Where the MBTiles file goes: a regular file, new or an earlier MBTiles file (recognised by
    /// its application id; any other SQLite file, the database above all, is refused as
    /// `OutputFile` refuses it). Checked before anything is read.
    func tilesTarget(protecting protected: [OutputFile.Protected]) throws -> (path: String, directory: String, name: String) {
        guard out != "-" else { throw ValidationError("export tiles writes an MBTiles file (SQLite): give it with --out FILE.mbtiles") }
        if MBTilesWriter.isMBTiles(out), !protected.contains(where: { OutputFile.sameFile($0.path, out) }) {
            let parent = (out as NSString).deletingLastPathComponent
            guard let directory = OutputFile.realPath(parent.isEmpty ? "." : parent) else {
                throw ExportError.writeFailed("\(out): folder \(parent): \(String(cString: strerror(errno)))")
            }
            return (out, directory, (out as NSString).lastPathComponent)
        }
        guard case .regular(let path, let directory, let name, _) = try OutputFile.target(out, protecting: protected) else {
            throw ValidationError("--out \(out) is not a regular file: an MBTiles file is an SQLite database, give a file name")
        }
        return (path, directory, name)
    }

    @Sendable private static func showReading(done: Int, total: Int) { printErrInline("  \(done) expenses read…") }
    @Sendable private static func showTiles(done: Int, total: Int) { printErrInline("  \(done) / \(total) tiles written…") }

    func tileRequest(_ map: MapExportRequest) throws -> VectorTileRequest {
        guard let tileLayer else { throw ValidationError("export tiles needs --layer heat, points or places") }
        return VectorTileRequest(layer: tileLayer, minZoom: minZoom, maxZoom: maxZoom, map: map)
    }

    /// Reads once, writes the tiles into a temporary file beside the target and renames it over
    /// the target when complete (a refused oversized tile, an error or a signal leaves nothing).
    func writeTiles(
        _ request: VectorTileRequest, store: any ExpenseStore, target: (path: String, directory: String, name: String)
    ) async throws {
        let showing = stderrIsTerminal
        let set = try await VectorTileSet.prepare(request, store: store, progress: showing ? Self.showReading : nil)
        if showing { printErrInline("") }
        TemporaryFiles.removeStale(in: target.directory, target: target.name)
        let temporary = TemporaryFiles.prefix(directory: target.directory, target: target.name) + String(UInt32.random(in: 0...UInt32.max))
        TemporaryFiles.register(temporary)
        defer { TemporaryFiles.unregister(temporary) }
        do {
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else { throw ExportError.writeFailed("\(temporary): \(String(cString: strerror(errno)))") }
            close(fd)
            try MBTilesWriter.write(set, name: "GeoSpend \(request.layer.rawValue)", to: temporary, progress: showing ? Self.showTiles : nil)
            if showing { printErrInline("") }
            let fd2 = open(temporary, O_RDONLY | O_CLOEXEC)
            guard fd2 >= 0, fchmod(fd2, 0o666 & ~OutputFile.processUmask) == 0, fsync(fd2) == 0 else {
                if fd2 >= 0 { close(fd2) }
                throw ExportError.writeFailed("\(target.path): \(String(cString: strerror(errno)))")
            }
            close(fd2)
            guard rename(temporary, target.directory + "/" + target.name) == 0 else {
                throw ExportError.writeFailed("\(target.path): \(String(cString: strerror(errno)))")
            }
        } catch {
            unlink(temporary)
            throw error
        }
        let s = set.summary
        if !s.leftOutCurrencies.isEmpty, let c = s.currency {
            printErr("note: exported \(c.code), the most common currency; left out \(s.leftOutCurrencies.joined(separator: ", ")) (choose with --currency)")
        }
        if let note = Self.emptyNote(s, currency: request.map.filter.currency, masked: !request.map.privacy.masks.isEmpty) { printErr(note) }
        let what = request.layer == .heat ? "\(s.features) cells at zoom \(request.maxZoom)" : "\(s.features) \(request.layer.rawValue)"
        let suppressed = s.suppressed > 0 ? " (\(s.suppressed) suppressed)" : ""
        let total = s.currency.flatMap { c in s.totalMinor.map { " totalling \(Money(minorUnits: $0, currency: c).decimalString) \(c.code)" } } ?? ""
        printErr("wrote \(set.tileCount) tiles, zooms \(request.minZoom)–\(request.maxZoom), \(what)\(suppressed)\(total) to \(out)")
    }
}

extension TileLayerKind: ExpressibleByArgument {}
