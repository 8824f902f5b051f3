#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a file in large chunks without holding it all, a byte or a buffer at a time: the JSON
/// Lines and GeoJSON readers stream a file of any length in constant memory (CSV maps its file).
final class ByteSource {
    private var fd: Int32 = -1
    private var buffer: [UInt8]
    private var count = 0
    private var position = 0
    private var exhausted = false
    /// Bytes consumed before the current chunk, for progress reporting.
    private(set) var bytesBefore: Int64 = 0

    static let chunkSize = 1 << 20

    /// Opens `path` for reading. - Throws: `ImportError.unreadable` with the system's reason.
    init(path: String) throws(ImportError) {
        fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw .unreadable(file: path, reason: String(cString: strerror(errno)))
        }
        var st = stat()
        if fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            fd = -1
            throw .unreadable(file: path, reason: "is a directory")
        }
        buffer = [UInt8](repeating: 0, count: ByteSource.chunkSize)
    }

    deinit { if fd >= 0 { close(fd) } }

    var bytesRead: Int64 { bytesBefore + Int64(position) }

    /// The next byte, or nil at the end of the input.
    @inline(__always)
    func next() -> UInt8? {
        if position < count {
            let b = buffer[position]
            position += 1
            return b
        }
        return refill() ? next() : nil
    }

    /// Up to `n` next bytes, without consuming them (fewer at the end of the input). Reading
    /// them from the source itself matters for a pipe: opening it again to look would take them.
    func peek(_ n: Int) -> ArraySlice<UInt8> {
        if position >= count { _ = refill() }
        return buffer[position..<min(count, position + n)]
    }

    /// Fills `destination` from the input, bytes still buffered first; the count, 0 at the end.
    /// For readers that scan whole buffers (`FeatureCollectionReader`) instead of calling
    /// `next()` per byte.
    func fill(_ destination: UnsafeMutableBufferPointer<UInt8>) -> Int {
        guard let out = destination.baseAddress, !destination.isEmpty else { return 0 }
        if position < count {
            let n = min(count - position, destination.count)
            buffer.withUnsafeBufferPointer { out.update(from: $0.baseAddress! + position, count: n) }
            position += n
            return n
        }
        guard !exhausted, fd >= 0 else { return 0 }
        while true {
            let n = read(fd, out, destination.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                exhausted = true
                return 0
            }
            bytesBefore += Int64(n)  // `position` stays at `count`: bytesRead grows by n
            return n
        }
    }

    private func refill() -> Bool {
        guard !exhausted, fd >= 0 else { return false }
        bytesBefore += Int64(count)
        position = 0
        count = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, ByteSource.chunkSize) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                exhausted = true
                return false
            }
            count = n
            return true
        }
    }
}
