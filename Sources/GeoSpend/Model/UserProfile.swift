/// Who a user is, as MONO keeps it (issue 38): a name and an email address, both optional, set
/// by `geospend users edit`. The name follows `DisplayName`; the address is checked for shape
/// only (one `@`, a dot in the domain, no spaces or controls, at most 254 bytes as RFC 5321
/// allows a path): nothing is sent to it.
public enum UserProfile {
    public static let maxEmailBytes = 254

    /// The name to store; "" or nil unsets it (nil is returned).
    public static func name(_ text: String?) throws -> String? {
        guard let text, !text.isEmpty else { return nil }
        do { return try DisplayName.checked(text, of: "user", example: "Alice Example") } catch { throw UsageError("--name: \(error)") }
    }

    /// The address to store; "" or nil unsets it.
    public static func email(_ text: String?) throws -> String? {
        guard let text, !text.isEmpty else { return nil }
        let t = Identity.normalized(text)
        let parts = t.split(separator: "@", omittingEmptySubsequences: false)
        let fine = t.utf8.count <= maxEmailBytes && parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".")
            && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".")
            && !t.unicodeScalars.contains { $0.properties.isWhitespace || $0.properties.generalCategory == .control }
        guard fine else {
            throw UsageError("--email: \(ValueError.invalidValue(text, reason: "is not an email address like alice@example.org")); \"\" unsets it")
        }
        return t
    }
}

extension UserProfile {
    /// Changes what is given: `name`/`email` nil keep the stored value, "" unsets it (`users
    /// edit`, `PATCH /api/v1/users/me`).
    public static func edit(user: String, name: String?, email: String?, store: some UserDataStore & UserProfileStore) async throws -> UserRecord {
        let user = Identity.normalized(user)
        let (newName, newEmail) = (try Self.name(name), try Self.email(email))
        let missing = UsageError("no user \"\(OutputEscaping.visible(user))\"; `geospend users list` shows the users")
        guard let old = try await store.withUserData(user, { $0.user }) else { throw missing }
        guard let updated = try await store.setUserProfile(
            userID: user, name: name == nil ? old.displayName : newName, email: email == nil ? old.email : newEmail)
        else { throw missing }
        return updated
    }

    /// `users edit`'s and `GET /api/v1/users/me`'s answer.
    public static func json(_ u: UserRecord) -> JSONOutput {
        .object([("id", .string(u.id)), ("name", .text(u.displayName)), ("email", .text(u.email)), ("created_at", .string(u.createdAt))])
    }
}

/// Setting a user's name and email (`users edit`, `PATCH /api/v1/users/me`).
public protocol UserProfileStore: Sendable {
    /// Sets the user's name and email (nil: none). - Returns: the user, or nil when there is none.
    func setUserProfile(userID: String, name: String?, email: String?) async throws -> UserRecord?
}
