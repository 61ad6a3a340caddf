package dev.linkrouter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class RouterTest {
    @Test
    void versionsAgree() {
        assertEquals(Native.HEADER_VERSION / 100, Router.libraryVersion() / 100);
        assertTrue(Router.libraryPath().endsWith("liblinkrouter.so"), Router.libraryPath());
    }

    @Test
    void matchReportsEveryPart() {
        try (Router r = new Router()) {
            r.addRoute("https://www.example.com/p/:id", "Product", "product", "{\"auth\":\"true\"}");
            Match m = r.resolve("HTTPS://u@WWW.Example.com:8443/p/7?x=%41#Frag").orElseThrow();
            String url = "HTTPS://u@WWW.Example.com:8443/p/7?x=%41#Frag";
            assertEquals(List.of("Product", "https://www.example.com/p/:id", url, url, "https", "www.example.com",
                    "8443", "/p/7", "Frag"),
                List.of(m.target(), m.pattern(), m.url(), m.rewritten(), m.scheme(), m.host(), m.port(), m.path(),
                    m.fragment()));
            assertEquals(Optional.of("product"), m.name());
            assertEquals(Optional.of("{\"auth\":\"true\"}"), m.metadata());
            assertEquals(List.of(new Param("x", "A")), m.query());
            assertEquals("{\"target\":\"Product\",\"pattern\":\"https://www.example.com/p/:id\",\"url\":\"" + url + "\","
                + "\"rewritten\":\"" + url + "\",\"scheme\":\"https\",\"host\":\"www.example.com\",\"port\":\"8443\","
                + "\"path\":\"/p/7\",\"fragment\":\"Frag\",\"name\":\"product\",\"meta\":{\"auth\":\"true\"},"
                + "\"params\":{\"id\":\"7\",\"x\":\"A\"},\"query\":[[\"x\",\"A\"]]}", m.json());
            assertEquals(m, r.resolve(url).orElseThrow());
            assertNotEquals(m, r.resolve("https://www.example.com/p/8").orElseThrow());
        }
    }

    @Test
    void nameAndMetadataAbsent() {
        try (Router r = new Router()) {
            r.add("app://x", "X");
            r.addRoute("app://y", "Y", "why", null);
            r.addRoute("app://z", "Z", null, "{\"m\":\"eta\"}");
            Object[][] rows = {{"app://x", null, null}, {"app://y", "why", null}, {"app://z", null, "{\"m\":\"eta\"}"}};
            for (Object[] row : rows) {
                Match m = r.resolve((String) row[0]).orElseThrow();
                assertEquals(Optional.ofNullable(row[1]), m.name(), (String) row[0]);
                assertEquals(Optional.ofNullable(row[2]), m.metadata(), (String) row[0]);
            }
        }
    }

    /** Path parameters in pattern order, then query keys by first appearance, then extras: lr_match_param_name's. */
    @Test
    void paramsOrderQueryAndNesting() {
        try (Router r = new Router()) {
            r.add("app://u/:id/:tab", "T");
            Map<String, String> extra = new LinkedHashMap<>();
            extra.put("e", "9");
            extra.put("a", "8");
            Match m = r.resolve("app://u/1/t?z=1&id=x&a=2&z=3&i[n]=v&l[]=p&l[]=q", extra).orElseThrow();
            assertEquals(List.of("id", "tab", "z", "a", "i[n]", "l[]", "e"), new ArrayList<>(m.params().keySet()));
            assertEquals(List.of("1", "t", "3", "8", "v", "q", "9"), new ArrayList<>(m.params().values()));
            assertEquals(List.of(new Param("z", "1"), new Param("id", "x"), new Param("a", "2"), new Param("z", "3"),
                new Param("i[n]", "v"), new Param("l[]", "p"), new Param("l[]", "q")), m.query());
            Map<String, Object> nested = m.nestedParams();
            assertEquals(Map.of("id", "1", "tab", "t", "z", "3", "a", "8", "e", "9", "i", Map.of("n", "v"), "l",
                List.of("p", "q")), nested);
            assertEquals(List.of("id", "tab", "z", "a", "i", "l", "e"), new ArrayList<>(nested.keySet()));
            assertEquals(Optional.of("v"), m.get("i[n]"));
            assertEquals(Optional.empty(), m.get("i"));
            assertThrows(UnsupportedOperationException.class, () -> m.params().put("x", "y"));
        }
    }

    @Test
    void removeClearCount() {
        try (Router r = new Router()) {
            for (String p : List.of("app://u/:id", "app://u/me", "app://u/*rest")) {
                r.add(p, p);
            }
            // (pattern to remove or null, expected code or 0, url, target or null)
            Object[][] steps = {
                {null, 0, "app://u/me", "app://u/me"},
                {"app://u/me", 0, "app://u/me", "app://u/:id"},
                {"app://u/:other", 0, "app://u/me", "app://u/*rest"},
                {"app://u/:id", LinkRouterException.ENOTFOUND, "app://u/me", "app://u/*rest"},
                {"app://nothing/here", LinkRouterException.ENOTFOUND, "app://u/x", "app://u/*rest"},
                {"bad", LinkRouterException.EPATTERN, "app://u/x", "app://u/*rest"},
                {"app://u/*", 0, "app://u/x", null},
            };
            for (Object[] step : steps) {
                if (step[0] != null) {
                    int code = (Integer) step[1];
                    if (code == 0) {
                        r.remove((String) step[0]);
                    } else {
                        assertEquals(code, assertThrows(LinkRouterException.class, () -> r.remove((String) step[0]))
                            .code(), (String) step[0]);
                    }
                }
                assertEquals(Optional.ofNullable(step[3]), r.resolve((String) step[2]).map(Match::target),
                    Arrays.toString(step));
            }
            assertEquals(0, r.count());
            r.addRewrite("^old://(.*)", "app://$1");
            r.addMany(List.of(new Route("app://a", "A"), new Route("app://b", "B")));
            assertEquals(2, r.count());
            r.clear();
            assertEquals(0, r.count());
            assertEquals(Optional.of("app://x"), r.rewrite("old://x"), "clear() keeps the rewrite rules");
        }
    }

    @Test
    void addManyIsAllOrNone() {
        try (Router r = new Router()) {
            r.addMany(List.of());
            Object[][] rows = {
                {List.of(new Route("app://a", "A"), new Route("app://b//c", "bad"), new Route("app://c", "C")),
                    LinkRouterException.EPATTERN, 1,
                    "route 1: malformed pattern 'app://b//c' at byte 8: empty segment ('//' in a pattern)"},
                {List.of(new Route("app://a", "A"), new Route("app://b", "B"), new Route("app://a/", "dup")),
                    LinkRouterException.ECONFLICT, 2,
                    "route 2: pattern 'app://a/' conflicts with route 0 of this batch ('app://a'): both match exactly "
                    + "the same URLs"},
                {List.of(new Route("app://a", "A"), new Route("app://\ud800", "B")), LinkRouterException.EINVAL, 1,
                    "route 1: pattern is not valid UTF-8 text: a lone surrogate at index 6"},
                {List.of(new Route("app://a", "A"), new Route("app://b", "B\0")), LinkRouterException.EINVAL, 1,
                    "route 1: target contains a NUL character at byte 1"},
                // A batch of one is a batch: its route is named and indexed (the library did not before 35c3e1d).
                {List.of(new Route("app://b//c", "bad")), LinkRouterException.EPATTERN, 0,
                    "route 0: malformed pattern 'app://b//c' at byte 8: empty segment ('//' in a pattern)"},
                {List.of(new Route("app://\ud800", "B")), LinkRouterException.EINVAL, 0,
                    "route 0: pattern is not valid UTF-8 text: a lone surrogate at index 6"},
            };
            for (Object[] row : rows) {
                @SuppressWarnings("unchecked")
                List<Route> routes = (List<Route>) row[0];
                LinkRouterException e = assertThrows(LinkRouterException.class, () -> r.addMany(routes));
                assertEquals(row[1], e.code(), e.getMessage());
                assertEquals(row[2], e.index(), e.getMessage());
                assertEquals(row[3], e.getMessage(), "the message names the route");
                assertEquals(0, r.count());
            }
            List<Route> many = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                many.add(new Route("app://many/" + "x".repeat(i % 7 + 1) + "/" + i, "T" + i));
            }
            r.addMany(many);
            assertEquals(1000, r.count());
            assertEquals(Optional.of("T503"), r.resolve("app://many/xxxxxxx/503?q=1").map(Match::target));
        }
    }

    @Test
    void limits() {
        try (Router r = new Router()) {
            Map<Limit, Long> defaults = Map.of(Limit.URL_LENGTH, 65536L, Limit.SEGMENTS, 1024L, Limit.PARAMS, 1024L,
                Limit.NESTING, 32L, Limit.REGEX_MATCH, 10000L, Limit.REGEX_DEPTH, 1000L, Limit.REGEX_START, 1024L,
                Limit.PENDING, 64L, Limit.REPLY_TIMEOUT_MS, 10000L);
            assertEquals(Limit.values().length, defaults.size());
            defaults.forEach((limit, value) -> assertEquals(value, r.getLimit(limit), limit.name()));
            r.add("app://user/:id", "User");
            r.setLimit(Limit.URL_LENGTH, 20);
            assertEquals(20, r.getLimit(Limit.URL_LENGTH));
            assertTrue(r.resolve("app://user/123456789").isPresent());
            assertEquals(LinkRouterException.ELIMIT,
                assertThrows(LinkRouterException.class, () -> r.resolve("app://user/1234567890")).code());
            for (long bad : new long[] {0, -1}) {
                assertEquals(LinkRouterException.EMISUSE,
                    assertThrows(LinkRouterException.class, () -> r.setLimit(Limit.URL_LENGTH, bad)).code());
            }
        }
    }

    @Test
    void statusConstantsAndTexts() {
        int[] codes = {LinkRouterException.OK, LinkRouterException.NOMATCH, LinkRouterException.EMISUSE,
            LinkRouterException.EINVAL, LinkRouterException.EPATTERN, LinkRouterException.ECONFLICT,
            LinkRouterException.EREGEX, LinkRouterException.ELIMIT, LinkRouterException.ENOTFOUND,
            LinkRouterException.ETABLE, LinkRouterException.EIO, LinkRouterException.ENOMEM};
        assertEquals(List.of(0, 1, -1, -2, -3, -4, -5, -6, -7, -8, -9, -10),
            Arrays.stream(codes).boxed().toList(), "the header's values");
        for (int code : codes) {
            assertFalse(Router.errstr(code).isEmpty());
        }
        assertEquals("no match", Router.errstr(LinkRouterException.NOMATCH));
        try (Router r = new Router()) {
            LinkRouterException e = assertThrows(LinkRouterException.class, () -> r.add("app://a//b", "T"));
            assertEquals(LinkRouterException.EPATTERN, e.code());
            assertEquals(8, e.offset());
            assertEquals(-1, e.index());
        }
    }

    @Test
    void closedRouters() {
        Router r = new Router();
        assertEquals("Router[0 routes]", r.toString());
        r.add("app://x", "X");
        assertEquals("Router[1 route]", r.toString());
        Match m = r.resolve("app://x?k=v").orElseThrow();
        r.close();
        r.close();
        assertEquals("X", m.target()); // a match outlives its router
        assertEquals("v", m.params().get("k"));
        assertEquals("Router[closed]", r.toString());
        List<Executable> calls = List.of(() -> r.add("app://y", "Y"), () -> r.remove("app://x"), r::clear,
            () -> r.addRewrite("a", "b"), () -> r.setLimit(Limit.URL_LENGTH, 10), r::clearRewrites,
            () -> r.addMany(List.of(new Route("app://z", "Z"))), () -> r.resolve("app://x"),
            () -> r.canRoute("app://x"), r::count, () -> r.rewrite("a"), () -> r.getLimit(Limit.URL_LENGTH),
            () -> r.removeRewrite("a"), () -> r.addRewrites(List.of(new RewriteRule("a", "b"))),
            () -> r.loadJson("{\"version\":1}", true), () -> r.loadFile("x.json", false),
            () -> r.checkJson("{\"version\":1}", true), () -> r.checkFile("x.json", true), r::toJson,
            () -> r.buildUrl("x", Map.of()), () -> r.explain("app://x"), () -> r.explainText("app://x"));
        for (Executable call : calls) {
            assertEquals(LinkRouterException.EMISUSE, assertThrows(LinkRouterException.class, call).code());
        }
    }

    /**
     * Routers dropped without close() are freed by the Cleaner; the count of those it freed is what is checked,
     * exactly. The wait is for that count, bounded by a number of collections (not by a time): a Cleaner that never
     * frees them fails the test once the collections run out. The count is the JVM's: every other test closes its
     * routers, so only these 200 can move it (a test that leaves one to the Cleaner makes this fail: close it).
     */
    @Test
    void cleanerFreesUnclosedRouters() throws InterruptedException {
        final int routers = 200;
        final int collections = 500;
        long before = Router.FREED_BY_CLEANER.get();
        for (int i = 0; i < routers; i++) {
            Router r = new Router();
            r.add("app://user/:id", "User");
        }
        int ran = 0;
        while (ran < collections && Router.FREED_BY_CLEANER.get() - before < routers) {
            System.gc();
            Thread.sleep(10); // lets the Cleaner's thread run; the bound is the number of collections
            ran++;
        }
        assertEquals(routers, Router.FREED_BY_CLEANER.get() - before,
            "unclosed routers freed by the Cleaner after " + ran + " collections (of " + collections + " at most)");
    }

    /**
     * close() frees the router itself, on the caller's thread, and that is not counted as the Cleaner's: exact, with
     * nothing to wait for. The Cleaner cannot free it again: close() goes through Cleanable.clean(), which takes the
     * router off the Cleaner's list and runs the free at most once (java.lang.ref.Cleaner). That later non-event
     * is not waited for: nothing counts or marks the Cleaner's passing over a router it no longer holds, so a
     * collection and a pause could not show it either (the check this replaces passed without the Cleaner running).
     */
    @Test
    void closeFreesOnceAndNotAsTheCleaner() {
        long before = Router.FREED_BY_CLEANER.get();
        Router closed = new Router();
        closed.add("app://user/:id", "User");
        closed.close();
        closed.close(); // again: nothing left to free
        assertEquals(before, Router.FREED_BY_CLEANER.get(), "close() freed the router, not the Cleaner");
        assertEquals("Router[closed]", closed.toString());
    }
}
