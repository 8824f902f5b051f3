import Foundation

func printOut(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}

func printErr(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Rewrites the current stderr line (progress on a terminal).
func printErrInline(_ text: String) {
    FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
}

/// Whether stderr is a terminal: progress lines only then.
let stderrIsTerminal = isatty(2) == 1
