import Foundation
import GeoSpend
import GeoSpendSpatiaLite
import GeoSpendTestSupport
import Testing

/// `export points --properties` (`properties=` over HTTP): the features of a selection carry
/// only the properties asked, in the layer's order, with the same ids, positions and values as
/// the whole layer; the provenance lists them; a name that is no property is refused naming the
/// ones there are. Without a selection the layer is its golden file (ExportTests.goldenFiles).
@Suite struct PointPropertiesTests {
    static func export(_ properties: Set<PointProperty>?, _ store: SpatiaLiteStore) async throws -> (text: String, doc: [String: Any]) {
        var request = MapExportRequest(filter: ExpenseFilter(userID: "ann", kinds: [.expense], currency: ExportTests.eur), generatedAt: "2026-01-01T00:00:00Z")
        request.pointProperties = properties
        let sink = ByteSink()
        try await MapExport.geoJSON(.points, request, store: store, to: sink)
        let text = String(decoding: sink.bytes, as: UTF8.self)
        return (text, try #require(try JSONSerialization.jsonObject(with: Data(sink.bytes)) as? [String: Any]))
    }

    @Test func aSelectionWritesOnlyItsPropertiesInTheLayersOrder() async throws {
        let scratch = Scratch()
        let store = try await ExportTests.goldenStore(scratch)
        let whole = try await Self.export(nil, store)
        // Asked out of order: written in the layer's order.
        let chosen: Set<PointProperty> = try PointProperty.selection("position_source,amount,merchant", option: "--properties")
        let lean = try await Self.export(chosen, store)
        let (all, some) = (ExportTests.features(whole.doc), ExportTests.features(lean.doc))
        #expect(all.count == 3 && some.count == all.count)
        for (a, s) in zip(all, some) {
            #expect(s["id"] as? String == a["id"] as? String)
            #expect(NSDictionary(dictionary: s["geometry"] as! [String: Any]).isEqual(to: a["geometry"] as! [String: Any]))
            let (pa, ps) = (ExportTests.properties(a), ExportTests.properties(s))
            #expect(Set(ps.keys) == ["amount", "merchant", "position_source"], "\(ps)")
            for key in ps.keys { #expect((ps[key] as? NSObject) == (pa[key] as? NSObject), "\(key)") }
        }
        #expect(lean.text.contains(#""properties":{"amount":4.50,"merchant":"Cafe One","position_source":"device"}"#), "\(lean.text.prefix(1500))")
        let provenance = try #require(lean.doc["geospend"] as? [String: Any])
        #expect(provenance["properties"] as? [String] == ["amount", "merchant", "position_source"])
        #expect(provenance["weight"] == nil, "no weight written, none explained")
        #expect((whole.doc["geospend"] as? [String: Any])?["properties"] == nil, "the whole layer is as it was")

        // Empty: positions and ids only.
        let bare = try await Self.export(try PointProperty.selection("", option: "--properties"), store)
        #expect(ExportTests.features(bare.doc).allSatisfy { ExportTests.properties($0).isEmpty && $0["id"] is String })
    }

    @Test(arguments: ["amount,price", "amount,", "Amount", "weight;amount"])
    func aNameThatIsNoPropertyIsRefused(text: String) throws {
        #expect {
            _ = try PointProperty.selection(text, option: "properties")
        } throws: { error in
            let message = (error as? UsageError)?.message ?? ""
            return message.hasPrefix("properties: \"") && message.contains("is not a property of points; choose from amount, currency, kind, occurred_at")
        }
    }
}
