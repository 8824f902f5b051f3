import Foundation

/// A place (a home, an office) whose surroundings a shared export leaves out.
///
/// A mask centred on the place is reversed by finding the centre of the gap (95 % of users of
/// a fitness app, USENIX Security 2018; docs/DOMAIN.md § Location privacy). So the dropped region is a disc
/// of radius 2R around a *secret* point at a distance between R/2 and R from the place (uniform
/// over that ring's area, secret direction): it always covers the whole disc of radius R around
/// the place (R/2…R + R ≤ 2R), and the gap's centre is never within R/2 of the place. The
/// secret point comes from a keyed hash (SipHash-2-4) of the place rounded to 4 decimals and of
/// R, so every export with the same key drops the same region — averaging many exports learns
/// nothing new, which a fresh random offset per export would give away.
public struct LocationMask: Sendable, Hashable {
    public let center: Coordinate
    /// R: nothing within this many metres of `center` is exported.
    public let radiusMeters: Double

    public init(center: Coordinate, radiusMeters: Double) {
        self.center = center
        self.radiusMeters = radiusMeters
    }

    /// The region dropped from exports made with `key`.
    public func region(key: MaskKey) -> MaskRegion {
        var message = Array("geospend-mask-v1".utf8)
        for v in [(center.latitude * 10_000).rounded(), (center.longitude * 10_000).rounded(), radiusMeters.rounded()] {
            withUnsafeBytes(of: Int64(v).littleEndian) { message += $0 }
        }
        func unit(_ stream: UInt8) -> Double { Double(key.hash(message + [stream]) >> 11) * 0x1.0p-53 }
        let r = radiusMeters
        // Uniform over the ring's area: r² uniform between (R/2)² and R².
        let offset = r * (0.25 + 0.75 * unit(1)).squareRoot()
        let shifted = Geodesic.destination(from: center, azimuth: 360 * unit(2), distance: offset)
        return MaskRegion(center: shifted, radiusMeters: 2 * r)
    }
}

/// A dropped region: a geodesic disc.
public struct MaskRegion: Sendable, Hashable {
    public let center: Coordinate
    public let radiusMeters: Double

    @inline(__always)
    public func contains(latitude: Double, longitude: Double) -> Bool {
        Geodesic.isWithin(center, Coordinate(uncheckedLatitude: latitude, longitude: longitude), meters: radiusMeters)
    }
}

/// The 128-bit secret that places masks' regions (SipHash-2-4's key).
public struct MaskKey: Sendable, Hashable {
    let k0: UInt64
    let k1: UInt64

    public init(k0: UInt64, k1: UInt64) {
        self.k0 = k0
        self.k1 = k1
    }

    /// 32 hexadecimal digits; the bytes are read little-endian, as SipHash's reference does.
    public init(hex: String) throws(ValueError) {
        let digits = Array(hex.utf8).compactMap { Character(Unicode.Scalar($0)).hexDigitValue }
        guard hex.utf8.count == 32, digits.count == 32 else {
            throw .outOfRange(hex, reason: "is not a mask key of 32 hexadecimal digits")
        }
        self.init(bytes: stride(from: 0, to: 32, by: 2).map { UInt8(digits[$0] << 4 | digits[$0 + 1]) })
    }

    public init(bytes: [UInt8]) {
        func word(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) } }
        self.init(k0: word(0), k1: word(8))
    }

    /// A fresh random key.
    public static func random() -> MaskKey {
        var g = SystemRandomNumberGenerator()
        return MaskKey(k0: g.next(), k1: g.next())
    }

    public var hex: String {
        (0..<16).map { n in String(format: "%02x", UInt8(truncatingIfNeeded: (n < 8 ? k0 : k1) >> (8 * UInt64(n % 8)))) }.joined()
    }

    /// SipHash-2-4 (Aumasson & Bernstein 2012) of `message` under this key.
    func hash(_ message: [UInt8]) -> UInt64 {
        var v0: UInt64 = 0x736f_6d65_7073_6575 ^ k0, v1: UInt64 = 0x646f_7261_6e64_6f6d ^ k1
        var v2: UInt64 = 0x6c79_6765_6e65_7261 ^ k0, v3: UInt64 = 0x7465_6462_7974_6573 ^ k1
        func round() {
            v0 &+= v1; v1 = v1.rotl(13); v1 ^= v0; v0 = v0.rotl(32)
            v2 &+= v3; v3 = v3.rotl(16); v3 ^= v2
            v0 &+= v3; v3 = v3.rotl(21); v3 ^= v0
            v2 &+= v1; v1 = v1.rotl(17); v1 ^= v2; v2 = v2.rotl(32)
        }
        func compress(_ m: UInt64) {
            v3 ^= m; round(); round(); v0 ^= m
        }
        let whole = message.count / 8 * 8
        for at in stride(from: 0, to: whole, by: 8) {
            compress((0..<8).reduce(0) { $0 | UInt64(message[at + $1]) << (8 * UInt64($1)) })
        }
        var last = UInt64(message.count & 0xff) << 56
        for (n, b) in message[whole...].enumerated() { last |= UInt64(b) << (8 * UInt64(n)) }
        compress(last)
        v2 ^= 0xff
        round(); round(); round(); round()
        return v0 ^ v1 ^ v2 ^ v3
    }
}

extension UInt64 {
    fileprivate func rotl(_ n: UInt64) -> UInt64 { self << n | self >> (64 - n) }
}
