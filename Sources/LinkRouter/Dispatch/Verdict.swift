/// A guard's answer about one match.
public enum Verdict: Sendable, Equatable {
    /// The open goes on (to the next guard, then the handler).
    case allow
    /// The open fails with `RouterError.Code.denied` and this message (Router-objc's `willPerformURL` veto).
    case deny(String)
    /// The open is parked in this guard's queue, with its extras and context, until `Router.resume(_:)` replays
    /// it (the xksquare doc's login-required links, kept while logged out and opened after login).
    case `defer`
}

/// A named check that routes require (`requires: ["login"]`), or that runs for every match when global.
public struct Guard: Sendable {
    let check: @Sendable (Match) -> Verdict

    public init(_ check: @escaping @Sendable (Match) -> Verdict) {
        self.check = check
    }
}
