/// How a route table file joins a router's current table.
public enum TableLoadMode: Sendable, Equatable {
    /// The file's routes and rewrite rules replace the router's (its limits stay).
    case replace
    /// The file's routes are added to the router's (a conflict with an existing route names both); its rewrite
    /// rules are appended in order, and a rule whose regex exists already gets the file's target in place.
    case merge
}
