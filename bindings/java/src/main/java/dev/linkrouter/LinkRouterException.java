package dev.linkrouter;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A failure reported by the library: its status code (a negative {@code LR_E*} value of Include/linkrouter.h) and
 * its message ({@code lr_last_error()}), e.g. "malformed pattern 'app://a//b' at byte 8: empty segment".
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

    private static final Pattern OFFSET = Pattern.compile("\\bat byte (\\d+)");
    private static final Pattern INDEX = Pattern.compile("^(?:route|rewrite rule) (\\d+):");

    private final int code;
    private final int index;
    private final int offset;

    /** An error with the library's code and message; index and offset are read from the message. */
    public LinkRouterException(int code, String message) {
        this(code, message, find(INDEX, message));
    }

    LinkRouterException(int code, String message, int index) {
        super(message);
        this.code = code;
        this.index = index;
        // A table error's message lists many problems, each with its own offsets: it has problems() instead.
        this.offset = code == ETABLE ? -1 : find(OFFSET, message);
    }

    private static int find(Pattern pattern, String message) {
        Matcher m = pattern.matcher(message == null ? "" : message);
        if (!m.find()) {
            return -1;
        }
        try {
            return Integer.parseInt(m.group(1));
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
     * The byte offset the message names ("at byte 8") for pattern, template and regex errors, else -1 (also for
     * table errors, whose problems each name their own).
     */
    public int offset() {
        return offset;
    }
}
