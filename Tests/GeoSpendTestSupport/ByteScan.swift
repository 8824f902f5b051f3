import Foundation

/// Byte scans for the no-trace tests: a deleted row's text, id and coordinates must not occur in
/// the database file or its write-ahead log.
extension Array where Element == UInt8 {
    /// Every offset where `needle` occurs (glibc's `memchr` and `memcmp`: a debug-build Swift
    /// loop over megabytes would take seconds).
    public func offsets(of needle: [UInt8]) -> [Int] {
        withUnsafeBytes { hay in
            needle.withUnsafeBytes { n in
                var found: [Int] = []
                var start = 0
                while start + n.count <= hay.count,
                      let p = memchr(hay.baseAddress! + start, Int32(n[0]), hay.count - start - n.count + 1) {
                    let at = hay.baseAddress!.distance(to: UnsafeRawPointer(p))
                    if memcmp(p, n.baseAddress!, n.count) == 0 { found.append(at) }
                    start = at + 1
                }
                return found
            }
        }
    }
}

/// The bytes of each file that exists (a database and its `-wal`, say), one after another.
public func bytesOfFiles(_ paths: [String]) throws -> [UInt8] {
    var bytes: [UInt8] = []
    for path in paths where FileManager.default.fileExists(atPath: path) {
        bytes += try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }
    return bytes
}

/// How a coordinate is written where a scan should look: a REAL column (big-endian double), a
/// SpatiaLite geometry (little-endian double) and an R*Tree cell (big-endian float).
public func coordinateByteForms(_ v: Double) -> [(form: String, bytes: [UInt8])] {
    [("REAL", withUnsafeBytes(of: v.bitPattern.bigEndian, Array.init)),
     ("geometry", withUnsafeBytes(of: v.bitPattern.littleEndian, Array.init)),
     ("R*Tree", withUnsafeBytes(of: Float(v).bitPattern.bigEndian, Array.init))]
}
