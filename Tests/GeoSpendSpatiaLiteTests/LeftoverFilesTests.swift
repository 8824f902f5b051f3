import Foundation
import GeoSpend
import GeoSpendSpatiaLite
import GeoSpendTestSupport
import Testing

/// A first open killed half-way leaves its hidden `.NAME.creating-PID-RANDOM` files: the next
/// first open of the same file, and `doctor --repair`, remove those of dead processes, and only
/// regular files: a symlink planted under such a name, and what it points to, stay.
@Suite struct LeftoverFilesTests {
    /// The id of a process that has exited.
    static func deadPID() throws -> Int32 {
        let p = try RunningProgram("/bin/true", [])
        try #require(p.waitUntilExit(timeout: .seconds(30)), "/bin/true did not end")
        return p.processIdentifier
    }

    /// Plants the leftovers; returns (names that must go, names that must stay).
    static func plant(in scratch: Scratch, target: String) throws -> (gone: [String], kept: [String], victim: String) {
        let dead = try deadPID()
        let gone = [".\(target).creating-\(dead)-123", ".\(target).creating-\(dead)-123-wal"]
        for name in gone { _ = scratch.file(name, "half a database") }
        let live = ".\(target).creating-\(getpid())-456"  // a first open running now, in this process
        _ = scratch.file(live, "being written")
        let victim = scratch.file("victim.txt", "keep me")
        let link = ".\(target).creating-\(dead)-789"
        try FileManager.default.createSymbolicLink(atPath: scratch.path(link), withDestinationPath: victim)
        // Another target's leftover, whose name starts like ours.
        let other = ".\(target).creating-\(dead).creating-\(dead)-1"
        _ = scratch.file(other, "not ours")
        return (gone, [live, link, other], victim)
    }

    @Test func aFirstOpenRemovesDeadLeftoversOnly() throws {
        let scratch = Scratch()
        let (gone, kept, victim) = try Self.plant(in: scratch, target: "test.sqlite")
        _ = try scratch.store()  // a first open of test.sqlite
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.directory.path)
        for name in gone { #expect(!names.contains(name), "\(name) stayed") }
        for name in kept { #expect(names.contains(name), "\(name) was removed") }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me")
        #expect(FileManager.default.fileExists(atPath: scratch.path("test.sqlite")))
    }

    @Test func doctorRepairRemovesThemToo() throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let (gone, kept, victim) = try Self.plant(in: scratch, target: "test.sqlite")
        let done = try store.repair()
        for name in gone { #expect(done.contains("removed \(name), left by an interrupted first open"), "\(done)") }
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.directory.path)
        for name in gone { #expect(!names.contains(name), "\(name) stayed") }
        for name in kept { #expect(names.contains(name), "\(name) was removed") }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me")
    }

    /// A file name of 247 bytes (NAME_MAX is 255) is still created: the temporary name beside it
    /// cuts the target's name instead of running past the limit.
    @Test func aFirstOpenOfTheLongestNamesWorks() throws {
        let scratch = Scratch()
        let name = String(repeating: "a", count: 240) + ".sqlite"
        _ = try SpatiaLiteStore(path: scratch.path(name))
        #expect(FileManager.default.fileExists(atPath: scratch.path(name)))
    }
}
