import Foundation

/// The percentages of a budget's amount whose crossing raises a `budget.threshold` (or
/// `zone_budget.threshold`) event (issue 39): 80 % and 100 % unless the budget says otherwise
/// (`budgets add|edit --thresholds 50,80,100`). Whole percentages 1…1000 (an overspend alert at
/// 150 % is a threshold too), at most ten, kept sorted and without repeats.
///
/// ```swift
/// try BudgetThresholds.parse("100,50,80,80", option: "--thresholds")   // [50, 80, 100]
/// ```
public enum BudgetThresholds {
    public static let `default`: [Int64] = [80, 100]
    public static let range: ClosedRange<Int64> = 1...1000
    /// More would be a percentage per step, not an alert.
    public static let maxCount = 10

    /// `values` sorted and without repeats, checked against `range` and `maxCount`.
    /// - Throws: `UsageError` naming `option` and the value, with what to give instead.
    public static func checked(_ values: [Int64], option: String) throws -> [Int64] {
        guard !values.isEmpty else { throw UsageError("\(option): give at least one percentage, e.g. 80,100") }
        for v in values where !range.contains(v) {
            throw UsageError("\(option): \(v) is not a whole percentage from 1 to 1000; give e.g. 50,80,100")
        }
        let sorted = Array(Set(values)).sorted()
        guard sorted.count <= maxCount else {
            throw UsageError("\(option): \(sorted.count) thresholds; give at most \(maxCount), e.g. 50,80,100")
        }
        return sorted
    }

    /// `50,80,100` (spaces around the numbers allowed) → checked thresholds.
    /// - Throws: `UsageError` naming `option` and the part that is not a whole percentage.
    public static func parse(_ text: String, option: String) throws -> [Int64] {
        var values: [Int64] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            // Int64(_:) accepts "+5"; a percentage is digits only. Eight digits bound the parse.
            guard !trimmed.isEmpty, trimmed.count <= 8, trimmed.allSatisfy({ $0.isASCII && $0.isNumber }), let v = Int64(trimmed) else {
                throw UsageError(
                    "\(option) \(OutputEscaping.visible(text)): \"\(OutputEscaping.visible(String(part)))\" is not a whole percentage from 1 to 1000; give e.g. 50,80,100")
            }
            values.append(v)
        }
        return try checked(values, option: option)
    }

    /// As the stores keep them: `80,100`.
    public static func text(_ values: [Int64]) -> String { values.map(String.init).joined(separator: ",") }

    /// A stored `80,100` back; nil when it is not a valid list (damage the caller reports).
    public static func stored(_ text: String) -> [Int64]? { try? parse(text, option: "thresholds") }
}
