package dev.linkrouter;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A route table document the library refused (code {@link #ETABLE}): nothing changed, and the message lists every
 * problem, one per line ("/routes/3/pattern: malformed pattern ..."); {@link #problems()} has them as values.
 */
public final class TableException extends LinkRouterException {
    private static final long serialVersionUID = 1L;

    private final transient List<TableProblem> problems;

    /**
     * The problems of the message's lines, each from {@code checked} when it gives that line alike; {@code offset} is
     * the library's (a JSON syntax error's byte), -1 for none.
     */
    TableException(String message, int offset, List<TableProblem> checked) {
        super(ETABLE, message, -1, offset);
        String[] lines = message.split("\n", -1);
        List<TableProblem> list = new ArrayList<>(lines.length);
        for (int i = 0; i < lines.length; i++) {
            if (i < checked.size() && TableProblem.oneLine(checked.get(i).toString()).equals(lines[i])) {
                list.add(checked.get(i));
            } else {
                list.add(TableProblem.fromLine(lines[i]));
            }
        }
        problems = Collections.unmodifiableList(list);
    }

    /**
     * Every problem, one per line of the message, in order. After a load, the structured problems (exact pointers,
     * each one's code, reasons as they are) come from checking the same document again, which lists them in the same
     * order and form: a line is the problem's toString() with its control characters escaped. A line the check does
     * not give alike (the file or the router changed in between, or the last line saying how many more problems
     * there were) is read from the text, with code ETABLE.
     */
    public List<TableProblem> problems() {
        return problems;
    }
}
