import Foundation

/// Ids for expenses created by GeoSpend itself (`geospend expenses add`): `x` then 26
/// characters of Crockford base 32 holding the creation time in milliseconds (48 bits, so ids
/// sort by creation) and 80 random bits, ULID's layout (https://github.com/ulid/spec).
/// Import ids are chosen by the files' authors; a clash with one is astronomically unlikely,
/// and the store refuses a taken id anyway (the caller draws again).
public enum GeneratedID {
    private static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)

    public static func expense(milliseconds: Int64, using random: inout some RandomNumberGenerator) -> String {
        // 128 bits: time in the top 48, randomness below.
        let high = UInt64(truncatingIfNeeded: milliseconds) << 16 | UInt64(random.next() & 0xFFFF)
        let low = random.next() as UInt64
        var out: [UInt8] = [UInt8(ascii: "x")]
        // 26 digits of 5 bits = 130 bits; the first digit holds the top 3 (2 leading zero bits).
        for i in (0..<26).reversed() {
            let shift = i * 5
            let value: UInt64
            if shift >= 64 {
                value = high >> (shift - 64)
            } else if shift + 5 <= 64 {
                value = low >> shift
            } else {
                value = (low >> shift) | (high << (64 - shift))
            }
            out.append(alphabet[Int(value & 31)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func expense() -> String {
        var random = SystemRandomNumberGenerator()
        return expense(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)), using: &random)
    }
}
