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

    private static final Pattern INDEX = Pattern.compile("^(?:route|rewrite rule) (\\d+): ");
    /** The words before the quoted input in the library's pattern, regex and template errors. */
    static final String PATTERN = "malformed pattern";
    static final String REGEX = "invalid rewrite regex";
    static final String TEMPLATE = "malformed rewrite target";
    private static final Pattern LIBRARY_OFFSET =
        Pattern.compile("^(?:" + PATTERN + "|" + REGEX + "|" + TEMPLATE + ") '.*?' at byte (\\d+): ", Pattern.DOTALL);
    private static final Pattern BINDING_OFFSET = Pattern.compile(" contains a NUL character at byte (\\d+)$");

    private final int code;
    private final int index;
    private final int offset;

    /**
     * An error with the library's code and message; index and offset are read from the message: the index from
     * "route N: " or "rewrite rule N: " in front, the offset from the library's pattern, regex and template errors
     * ("malformed pattern '...' at byte N: ...": the first "' at byte N: " after the quote's start, which is the
     * library's unless the quoted input itself holds one; the binding's own exceptions know their input and are exact).
     */
    public LinkRouterException(int code, String message) {
        this(code, message, indexIn(message), code == ETABLE ? -1 : offsetIn(message));
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

    private static int offsetIn(String message) {
        String text = withoutIndex(message == null ? "" : message);
        Matcher m = LIBRARY_OFFSET.matcher(text);
        if (m.find()) {
            return parse(m.group(1));
        }
        m = BINDING_OFFSET.matcher(text);
        return m.find() ? parse(m.group(1)) : -1;
    }

    private static String withoutIndex(String message) {
        Matcher m = INDEX.matcher(message);
        return m.find() ? message.substring(m.end()) : message;
    }

    private static int parse(String digits) {
        try {
            return Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * This pattern, regex or template error (EPATTERN, EREGEX) with the offset the library wrote for one of the
     * inputs the call passed ({@code kindsAndInputs}: PATTERN, REGEX or TEMPLATE, then the input, in pairs). The
     * library writes "[route N: | rewrite rule N: ]kind '&lt;the input, or its excerpt&gt;' at byte N: reason"; the quoted
     * input and the reason may hold any text, "at byte 7" and "' at byte 7: " included (found by the Go/Java review:
     * the first "at byte N" of the message was taken, 99 for add("app://at byte 99/a//b", ...) where the library
     * said 19), so the offset is read right after the quote of a known input: exact for every message the library
     * writes. Any other exception is returned as it is.
     */
    LinkRouterException located(String... kindsAndInputs) {
        if (code != EPATTERN && code != EREGEX) {
            return this;
        }
        String text = withoutIndex(getMessage() == null ? "" : getMessage());
        for (int i = 0; i + 1 < kindsAndInputs.length; i += 2) {
            String head = kindsAndInputs[i] + " '" + excerpt(kindsAndInputs[i + 1]) + "' at byte ";
            if (!text.startsWith(head)) {
                continue;
            }
            int end = head.length();
            while (end < text.length() && text.charAt(end) >= '0' && text.charAt(end) <= '9') {
                end++;
            }
            if (end > head.length() && text.startsWith(": ", end)) {
                int at = parse(text.substring(head.length(), end));
                if (at == offset) {
                    return this;
                }
                LinkRouterException exact = new LinkRouterException(code, getMessage(), index, at);
                exact.setStackTrace(getStackTrace());
                return exact;
            }
        }
        return this;
    }

    /**
     * {@code text} as the library's messages quote it (excerpt in the core): whole up to 100 UTF-8 bytes, else its
     * first whole characters within 100 bytes, then "... (&lt;size&gt; bytes)".
     */
    static String excerpt(String text) {
        int limit = 100;
        int size = 0;
        for (int i = 0; i < text.length(); i = text.offsetByCodePoints(i, 1)) {
            size += utf8Width(text.codePointAt(i));
        }
        if (size <= limit) {
            return text;
        }
        int used = 0;
        int end = 0;
        while (end < text.length()) {
            int width = utf8Width(text.codePointAt(end));
            if (used + width > limit) {
                break;
            }
            used += width;
            end = text.offsetByCodePoints(end, 1);
        }
        return text.substring(0, end) + "... (" + size + " bytes)";
    }

    private static int utf8Width(int codePoint) {
        return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
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
     * The byte offset the message names ("at byte 8") for pattern, template and regex errors (the library's), and
     * for a NUL character the binding refuses; else -1 (also for table errors, whose problems each name their own).
     * It is the offset the library wrote, never a number of the quoted input: add("app://at byte 99/a//b", ...)
     * gives 19.
     */
    public int offset() {
        return offset;
    }
}
