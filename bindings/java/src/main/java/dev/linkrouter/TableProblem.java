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

    /** The problem as the library's message writes it: "pointer: reason". */
    @Override
    public String toString() {
        return pointer.isEmpty() ? reason : pointer + ": " + reason;
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
