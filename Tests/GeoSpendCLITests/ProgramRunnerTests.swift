import Foundation
import GeoSpendTestSupport
import Testing

/// `runProgram`, the one way the tests run programs. The runners it replaced read stdout to its
/// end before stderr: a child that writes more than a pipe holds (64 KiB on Linux) to stderr
/// before it writes stdout blocks, and so did they, for ever.
@Suite struct ProgramRunnerTests {
    @Test func aChildFillingStderrBeforeStdoutDoesNotHang() throws {
        let start = ContinuousClock.now
        let r = try runProgram("/bin/sh", ["-c", "head -c 200000 /dev/zero | tr '\\000' e >&2; echo done"], timeout: .seconds(60))
        #expect(r.status == 0 && r.out == "done\n")
        #expect(r.err.utf8.count == 200_000 && r.err.allSatisfy { $0 == "e" })
        #expect(ContinuousClock.now - start < .seconds(30))
    }

    @Test func bothStreamsKeepEverything() throws {
        let r = try runProgram("/bin/sh", ["-c", "seq 1 100000; seq 1 50000 >&2; exit 3"])
        #expect(r.status == 3)
        #expect(r.out.split(separator: "\n").count == 100_000 && r.out.hasSuffix("100000\n"))
        #expect(r.err.split(separator: "\n").count == 50_000 && r.err.hasSuffix("50000\n"))
    }

    @Test func aHungProgramIsKilledAtTheTimeout() throws {
        let start = ContinuousClock.now
        #expect(throws: ProgramTimeout.self) { try runProgram("/bin/sh", ["-c", "echo started >&2; sleep 60"], timeout: .seconds(1)) }
        #expect(ContinuousClock.now - start < .seconds(30))
        do { _ = try runProgram("/bin/sleep", ["60"], timeout: .milliseconds(200)) } catch let e as ProgramTimeout {
            #expect(e.output.status == SIGKILL)
        }
    }

    @Test func runsInTheDirectoryWithTheEnvironmentGiven() throws {
        let r = try runProgram("/bin/sh", ["-c", "pwd; echo \"$GEOSPEND_PROBE\""], directory: URL(fileURLWithPath: "/tmp"), environment: ["GEOSPEND_PROBE": "x y"])
        #expect(r.out == "/tmp\nx y\n")
    }
}
