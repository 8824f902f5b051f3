import Foundation

/// How the values of a mapped or preset file are read before the expense rules check them:
/// the decimal separator, the date format and time zone, and the currency and user that the
/// file itself does not give (`--decimal-comma`, `--date-format`, `--timezone`, `--currency`,
/// `--user`).
public struct ValueConversions: Sendable {
    /// `,` is the decimal separator and `.` groups thousands: `-1.234,56`.
    public var decimalComma = false
    public var dateFormat: DateFormatPattern?
    /// Gives local times without an offset their offset, daylight saving time included.
    public var timeZone: TimeZone?
    /// ISO 4217 code for rows whose file has no currency.
    public var currency: String?
    /// The user every row belongs to (files that do not name one).
    public var user: String?
    /// Field → the file's value → the value stored (`--map-value kind:CARD_PAYMENT=expense`).
    public var valueMaps: [String: [String: String]] = [:]

    public init() {}

    /// Nothing to convert or fill in: a row's values are read as they are.
    var isIdentity: Bool {
        !decimalComma && dateFormat == nil && timeZone == nil && currency == nil && user == nil && valueMaps.isEmpty
    }

    /// An expense's time as the RFC 3339 (or bare date) text `Timestamp` reads: through
    /// `dateFormat` when given, else as written; a local time without offset takes the
    /// offset `timeZone` has at that moment.
    /// - Throws: `ValueError.invalidDate`.
    public func timestamp(_ raw: String) throws(ValueError) -> String {
        let text = raw.trimmingSpaces()
        if let dateFormat {
            let local = try dateFormat.parse(text)
            guard local.time != nil else { return local.text }
            guard let timeZone else {
                throw .invalidDate(raw, reason: "has no UTC offset; give the zone the times are in with --timezone (e.g. Europe/Helsinki)")
            }
            return try Self.zoned(local, in: timeZone, raw: raw).text
        }
        do { return try Timestamp(parsing: text).text } catch {
            // A local date-time without offset (`2025-03-05 08:15:00`, `…T08:15`, a joined
            // `Date+Time`) gets the zone's.
            var plain = Array(text)
            guard plain.count == 16 || plain.count == 19 else { throw error }
            if plain[10] == "T" { plain[10] = " " }
            let pattern = plain.count == 19 ? "yyyy-MM-dd HH:mm:ss" : "yyyy-MM-dd HH:mm"
            guard let local = try? DateFormatPattern(pattern).parse(String(plain)) else { throw error }
            guard let timeZone else {
                throw .invalidDate(raw, reason: "has no UTC offset; give the zone the times are in with --timezone (e.g. Europe/Helsinki)")
            }
            return try Self.zoned(local, in: timeZone, raw: raw).text
        }
    }

    /// The instant a local date-time names in a zone, with the offset the zone had then.
    static func zoned(_ local: DateFormatPattern.LocalDateTime, in zone: TimeZone, raw: String) throws(ValueError) -> Timestamp {
        let t = local.time ?? (0, 0, 0)
        let localSeconds = Timestamp.daysFromCivil(year: local.year, month: local.month, day: local.day) * 86_400
            + Int64(t.hour * 3600 + t.minute * 60 + t.second)
        // The offset at the instant found with the offset of a first guess; a second round
        // settles the hours next to a change of offset.
        var offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(localSeconds)))
        offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(localSeconds - Int64(offset))))
        let instant = localSeconds - Int64(offset)
        let stamp = Timestamp(epochSeconds: instant, utcOffsetMinutes: offset / 60)
        // In the hour a spring change skips, no offset the zone has gives back this local time.
        guard zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(instant))) == offset else {
            throw .invalidDate(raw, reason: "does not exist in \(zone.identifier): the clocks skip that hour")
        }
        return stamp
    }
}
