extension Timestamp {
    /// RFC 3339 text of an instant in a recorded offset (`Z` for UTC), milliseconds when not
    /// whole seconds. A nil offset (a bare date, whose instant is its midnight read as UTC) gives
    /// the date alone.
    public static func rfc3339(epochMilliseconds ms: Int64, utcOffsetMinutes offset: Int?) -> String {
        let sink = ByteSink(descriptor: -1, capacity: 64)
        sink.rfc3339(epochMilliseconds: ms, utcOffsetMinutes: offset)
        return String(decoding: sink.bytes, as: UTF8.self)
    }
}

extension ByteSink {
    /// `Timestamp.rfc3339` written straight into the sink (a points export writes millions).
    func rfc3339(epochMilliseconds ms: Int64, utcOffsetMinutes offset: Int?) {
        let (days, millisecond) = Timestamp.localDayAndTime(epochMilliseconds: ms, utcOffsetMinutes: offset)
        let millis = millisecond % 1000
        let daySeconds = Int(millisecond / 1000)
        let (y, m, d) = Timestamp.civilFromDays(days)
        padded(y, width: 4); byte(UInt8(ascii: "-")); padded(m, width: 2); byte(UInt8(ascii: "-")); padded(d, width: 2)
        guard let offset else { return }
        byte(UInt8(ascii: "T")); padded(daySeconds / 3600, width: 2); byte(UInt8(ascii: ":"))
        padded(daySeconds / 60 % 60, width: 2); byte(UInt8(ascii: ":")); padded(daySeconds % 60, width: 2)
        if millis != 0 { byte(UInt8(ascii: ".")); padded(Int(millis), width: 3) }
        if offset == 0 { byte(UInt8(ascii: "Z")); return }
        byte(UInt8(ascii: offset < 0 ? "-" : "+"))
        padded(abs(offset) / 60, width: 2); byte(UInt8(ascii: ":")); padded(abs(offset) % 60, width: 2)
    }
}
