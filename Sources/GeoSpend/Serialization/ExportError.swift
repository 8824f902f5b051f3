/// Why an export could not be written: a map layer or bundle, or `users export` (both write
/// through `ByteSink`), or a map export refused as too costly.
public enum ExportError: Error, Sendable, Equatable, CustomStringConvertible {
    case writeFailed(String)
    /// The request would take more work or memory than one export is allowed (`DensityCost`).
    case tooMuchWork(String)

    public var description: String {
        switch self {
        case .writeFailed(let reason): "cannot write the export: \(reason)"
        case .tooMuchWork(let reason): "refusing the export: \(reason)"
        }
    }
}
