import Foundation

/// A buffered byte writer for large outputs: features are appended as bytes and flushed to a
/// file descriptor every 1 MiB, so memory stays flat however many features go out.
///
/// Numbers are written without `String` round trips: fixed decimals through `Int64`, never NaN
/// or Infinity (a non-finite value is a programming error and traps).
public final class ByteSink: @unchecked Sendable {  // one writer at a time: whoever holds it
    // A raw buffer: appending through `Array` checks uniqueness and capacity on every byte,
    // which was most of the time of a points export.
    private let capacity: Int
    private let slack: Int  // room for one item written after the capacity check
    private var storage: UnsafeMutablePointer<UInt8>
    private var used = 0
    private var collected: [UInt8] = []  // in-memory mode: flushed bytes land here
    private let descriptor: Int32
    /// A write that failed during an automatic flush; `flush()` reports it.
    private var failure: ExportError?
    /// For a non-blocking descriptor (a response's pipe): how long a write may wait for room
    /// before the reader is taken to have stopped reading and the output fails. A client that
    /// stops reading must not hold the export — and the database connection it reads
    /// through — for ever.
    public var stallTimeoutMilliseconds: Int32 = -1

    /// Writes to an open file descriptor (1 for stdout; -1 collects in memory); the caller
    /// closes it. `capacity` is how much is buffered between writes (1 MiB by default).
    public init(descriptor: Int32, capacity: Int = 1 << 20) {
        self.descriptor = descriptor
        self.capacity = capacity
        slack = max(64, min(capacity, 1 << 16))
        storage = .allocate(capacity: capacity + slack)
    }

    /// Collects into memory only (tests, small outputs): read it back with `bytes`.
    public convenience init() { self.init(descriptor: -1) }

    deinit { storage.deallocate() }

    /// What was written, when collecting into memory.
    public var bytes: [UInt8] { collected + UnsafeBufferPointer(start: storage, count: used) }

    /// How many bytes were written, when collecting into memory: the offset of the next one.
    var count: Int { collected.count + used }

    @inline(__always)
    private func append(_ b: UInt8) {
        storage[used] = b
        used += 1
    }

    @inline(__always)
    private func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        if bytes.count > capacity {  // larger than the buffer: straight through, in order
            spill()
            collectOrWrite(bytes)
            return
        }
        if used + bytes.count > capacity + slack { spill() }
        (storage + used).update(from: bytes.baseAddress!, count: bytes.count)
        used += bytes.count
    }

    /// Called after each item: flushes when the buffer is past its capacity.
    @inline(__always)
    private func checkCapacity() {
        if used >= capacity { spill() }
    }

    @inline(__always)
    public func byte(_ b: UInt8) {
        if used >= capacity + slack { spill() }
        append(b)
    }

    public func ascii(_ s: StaticString) {
        s.withUTF8Buffer { append($0) }
        checkCapacity()
    }

    public func rawBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        append(bytes)
        checkCapacity()
    }

    public func raw(_ s: String) {
        var s = s
        s.withUTF8 { append($0) }
        checkCapacity()
    }

    /// A JSON string literal, escaped per RFC 8259 (plus U+2028/2029 for JavaScript readers).
    public func jsonString(_ s: String) {
        var s = s
        s.withUTF8 { jsonString(bytes: $0) }
    }

    /// A JSON string literal from UTF-8 bytes.
    public func jsonString(bytes utf8: UnsafeBufferPointer<UInt8>) {
        byte(UInt8(ascii: "\""))
        // Most strings need no escaping: copy them in one go.
        if !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == 0xE2 }) {
            append(utf8)
            byte(UInt8(ascii: "\""))
            checkCapacity()
            return
        }
        var i = 0
        while i < utf8.count {
            let c = utf8[i]
            if used >= capacity + slack - 8 { spill() }
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): append(UInt8(ascii: "\\")); append(c)
            case 0x0A: append(UInt8(ascii: "\\")); append(UInt8(ascii: "n"))
            case 0x0D: append(UInt8(ascii: "\\")); append(UInt8(ascii: "r"))
            case 0x09: append(UInt8(ascii: "\\")); append(UInt8(ascii: "t"))
            case 0..<0x20: unicodeEscape(UInt32(c))
            case 0xE2 where i + 2 < utf8.count && utf8[i + 1] == 0x80 && (utf8[i + 2] == 0xA8 || utf8[i + 2] == 0xA9):
                unicodeEscape(utf8[i + 2] == 0xA8 ? 0x2028 : 0x2029)
                i += 2
            default: append(c)
            }
            i += 1
        }
        byte(UInt8(ascii: "\""))
        checkCapacity()
    }

    private func unicodeEscape(_ v: UInt32) {
        let hex: StaticString = "0123456789abcdef"
        append(UInt8(ascii: "\\"))
        append(UInt8(ascii: "u"))
        for shift in stride(from: 12, through: 0, by: -4) { append(hex.utf8Start[Int((v >> UInt32(shift)) & 0xF)]) }
    }

    public func integer(_ v: Int64) {
        if v < 0 {
            byte(UInt8(ascii: "-"))
            if v == .min { raw("9223372036854775808"); return }
            unsignedDigits(UInt64(-v))
        } else {
            unsignedDigits(UInt64(v))
        }
    }

    public func integer(_ v: Int) { integer(Int64(v)) }

    private func unsignedDigits(_ v: UInt64) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = v, k = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[k] = UInt8(ascii: "0") + UInt8(n % 10)
                n /= 10
                k += 1
            } while n > 0
            if used >= capacity + slack - 24 { spill() }
            while k > 0 {
                k -= 1
                append(d[k])
            }
        }
    }

    private static let powers: [Double] = (0...15).map { p in (0..<p).reduce(1.0) { r, _ in r * 10 } }
    private static let intPowers: [Int64] = (0...15).map { p in (0..<p).reduce(Int64(1)) { r, _ in r * 10 } }

    /// A number with at most `decimals` decimals (0–15), trailing zeros dropped: `24.937737`, `3`.
    /// The digits of the rounded, scaled integer are formed once, the point set in among them:
    /// three of these per exported point made it the export's costliest call.
    /// The number `fixed(value, decimals:)` writes, as a reader parses it back: the decimal is
    /// an integer over a power of ten, both exact in a Double, so one division rounds it as
    /// parsing does.
    static func asWritten(_ value: Double, decimals: Int) -> Double {
        let scaled = (value * powers[decimals]).rounded()
        guard scaled.magnitude < 9e15 else { return Double(formatDecimal(value, digits: decimals)) ?? value }
        return scaled / powers[decimals]
    }

    public func fixed(_ value: Double, decimals: Int) {
        precondition(value.isFinite, "non-finite number in output")
        precondition((0...15).contains(decimals), "at most 15 decimals")
        let scaled = (value * Self.powers[decimals]).rounded()
        guard scaled.magnitude < 9e15 else { raw(formatDecimal(value, digits: decimals)); return }
        var n = UInt64(scaled.magnitude)
        if n == 0 { byte(UInt8(ascii: "0")); return }
        if used >= capacity + slack - 40 { spill() }
        if scaled < 0 { append(UInt8(ascii: "-")) }
        // Least significant digit first; at least one digit before the point.
        var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { d in
            var k = 0
            repeat {
                d[k] = UInt8(ascii: "0") + UInt8(n % 10)
                n /= 10
                k += 1
            } while n > 0 || k <= decimals
            var zeros = 0
            while zeros < decimals && d[zeros] == UInt8(ascii: "0") { zeros += 1 }
            while k > decimals {
                k -= 1
                append(d[k])
            }
            guard zeros < decimals else { return }
            append(UInt8(ascii: "."))
            while k > zeros {
                k -= 1
                append(d[k])
            }
        }
    }

    /// `,"name":` (or `"name":` when `first`), in one go: a key of a JSON object.
    public func jsonKey(_ name: StaticString, first: Bool) {
        precondition(name.utf8CodeUnitCount <= 48, "keys fit in the buffer's slack")
        if used >= capacity + slack - 8 - name.utf8CodeUnitCount { spill() }
        if !first { append(UInt8(ascii: ",")) }
        append(UInt8(ascii: "\""))
        (storage + used).update(from: name.utf8Start, count: name.utf8CodeUnitCount)
        used += name.utf8CodeUnitCount
        append(UInt8(ascii: "\""))
        append(UInt8(ascii: ":"))
    }

    /// An exact decimal amount from minor units: `1234` with 2 digits is `12.34`.
    public func money(_ minorUnits: Int64, digits: Int) {
        var n = minorUnits
        if n < 0 { byte(UInt8(ascii: "-")); n = -n }
        let unit = Self.intPowers[digits]
        unsignedDigits(UInt64(n / unit))
        guard digits > 0 else { return }
        byte(UInt8(ascii: "."))
        padded(Int(n % unit), width: digits)
    }

    /// `count` decimal digits (at most 18) of a non-negative value, zero-padded: fractions,
    /// dates and times.
    public func padded(_ value: Int, width count: Int) {
        if used >= capacity + slack - 24 { spill() }
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        var v = value
        for _ in 0..<count {
            append(UInt8(ascii: "0") + UInt8(v / divisor % 10))
            v %= divisor
            divisor /= 10
        }
    }

    /// Moves the buffered bytes out: to the file, or to the in-memory collection.
    private func spill() {
        let pending = UnsafeBufferPointer(start: storage, count: used)
        used = 0
        collectOrWrite(pending)
    }

    private func collectOrWrite(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard descriptor >= 0 else { collected.append(contentsOf: bytes); return }
        guard failure == nil else { return }  // nothing more can reach the file
        var offset = 0
        while offset < bytes.count {
            let n = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    var room = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    let ready = poll(&room, 1, stallTimeoutMilliseconds)
                    if ready > 0 || (ready < 0 && errno == EINTR) { continue }
                    failure = .writeFailed("the reader took no bytes for \(stallTimeoutMilliseconds / 1000) s; the output was given up")
                    return
                }
                failure = .writeFailed(String(cString: strerror(errno)))
                return
            }
            offset += n
        }
    }

    /// Writes out what is buffered. - Throws: `ExportError.writeFailed` (disk full, closed
    /// pipe), also for a failure during an earlier automatic flush.
    public func flush() throws {
        if used > 0 && descriptor >= 0 { spill() }
        if let failure { throw failure }
    }
}
