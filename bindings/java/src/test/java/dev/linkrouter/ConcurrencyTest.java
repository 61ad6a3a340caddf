package dev.linkrouter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The header's promise, from Java: threads resolve while another adds and removes routes and rules, and every
 * answer is right for the table before or after each change. Work is bounded by counts, not by time.
 */
class ConcurrencyTest {
    private static final int STABLE = 100;
    private static final int READERS = 4;
    private static final int READS_EACH = 3000;
    private static final int ROUNDS = 60;

    private static Router stableRouter() {
        Router r = new Router();
        List<Route> routes = new ArrayList<>();
        for (int i = 0; i < STABLE; i++) {
            routes.add(new Route("app://stable/" + i + "/:id", "S" + i));
        }
        r.addMany(routes);
        r.add("app://nested/:id", "N");
        return r;
    }

    /** Runs every task at once; rethrows the first failure. */
    private static void runAll(List<Callable<Void>> tasks) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
        try {
            List<Future<Void>> futures = new ArrayList<>();
            for (Callable<Void> task : tasks) {
                futures.add(pool.submit(task));
            }
            for (Future<Void> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static Callable<Void> reader(Router r, int seed) {
        return () -> {
            for (int n = 0; n < READS_EACH; n++) {
                int i = (n * 7 + seed * 13) % STABLE;
                Match m = r.resolve("app://stable/" + i + "/" + n + "?x=" + seed, Map.of("t", "" + seed)).orElseThrow();
                assertEquals(List.of("S" + i, "" + n, "" + seed, "" + seed),
                    List.of(m.target(), m.params().get("id"), m.params().get("t"), m.params().get("x")));
                int c = n % 50;
                Optional<Match> churn = r.resolve("app://churn/" + c + "/" + n);
                if (churn.isPresent()) {
                    assertEquals("C" + c, churn.get().target());
                    assertEquals(Map.of("id", "" + n), churn.get().params());
                }
                // A rule that comes and goes: rewritten to a stable route, or not routed at all.
                Optional<Match> moved = r.resolve("moved://" + n);
                if (moved.isPresent()) {
                    assertEquals(List.of("N", "app://nested/" + n), List.of(moved.get().target(), moved.get().rewritten()));
                }
                Match nested = r.resolve("app://nested/1?a[b]=" + n + "&a[c][]=x").orElseThrow();
                assertEquals(Map.of("b", "" + n, "c", List.of("x")), nested.nestedParams().get("a"));
                assertTrue(r.canRoute("app://stable/" + i + "/x"));
                // Errors are per thread: a failing call never reports another thread's message.
                String bad = "nourl-" + seed + "-" + n;
                try {
                    r.resolve(bad);
                    throw new AssertionError(bad + " resolved");
                } catch (LinkRouterException e) {
                    assertEquals(LinkRouterException.EINVAL, e.code());
                    assertEquals("'" + bad + "' is not an absolute URL: it needs a scheme, as in 'app://...'", e.getMessage());
                }
            }
            return null;
        };
    }

    private static Callable<Void> writer(Router r) {
        return () -> {
            for (int round = 0; round < ROUNDS; round++) {
                for (int c = 0; c < 50; c++) {
                    r.add("app://churn/" + c + "/:id", "C" + c);
                }
                List<Route> batch = new ArrayList<>();
                for (int k = 0; k < 20; k++) {
                    batch.add(new Route("app://batch/" + round + "/" + k, "B"));
                }
                r.addMany(batch);
                r.addRewrite("^moved://(\\d+)$", "app://nested/$1");
                try {
                    r.add("app://stable/0/:other", "dup");
                    throw new AssertionError("a conflicting route was added");
                } catch (LinkRouterException e) {
                    assertEquals(LinkRouterException.ECONFLICT, e.code());
                }
                for (int c = 0; c < 50; c++) {
                    r.remove("app://churn/" + c + "/:id");
                }
                r.removeRewrite("^moved://(\\d+)$");
            }
            return null;
        };
    }

    @Test
    void resolvesDuringAddsAndRemoves() throws Exception {
        try (Router r = stableRouter()) {
            List<Callable<Void>> tasks = new ArrayList<>();
            tasks.add(writer(r));
            for (int seed = 0; seed < READERS; seed++) {
                tasks.add(reader(r, seed));
            }
            runAll(tasks);
            assertEquals(STABLE + 1 + 20 * ROUNDS, r.count());
        }
    }

    /** close() while other threads call: each call runs on the open router or gets EMISUSE; nothing crashes. */
    @Test
    void closeDuringCalls() throws Exception {
        for (int round = 0; round < 20; round++) {
            Router r = stableRouter();
            CountDownLatch started = new CountDownLatch(READERS);
            List<Callable<Void>> tasks = new ArrayList<>();
            for (int seed = 0; seed < READERS; seed++) {
                final int s = seed;
                tasks.add(() -> {
                    started.countDown();
                    for (int n = 0; n < 500; n++) {
                        try {
                            assertEquals(Optional.of("S" + s), r.resolve("app://stable/" + s + "/" + n).map(Match::target));
                        } catch (LinkRouterException e) {
                            assertEquals(LinkRouterException.EMISUSE, e.code(), e.getMessage());
                            return null; // closed
                        }
                    }
                    return null;
                });
            }
            tasks.add(() -> {
                started.await();
                r.close();
                return null;
            });
            runAll(tasks);
            Router closed = r;
            LinkRouterException e = org.junit.jupiter.api.Assertions.assertThrows(LinkRouterException.class,
                () -> closed.resolve("app://stable/0/1"));
            assertEquals(LinkRouterException.EMISUSE, e.code());
        }
    }
}
