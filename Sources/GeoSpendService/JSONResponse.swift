import GeoSpend
import Hummingbird

/// A JSON body exactly as the CLI prints it with `--format json` (with its final newline), so a
/// response and the CLI's output can be compared byte for byte.
enum JSONResponse {
    static func make(_ json: JSONOutput, contentType: String = "application/json") -> Response {
        Response(status: .ok, headers: [.contentType: contentType], body: .init(byteBuffer: ByteBuffer(bytes: json.bytes(terminator: "\n"))))
    }

    static func text(_ text: String, contentType: String) -> Response {
        Response(status: .ok, headers: [.contentType: contentType], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
