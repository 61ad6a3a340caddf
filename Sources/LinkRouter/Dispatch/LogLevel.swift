/// How much a router tells its log sink (`Router.setLog`). Off by default, and free when off: a message is only
/// made when its level is on.
public enum LogLevel: Int, Sendable, Comparable {
    case off = 0
    /// Failures: a handler's error, a required guard that is not registered.
    case error = 1
    /// What was refused or lost: a full queue, a reply after the timeout, a timeout.
    case warning = 2
    /// Each open's outcome: what matched, what was rewritten, each guard's verdict, parked, replayed, dropped.
    case info = 3
    /// Every step of every open.
    case debug = 4

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}

/// The log sink of a router and its level, published with the router's other state.
struct LogSink: Sendable {
    var level: LogLevel = .off
    var write: (@Sendable (LogLevel, String) -> Void)?

    @inline(__always) func enabled(_ l: LogLevel) -> Bool { l.rawValue <= level.rawValue && write != nil }

    /// Whether no level is written.
    @inline(__always) var isOff: Bool { level == .off || write == nil }

    /// Writes `message()` when `level` is on; the message is not made otherwise.
    @inline(__always) func callAsFunction(_ l: LogLevel, _ message: @autoclosure () -> String) {
        if enabled(l), let write { write(l, message()) }
    }
}
