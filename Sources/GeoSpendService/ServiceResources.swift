import Foundation
import Synchronization

/// The service's resource files — the OpenAPI document and the web app (`WebApp/`) — read from
/// the `GeoSpend_GeoSpendService.resources` bundle without `Bundle.module`, whose generated
/// accessor calls `fatalError` when the bundle is not where it was built (a `geospend` binary
/// copied without it crashed at the first request for `/`, `/app/*` or `/openapi.json`).
///
/// Where it looks, first found wins:
/// 1. `$GEOSPEND_RESOURCES` when set (a packager's own place, e.g. `share/geospend/`): only there;
/// 2. next to the executable (symbolic links resolved): `make install` copies the bundle into
///    `bin/` beside `geospend`, and `swift build` puts it beside its products and test bundles;
/// 3. the build directory of the checkout this was compiled from (`.build/debug|release`).
///
/// When none has it, each file is nil: the routes answer 404 problem+json naming the bundle, the
/// service logs it once on standard error, and everything else keeps working.
enum ServiceResources {
    static let bundleName = "GeoSpend_GeoSpendService.resources"

    /// The folders searched, in order (see above).
    static func candidates(environment: [String: String] = ProcessInfo.processInfo.environment) -> [URL] {
        if let own = environment["GEOSPEND_RESOURCES"], !own.isEmpty {
            return [URL(fileURLWithPath: own).appendingPathComponent(bundleName), URL(fileURLWithPath: own)]
        }
        var folders: [URL] = []
        if let main = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent() { folders.append(main) }
        // Sources/GeoSpendService/ServiceResources.swift → the checkout's .build/<configuration>.
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        #if DEBUG
        folders.append(checkout.appendingPathComponent(".build/debug"))
        #else
        folders.append(checkout.appendingPathComponent(".build/release"))
        #endif
        return folders.map { $0.appendingPathComponent(bundleName) }
    }

    /// The bundle's folder, or nil when no candidate holds the service's files.
    static let directory: URL? = candidates().first {
        FileManager.default.fileExists(atPath: $0.appendingPathComponent("openapi.json").path)
    }

    private static let files = Mutex<[String: String]>([:])
    private static let told = Atomic<Bool>(false)

    /// The UTF-8 text of `path` inside the bundle (e.g. "WebApp/app.js"), read once and kept; nil
    /// when the bundle or the file is missing (logged once).
    static func text(_ path: String) -> String? {
        if let text = files.withLock({ $0[path] }) { return text }
        guard let directory, let text = try? String(contentsOf: directory.appendingPathComponent(path), encoding: .utf8) else {
            if !told.exchange(true, ordering: .relaxed) {
                let looked = candidates().map(\.path).joined(separator: ", ")
                FileHandle.standardError.write(Data(
                    "geospend serve: \(bundleName) is missing (looked in \(looked)): /, /app/* and /openapi.json answer 404; put the bundle next to the geospend binary (make install does) or name its folder in GEOSPEND_RESOURCES\n".utf8))
            }
            return nil
        }
        files.withLock { $0[path] = text }
        return text
    }

    /// 404 problem+json for a missing resource file.
    static func missing(_ path: String) -> Problem {
        Problem(.notFound, "\(path) is missing: the \(bundleName) bundle must sit next to the geospend binary (make install copies it) or in the folder GEOSPEND_RESOURCES names")
    }
}
