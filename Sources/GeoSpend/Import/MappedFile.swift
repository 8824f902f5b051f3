#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file's bytes mapped read-only into memory (`mmap`): the CSV reader scans them in place,
/// so a 10-million-row file costs page cache, not heap, and no copy.
final class MappedFile {
    let bytes: UnsafeBufferPointer<UInt8>
    private let owned: [UInt8]?  // for in-memory input
    private let mapping: UnsafeMutableRawPointer?

    /// - Throws: `ImportError.unreadable` with the system's reason.
    init(path: String) throws(ImportError) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw .unreadable(file: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .unreadable(file: path, reason: String(cString: strerror(errno))) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw .unreadable(file: path, reason: "is not a regular file") }
        owned = nil
        let size = Int(st.st_size)
        guard size > 0 else {
            mapping = nil
            bytes = UnsafeBufferPointer(start: nil, count: 0)
            return
        }
        guard let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else {
            throw .unreadable(file: path, reason: String(cString: strerror(errno)))
        }
        madvise(p, size, MADV_SEQUENTIAL)
        mapping = p
        bytes = UnsafeBufferPointer(start: p.assumingMemoryBound(to: UInt8.self), count: size)
    }

    init(bytes array: [UInt8]) {
        owned = array
        mapping = nil
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, array.count))
        p.initialize(from: array, count: array.count)
        bytes = UnsafeBufferPointer(start: p, count: array.count)
    }

    deinit {
        if let mapping {
            munmap(mapping, bytes.count)
        } else if owned != nil, let base = bytes.baseAddress {
            UnsafeMutablePointer(mutating: base).deallocate()
        }
    }
}
