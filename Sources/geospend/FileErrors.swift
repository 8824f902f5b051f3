import ArgumentParser
import Foundation
import GeoSpend

/// File errors in words a user can act on. Foundation's own text ("The operation could not be
/// completed. (NSCocoaErrorDomain error 512.)") names neither the file nor the cause.
enum FileErrors {
    /// "PATH: REASON" from a Foundation file error: its path and the system's reason
    /// (`strerror` of the underlying errno) when it has them.
    static func describe(_ error: CocoaError) -> String {
        let path = error.filePath ?? error.userInfo[NSFilePathErrorKey] as? String ?? error.url?.path
        let reason: String
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            reason = String(cString: strerror(Int32(underlying.code)))
        } else if error.isFileError {
            reason = "file error \(error.code.rawValue) (check that the path exists, is a folder where one is needed, and can be written)"
        } else {
            reason = "error \(error.code.rawValue)"
        }
        return path.map { "\($0): \(reason)" } ?? reason
    }

    /// Creates `path` and the folders above it (`mkdir -p`). A file where a folder belongs is a
    /// usage error naming it (`--out notes.txt/map`); other failures say the system's reason.
    static func createFolders(_ path: String, option: String) throws {
        var prefix = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            prefix += "/" + part
            var info = stat()
            if stat(prefix, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    throw ValidationError("\(option) \(path): \(prefix.hasPrefix("./") ? String(prefix.dropFirst(2)) : prefix) is a file, not a folder: choose another path")
                }
                continue
            }
            guard mkdir(prefix, 0o777) == 0 || errno == EEXIST else {
                throw ExportError.writeFailed("\(path): cannot create the folder \(prefix): \(String(cString: strerror(errno)))")
            }
        }
    }
}
