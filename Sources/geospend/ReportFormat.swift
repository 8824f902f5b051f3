import ArgumentParser

enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, csv, markdown
}
