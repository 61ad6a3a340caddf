package dev.linkrouter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** Tests/Data/semantics.json through the Java binding: every match row with the routes in order and reversed. */
class SemanticsTableTest {
    private static final Map<String, Object> TABLE = TestData.semantics();
    private static final List<Router> ROUTERS = new ArrayList<>();

    @AfterAll
    static void closeRouters() {
        ROUTERS.forEach(Router::close);
    }

    @SuppressWarnings("unchecked")
    private static List<List<String>> routes() {
        List<List<String>> routes = new ArrayList<>();
        for (Object route : TestData.list(TABLE, "routes")) {
            routes.add((List<String>) route);
        }
        return routes;
    }

    @SuppressWarnings("unchecked")
    @TestFactory
    List<DynamicTest> matchTable() {
        List<List<String>> routes = routes();
        List<Object> rows = TestData.list(TABLE, "match");
        assertTrue(rows.size() >= 70 && routes.size() >= 10, "too few rows: " + rows.size());
        Map<String, String> patternOf = new LinkedHashMap<>();
        routes.forEach(r -> patternOf.put(r.get(1), r.get(0)));
        List<DynamicTest> tests = new ArrayList<>();
        for (String order : List.of("in order", "reversed")) {
            Router router = new Router();
            ROUTERS.add(router);
            List<List<String>> added = new ArrayList<>(routes);
            if (order.equals("reversed")) {
                Collections.reverse(added);
            }
            added.forEach(r -> router.add(r.get(0), r.get(1)));
            for (Object row : rows) {
                Map<String, Object> r = (Map<String, Object>) row;
                tests.add(DynamicTest.dynamicTest(order + ": " + r.get("url"), () -> check(router, r, patternOf)));
            }
        }
        return tests;
    }

    @SuppressWarnings("unchecked")
    private static void check(Router router, Map<String, Object> row, Map<String, String> patternOf) {
        String url = (String) row.get("url");
        String target = (String) row.get("target");
        // The table's extras in name order (its object has no order of its own), as the Go suite passes them.
        Map<String, String> extra = new LinkedHashMap<>(new TreeMap<>(
            (Map<String, String>) row.getOrDefault("extra", Map.of())));
        Optional<Match> found = router.resolve(url, extra);
        assertEquals(target != null, router.canRoute(url), "canRoute");
        if (target == null) {
            assertFalse(found.isPresent(), () -> "matched " + found.get());
            return;
        }
        Match m = found.orElseThrow(() -> new AssertionError("no match, want " + target));
        assertEquals(target, m.target());
        Map<String, Object> params = (Map<String, Object>) row.get("params");
        assertEquals(params, m.params(), "flat params");
        params.forEach((k, v) -> assertEquals(Optional.of(v), m.get(k), "get " + k));
        Object nested = row.getOrDefault("nested", params);
        assertEquals(nested, m.nestedParams(), "nested params");
        assertEquals(url, m.url());
        assertEquals(url, m.rewritten());
        assertEquals(patternOf.get(target), m.pattern());
        if (row.get("fragment") != null) {
            assertEquals(row.get("fragment"), m.fragment());
        }
        assertFalse(m.name().isPresent() || m.metadata().isPresent());
        checkAgainstJson(m);
    }

    /**
     * Every field the binding copied through the getters equals the library's own JSON of the match
     * (lr_match_to_json), which is the same bytes for every language.
     */
    @SuppressWarnings("unchecked")
    static void checkAgainstJson(Match m) {
        Map<String, Object> doc = (Map<String, Object>) Json.parse(m.json());
        assertEquals(List.of(doc.get("target"), doc.get("pattern"), doc.get("url"), doc.get("rewritten"),
                doc.get("scheme"), doc.get("host"), doc.get("port"), doc.get("path"), doc.get("fragment")),
            List.of(m.target(), m.pattern(), m.url(), m.rewritten(), m.scheme(), m.host(), m.port(), m.path(),
                m.fragment()), "getters against JSON");
        List<List<String>> query = new ArrayList<>();
        m.query().forEach(p -> query.add(List.of(p.name(), p.value())));
        assertEquals(doc.get("query"), query, "query against JSON");
    }

    @TestFactory
    List<DynamicTest> malformedPatterns() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Object row : TestData.list(TABLE, "malformed")) {
            List<?> r = (List<?>) row;
            assertEquals(3, r.size(), "a malformed row is [pattern, offset, message]: " + r);
            String pattern = (String) r.get(0);
            int offset = ((Long) r.get(1)).intValue();
            String message = (String) r.get(2);
            tests.add(DynamicTest.dynamicTest("'" + pattern + "'", () -> {
                try (Router router = new Router()) {
                    LinkRouterException e = assertThrows(LinkRouterException.class, () -> router.add(pattern, "T"));
                    assertEquals(LinkRouterException.EPATTERN, e.code());
                    assertEquals(offset, e.offset(), e.getMessage());
                    assertEquals(message, e.getMessage());
                    assertEquals(0, router.count());
                }
            }));
        }
        assertFalse(tests.isEmpty());
        return tests;
    }

    @Test
    void wellFormedPatterns() {
        List<Object> rows = TestData.list(TABLE, "wellFormed");
        assertFalse(rows.isEmpty());
        for (Object pattern : rows) {
            try (Router router = new Router()) {
                router.add((String) pattern, (String) pattern);
                assertEquals(1, router.count(), (String) pattern);
            }
        }
    }

    @Test
    void conflicts() {
        List<Object> rows = TestData.list(TABLE, "conflicts");
        assertFalse(rows.isEmpty());
        for (Object row : rows) {
            List<?> r = (List<?>) row;
            assertEquals(4, r.size(), "a conflict row is [existing, new, conflicts, message or null]: " + r);
            String existing = (String) r.get(0);
            String added = (String) r.get(1);
            boolean conflicts = (Boolean) r.get(2);
            String message = (String) r.get(3);
            assertEquals(conflicts, message != null, "a message when they conflict, null when not: " + r);
            try (Router router = new Router()) {
                router.add(existing, "old");
                if (conflicts) {
                    LinkRouterException e = assertThrows(LinkRouterException.class, () -> router.add(added, "new"),
                        existing + " then " + added);
                    assertEquals(LinkRouterException.ECONFLICT, e.code());
                    assertEquals(message, e.getMessage(), existing + " then " + added);
                    assertEquals(1, router.count());
                } else {
                    router.add(added, "new");
                    assertEquals(2, router.count());
                }
            }
        }
    }
}
