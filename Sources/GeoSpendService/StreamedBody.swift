import Foundation
import GeoSpend
import Hummingbird

/// A response body written as it is produced: the writer (an export, on the store's read
/// thread) fills a pipe through a `ByteSink`, and the response reads the pipe in 64 KiB chunks,
/// so a layer of any size goes out in flat memory and a slow client slows the writer (the pipe
/// is full) instead of filling memory. A failure after the first byte ends the connection early:
/// the status was sent already, and a truncated GeoJSON document does not parse.
enum StreamedBody {
    static func response(contentType: String, _ write: @escaping @Sendable (ByteSink) async throws -> Void) throws -> Response {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw Problem(.serviceUnavailable, "the service is out of file descriptors; retry later") }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        let producer = Task {
            defer { close(writeEnd) }
            let sink = ByteSink(descriptor: writeEnd, capacity: 1 << 16)
            try await write(sink)
            try sink.flush()
        }
        let body = ResponseBody { writer in
            defer { close(readEnd) }  // before the producer is awaited: a gone client unblocks it (EPIPE)
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
