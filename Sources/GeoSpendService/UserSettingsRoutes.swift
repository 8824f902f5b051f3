import Foundation
import GeoSpend
import Hummingbird

/// `/api/v1/users/me/settings`: the token user's settings as `geospend users settings` shows
/// and sets them (`UserSettingsJSON`). GET shows; PUT (a write token) takes
/// `{"time_zone": "Europe/Helsinki" | null, "position_retention_days": 365 | null}` — a key
/// left out keeps its value, null unsets — and answers with the settings as stored. A shorter
/// retention is applied before the answer, as the CLI applies it.
struct UserSettingsRoutes {
    let store: any Backend

    func add(to group: RouterGroup<ServiceContext>) {
        group.get("users/me/settings", use: show)
        group.put("users/me/settings", use: set)
    }

    @Sendable func show(_ request: Request, context: ServiceContext) async throws -> Response {
        JSONResponse.make(UserSettingsJSON.object(try await current(context)))
    }

    @Sendable func set(_ request: Request, context: ServiceContext) async throws -> Response {
        let settings = try Self.changed(try await current(context), by: try await Self.body(request))
        let user = Identity.normalized(try context.user())
        guard try await store.setUserSettings(settings, userID: user) else { throw Self.gone(user) }
        _ = try await PositionRetention.apply(userID: user, in: store, now: PositionRetention.now())
        return JSONResponse.make(UserSettingsJSON.object(settings))
    }

    private func current(_ context: ServiceContext) async throws -> UserSettings {
        let user = Identity.normalized(try context.user())
        guard let settings = try await store.userSettings(userID: user) else { throw Self.gone(user) }
        return settings
    }

    static func gone(_ user: String) -> Problem {
        Problem(.notFound, "user \"\(OutputEscaping.visible(user))\" was deleted")
    }

    /// A body value: null, a whole number, text, or anything else (refused by name).
    enum Value: Decodable {
        case null, integer(Int), text(String), other

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() {
                self = .null
            } else if let n = try? c.decode(Int.self) {
                self = .integer(n)
            } else if let s = try? c.decode(String.self) {
                self = .text(s)
            } else {
                self = .other
            }
        }
    }

    static let example = #"{"time_zone": "Europe/Helsinki", "position_retention_days": 365}"#

    static func body(_ request: Request) async throws -> [String: Value] {
        let bytes = try await request.body.collect(upTo: 1 << 16)
        guard let object = try? JSONDecoder().decode([String: Value].self, from: Data(buffer: bytes)) else {
            throw Problem(.badRequest, "the body must be a JSON object, e.g. \(example)")
        }
        for key in object.keys where !UserSettingsJSON.keys.contains(key) {
            throw Problem(.badRequest, "unknown key \"\(OutputEscaping.visible(key))\"; the keys are \(UserSettingsJSON.keys.joined(separator: ", "))")
        }
        return object
    }

    /// `current` with the body's keys applied; 400 naming the key for a value no setting takes.
    static func changed(_ current: UserSettings, by body: [String: Value]) throws -> UserSettings {
        var zone = current.timeZone
        switch body["time_zone"] {
        case nil: break
        case .null: zone = nil
        case .text(let name): zone = name
        default: throw Problem(.badRequest, "time_zone: give an IANA time zone name as a string (e.g. \"Europe/Helsinki\"), or null")
        }
        var days = current.positionRetentionDays
        switch body["position_retention_days"] {
        case nil: break
        case .null: days = nil
        case .integer(let n): days = n
        default:
            throw Problem(.badRequest, "position_retention_days: give a whole number of days from 1 to \(UserSettings.retentionDays.upperBound), or null (kept forever)")
        }
        do { return try UserSettings(timeZone: zone, positionRetentionDays: days) } catch {
            throw Problem(.badRequest, "\(error.setting): \(error)")
        }
    }
}
