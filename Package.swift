// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "GeoSpend",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "GeoSpend", targets: ["GeoSpend"]),
        .library(name: "GeoSpendSpatiaLite", targets: ["GeoSpendSpatiaLite"]),
        .library(name: "GeoSpendPostGIS", targets: ["GeoSpendPostGIS"]),
        .executable(name: "geospend", targets: ["geospend"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
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
        // The command-line tool: argument parsing and output formats only.
        .executableTarget(
            name: "geospend",
            dependencies: [
                "GeoSpend", "GeoSpendSpatiaLite", "GeoSpendPostGIS",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // How the test targets run programs (one runner, no pipe deadlock, a timeout).
        .target(name: "GeoSpendTestSupport", path: "Tests/GeoSpendTestSupport"),
        // Tests only: a second store behind the seam (MemoryStore), for the store-level suite,
        // and the PostgreSQL server the tests use (PostGISTestServer).
        .target(
            name: "GeoSpendTestStores", dependencies: ["GeoSpend", "GeoSpendPostGIS", "GeoSpendTestSupport"],
            path: "Tests/GeoSpendTestStores"),
        .testTarget(
            name: "GeoSpendTests",
            dependencies: ["GeoSpend", "CProj", .product(name: "PropertyBased", package: "swift-property-based")]),
        .testTarget(
            name: "GeoSpendSpatiaLiteTests",
            dependencies: [
                "GeoSpend", "GeoSpendSpatiaLite", "GeoSpendPostGIS", "GeoSpendTestSupport", "GeoSpendTestStores",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        // The CLI tests inspect the databases the commands leave behind (isolation, user deletion).
        .testTarget(
            name: "GeoSpendCLITests",
            dependencies: [
                "GeoSpend", "GeoSpendSpatiaLite", "GeoSpendTestSupport", "GeoSpendTestStores",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
    ]
)
