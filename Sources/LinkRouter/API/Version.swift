/// LinkRouter's version; Include/linkrouter.h's LR_VERSION_* macros state the same numbers (a C test checks).
public enum LinkRouterVersion {
    public static let major = 0
    public static let minor = 1
    public static let patch = 0
    /// MAJOR*10000 + MINOR*100 + PATCH, as LR_VERSION_NUMBER.
    public static let number = major * 10_000 + minor * 100 + patch
    public static let string = "\(major).\(minor).\(patch)"
}
