package dev.linkrouter;

import java.util.Objects;

/**
 * One problem of a route table document (docs/TABLES.md): where it is, the status it alone would give, and why.
 *
 * @param pointer a JSON pointer (RFC 6901) to the value at fault, e.g. {@code /routes/3/pattern}; "" for the document
 * @param code    {@link LinkRouterException#EPATTERN}, {@code ECONFLICT}, {@code EREGEX}, {@code ELIMIT} or {@code ETABLE}
 * @param reason  e.g. "malformed pattern 'shop://a//b' at byte 9: empty segment ('//' in a pattern)"
 */
public record TableProblem(String pointer, int code, String reason) {
    public TableProblem {
        Objects.requireNonNull(pointer, "pointer");
        Objects.requireNonNull(reason, "reason");
    }

    /**
     * "pointer: reason", as the check report gives both. The library's message writes it on one line, its control
     * characters escaped ({@code \n}, {@code \r}, {@code \t}, else a backslash, "u" and four hex digits:
     * {@link #oneLine}).
     */
    @Override
    public String toString() {
        return pointer.isEmpty() ? reason : pointer + ": " + reason;
    }

    /**
     * {@code text} as the library's table error writes a problem's line (TableProblem.oneLine in the core): when it
     * holds a control character (below U+0020, or U+007F), each is escaped: \n \r \t, else a backslash, "u" and
     * four upper-case hex digits (ESC gives u001B after the backslash); nothing else is (a backslash stays as it is). Found by the Go/Java review: compared raw, a pattern or regex
     * holding a newline or tab paired no line, and its problem came back with code ETABLE instead of EPATTERN or
     * EREGEX.
     */
    static String oneLine(String text) {
        if (text.chars().noneMatch(c -> c < 0x20 || c == 0x7F)) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\n') {
                out.append("\\n");
            } else if (c == '\r') {
                out.append("\\r");
            } else if (c == '\t') {
                out.append("\\t");
            } else if (c < 0x20 || c == 0x7F) {
                out.append(String.format("\\u%04X", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** Reads a message line: "pointer: reason" (a pointer starts with "/"), or a reason about the whole document. */
    static TableProblem fromLine(String line) {
        if (line.startsWith("/")) {
            int at = line.indexOf(": ");
            if (at >= 0) {
                return new TableProblem(line.substring(0, at), LinkRouterException.ETABLE, line.substring(at + 2));
            }
        }
        return new TableProblem("", LinkRouterException.ETABLE, line);
    }
}
