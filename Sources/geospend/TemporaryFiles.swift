import Foundation
import GeoSpend

/// The temporary files `OutputFile` writes before renaming them over their targets: named
/// `.NAME.partial-PID-RANDOM` beside the target, removed when SIGINT, SIGTERM or SIGHUP ends the
/// process, and — when a crash left one behind — by the next write of the same target.
enum TemporaryFiles {
    /// Leftovers younger than this whose process still runs are another export's live file.
    static let staleAfter: TimeInterval = 3600

    /// `DIR/.NAME.partial-PID-`: the name is shortened so that the whole stays within NAME_MAX.
    static func prefix(directory: String, target name: String) -> String {
        directory + "/" + namePrefix(name) + "\(getpid())-"
    }

    private static func namePrefix(_ name: String) -> String {
        LeftoverFiles.prefix(target: name, kind: "partial")
    }

    // The signal handler may only touch memory that is never freed or moved: a fixed table of C
    // strings (each set once, never freed), so no lock and no Swift object is reached from it.
    private static let slotCount = 64
    nonisolated(unsafe) private static let slots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let p = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: slotCount)
        p.initialize(repeating: nil, count: slotCount)
        return p
    }()
    nonisolated(unsafe) private static var handlersInstalled = false

    /// Called with each new temporary file (main thread): it is removed if a signal ends the process.
    static func register(_ path: String) {
        // The slot first: a signal pending until the handlers unblock it must find the file.
        if let i = (0..<slotCount).first(where: { slots[$0] == nil }) { slots[i] = strdup(path) }
        installHandlers()
    }

    /// Called when the file was renamed or removed.
    static func unregister(_ path: String) {
        for i in 0..<slotCount {
            if let p = slots[i], String(cString: p) == path {
                slots[i] = nil  // the string is leaked on purpose: a handler may be reading it
                return
            }
        }
    }

    /// Removes, then re-raises: the parent sees the process killed by the signal, as without us.
    private static let handler: @convention(c) (Int32) -> Void = { signo in
        for i in 0..<TemporaryFiles.slotCount {
            if let p = TemporaryFiles.slots[i] { unlink(p) }
        }
        signal(signo, SIG_DFL)
        raise(signo)
    }

    /// Installs the handlers, once. `main()` calls it on the main thread before any task runs:
    /// installed only when the first temporary file was registered, from one of the async
    /// runtime's threads, a SIGTERM'd export left its file behind (debug build, OutputPathTests).
    static func installHandlers() {
        guard !handlersInstalled else { return }
        handlersInstalled = true
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for signo in [SIGINT, SIGTERM, SIGHUP] {
            // A signal the caller ignores (nohup, `&` in a script) stays ignored.
            let previous = signal(signo, handler)
            if unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
                signal(signo, SIG_IGN)
            } else {
                sigaddset(&unblock, signo)
            }
        }
        // A blocked mask is inherited by accident (a parent spawning from one of its dispatch
        // threads, which block nearly every signal): then SIGTERM would not stop the export at all.
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }

    /// Removes leftovers of earlier runs for `name` in `directory`: this scheme's `.NAME.partial-PID-…`
    /// and the older `NAME.partial-PID`, when their process is gone or they are over an hour old
    /// (`LeftoverFiles`: regular files of this user only, symlinks left alone).
    static func removeStale(in directory: String, target name: String) {
        LeftoverFiles.removeStale(in: directory, prefixes: [namePrefix(name), name + ".partial-"], olderThan: staleAfter)
    }
}
