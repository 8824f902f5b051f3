import Foundation

/// The checkout the tests run from (the folder that holds Package.swift): one lookup for every
/// suite, from this file's place in it (Tests/GeoSpendTestSupport/).
public enum Repository {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
}
