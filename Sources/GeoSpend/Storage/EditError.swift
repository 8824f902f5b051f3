/// Why an edit of expenses or categories was refused: bad input the user can fix (exit 2).
public enum EditError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownCategory(name: String, kind: Category.Kind, suggestion: String?)
    case inactiveCategory(name: String, kind: Category.Kind)
    case categoryExists(name: String, kind: Category.Kind)
    case ambiguousCategory(name: String)
    case defaultCategory(name: String, kind: Category.Kind)
    case unknownStore(String)
    case invalid(field: String, reason: String)

    public var description: String {
        switch self {
        case .unknownCategory(let name, let kind, let suggestion):
            return "no \(kind.rawValue) category \(ValueError.quote(name))"
                + (suggestion.map { " (did you mean \(ValueError.quote($0))?)" } ?? "")
                + "; `geospend categories --user U --all` lists them, `geospend categories add` creates one"
        case .inactiveCategory(let name, let kind):
            return "the \(kind.rawValue) category \(ValueError.quote(name)) is deactivated; "
                + "`geospend categories edit \(name) --kind \(kind.rawValue) --activate --user U` brings it back"
        case .categoryExists(let name, let kind):
            return "the \(kind.rawValue) category \(ValueError.quote(name)) exists already (names are compared without case)"
        case .ambiguousCategory(let name):
            return "\(ValueError.quote(name)) is a category of more than one kind (expense, income, transfer): "
                + "add --kind expense, --kind income or --kind transfer"
        case .defaultCategory(let name, let kind):
            return "\(ValueError.quote(name)) is one of the default \(kind.rawValue) categories, which stay; "
                + "`geospend categories deactivate` hides it instead"
        case .unknownStore(let id):
            return "--store: \(ValueError.quote(id)) is not a known store; `geospend nearest-stores` finds stores"
        case .invalid(let field, let reason):
            return "\(field): \(reason)"
        }
    }
}

extension EditError {
    /// An unknown category, with the first of the user's `known` names that starts with the
    /// same three letters (ASCII case folded) as a suggestion.
    public static func unknownCategory(name: String, kind: Category.Kind, among known: [String]) -> EditError {
        let start = String(Identity.asciiLowercased(name).prefix(3))
        return .unknownCategory(name: name, kind: kind, suggestion: known.first { Identity.asciiLowercased($0).hasPrefix(start) })
    }

    /// The rule for a category a new or edited expense names: the user's category of that kind
    /// and name (ASCII case folded) must exist and be active. A user seen for the first time gets
    /// the defaults with the expense, so those names pass. Each backend looks the rows up; this
    /// decides.
    /// - Parameters:
    ///   - found: the user's category of that kind and folded name, as stored; nil when none.
    ///   - activeNames: the user's active names of that kind (byte order), or nil when there is
    ///     no such user; read only when `found` is nil.
    public static func checkCategory(
        _ name: String, kind: Category.Kind, found: (name: String, isActive: Bool)?, activeNames: () throws -> [String]?
    ) throws {
        if let found {
            if !found.isActive { throw EditError.inactiveCategory(name: found.name, kind: kind) }
            return
        }
        if let known = try activeNames() { throw unknownCategory(name: name, kind: kind, among: known) }
        let defaults = Category.defaults.filter { $0.kind == kind }.map(\.name)
        if defaults.contains(where: { Identity.asciiLowercased($0) == Identity.asciiLowercased(name) }) { return }
        throw unknownCategory(name: name, kind: kind, among: defaults)
    }
}

