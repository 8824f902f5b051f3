import Foundation

/// A property of the points layer's features (`geospend export points --properties`,
/// `/api/v1/export/points?properties=`). A selection writes only those, in this order, so a map
/// that draws dots does not download what it never reads (the web app's month view, issue 41).
/// Without a selection every one is written, as before; the feature's `id` and its Point are
/// always written.
public enum PointProperty: String, CaseIterable, Sendable, Comparable {
    case amount, currency, kind
    case occurredAt = "occurred_at"
    case category, merchant
    case storeID = "store_id"
    /// One user's layer only (a layer across users never says where positions came from).
    case positionSource = "position_source"
    case weight

    public static func < (a: PointProperty, b: PointProperty) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// A comma-separated list ("amount,position_source"); empty is no property at all. `option`
    /// names the list in the refusal (`--properties` on the command line, `properties` over HTTP).
    public static func selection(_ text: String, option: String) throws -> Set<PointProperty> {
        guard !text.isEmpty else { return [] }
        var chosen = Set<PointProperty>()
        for name in text.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard let p = PointProperty(rawValue: name) else {
                throw UsageError(
                    "\(option): \"\(OutputEscaping.visible(name))\" is not a property of points; choose from \(allCases.map(\.rawValue).joined(separator: ", "))")
            }
            chosen.insert(p)
        }
        return chosen
    }
}
