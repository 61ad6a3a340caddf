/// What a caller registers: a pattern, the target it routes to, and optional name and metadata.
public struct RouteSpec: Sendable, Equatable {
    public var pattern: String
    public var target: String
    /// A name for building URLs and for explaining matches; unique names are the caller's business for now.
    public var name: String?
    /// Free text carried with the route and returned with its matches (JSON by convention).
    public var metadata: String?

    public init(_ pattern: String, target: String, name: String? = nil, metadata: String? = nil) {
        self.pattern = pattern
        self.target = target
        self.name = name
        self.metadata = metadata
    }
}
