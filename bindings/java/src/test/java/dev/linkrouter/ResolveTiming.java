package dev.linkrouter;

/**
 * Resolve's cost through the Java binding, printed, never asserted (tests bound work by counts; timings belong to
 * benchmarks). Run after {@code make test-java}:
 *
 * <pre>
 * LINKROUTER_LIBRARY=build/lib/liblinkrouter.so java \
 *     -cp build/java/target/test-classes:build/java/target/classes:/usr/share/java/jna.jar dev.linkrouter.ResolveTiming
 * </pre>
 */
public final class ResolveTiming {
    private ResolveTiming() {
    }

    public static void main(String[] args) {
        final int rounds = 200_000;
        try (Router r = new Router()) {
            r.add("shop://home", "Home");
            r.add("shop://product/:id/reviews", "Reviews");
            r.add("shop://category/:slug", "Category");
            r.add("https://shop.example.com/p/:id", "WebProduct");
            r.addRoute("shop://product/:id", "Product", "product", "{\"transition\":\"push\"}");
            String url = "shop://product/42?ref=mail&campaign=spring";
            long sink = 0;
            for (int run = 0; run < 5; run++) { // the first runs include JIT compilation
                long start = System.nanoTime();
                for (int i = 0; i < rounds; i++) {
                    sink += r.resolve(url).orElseThrow().target().length();
                }
                long elapsed = System.nanoTime() - start;
                System.out.printf("run %d: %.0f ns per resolve (%d resolves)%n", run, (double) elapsed / rounds, rounds);
            }
            System.out.println("sink " + sink);
        }
    }
}
