import Foundation
import GRDB
import GeoSpend
@testable import GeoSpendSpatiaLite
import Testing

/// The flag a user's deletion sets until its clean-up (`VACUUM`, checkpoint) is done
/// (`PendingScrub`), with two stores on one file standing for two processes.
@Suite struct PendingScrubTests {
    /// Process A rewrites the file for one deletion; process B's `users delete --no-vacuum`
    /// commits after A's VACUUM and before A clears the flag. B's clean-up is not done by that
    /// VACUUM: the flag must stay (before, A's `DELETE` cleared it and `doctor` said healthy).
    @Test func aDeletionAfterTheRewriteKeepsTheFlag() async throws {
        let scratch = Scratch()
        let a = try await UserDataTests().fixture(scratch)
        let b = try SpatiaLiteStore(path: a.path)
        await #expect(try a.deleteUser("ann", rewriteFile: false) != nil)
        let first = try #require(try a.pendingScrubSince())
        var deleted: UserDeletion?
        let emptied = try a.scrubAfterDeletion(rewrite: true, afterRewrite: { deleted = try b.deleteUser("bob", rewriteFile: false) })
        #expect(deleted != nil)
        #expect(emptied)
        #expect(try a.pendingScrubSince() == first, "bob's owed clean-up was cleared by the rewrite before it")
        #expect(try a.checkHealth().checks.first { $0.name == "deleted users scrubbed" }?.ok == false)
        // The next rewrite covers it, and clears the flag.
        _ = try b.repair()
        #expect(try a.pendingScrubSince() == nil)
        #expect(try a.checkHealth().isHealthy)
    }
}
