package dev.linkrouter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jna.Function;
import com.sun.jna.Structure;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The binding frees what it allocates: native argument strings and cells, matches (at once when their JSON is made,
 * else by the Cleaner), strings the library returns (rewrites, exports, reports, URLs, explanations), routers. The C heap in use (glibc's mallinfo2) may not grow with the number of calls: a match left unfreed grows
 * it by megabytes here (checked by planting one); the bound leaves room for the library's and the JVM's caches.
 */
class LeakTest {
    /** glibc's struct mallinfo2: ten size_t fields. */
    @Structure.FieldOrder({"arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost"})
    public static class MallInfo2 extends Structure implements Structure.ByValue {
        public long arena;
        public long ordblks;
        public long smblks;
        public long hblks;
        public long hblkhd;
        public long usmblks;
        public long fsmblks;
        public long uordblks;
        public long fordblks;
        public long keepcost;
    }

    private static long heapInUse() {
        MallInfo2 info = (MallInfo2) Function.getFunction("c", "mallinfo2").invoke(MallInfo2.class, new Object[0]);
        return info.uordblks;
    }

    /**
     * Every table call once, those that succeed and those that fail: loads (whose failures check the document again
     * for problems), checks, export, URL building, explain, and matches whose JSON is made and matches dropped
     * without it.
     */
    private static void tableCalls(Router shop, int n) {
        String doc = "{\"version\":1,\"routes\":[{\"pattern\":\"app://t/" + n
            + "/:id\",\"target\":\"T\",\"name\":\"t\",\"meta\":{\"k\":\"v\"}}]}";
        try (Router r = Router.fromJson(doc)) {
            assertThrows(TableException.class,
                () -> r.loadJson("{\"version\":1,\"routes\":[{\"pattern\":\"a://x//y\",\"target\":3}]}", false));
            assertThrows(LinkRouterException.class, () -> r.loadFile("/nonexistent/table.json", true));
            assertTrue(!r.checkJson(doc, false).valid());
            assertTrue(!r.toJson().isEmpty());
            assertEquals("app://t/" + n + "/" + n + "?q=a%20b", r.buildUrl("t", Map.of("id", "" + n, "?q", "a b")));
            assertThrows(LinkRouterException.class, () -> r.buildUrl("t", Map.of()));
        }
        assertTrue(shop.explain("http://oldshop.example.com/item.php?id=" + n).matched());
        assertTrue(!shop.explainText("shop://orders/12/invoice").isEmpty());
        Match m = shop.resolve("shop://push/order/" + n + "/status?a[b]=1").orElseThrow();
        assertEquals(2, m.requires().size());
        if (n % 2 == 0) {
            assertEquals(Map.of("b", "1"), m.nestedParams().get("a"));
        }
    }

    /** Collects until every dropped Match has had its lr_match freed by the Cleaner; bounded by a count of rounds. */
    private static void settleMatches() {
        for (int i = 0; i < 200 && Match.LIVE_NATIVE.get() > 0; i++) {
            System.gc();
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
        assertEquals(0, Match.LIVE_NATIVE.get(), "dropped matches still hold their lr_match after 200 collections");
    }

    @Test
    void noNativeMemoryGrowth() {
        final int rounds = 5000;
        final long bound = 96 << 10;
        try (Router r = new Router(); Router shop = Router.fromFile(TableTest.shop())) {
            r.addRewrite("^old://(.*)$", "app://$1");
            Runnable work = new Runnable() {
                private int n;

                @Override
                public void run() {
                    n++;
                    r.addRoute("app://leak/" + n % 10 + "/:id", "L", "name", "{}");
                    Match m = r.resolve("old://leak/" + n % 10 + "/" + n + "?a[b]=1&q=" + n + "#f", Map.of("e", "x"))
                        .orElseThrow();
                    assertEquals("L", m.target());
                    assertTrue(r.rewrite("old://x").isPresent());
                    assertThrows(LinkRouterException.class, () -> r.resolve("not a url"));
                    assertThrows(LinkRouterException.class, () -> r.add("app://a\0", "T"));
                    assertThrows(LinkRouterException.class,
                        () -> r.addMany(List.of(new Route("app://ok", "T"), new Route("app://bad//x", "T"))));
                    r.remove("app://leak/" + n % 10 + "/:id");
                    new Router().close();
                    tableCalls(shop, n);
                }
            };
            // The JVM's own native memory (JIT code, class data) settles only after some thousand rounds: warm up
            // first, then measure two windows. A leak grows both.
            for (int i = 0; i < 3 * rounds; i++) {
                work.run();
            }
            long grown = Long.MAX_VALUE;
            for (int window = 0; window < 2; window++) {
                settleMatches();
                long before = heapInUse();
                for (int i = 0; i < rounds; i++) {
                    work.run();
                }
                settleMatches();
                grown = Math.min(grown, heapInUse() - before);
            }
            assertTrue(grown < bound, "the C heap grew by " + grown + " bytes over " + rounds + " rounds");
        }
    }
}
