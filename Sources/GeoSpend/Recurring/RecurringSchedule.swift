import Foundation

/// When a recurring rule falls due (issue 38, the budget seed's recurring transactions): every
/// N days, weekly, monthly or yearly, counted from the rule's first day, its *anchor*.
///
/// Occurrence `k` is computed from the anchor, never from the occurrence before it, so a rule
/// from 31 January falls on 28 (or 29) February and on 31 March again — a month without the
/// anchor's day falls to its last day and the next month is not pulled back with it. A yearly
/// rule from 29 February falls on 28 February in the other years.
///
/// ```swift
/// let s = RecurringSchedule(every: .monthly, anchor: try LocalDay(parsing: "2025-01-31"))
/// s.occurrence(1).description   // "2025-02-28"
/// s.occurrence(2).description   // "2025-03-31"
/// ```
public struct RecurringSchedule: Sendable, Hashable {
    public let every: Every
    public let anchor: LocalDay

    public init(every: Every, anchor: LocalDay) {
        self.every = every
        self.anchor = anchor
    }

    /// How often.
    public enum Every: Sendable, Hashable, CustomStringConvertible {
        /// Every N days (1: daily), 1…3660.
        case days(Int)
        case weekly
        case monthly
        case yearly

        public static let maxDays = 3660

        /// `daily`, `weekly`, `monthly`, `yearly`, or N days as `14d` or `14 days`.
        /// - Throws: `ValueError.invalidValue` naming the forms accepted.
        public init(parsing text: String) throws(ValueError) {
            let t = text.trimmingCharacters(in: .whitespaces).lowercased()
            switch t {
            case "daily", "day": self = .days(1)
            case "weekly", "week": self = .weekly
            case "monthly", "month": self = .monthly
            case "yearly", "year", "annually": self = .yearly
            default:
                var digits = Substring(t)
                if digits.hasSuffix("days") { digits = digits.dropLast(4) } else if digits.hasSuffix("d") { digits = digits.dropLast() }
                let number = digits.trimmingCharacters(in: .whitespaces)
                guard !number.isEmpty, number.count <= 4, number.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(number), (1...Self.maxDays).contains(n) else {
                    throw .invalidValue(text, reason: "is not a schedule: give daily, weekly, monthly, yearly, or every N days as 14d (N from 1 to \(Self.maxDays))")
                }
                self = .days(n)
            }
        }

        /// The stored and shown form: `weekly`, `monthly`, `yearly`, `Nd` (`1d` for daily).
        public var description: String {
            switch self {
            case .days(let n): return "\(n)d"
            case .weekly: return "weekly"
            case .monthly: return "monthly"
            case .yearly: return "yearly"
            }
        }

        /// The mean length of one step in days, for a first guess of an occurrence's number.
        var meanDays: Double {
            switch self {
            case .days(let n): return Double(n)
            case .weekly: return 7
            case .monthly: return 30.436875
            case .yearly: return 365.2425
            }
        }
    }

    /// Occurrence `k` (0: the anchor). `k` stays below a million by `RecurringRun`'s bounds, so
    /// no day number overflows.
    public func occurrence(_ k: Int64) -> LocalDay {
        switch every {
        case .days(let n): return anchor.adding(days: k * Int64(n))
        case .weekly: return anchor.adding(days: k * 7)
        case .monthly: return Self.clamped(anchor, months: k)
        case .yearly: return Self.clamped(anchor, months: k * 12)
        }
    }

    /// The number of the first occurrence on or after `day` (0 when `day` is not after the anchor).
    public func firstIndex(onOrAfter day: LocalDay) -> Int64 {
        guard day > anchor else { return 0 }
        var k = max(0, Int64(Double(day.dayNumber - anchor.dayNumber) / every.meanDays) - 1)
        while k > 0 && occurrence(k - 1) >= day { k -= 1 }
        while occurrence(k) < day { k += 1 }
        return k
    }

    /// `day` moved by `months`, its day of the month kept where the month has it, else the
    /// month's last day.
    static func clamped(_ day: LocalDay, months: Int64) -> LocalDay {
        let c = day.civil
        let total = Int64(c.year) * 12 + Int64(c.month - 1) + months
        let year = Int(total / 12), month = Int(total % 12) + 1
        let d = min(c.day, Timestamp.daysIn(month: month, year: year))
        return LocalDay(dayNumber: Timestamp.daysFromCivil(year: year, month: month, day: d))
    }
}
