// swift-tools-version: 6.1
import PackageDescription

/// Foundation's static archives and what they need, in one linker group (they refer to each
/// other), by file name so the linker finds them in the toolchain's swift_static folder.
let staticFoundation = ["-Xlinker", "--start-group"]
    + [
        "Foundation", "FoundationInternationalization", "_FoundationICU", "FoundationEssentials", "_FoundationCShims",
        "_FoundationCollections", "CoreFoundation", "FoundationNetworking", "_CFURLSessionInterface", "FoundationXML",
        "_CFXMLInterface", "dispatch", "BlocksRuntime", "swiftDispatch",
    ].flatMap { ["-Xlinker", "-l:lib\($0).a"] }
    + ["-Xlinker", "--end-group"]

/// Where the test targets write their index: scripts/build.sh builds without SwiftPM's index store
/// (`--disable-index-store`: a clean build took 60 s less CPU, docs/MEASUREMENTS.md) and names
/// SwiftPM's own store path here, because SwiftPM's test discovery on Linux opens each test
/// object's index unit and fails without it. Unset (a plain `swift build`), SwiftPM indexes
/// everything itself.
let testIndexStore: [SwiftSetting] = Context.environment["GEOSPEND_TEST_INDEX_STORE"].map {
    [.unsafeFlags(["-index-store-path", $0])]
} ?? []

let package = Package(
    name: "GeoSpend",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "GeoSpend", targets: ["GeoSpend"]),
        .library(name: "GeoSpendSpatiaLite", targets: ["GeoSpendSpatiaLite"]),
        .library(name: "GeoSpendPostGIS", targets: ["GeoSpendPostGIS"]),
        .library(name: "GeoSpendService", targets: ["GeoSpendService"]),
        .executable(name: "geospend", targets: ["geospend"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // The HTTP service: server, logs, metrics, token hashes.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // Already in the graph through hummingbird's test tools; named for webhook deliveries.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // Already in the graph through hummingbird; named for `HTTPField.Name`, which it does not re-export.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        // Already in the graph through hummingbird; named for `Service`, which it does not re-export.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.0.0"),
        // Tests only: property-based checks with Swift Testing.
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // C libraries from Debian, reached through pkg-config.
        .systemLibrary(
            name: "CSpatiaLite", pkgConfig: "spatialite",
            providers: [.apt(["libspatialite-dev", "libsqlite3-dev"])]),
        .systemLibrary(
            name: "CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(
            name: "CProj", pkgConfig: "proj", providers: [.apt(["libproj-dev"])]),
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        // The core: model, geodesy, import parsing, analytics value types. No SQL. GEOS gives
        // imported polygons their point on surface; zlib gzips vector tiles.
        .target(name: "GeoSpend", dependencies: ["CProj", "CGEOS", "CZlib"]),
        // Tesseract's and Leptonica's functions, from the libraries opened the first time a photo
        // is read (libtesseract-dev and libleptonica-dev give the headers; nothing links them).
        .target(name: "CTesseract"),
        // Receipts from a photo: Leptonica prepares the image, Tesseract reads it (issue 42).
        .target(name: "GeoSpendOCR", dependencies: ["GeoSpend", "CTesseract"]),
        // The SpatiaLite store: schema, migrations, spatial SQL, bulk load.
        .target(
            name: "GeoSpendSpatiaLite",
            dependencies: [
                "GeoSpend", "CSpatiaLite", "CGEOS",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]),
        // The PostgreSQL + PostGIS store: the same seam over a server (postgres-nio).
        .target(
            name: "GeoSpendPostGIS",
            dependencies: ["GeoSpend", .product(name: "PostgresNIO", package: "postgres-nio")]),
        // The HTTP service: routes over the same core the CLI calls (docs/ARCHITECTURE.md).
        .target(
            name: "GeoSpendService",
            dependencies: [
                "GeoSpend", "GeoSpendOCR",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            // The web app's page, script and style are files served as they are (no build step), so
            // they can be read, linted and diffed as what they are; `make install` copies the
            // resource bundle next to the binary, where Bundle.module looks first.
            resources: [.copy("openapi.json"), .copy("WebApp")]),
        // The command-line tool: argument parsing and output formats only.
        .executableTarget(
            name: "geospend",
            dependencies: [
                "GeoSpend", "GeoSpendSpatiaLite", "GeoSpendPostGIS", "GeoSpendService", "GeoSpendOCR",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            // The Swift runtime and Foundation linked in: the dynamic loader's symbol binding was
            // a third of a small command's CPU (perf: `import stores` into an existing file, 126 →
            // 81 ms), and the tests run geospend thousands of times. Foundation's static archives
            // name their ICU and C parts only in modules' autolink entries, which the linker does
            // not read from archives: listed here, found in the toolchain's swift_static folder.
            linkerSettings: [.unsafeFlags(["-static-stdlib"] + staticFoundation, .when(platforms: [.linux]))]),

        // How the test targets run programs (one runner, no pipe deadlock, a timeout).
        .target(name: "GeoSpendTestSupport", path: "Tests/GeoSpendTestSupport"),
        // Tests only: a second store behind the seam (MemoryStore), for the store-level suite,
        // and the PostgreSQL server the tests use (PostGISTestServer).
        .target(
            name: "GeoSpendTestStores", dependencies: ["GeoSpend", "GeoSpendPostGIS", "GeoSpendTestSupport"],
            path: "Tests/GeoSpendTestStores"),
        .testTarget(
            name: "GeoSpendTests",
            dependencies: ["GeoSpend", "CProj", "GeoSpendTestSupport", .product(name: "PropertyBased", package: "swift-property-based")],
            swiftSettings: testIndexStore),
        .testTarget(
            name: "GeoSpendSpatiaLiteTests",
            dependencies: [
                "GeoSpend", "GeoSpendSpatiaLite", "GeoSpendPostGIS", "GeoSpendTestSupport", "GeoSpendTestStores",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: testIndexStore),
        // The PostgreSQL store's own machinery (a scope's connection, prepared statements, the test
        // server), against a real server; the contract suites every store passes stay above.
        .testTarget(
            name: "GeoSpendPostGISTests",
            dependencies: [
                "GeoSpend", "GeoSpendPostGIS", "GeoSpendTestStores", "GeoSpendTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: testIndexStore),
        // The CLI tests inspect the databases the commands leave behind (isolation, user deletion).
        .testTarget(
            name: "GeoSpendCLITests",
            dependencies: [
                "GeoSpend", "GeoSpendSpatiaLite", "GeoSpendTestSupport", "GeoSpendTestStores",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: testIndexStore),
        .testTarget(
            name: "GeoSpendServiceTests",
            dependencies: [
                "GeoSpend", "GeoSpendSpatiaLite", "GeoSpendService", "GeoSpendOCR", "GeoSpendTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: testIndexStore),
    ]
)

