package dev.linkrouter;

/** The limits of a router ({@code enum lr_limit}); each applies to calls made after it is set. */
public enum Limit {
    /** Longest URL (and rewritten URL), bytes; default 65536. */
    URL_LENGTH(1),
    /** Most path segments, host included, in a URL or pattern; default 1024. */
    SEGMENTS(2),
    /** Most query pairs in a URL; default 1024. */
    PARAMS(3),
    /** Deepest bracket key still nested in the JSON view; deeper keys stay flat; default 32. */
    NESTING(4),
    /** PCRE2 match limit of a rewrite regex; default 10000. */
    REGEX_MATCH(5),
    /** PCRE2 depth limit of a rewrite regex; default 1000. */
    REGEX_DEPTH(6),
    /** A rewrite regex is tried at start offsets up to this byte only; default 1024. */
    REGEX_START(7),
    /** Most deferred opens one guard's queue holds; default 64. */
    PENDING(8),
    /** How long an open waits for a handler's reply when the caller sets no timeout, milliseconds; default 10000. */
    REPLY_TIMEOUT_MS(9);

    final int code;

    Limit(int code) {
        this.code = code;
    }
}
