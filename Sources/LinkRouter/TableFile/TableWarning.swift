/// Something in a valid route table that is probably a mistake: `linkrouter check` prints these and fails on
/// them with `--strict`. Loading never refuses a table for a warning.
public struct TableWarning: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// A route that can never be the match: other routes take every URL it matches.
        case shadowed
        /// A rewrite rule whose target can route nowhere: no route could match what it produces.
        case rewriteRoutesNowhere = "rewrite_routes_nowhere"
        /// A guard the app registers that no route requires.
        case unusedGuard = "unused_guard"
        /// A guard a route requires that the app does not register.
        case unknownGuard = "unknown_guard"
        /// Two routes that both match some URLs, where precedence picks one (see `RouteOverlap`); the pointer is
        /// the route that loses them.
        case overlap
    }

    /// The JSON pointer of the route or rule (`/routes/4`, `/rewrites/1/target`); "" for the table.
    public let pointer: String
    public let kind: Kind
    public let reason: String

    public init(pointer: String, kind: Kind, reason: String) {
        self.pointer = pointer
        self.kind = kind
        self.reason = reason
    }

    /// `pointer: reason` on one line.
    public var description: String {
        oneLine(pointer.isEmpty ? reason : "\(pointer): \(reason)")
    }
}
