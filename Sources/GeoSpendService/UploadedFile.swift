import Foundation
import GeoSpend
import Hummingbird

/// An import's body (`format=csv|jsonl`) kept in a private temporary file, since the importers
/// read files; `remove()` deletes it once the import is done.
struct UploadedFile {
    let format: ImportFormat
    let url: URL
    let body: ByteBuffer

    /// `what` goes into the file's name (`geospend-<what>-<uuid>.csv`).
    init(_ request: Request, context: ServiceContext, what: String) async throws {
        let text = try QueryParameters(request).required("format")
        guard let format = ImportFormat(rawValue: text), format == .csv || format == .jsonl else {
            throw Problem(.badRequest, "format: \"\(OutputEscaping.visible(text))\" is not csv or jsonl")
        }
        body = try await request.body.collect(upTo: context.maxUploadSize)  // larger: 413
        url = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-\(what)-\(UUID().uuidString).\(format.rawValue)")
        guard FileManager.default.createFile(atPath: url.path, contents: Data(buffer: body), attributes: [.posixPermissions: 0o600]) else {
            throw Problem(.serviceUnavailable, "the service could not keep the upload (disk full?); retry later")
        }
        self.format = format
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}
