/// A category's name, icon and colour checked as `geospend categories add|edit` check them; the
/// CLI and the service share these, so both refuse the same with the CLI's words.
public enum CategoryFields {
    /// A name as import keeps free text (NFC, no controls), 1–100 characters.
    public static func name(_ name: String) throws -> String {
        let parsed: Expense
        do {
            parsed = try ExpenseFields.parse(["user": "u", "amount": "1", "currency": "EUR", "occurred_at": "2025-01-01", "category": name])
        } catch { throw UsageError("--name: \(error)") }
        guard let n = parsed.category, (1...100).contains(n.count) else { throw UsageError("--name must be 1-100 characters") }
        return n
    }

    public static func user(_ user: String) throws -> String {
        do { return try ExpenseFields.parse(["user": user, "amount": "1", "currency": "EUR", "occurred_at": "2025-01-01"]).userID } catch {
            throw UsageError("--user: \(error.reason)")
        }
    }

    public static func icon(_ icon: String?) throws -> String? {
        guard let icon, !icon.isEmpty else { return nil }
        guard icon.count <= 64, !icon.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw UsageError("--icon: at most 64 characters, no control characters")
        }
        return Identity.normalized(icon)
    }

    /// `#RRGGBB`, kept as typed with the letters upper-cased, or one of `namedColors` (any case),
    /// stored as its `#RRGGBB`.
    public static func color(_ color: String?) throws -> String? {
        guard let color, !color.isEmpty else { return nil }
        if let named = namedColors[color.lowercased()] { return named }
        guard color.utf8.count == 7, color.hasPrefix("#"), color.dropFirst().allSatisfy(\.isHexDigit) else {
            throw UsageError(
                "--color: \"\(OutputEscaping.visible(color))\" is not #RRGGBB (e.g. #6F4E37) nor a colour name (\(namedColors.keys.sorted().joined(separator: ", ")))")
        }
        return color.uppercased()
    }

    /// The colour names MONO's categories use (SwiftUI's system colours, issue 38), as Apple's
    /// Human Interface Guidelines give them in light mode: what a category coloured `orange` in
    /// the app looks like, as one fixed value a map legend can use.
    public static let namedColors: [String: String] = [
        "red": "#FF3B30", "orange": "#FF9500", "yellow": "#FFCC00", "green": "#34C759", "mint": "#00C7BE", "teal": "#30B0C7",
        "cyan": "#32ADE6", "blue": "#007AFF", "indigo": "#5856D6", "purple": "#AF52DE", "pink": "#FF2D55", "brown": "#A2845E",
        "gray": "#8E8E93", "grey": "#8E8E93",
    ]
}
