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

    /// `#RRGGBB`, kept as typed with the letters upper-cased.
    public static func color(_ color: String?) throws -> String? {
        guard let color, !color.isEmpty else { return nil }
        guard color.utf8.count == 7, color.hasPrefix("#"), color.dropFirst().allSatisfy(\.isHexDigit) else {
            throw UsageError("--color: \"\(OutputEscaping.visible(color))\" is not #RRGGBB (e.g. #6F4E37)")
        }
        return color.uppercased()
    }
}
