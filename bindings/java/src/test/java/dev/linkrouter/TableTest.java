package dev.linkrouter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Route tables through the Java binding: loading (file and text, replace and merge), problems, checks, export, URL
 * building, explain, and the match fields a table gives (name, meta, requires, route id). Every answer is the
 * library's; the tests hold the binding to what C gives (examples/c/tables.expected, test_table.c).
 */
class TableTest {
    static Path shop() {
        return TestData.repo().resolve("examples/tables/shop.json");
    }

    private static Map<String, String> params(String... keyValues) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put(keyValues[i], keyValues[i + 1]);
        }
        return map;
    }

    @Test
    void loadExportRoundTrip() throws IOException {
        try (Router r = Router.fromFile(shop())) {
            assertEquals(16, r.count());
            String exported = r.toJson();
            // shop.json as the library writes it, byte for byte (Tests/C/test_table.c compares C's with the same file).
            assertEquals(Files.readString(TestData.repo().resolve("Tests/Data/shop-export.expected"), StandardCharsets.UTF_8),
                exported);
            try (Router again = Router.fromJson(exported)) {
                assertEquals(exported, again.toJson()); // load -> export -> load -> export: the same bytes
                Match m = again.resolve("http://oldshop.example.com/item.php?id=7").orElseThrow();
                assertEquals(List.of("ProductScreen", "7"), List.of(m.target(), m.params().get("id")));
            }
        }
    }

    @Test
    void loadReplaceAndMerge() {
        try (Router r = new Router()) {
            r.add("app://old", "Old");
            Object[][] steps = {
                {"{\"version\": 1, \"routes\": [{\"pattern\": \"app://a/:id\", \"target\": \"A\"}]}", true, 1, "app://old", null},
                {"{\"version\": 1, \"routes\": [{\"pattern\": \"app://b/:id\", \"target\": \"B\"}]}", false, 2, "app://a/1", "A"},
                {"{\"version\": 1, \"rewrites\": [{\"match\": \"^x://(.*)\", \"target\": \"app://b/$1\"}]}", false, 2, "x://7", "B"},
                {"{\"version\": 1}", true, 0, "x://7", null},
            };
            for (Object[] step : steps) {
                r.loadJson((String) step[0], (Boolean) step[1]);
                assertEquals(step[2], r.count(), (String) step[0]);
                assertEquals(Optional.ofNullable(step[4]), r.resolve((String) step[3]).map(Match::target));
            }
        }
    }

    /** A document with problems changes nothing; the exception lists each problem, in the message's order. */
    @Test
    void tableProblems() {
        try (Router r = Router.fromFile(shop())) {
            String exported = r.toJson();
            String bad = "{\"version\":1,\"routes\":[{\"pattern\":\"a://x//y\",\"target\":\"T\"},"
                + "{\"pattern\":\"shop://cart\",\"target\":3}],\"zz\":1}";
            List<TableProblem> want = List.of(
                new TableProblem("/zz", LinkRouterException.ETABLE,
                    "unknown key 'zz' (expected $schema, version, routes, rewrites)"),
                new TableProblem("/routes/0/pattern", LinkRouterException.EPATTERN,
                    "malformed pattern 'a://x//y' at byte 6: empty segment ('//' in a pattern)"),
                new TableProblem("/routes/1/target", LinkRouterException.ETABLE, "expected a string, found a number"),
                new TableProblem("/routes/1/pattern", LinkRouterException.ECONFLICT,
                    "pattern 'shop://cart' conflicts with existing route 'shop://cart': both match exactly the same URLs"));
            for (boolean replace : new boolean[] {false, true}) {
                TableException e = assertThrows(TableException.class, () -> r.loadJson(bad, replace));
                // Replacing, the file's cart conflicts with no existing route.
                assertEquals(replace ? want.subList(0, 3) : want, e.problems(), "replace " + replace);
                List<String> lines = new ArrayList<>();
                e.problems().forEach(p -> lines.add(p.toString()));
                assertEquals(String.join("\n", lines), e.getMessage());
                assertEquals(List.of(LinkRouterException.ETABLE, -1, -1), List.of(e.code(), e.offset(), e.index()));
                assertEquals(exported, r.toJson(), "a refused load changed the table");
            }
            TableException e = assertThrows(TableException.class, () -> r.loadJson("{", true));
            assertEquals(List.of(new TableProblem("", LinkRouterException.ETABLE,
                "JSON syntax error at byte 1 (line 1, column 2): expected a member name in double quotes")), e.problems());
            e = assertThrows(TableException.class, () -> r.loadJson("{\"version\":1,\"routes\":["
                + "{\"pattern\":\"shop://cart/\",\"target\":\"X\"},{\"pattern\":\"shop://new\",\"target\":\"N\",\"name\":\"home\"}]}",
                false));
            assertEquals(List.of(
                new TableProblem("/routes/0/pattern", LinkRouterException.ECONFLICT,
                    "pattern 'shop://cart/' conflicts with existing route 'shop://cart': both match exactly the same URLs"),
                new TableProblem("/routes/1/name", LinkRouterException.ECONFLICT,
                    "route name 'home' is already used by existing route 'shop://home'")), e.problems());
        }
    }

    /** Lines the check does not give alike are read from the text (a pointer, then ": "), code ETABLE. */
    /**
     * Control characters in a pattern, regex or template: the message escapes them on its lines (\n, \t, ESC as a
     * backslash and u001B), the check report has them as they are, and each problem still comes with its code and raw
     * reason (found by the Go/Java review: such a problem paired no line and came back as ETABLE, its reason escaped).
     */
    @Test
    void tableProblemsWithControlCharacters() {
        String doc = "{\"version\":1,\"routes\":["
            + "{\"pattern\":\"app://a\\nb//c\",\"target\":\"x\"},{\"pattern\":\"app://t\\tb//c\",\"target\":\"x\"},"
            + "{\"pattern\":\"app://e\\u001bx//y\",\"target\":\"x\"},{\"pattern\":\"app://d\\u007fx//y\",\"target\":\"x\"},"
            + "{\"pattern\":\"app://r\\rx//y\",\"target\":\"x\"},{\"pattern\":\"app://q\\\\n//\",\"target\":\"x\"}],"
            + "\"rewrites\":[{\"match\":\"(\\t\",\"target\":\"z\"},"
            + "{\"match\":\"(a)\\u0001\",\"target\":\"app://\\n$2\"}]}";
        List<Integer> codes = List.of(LinkRouterException.EPATTERN, LinkRouterException.EPATTERN,
            LinkRouterException.EPATTERN, LinkRouterException.EPATTERN, LinkRouterException.EPATTERN,
            LinkRouterException.EPATTERN, LinkRouterException.EREGEX, LinkRouterException.EPATTERN);
        try (Router r = new Router()) {
            TableReport report = r.checkJson(doc, true);
            assertFalse(report.valid());
            TableException e = assertThrows(TableException.class, () -> r.loadJson(doc, true));
            assertEquals(report.problems(), e.problems());
            String[] lines = e.getMessage().split("\n", -1);
            assertEquals(codes.size(), lines.length, e.getMessage());
            for (int i = 0; i < lines.length; i++) {
                TableProblem p = e.problems().get(i);
                assertEquals(codes.get(i), p.code(), p.toString());
                assertEquals(lines[i], TableProblem.oneLine(p.toString()));
            }
            // The control characters escaped on the message's lines (a backslash as written stays one: route 5's
            // "\\n" is two characters of the pattern); the problem's reason is the raw one.
            String bs = "\\";
            assertEquals(String.join("\n",
                "/routes/0/pattern: malformed pattern 'app://a" + bs + "nb//c' at byte 10: empty segment ('//' in a pattern)",
                "/routes/1/pattern: malformed pattern 'app://t" + bs + "tb//c' at byte 10: empty segment ('//' in a pattern)",
                "/routes/2/pattern: malformed pattern 'app://e" + bs + "u001Bx//y' at byte 10: empty segment ('//' in a "
                    + "pattern)",
                "/routes/3/pattern: malformed pattern 'app://d" + bs + "u007Fx//y' at byte 10: empty segment ('//' in a "
                    + "pattern)",
                "/routes/4/pattern: malformed pattern 'app://r" + bs + "rx//y' at byte 10: empty segment ('//' in a pattern)",
                "/routes/5/pattern: malformed pattern 'app://q" + bs + "n//' at byte 10: empty segment ('//' in a pattern)",
                "/rewrites/0/match: invalid rewrite regex '(" + bs + "t' at byte 2: missing closing parenthesis (PCRE2 error "
                    + "114)",
                "/rewrites/1/target: malformed rewrite target 'app://" + bs + "n$2' at byte 7: group 2 does not exist: the "
                    + "regex has 1 capture group"), e.getMessage());
            assertEquals("malformed pattern 'app://a\nb//c' at byte 10: empty segment ('//' in a pattern)",
                e.problems().get(0).reason());
        }
    }

    @Test
    void problemFromLine() {
        assertEquals(new TableProblem("/routes/3/pattern", LinkRouterException.ETABLE, "malformed: x"),
            TableProblem.fromLine("/routes/3/pattern: malformed: x"));
        assertEquals(new TableProblem("", LinkRouterException.ETABLE, "... and 5 more problems"),
            TableProblem.fromLine("... and 5 more problems"));
        assertEquals(new TableProblem("", LinkRouterException.ETABLE, "/odd"), TableProblem.fromLine("/odd"));
        assertEquals(List.of(new TableProblem("/a", LinkRouterException.ETABLE, "x"),
                new TableProblem("/b", LinkRouterException.ECONFLICT, "y")),
            new TableException("/a: x\n/b: y", -1, List.of(new TableProblem("/a", -3, "other"),
                new TableProblem("/b", LinkRouterException.ECONFLICT, "y"))).problems());
    }

    @Test
    void loadErrors(@TempDir Path dir) throws IOException {
        Path notUtf8 = dir.resolve("latin1.json");
        Files.write(notUtf8, "{\"version\": 1, \"$schema\": \"caf\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1));
        String missing = dir.resolve("missing.json").toString();
        try (Router r = new Router()) {
            Object[][] rows = {
                {"missing file", LinkRouterException.EIO, (Runnable) () -> r.loadFile(missing, true)},
                {"file not UTF-8", LinkRouterException.ETABLE, (Runnable) () -> r.loadFile(notUtf8, true)},
                {"path with NUL", LinkRouterException.EINVAL, (Runnable) () -> r.loadFile("a\0b", true)},
                {"text with NUL", LinkRouterException.EINVAL, (Runnable) () -> r.loadJson("{\"version\":1}\0", true)},
                {"lone surrogate", LinkRouterException.EINVAL, (Runnable) () -> r.loadJson("{\"a\":\"\ud800\"}", true)},
                {"null text", LinkRouterException.EMISUSE, (Runnable) () -> r.loadJson(null, true)},
                {"empty text", LinkRouterException.ETABLE, (Runnable) () -> r.loadJson("", true)},
                {"new from missing file", LinkRouterException.EIO, (Runnable) () -> Router.fromFile(missing)},
                {"new from bad text", LinkRouterException.ETABLE, (Runnable) () -> Router.fromJson("{\"version\":2}")},
            };
            for (Object[] row : rows) {
                LinkRouterException e = assertThrows(LinkRouterException.class, ((Runnable) row[2])::run, (String) row[0]);
                assertEquals(row[1], e.code(), row[0] + ": " + e.getMessage());
                assertEquals(e.code() == LinkRouterException.ETABLE, e instanceof TableException, (String) row[0]);
            }
            // The path is the test's temporary folder: the message is built from it.
            assertEquals("cannot open table file '" + missing + "': No such file or directory",
                assertThrows(LinkRouterException.class, () -> r.loadFile(missing, true)).getMessage());
            TableException e = assertThrows(TableException.class, () -> r.loadFile(notUtf8, true));
            assertEquals(1, e.problems().size());
            assertEquals("", e.problems().get(0).pointer());
            assertEquals(0, r.count());
        }
    }

    @Test
    void check(@TempDir Path dir) {
        try (Router r = new Router()) {
            TableReport report = r.checkFile(shop().toString(), true);
            assertEquals(new TableReport(true, List.of(), List.of(), "{\"valid\":true,\"problems\":[],\"warnings\":[]}"),
                report);
            String doc = "{\"version\":1,\"routes\":[{\"pattern\":\"app://docs\",\"target\":\"D\"},"
                + "{\"pattern\":\"app://docs/:section/*rest\",\"target\":\"S\"},{\"pattern\":\"app://docs/*path\",\"target\":\"P\"}],"
                + "\"rewrites\":[{\"match\":\"^old://(\\\\d+)\",\"target\":\"shop://orders/$1\"}]}";
            report = r.checkJson(doc, true);
            assertTrue(report.valid());
            assertEquals(List.of(
                new TableWarning("/routes/2", "shadowed", "'app://docs/*path' never matches: 'app://docs', "
                    + "'app://docs/:section/*rest' take every URL it would (a route that ends there, then a :param, beat a catch-all)"),
                new TableWarning("/rewrites/0/target", "rewrite_routes_nowhere",
                    "'shop://orders/$1' routes nowhere: no route starts like 'shop://orders'")), report.warnings());
            report = r.checkJson("{\"version\":1,\"routes\":[{\"pattern\":\"a://x//y\",\"target\":\"T\"}]}", false);
            assertFalse(report.valid());
            assertEquals(List.of("/routes/0/pattern", LinkRouterException.EPATTERN),
                List.of(report.problems().get(0).pointer(), report.problems().get(0).code()));
            assertEquals(0, r.count());
            assertEquals(LinkRouterException.EIO, assertThrows(LinkRouterException.class,
                () -> r.checkFile(dir.resolve("missing.json").toString(), true)).code());
            assertEquals(LinkRouterException.EINVAL, assertThrows(LinkRouterException.class,
                () -> r.checkJson("\ud800", true)).code());
        }
    }

    @Test
    void buildUrl() {
        try (Router r = Router.fromFile(shop())) {
            Object[][] rows = {
                {"product", params("id", "42", "?ref", "mail & push"), "shop://product/42?ref=mail%20%26%20push"},
                {"product", params("id", "4 2/x"), "shop://product/4%202%2Fx"},
                {"help", params("topic", "returns/late parcel"), "shop://help/returns/late%20parcel"},
                {"web.product", params("id", "7", "?a", "1", "?b", "2"), "https://shop.example.com/p/7?a=1&b=2"},
                {"home", params(), "shop://home"},
            };
            for (Object[] row : rows) {
                @SuppressWarnings("unchecked")
                Map<String, String> given = (Map<String, String>) row[1];
                String url = r.buildUrl((String) row[0], given);
                assertEquals(row[2], url);
                if (row[0].equals("help")) {
                    continue; // a catch-all resolves as written into the URL
                }
                Match m = r.resolve(url).orElseThrow(); // the round trip: the route, with the values given
                assertEquals(Optional.of(row[0]), m.name());
                given.forEach((k, v) -> assertEquals(v, m.params().get(k.replaceFirst("^\\?", "")), k));
            }
            Object[][] refused = {
                {"nope", params(), LinkRouterException.ENOTFOUND},
                {"product", params(), LinkRouterException.EINVAL},
                {"product", params("id", ""), LinkRouterException.EINVAL},
                {"product", params("id", "1", "slug", "x"), LinkRouterException.EINVAL},
                {"product", params("id", "1", "?id", "x"), LinkRouterException.EINVAL},
                {"product", params("id", "a\0b"), LinkRouterException.EINVAL},
                {"prod\0uct", params("id", "1"), LinkRouterException.EINVAL},
                {"product", params("id", "\ud800"), LinkRouterException.EINVAL},
                {"help", params("topic", "a//b"), LinkRouterException.EINVAL},
                {"product", params("id", "x".repeat(70000)), LinkRouterException.ELIMIT},
            };
            for (Object[] row : refused) {
                @SuppressWarnings("unchecked")
                Map<String, String> given = (Map<String, String>) row[1];
                assertEquals(row[2], assertThrows(LinkRouterException.class, () -> r.buildUrl((String) row[0], given),
                    row[0] + " " + given).code());
            }
        }
    }

    @Test
    void explain() throws IOException {
        try (Router r = Router.fromFile(shop())) {
            Explanation e = r.explain("http://oldshop.example.com/item.php?id=7");
            assertEquals(List.of("http://oldshop.example.com/item.php?id=7", "matched", "shop://product/7?from=legacy"),
                List.of(e.url(), e.result(), e.routed()));
            assertTrue(e.matched());
            assertEquals(Optional.empty(), e.error());
            assertEquals(Optional.of(0), e.firedRule());
            assertEquals(List.of("product", "7"), e.sequence());
            assertEquals(List.of(4L, 0L), List.of(e.otherSchemeRoutes(), e.candidatesOmitted()));
            assertEquals(Optional.of(new Explanation.Route("shop://product/:id", "ProductScreen", Optional.of("product"),
                List.of(), Map.of("class", "ProductViewController", "transition", "push"))), e.route());
            assertEquals(List.of("id", "from"), new ArrayList<>(e.params().keySet()));
            assertEquals(Map.of("id", "7", "from", "legacy"), e.params());
            assertEquals(List.of(), e.requires());
            assertEquals(12, e.candidates().size());
            assertTrue(e.candidates().get(0).matched());
            assertEquals(new Explanation.Candidate("shop://product/:id/reviews", "ReviewsScreen",
                Optional.of("product.reviews"), false, "the URL ends after 2 elements; the pattern needs 3", 2),
                e.candidates().get(1));
            assertTrue(e.json().startsWith("{\"url\":\"http://oldshop.example.com/item.php?id=7\",\"result\":\"matched\","));
            assertNotNull(e.asMap().get("rewrite"));

            e = r.explain("not a url");
            assertEquals("error", e.result());
            assertEquals(LinkRouterException.EINVAL, e.error().orElseThrow().code());
            assertEquals(Optional.empty(), e.route());
            e = r.explain("shop://orders/12/invoice");
            assertEquals(List.of("nomatch", Optional.empty(), Optional.empty()),
                List.of(e.result(), e.route(), e.firedRule()));

            // The text is what C prints: examples/c/tables.c ends with this explanation.
            String text = r.explainText("shop://orders/12/invoice");
            String expected = Files.readString(TestData.repo().resolve("examples/c/tables.expected"), StandardCharsets.UTF_8);
            int at = expected.indexOf("url         shop://orders/12/invoice\n");
            assertTrue(at >= 0);
            assertEquals(expected.substring(at), text);
            for (String url : new String[] {"a\0b", "\ud800"}) {
                assertEquals(LinkRouterException.EINVAL, assertThrows(LinkRouterException.class, () -> r.explain(url)).code());
                assertEquals(LinkRouterException.EINVAL,
                    assertThrows(LinkRouterException.class, () -> r.explainText(url)).code());
            }
        }
    }

    /** The match fields a table gives: name, meta (a map, and the library's JSON of it), requires, route id. */
    @Test
    void matchFieldsFromTable() {
        Object[][] rows = {
            {"shop://push/order/9/status", "push.order", Map.of("source", "push", "transition", "present"),
                "{\"source\":\"push\",\"transition\":\"present\"}", List.of("login", "fresh-session"), 14L},
            {"shop://cart", "cart", Map.of("transition", "present"), "{\"transition\":\"present\"}", List.of("login"), 5L},
            {"shop://orders/3", "order", Map.of(), null, List.of("login"), 7L},
            {"shop://home", "home", Map.of(), null, List.of(), 0L},
        };
        try (Router r = Router.fromFile(shop())) {
            for (Object[] row : rows) {
                Match m = r.resolve((String) row[0]).orElseThrow();
                assertEquals(List.of(Optional.of(row[1]), row[2], Optional.ofNullable(row[3]), row[4], row[5]),
                    List.of(m.name(), m.meta(), m.metadata(), m.requires(), m.routeId()), (String) row[0]);
                assertEquals(m.meta().keySet().stream().sorted().toList(), new ArrayList<>(m.meta().keySet()),
                    "meta sorted by key");
                SemanticsTableTest.checkAgainstJson(m);
            }
        }
    }

    /**
     * The JSON view is made once, on first use, from any thread; the lr_match is freed as soon as it is made, and a
     * match dropped without asking is freed by the Cleaner.
     */
    @Test
    void jsonIsLazy() throws Exception {
        try (Router r = Router.fromFile(shop())) {
            Match m = r.resolve("shop://search?filter[size][]=m&filter[size][]=l").orElseThrow();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Future<String>> texts = new ArrayList<>();
            try {
                for (int i = 0; i < 8; i++) {
                    texts.add(pool.submit((Callable<String>) m::json));
                }
                for (Future<String> text : texts) {
                    assertEquals(texts.get(0).get(), text.get());
                }
            } finally {
                pool.shutdownNow();
            }
            assertEquals("{\"target\":\"SearchScreen\",\"pattern\":\"shop://search\","
                + "\"url\":\"shop://search?filter[size][]=m&filter[size][]=l\","
                + "\"rewritten\":\"shop://search?filter[size][]=m&filter[size][]=l\",\"scheme\":\"shop\",\"host\":\"search\","
                + "\"port\":\"\",\"path\":\"\",\"fragment\":\"\",\"name\":\"search\",\"params\":{\"filter\":{\"size\":[\"m\",\"l\"]}},"
                + "\"query\":[[\"filter[size][]\",\"m\"],[\"filter[size][]\",\"l\"]]}", texts.get(0).get());
            for (int i = 0; i < 1000; i++) {
                assertEquals("SearchScreen", r.resolve("shop://search?q=" + i).orElseThrow().target());
            }
            for (int i = 0; i < 100 && Match.LIVE_NATIVE.get() > 0; i++) {
                System.gc();
                Thread.sleep(10);
            }
            assertEquals(0, Match.LIVE_NATIVE.get(), "dropped matches still hold their lr_match");
        }
    }

    /**
     * A load on one thread while others resolve: each resolve sees the old table or the new one, whole. Each table's
     * rule only routes with its own routes, so a mix would be no match.
     */
    @Test
    void loadDuringResolves() throws Exception {
        String[] tables = {
            "{\"version\":1,\"routes\":[{\"pattern\":\"app://a/:id\",\"target\":\"A\"}],"
                + "\"rewrites\":[{\"match\":\"^x://(.*)\",\"target\":\"app://a/$1\"}]}",
            "{\"version\":1,\"routes\":[{\"pattern\":\"app://b/:id\",\"target\":\"B\"}],"
                + "\"rewrites\":[{\"match\":\"^x://(.*)\",\"target\":\"app://b/$1\"}]}",
        };
        try (Router r = Router.fromJson(tables[0])) {
            List<Callable<Void>> tasks = new ArrayList<>();
            tasks.add(() -> {
                for (int i = 0; i < 200; i++) {
                    r.loadJson(tables[i % 2], true);
                }
                return null;
            });
            for (int t = 0; t < 2; t++) {
                tasks.add(() -> {
                    for (int i = 0; i < 2000; i++) {
                        Match m = r.resolve("x://7").orElseThrow(() -> new AssertionError("a mix of two tables"));
                        assertTrue(m.target().equals("A") || m.target().equals("B"), m.target());
                        assertEquals("7", m.params().get("id"));
                    }
                    return null;
                });
            }
            ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
            try {
                for (Future<Void> f : pool.invokeAll(tasks)) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }
}
