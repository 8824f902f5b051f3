// swift-tools-version: 6.1
// A separate package so benchmark code never touches the library's dependency graph.
import PackageDescription

let package = Package(
    name: "GeoSpendBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "GeoSpend", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // libpq, the thinnest PostgreSQL client there is: PostGIS's latencies carry no driver overhead.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .executableTarget(
            name: "geospend-bench",
            dependencies: [
                "CLibPQ",
                .product(name: "GeoSpend", package: "GeoSpend"),
                .product(name: "GeoSpendSpatiaLite", package: "GeoSpend"),
                .product(name: "GeoSpendPostGIS", package: "GeoSpend"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ])
    ]
)
