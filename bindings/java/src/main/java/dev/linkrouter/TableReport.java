package dev.linkrouter;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * What {@link Router#checkJson} and {@link Router#checkFile} find: the problems that would make the load fail
 * ({@code valid} is false when there is any) and, for a valid document, warnings.
 *
 * @param valid    whether the document would load
 * @param problems every problem, in document order
 * @param warnings what a valid document probably has wrong
 * @param json     the library's report as it wrote it
 */
public record TableReport(boolean valid, List<TableProblem> problems, List<TableWarning> warnings, String json) {
    /** Decodes the library's report: {"valid", "problems": [{"pointer", "code", "reason"}], "warnings": [...]}. */
    @SuppressWarnings("unchecked")
    static TableReport parse(String json) {
        Map<String, Object> doc = (Map<String, Object>) Json.parse(json);
        List<TableProblem> problems = new ArrayList<>();
        for (Object item : (List<Object>) doc.get("problems")) {
            Map<String, Object> p = (Map<String, Object>) item;
            problems.add(new TableProblem((String) p.get("pointer"), ((Long) p.get("code")).intValue(),
                (String) p.get("reason")));
        }
        List<TableWarning> warnings = new ArrayList<>();
        for (Object item : (List<Object>) doc.get("warnings")) {
            Map<String, Object> w = (Map<String, Object>) item;
            warnings.add(new TableWarning((String) w.get("pointer"), (String) w.get("kind"), (String) w.get("reason")));
        }
        return new TableReport((Boolean) doc.get("valid"), Collections.unmodifiableList(problems),
            Collections.unmodifiableList(warnings), json);
    }
}
