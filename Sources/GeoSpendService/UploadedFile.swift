import Foundation
import Synchronization
import GeoSpend
import Hummingbird

/// An import's body kept in a private temporary file, since the importers read files;
/// `remove()` deletes it once the import is done.
///
/// The body goes to the file as it arrives, a chunk at a time: memory holds a chunk and the
/// file's first line, not the whole upload (collecting 64 MiB and copying it to write it took
/// about 9× the upload). At most `ServiceSettings.uploads`' limit of uploads are taken at once; more are 503
/// with `Retry-After`. The file's name carries this process's id
/// (`geospend-upload-PID-…`), so an upload a killed service left is found and removed by the
/// next `serve` and by `users delete` (`UploadedFile.removeLeftovers`).
public struct UploadedFile {
    let url: URL
    /// The body's first line (up to 64 KiB): the CSV header.
    let firstLine: String

    static let prefix = "geospend-upload-"

    /// The `format` parameter of a table import: csv or jsonl.
    static func tableFormat(_ request: Request) throws -> ImportFormat {
        let text = try QueryParameters(request).required("format")
        guard let format = ImportFormat(rawValue: text), format == .csv || format == .jsonl else {
            throw Problem(.badRequest, "format: \"\(OutputEscaping.visible(text))\" is not csv or jsonl")
        }
        return format
    }

    /// `what` and `fileExtension` go into the file's name (`geospend-upload-<pid>-<what>-<uuid>.csv`).
    init(_ request: Request, context: ServiceContext, slots: Slots, what: String, fileExtension: String) async throws {
        try slots.takeOrRefuse()
        defer { slots.give() }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(Self.prefix)\(getpid())-\(what)-\(UUID().uuidString).\(fileExtension)")
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = try? FileHandle(forWritingTo: url)
        else {
            throw Problem(.serviceUnavailable, "the service could not keep the upload (disk full?); retry later")
        }
        var head: [UInt8] = [], size = 0, headDone = false
        do {
            defer { try? handle.close() }
            for try await chunk in request.body {
                size += chunk.readableBytes
                guard size <= context.maxUploadSize else {
                    throw Problem(.contentTooLarge, "the body is larger than \(context.maxUploadSize >> 20) MiB; split the file")
                }
                let bytes = chunk.readableBytesView
                if !headDone {
                    let line = bytes.prefix { $0 != UInt8(ascii: "\n") }.prefix(65536 - head.count)
                    head += line
                    headDone = line.count < bytes.count || head.count >= 65536
                }
                do { try handle.write(contentsOf: Data(bytes)) } catch {
                    throw Problem(.serviceUnavailable, "the service could not keep the upload (disk full?); retry later")
                }
            }
        } catch {
            try? FileManager.default.removeItem(at: url)
            throw error
        }
        self.url = url
        firstLine = String(decoding: head, as: UTF8.self)
    }

    func remove() { try? FileManager.default.removeItem(at: url) }

    /// Removes uploads whose service is gone (killed during an import). `serve` calls it when it
    /// starts and `users delete` when it deletes: a leftover holds some user's rows.
    @discardableResult
    public static func removeLeftovers() -> [String] {
        LeftoverFiles.removeStale(in: FileManager.default.temporaryDirectory.path, prefixes: [prefix])
    }
}

/// A bounded count of work in progress (uploads, receipt scans): `take` a slot before the work
/// and `give` it back after; with all `limit` taken, `takeOrRefuse` answers 503 with
/// `Retry-After`.
public final class Slots: Sendable {
    public let limit: Int
    private let busy: @Sendable (Int) -> String
    private let retryAfter: Int
    private let taken = Mutex(0)

    init(limit: Int, busy: @escaping @Sendable (Int) -> String, retryAfter: Int) {
        self.limit = max(1, limit)
        self.busy = busy
        self.retryAfter = retryAfter
    }

    /// Takes a slot; false when all `limit` are taken.
    public func take() -> Bool {
        taken.withLock { n in
            guard n < limit else { return false }
            n += 1
            return true
        }
    }

    public func give() { taken.withLock { $0 -= 1 } }

    /// `take()`, or a 503 problem with `Retry-After` when every slot is taken.
    func takeOrRefuse() throws {
        guard take() else {
            var p = Problem(.serviceUnavailable, busy(limit))
            p.headers[.retryAfter] = "\(retryAfter)"
            throw p
        }
    }
}
