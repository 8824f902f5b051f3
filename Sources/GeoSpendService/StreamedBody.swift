import Foundation
import Synchronization
import GeoSpend
import Hummingbird

/// A response body written as it is produced: the writer (an export, on the store's read
/// thread) fills a pipe through a `ByteSink`, and the response reads the pipe in 64 KiB chunks,
/// so a layer of any size goes out in flat memory and a slow client slows the writer (the pipe
/// is full) instead of filling memory. The status waits for the first bytes: a failure before
/// them (a layer over its limit, a bad option found late) is a problem with its own status, not
/// a 200 with an empty body. A failure after the first byte ends the connection early: the
/// status was sent already, and a truncated GeoJSON document does not parse.
///
/// A stream holds a database connection while it is read, so a client that stops reading must
/// not keep it (issue 35, item 3: six unread exports of one token blocked every other user's
/// requests): the writer gives up when the client takes nothing for `stallTimeout`, and one
/// user has at most `StreamSlots.perUser` streams open, the service `StreamSlots.overall`
/// (fewer than the database's readers), more being a 503 with `Retry-After`.
enum StreamedBody {
    static let stallTimeout: Duration = .seconds(20)

    static func response(
        slots: StreamSlots, contentType: String, owner: String, _ write: @escaping @Sendable (ByteSink) async throws -> Void
    ) async throws -> Response {
        try slots.take(owner)
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            slots.give(owner)
            throw Problem(.serviceUnavailable, "the service is out of file descriptors; retry later")
        }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
        let producer = Task {
            defer {
                close(writeEnd)
                slots.give(owner)
            }
            let sink = ByteSink(descriptor: writeEnd, capacity: 1 << 16)
            sink.stallTimeoutMilliseconds = Int32(stallTimeout.components.seconds * 1000)
            try await write(sink)
            try sink.flush()
        }
        let first: [UInt8]?
        do {
            first = try await offloaded { Self.readChunk(readEnd) }
        } catch {
            close(readEnd)
            throw error
        }
        guard let first else {
            // Nothing written: the producer has ended; its error, if any, is the answer.
            defer { close(readEnd) }
            try await producer.value
            return Response(status: .ok, headers: [.contentType: contentType], body: .init(byteBuffer: ByteBuffer()))
        }
        let body = ResponseBody { writer in
            defer { close(readEnd) }  // before the producer is awaited: a gone client unblocks it (EPIPE)
            try await writer.write(ByteBuffer(bytes: first))
            while let chunk = try await offloaded({ Self.readChunk(readEnd) }) {
                try await writer.write(ByteBuffer(bytes: chunk))
            }
            try await producer.value
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: contentType], body: body)
    }

    /// Up to 64 KiB, or nil at the end.
    private static func readChunk(_ fd: Int32) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 { return Array(buffer[..<n]) }
            if n < 0 && errno == EINTR { continue }
            return nil
        }
    }
}

/// Streams open, per user and in all (`StreamedBody`); each service has its own
/// (`ServiceSettings.streams`).
final class StreamSlots: Sendable {
    /// The database has 5 pooled readers (GRDB's default): streams leave at least one to the
    /// token checks and reads of everyone else (whose `near` and `nearest-stores` have their
    /// own connections). Three per user: the live map fetches its three layers at once.
    static let perUser = 3, overall = 4
    private let open = Mutex<(total: Int, byUser: [String: Int])>((0, [:]))

    func take(_ user: String) throws {
        let refusal: String? = open.withLock { o in
            if o.byUser[user, default: 0] >= Self.perUser { return "you have \(Self.perUser) downloads running already" }
            if o.total >= Self.overall { return "the service is sending \(Self.overall) downloads already" }
            o.total += 1
            o.byUser[user, default: 0] += 1
            return nil
        }
        if let refusal {
            var p = Problem(.serviceUnavailable, "\(refusal); retry once one has finished")
            p.headers[.retryAfter] = "5"
            throw p
        }
    }

    func give(_ user: String) {
        open.withLock { o in
            o.total -= 1
            o.byUser[user, default: 1] -= 1
            if o.byUser[user] == 0 { o.byUser[user] = nil }
        }
    }
}
