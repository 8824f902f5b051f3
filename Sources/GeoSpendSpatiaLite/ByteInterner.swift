import Foundation
import GeoSpend

/// Numbers byte strings in order of first sight, read in place from SQLite: no `String` and
/// no dictionary hashing per row (a heavy user's store ids repeat on most of 100k rows).
/// Open addressing on a 64-bit FNV-1a hash; the bytes are kept back to back.
struct ByteInterner {
    private var bytes: [UInt8] = []
    private var ends: [Int] = []
    private var hashes: [UInt64] = []
    /// Numbers by hash slot; -1 empty. At most half full.
    private var table = [Int32](repeating: -1, count: 64)

    var count: Int { ends.count }

    /// The number of `key`, and whether this is its first sight.
    mutating func number(_ key: UnsafeBufferPointer<UInt8>) -> (number: Int32, isNew: Bool) {
        let h = FNV1a.hash(key)
        let mask = table.count - 1
        var slot = Int(truncatingIfNeeded: h) & mask
        while true {
            let n = table[slot]
            if n < 0 { break }
            if hashes[Int(n)] == h && equals(Int(n), key) { return (n, false) }
            slot = (slot + 1) & mask
        }
        let n = Int32(ends.count)
        bytes.append(contentsOf: key)
        ends.append(bytes.count)
        hashes.append(h)
        table[slot] = n
        if 2 * ends.count > table.count { grow() }
        return (n, true)
    }

    private func equals(_ n: Int, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = n == 0 ? 0 : ends[n - 1]
        guard ends[n] - start == key.count else { return false }
        return bytes.withUnsafeBufferPointer { all in
            key.count == 0 || memcmp(all.baseAddress! + start, key.baseAddress!, key.count) == 0
        }
    }

    private mutating func grow() {
        table = [Int32](repeating: -1, count: table.count * 2)
        let mask = table.count - 1
        for (n, h) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: h) & mask
            while table[slot] >= 0 { slot = (slot + 1) & mask }
            table[slot] = Int32(n)
        }
    }
}
