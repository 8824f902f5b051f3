import ArgumentParser
import Foundation
import GeoSpend

extension ImportCommand {
    /// `geospend import positions`: a phone's location history, for geotagging (issue 36).
    struct Positions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import a location history (Google, OwnTracks, GPX, GeoJSON, CSV) for geotagging.",
            usage: """
                geospend import positions <file> ... --user <user>
                  [--format <format>] [--db <db>]
                """,
            discussion: """
                Formats (detected from the file when --format is auto):
                  google-timeline      the on-device Timeline export (Android)
                  google-timeline-ios  the iOS Timeline export
                  google-records       Takeout Records.json
                  google-semantic      Takeout Semantic Location History month files
                  owntracks            OwnTracks .rec lines or location JSON
                  gpx                  GPX 1.1 tracks and waypoints with times
                  geojson              Point/LineString features with times
                  csv                  time,lat,lon[,accuracy]

                Several files add up (months, devices); a fix already stored is
                left as it is, so importing a file again changes nothing. A bad
                record names the file, its line or JSON path and the reason, and
                nothing is written. The history is the user's alone: no other
                user's output ever reads it (`geospend positions delete` removes
                it, `geospend users delete` with the rest). When the user keeps it
                a number of days (`geospend users settings --keep-positions`),
                what is older goes at the end of the import.

                Examples:
                  geospend import positions Timeline.json --user alice
                  geospend import positions 2026_MARCH.json 2026_APRIL.json \\
                    --user alice --format google-semantic
                """)

        @OptionGroup var database: DatabaseOptions

        @Option(help: "The user whose history it is.") var user: String

        @Option(help: "auto, or one of the formats above.") var format: String = "auto"

        @Argument(help: "The history files.") var files: [String]

        func validate() throws {
            guard !files.isEmpty else { throw ValidationError("give the history file to import") }
            _ = try parsedFormat()
        }

        func parsedFormat() throws -> LocationHistoryFormat? {
            if format == "auto" { return nil }
            guard let f = LocationHistoryFormat(rawValue: format) else {
                throw ValidationError(
                    "--format \(format): use auto or one of \(LocationHistoryFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return f
        }

        func run() async throws {
            let format = try parsedFormat()
            var history = LocationHistory()
            var formats: [String] = []
            for file in files {
                if stderrIsTerminal { printErrInline("  reading \(file)…") }
                let read = try LocationHistoryReader.read(path: file, format: format)
                history.merge(read.history)
                formats.append("\(file): \(read.format.rawValue)")
            }
            if stderrIsTerminal { printErrInline("  storing \(history.positions.count) positions…") }
            let user = Identity.normalized(user)
            var count = PositionImportCount()
            var pruned: PositionRetention.Pruned?
            try await database.removingNewFileOnFailure {
                let store = try await database.openBackend(create: true)
                count = try await store.addLocationHistory(history, userID: user)
                pruned = try await PositionRetention.apply(userID: user, in: store, now: PositionRetention.now())
            }
            if stderrIsTerminal { printErrInline("") }
            printErr(
                "imported \(count.positionsAdded) positions, \(count.positionsUnchanged) already present; "
                    + "\(count.visitsAdded) visits, \(count.visitsUnchanged) already present "
                    + "(user \(OutputEscaping.visible(user)), \(formats.joined(separator: ", ")), \(database.path))")
            if let pruned, pruned.deleted.positions + pruned.deleted.visits > 0 { printErr(PositionsCommand.Prune.line(pruned)) }
        }
    }
}
