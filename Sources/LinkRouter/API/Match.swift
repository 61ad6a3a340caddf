/// The result of resolving (or opening) a URL: the route it matched and everything known about the URL.
///
/// `params` merges three sources; on the same key the higher wins: `extra` (given to `resolve` or `open`) > path
/// (`:name`, `*name`) > query. A query can never override a path parameter.
///
/// A match is one allocation (its `MatchRecord`): strings are made when read, so a handler that reads the
/// target and two parameters pays for those three only.
public struct Match: @unchecked Sendable {
    // SAFETY: `storage` is immutable once shared (see MatchStorage), and its header holds Sendable values.
    public struct Param: Sendable, Equatable {
        public let name: String
        public let value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    let storage: MatchStorage
    /// The extra parameters given to `resolve` or `open`, as given: with `open` they may be any values. Those
    /// that are strings also take part in `params`.
    public var extra: [String: any Sendable] { storage.withUnsafeMutablePointerToHeader { $0.pointee.extra } }
    /// The caller's context given to `open` (nil from `resolve`).
    public var context: (any Sendable)? { storage.withUnsafeMutablePointerToHeader { $0.pointee.context } }
    /// The C caller's context pointer (`lr_open_options.context`), kept as given so that C callbacks get it back
    /// without a cast; nil from Swift.
    package var rawContext: UnsafeMutableRawPointer? { storage.withUnsafeMutablePointerToHeader { $0.pointee.rawContext } }

    /// A match of a storage `MatchStorage.make` just made (not yet shared): `extra` and `context` go in its header.
    init(_ storage: MatchStorage, extra: [String: any Sendable] = [:], context: (any Sendable)? = nil,
         rawContext: UnsafeMutableRawPointer? = nil) {
        storage.withUnsafeMutablePointerToHeader { header in
            if !extra.isEmpty { header.pointee.extra = extra }
            if context != nil { header.pointee.context = context }
            header.pointee.rawContext = rawContext
        }
        self.storage = storage
    }

    /// A match with no extras and no Swift context (a plain open's): only the raw context goes in the header.
    init(_ storage: MatchStorage, rawContext: UnsafeMutableRawPointer?) {
        storage.withUnsafeMutablePointerToHeader { $0.pointee.rawContext = rawContext }
        self.storage = storage
    }

    var record: MatchRecord { storage.record }

    /// The match's record, as the C ABI lends it to handlers (an `lr_match *`); valid while this match lives.
    package var recordBase: UnsafeRawPointer { storage.record.base }

    /// The target registered with the route.
    public var target: String { record.field(.target).string }
    /// The pattern as registered.
    public var pattern: String { record.field(.pattern).string }
    /// The route's name, when it has one.
    public var name: String? { record.hasName ? record.field(.name).string : nil }
    /// The route's meta (string key/values), empty when it has none.
    public var meta: [String: String] {
        let r = record
        var meta: [String: String] = [:]
        for i in 0..<r.metaCount { meta[r.meta(i).name.string] = r.meta(i).value.string }
        return meta
    }
    /// The route's meta as one JSON object with sorted keys (what `lr_match_metadata` returns), nil when none.
    public var metadata: String? { record.hasMetadata ? record.field(.metadata).string : nil }
    /// The guards the route requires, in order.
    public var requires: [String] { (0..<record.requiresCount).map { record.requires($0).string } }
    /// The route's id: its insertion number in its router, never reused.
    public var routeID: Int { record.routeID }
    /// The URL as given.
    public var url: String { record.field(.url).string }
    /// The URL that was routed: after rewriting, or the same as `url`.
    public var rewritten: String { record.field(.routed).string }
    /// Whether a rewrite rule fired.
    public var wasRewritten: Bool { record.wasRewritten }
    /// Scheme and host of the routed URL, lower-cased; the host without userinfo and port, percent-decoded as the
    /// router compares it (as written when that is malformed, not UTF-8 or holds a NUL).
    public var scheme: String { record.field(.scheme).string }
    public var host: String { record.field(.host).string }
    public var port: String { record.field(.port).string }
    /// Path of the routed URL as written (not decoded).
    public var path: String { record.field(.path).string }
    /// Fragment as written, "" when none. It is never routed.
    public var fragment: String { record.field(.fragment).string }

    /// The merged parameters (strings): each name once, path parameters first, then query keys, then extras.
    public var params: Parameters { Parameters(storage) }
    /// The route's parameters in pattern order (catch-all last), decoded (the catch-all as written).
    public var pathParams: [Param] {
        (0..<record.pathParamCount).map { Param(name: record.pathParam($0).name.string, value: record.pathParam($0).value.string) }
    }
    /// Every query pair in order, decoded, repeated keys included.
    public var query: [Param] {
        (0..<record.queryCount).map { Param(name: record.query($0).name.string, value: record.query($0).value.string) }
    }
    /// The merged parameters in order.
    public var orderedParams: [Param] { Array(params) }

    /// The value of parameter `name`, with every extra taking part: `extra[name]` (any value) if given, else the
    /// path or query parameter.
    public subscript(name: String) -> (any Sendable)? {
        if let value = extra[name] { return value }
        return params[name]
    }

    /// The parameters with bracket keys nested (`info[nickname]` → `["info": ["nickname": ...]]`, `a[]` → a
    /// list), in the order of `orderedParams`: path parameters, then query keys (an extra taking a query key's
    /// top-level name replaces it where it first appears), then the remaining extras.
    public var nestedParams: ParamValue { record.nestedParams }

    /// The match as one JSON object (`lr_match_to_json`'s): `target pattern url rewritten scheme host port path
    /// fragment`, `name`, `meta` and `requires` when the route has them, `params` (nested) and `query`.
    public var json: String { record.json }
}

extension Match: Equatable {
    /// Two matches are equal when they report the same route, URL and parameters (the string ones: extras that
    /// are not strings and contexts are not compared).
    public static func == (a: Match, b: Match) -> Bool {
        a.json == b.json && a.orderedParams == b.orderedParams
    }
}
