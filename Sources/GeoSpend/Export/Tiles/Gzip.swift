import CZlib

/// gzip (RFC 1952) through zlib: MBTiles stores vector tiles deflated ("`pbf` and `mvt` both
/// refer to zlib-deflated vector tile data", MBTiles 1.3), and GDAL's MBTiles driver writes them
/// gzip-compressed; readers (GDAL, MapLibre via a tile server) detect the gzip header. zlib
/// leaves the header's time at 0, so the same tile gives the same bytes.
public enum Gzip {
    public static func compress(_ input: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        // windowBits 15 + 16: a gzip wrapper instead of zlib's; memLevel 8 is zlib's default.
        guard deflateInit2_(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
                             ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            fatalError("zlib: deflateInit2 failed (out of memory)")
        }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))) + 32)
        var input = input
        let status = input.withUnsafeMutableBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                stream.next_in = src.baseAddress
                stream.avail_in = UInt32(src.count)
                stream.next_out = dst.baseAddress
                stream.avail_out = UInt32(dst.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        precondition(status == Z_STREAM_END, "zlib: deflateBound was too small")
        return Array(output.prefix(Int(stream.total_out)))
    }
}
