package dev.linkrouter;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A failure reported by the library: its status code (a negative {@code LR_E*} value of Include/linkrouter.h) and
 * its message ({@code lr_last_error()}), e.g.
 * "malformed pattern 'app://a//b' at byte 8: empty segment ('//' in a pattern)".
 *
 * <p>No match is not an error: {@link Router#resolve} returns an empty Optional.
 */
public class LinkRouterException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Success. */
    public static final int OK = 0;
    /** No route (or no rewrite rule) matches: an outcome, never thrown. */
    public static final int NOMATCH = 1;
    /** A NULL handle or argument, an argument out of range, a closed router. */
    public static final int EMISUSE = -1;
    /** A malformed URL, or text that is not UTF-8 (a lone surrogate) or holds a NUL character. */
    public static final int EINVAL = -2;
    /** A malformed route pattern or rewrite template; {@link #offset()} is the byte offset. */
    public static final int EPATTERN = -3;
    /** A route matching exactly the URLs of an existing one, which the message names. */
    public static final int ECONFLICT = -4;
    /** A rewrite regex PCRE2 will not compile (PCRE2's message and offset). */
    public static final int EREGEX = -5;
    /** A limit was hit (URL length, segments, query pairs, regex match or depth limit). */
    public static final int ELIMIT = -6;
    /** The route or rule to remove does not exist. */
    public static final int ENOTFOUND = -7;
    /** A malformed route table document: a {@link TableException}, with its problems. */
    public static final int ETABLE = -8;
    /** A file could not be read or written. */
    public static final int EIO = -9;
    /** Memory could not be allocated. */
    public static final int ENOMEM = -10;

    private static final Pattern INDEX = Pattern.compile("^(?:route|rewrite rule) (\\d+): ");

    private final int code;
    private final int index;
    private final int offset;

    /**
     * An error with a code and message: the index is read from "route N: " or "rewrite rule N: " in front of the
     * message; the offset is -1 (the library's comes with its message, lr_last_error_offset, not out of it).
     */
    public LinkRouterException(int code, String message) {
        this(code, message, indexIn(message), -1);
    }

    /** An error with its index and offset known (-1: none). */
    LinkRouterException(int code, String message, int index, int offset) {
        super(message);
        this.code = code;
        this.index = index;
        this.offset = offset;
    }

    /** The index a message names in front ("route 3: ..."), or -1. */
    static int indexIn(String message) {
        Matcher m = INDEX.matcher(message == null ? "" : message);
        return m.find() ? parse(m.group(1)) : -1;
    }

    private static int parse(String digits) {
        try {
            return Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The status code: one of the {@code E*} constants. */
    public int code() {
        return code;
    }

    /** The position of the refused item for addMany and addRewrites, else -1. */
    public int index() {
        return index;
    }

    /**
     * The byte offset the error is about, as the library gives it (lr_last_error_offset, read with the message): in
     * the pattern, rewrite template or regex of an EPATTERN or EREGEX error (for addMany and addRewrites, in the
     * refused item), or in the table's JSON for an ETABLE syntax error ("JSON syntax error at byte 12 ..."); for a
     * NUL character the binding refuses, that byte's. Else -1 (a table's other problems each name their own place in
     * {@link TableException#problems()}).
     */
    public int offset() {
        return offset;
    }
}
