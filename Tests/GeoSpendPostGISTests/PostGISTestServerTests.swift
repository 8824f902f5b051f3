import GeoSpendTestStores
import Testing

@Suite struct PostGISTestServerTests {
    /// `make test` sets GEOSPEND_REQUIRE_POSTGRES: there, no server is a failure, not a skip.
    @Test func serverIsThereWhenRequired() {
        if PostGISTestServer.isRequired { #expect(PostGISTestServer.address != nil, "GEOSPEND_TEST_POSTGRES is not set or not an address") }
    }
}
