package dev.linkrouter;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * One routing table and its rewrite rules (an lr_router), over JNA. It owns no rule of its own: precedence,
 * decoding and parameters are the library's (docs/SEMANTICS.md), so Java gives the answers C, Swift, Python and Go
 * give.
 *
 * <pre>{@code
 * try (Router router = new Router()) {
 *     router.add("app://user/:id", "UserPage");           // LinkRouterException(EPATTERN) on a bad pattern
 *     router.resolve("app://user/42?tab=posts").ifPresent(m ->
 *         System.out.println(m.target() + " " + m.params()));  // UserPage {id=42, tab=posts}
 * }
 * }</pre>
 *
 * <p>A whole table -- routes with names, guards and meta, and rewrite rules -- loads from one JSON document
 * (docs/TABLES.md): {@link #fromFile}, {@link #loadJson} (a refused document is a {@link TableException} listing
 * its problems), {@link #checkJson}, {@link #toJson}, {@link #buildUrl} (reverse routing by route name) and
 * {@link #explain}.
 *
 * <p>Every method may be called from any number of threads at once, registration included: lookups never wait for
 * a change and see the table before or after it, never a mix. {@link #close()} frees the router once the calls in
 * flight are done; a {@link Cleaner} frees one that was never closed. Errors are {@link LinkRouterException}s with
 * the library's code and message; a closed router gives EMISUSE.
 *
 * <p>A Router holds native memory (its table, rules and caches, in the C heap) that the garbage collector neither
 * sees nor counts: an unreachable Router looks small to it, so the Cleaner may come too late (20,000 routers of 20
 * routes left to the Cleaner took the process to ~750 MB, against ~300 MB when each was closed). Close each Router
 * when done with it (try-with-resources); Matches stay valid after close().
 *
 * <p>A null String argument is the library's EMISUSE (but for {@link #addRoute}'s name and metadata, where null
 * means none), as is a null key or value in a Map argument or a null field of a Route or RewriteRule. A null Map,
 * List, Route, RewriteRule, Limit or Path argument, or a null element of a List, throws NullPointerException.
 */
public final class Router implements AutoCloseable {
    /** The native handle, apart from the Router so that the Cleaner can free it without reaching the Router. */
    private static final class Handle implements Runnable {
        private Pointer pointer;
        private boolean closing; // set by close(): the Cleaner did not have to free this one

        Handle(Pointer pointer) {
            this.pointer = pointer;
        }

        @Override
        public void run() { // close(), under the write lock, or the Cleaner once the Router is unreachable
            Pointer p = pointer;
            pointer = null;
            if (p != null) {
                Native.lr_router_free(p);
                if (!closing) {
                    FREED_BY_CLEANER.incrementAndGet();
                }
            }
        }
    }

    /** The routers the Cleaner freed because nobody closed them (read by the tests). */
    static final AtomicLong FREED_BY_CLEANER = new AtomicLong();

    // The lock guards the handle, not the table (the library has its own snapshots): calls hold it for reading,
    // close() for writing, so a router is never freed under a running call.
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Handle handle;
    private final Cleaner.Cleanable cleanable;

    /** An empty router. UnsatisfiedLinkError when the library cannot be loaded or has another version. */
    public Router() {
        Native.requireLoaded();
        Pointer created;
        try (NativeText text = new NativeText()) {
            Memory out = text.cell();
            Native.check(Native.lr_router_new(out));
            created = out.getPointer(0);
        }
        handle = new Handle(created);
        cleanable = Native.CLEANER.register(this, handle);
    }

    /** lr_version_number() of the library loaded. */
    public static int libraryVersion() {
        Native.requireLoaded();
        return Native.lr_version_number();
    }

    /** The path of the library loaded. */
    public static String libraryPath() {
        Native.requireLoaded();
        return Native.LIBRARY_PATH;
    }

    /** The library's static text for a status code (lr_errstr), e.g. "no match". */
    public static String errstr(int code) {
        Native.requireLoaded();
        return Native.string(Native.lr_errstr(code));
    }

    /** A call on the open handle, under the read lock. */
    @FunctionalInterface
    private interface Call<T> {
        T run(Pointer router, NativeText text);
    }

    private <T> T call(Call<T> body) {
        lock.readLock().lock();
        try (NativeText text = new NativeText()) {
            Pointer p = handle.pointer;
            if (p == null) {
                throw new LinkRouterException(LinkRouterException.EMISUSE, "the router is closed");
            }
            return body.run(p, text);
        } finally {
            lock.readLock().unlock();
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Adds a route from {@code pattern} to {@code target} (any string; the router only hands it back). EPATTERN
     * (the message gives the byte offset, also in {@link LinkRouterException#offset()}), ECONFLICT (the message names
     * the existing pattern), ELIMIT, EINVAL.
     */
    public void add(String pattern, String target) {
        addRoute(pattern, target, null, null);
    }

    /**
     * Adds a route that also carries a name (unique in the router: {@link #buildUrl} finds the route by it) and
     * metadata, a JSON object whose values are strings ({@code {"transition":"push"}}): the route's meta, which its
     * matches report ({@link Match#meta()}). Either may be null. ECONFLICT for a name another route has; EINVAL for
     * metadata that is not such an object.
     */
    public void addRoute(String pattern, String target, String name, String metadata) {
        call((r, text) -> Native.check(Native.lr_router_add_route(r, text.string("pattern", pattern),
            text.string("target", target), text.string("name", name), text.string("metadata", metadata))));
    }

    /**
     * Adds routes at once, all or none: if one is refused the table is left exactly as it was, and the exception's
     * {@link LinkRouterException#index()} names it. Much faster than single adds for big tables.
     */
    public void addMany(List<Route> routes) {
        List<String> patterns = new ArrayList<>(routes.size());
        List<String> targets = new ArrayList<>(routes.size());
        for (Route route : routes) {
            patterns.add(route.pattern());
            targets.add(route.target());
        }
        call((r, text) -> addPairs(text, patterns, targets, "route %d: pattern", "route %d: target",
            (a, b, n, failed) -> Native.lr_router_add_many(r, a, b, n, failed)));
    }

    @FunctionalInterface
    private interface PairAdder {
        int add(Pointer firsts, Pointer seconds, long count, Pointer failedIndex);
    }

    /** lr_router_add_many and lr_router_add_rewrites: two string arrays, all or none, a failed index. */
    private static Void addPairs(NativeText text, List<String> firsts, List<String> seconds, String firstName,
                                 String secondName, PairAdder adder) {
        Pointer a = text.array(firsts, i -> String.format(firstName, i));
        Pointer b = text.array(seconds, i -> String.format(secondName, i));
        Memory failed = text.cell();
        failed.setLong(0, -1L);
        int rc = adder.add(a, b, firsts.size(), failed);
        if (rc < 0) {
            LinkRouterException e = Native.error(rc);
            long index = failed.getLong(0);
            if (index >= 0 && index < firsts.size()) {
                throw new LinkRouterException(e.code(), e.getMessage(), (int) index, e.offset());
            }
            throw e;
        }
        return null;
    }

    /** Removes the route that {@code pattern} would conflict with: ENOTFOUND when there is none. */
    public void remove(String pattern) {
        call((r, text) -> Native.check(Native.lr_router_remove(r, text.string("pattern", pattern))));
    }

    /** Removes every route; rewrite rules stay. */
    public void clear() {
        call((r, text) -> Native.check(Native.lr_router_clear(r)));
    }

    /** The number of routes. */
    public int count() {
        long n = call((r, text) -> {
            Memory out = text.cell();
            Native.check(Native.lr_router_count(r, out));
            return out.getLong(0);
        });
        if (n < 0 || n > Integer.MAX_VALUE) {
            throw new LinkRouterException(LinkRouterException.ELIMIT, "the route count " + Long.toUnsignedString(n)
                + " does not fit in an int");
        }
        return (int) n;
    }

    /** Whether {@code url} (after rewriting) matches a route. EINVAL (not absolute, not UTF-8), ELIMIT. */
    public boolean canRoute(String url) {
        return call((r, text) -> Native.check(Native.lr_router_can_route(r, text.string("url", url))) == 1);
    }

    /**
     * Rewrites {@code url}, matches it and returns the match; empty when no route matches. EINVAL for a URL that is
     * not absolute ("scheme:") or not UTF-8, ELIMIT past a limit.
     */
    public Optional<Match> resolve(String url) {
        return resolve(url, Map.of());
    }

    /**
     * {@link #resolve(String)} with extra parameters, which outrank path and query parameters (FFRouter's
     * "withParameters:"). Each name is in {@link Match#params()} once: an extra named like a path parameter or a
     * query key takes that parameter's place (with the extra's value); the other extras come after them, in the
     * map's iteration order.
     */
    public Optional<Match> resolve(String url, Map<String, String> extra) {
        List<String> names = new ArrayList<>(extra.size());
        List<String> values = new ArrayList<>(extra.size());
        for (Map.Entry<String, String> e : extra.entrySet()) {
            names.add(e.getKey());
            values.add(e.getValue());
        }
        return call((r, text) -> {
            Pointer u = text.string("url", url);
            Pointer n = text.array(names, i -> "extra " + i + ": name");
            Pointer v = text.array(values, i -> "extra " + i + ": value");
            Memory out = text.cell();
            int rc = Native.check(Native.lr_router_resolve_with(r, u, n, v, names.size(), out));
            return rc == LinkRouterException.OK ? Optional.of(Match.take(out.getPointer(0))) : Optional.empty();
        });
    }

    /** Sets a limit for the calls made after it: EMISUSE for a value out of its range (e.g. a zero length). */
    public void setLimit(Limit limit, long value) {
        if (value < 0) {
            throw new LinkRouterException(LinkRouterException.EMISUSE, "limit " + limit + ": negative value " + value);
        }
        call((r, text) -> Native.check(Native.lr_router_set_limit(r, limit.code, value)));
    }

    /** Reads a limit. */
    public long getLimit(Limit limit) {
        long value = call((r, text) -> {
            Memory out = text.cell();
            Native.check(Native.lr_router_get_limit(r, limit.code, out));
            return out.getLong(0);
        });
        if (value < 0) {
            throw new LinkRouterException(LinkRouterException.ELIMIT, "limit " + limit + " is "
                + Long.toUnsignedString(value) + ", more than a long holds");
        }
        return value;
    }

    /**
     * Adds a rewrite rule; a rule with the same regex gets the new template in place (keeping its position).
     * EREGEX (PCRE2's message and offset), EPATTERN (a bad template, with its offset), EINVAL.
     */
    public void addRewrite(String match, String target) {
        call((r, text) -> Native.check(Native.lr_router_add_rewrite(r, text.string("regex", match),
            text.string("template", target))));
    }

    /** Adds rules in order, all or none; the exception's {@link LinkRouterException#index()} names the refused one. */
    public void addRewrites(List<RewriteRule> rules) {
        List<String> matches = new ArrayList<>(rules.size());
        List<String> targets = new ArrayList<>(rules.size());
        for (RewriteRule rule : rules) {
            matches.add(rule.match());
            targets.add(rule.target());
        }
        call((r, text) -> addPairs(text, matches, targets, "rewrite rule %d: regex", "rewrite rule %d: template",
            (a, b, n, failed) -> Native.lr_router_add_rewrites(r, a, b, n, failed)));
    }

    /** Removes the rule whose regex is exactly {@code match}: ENOTFOUND when there is none. */
    public void removeRewrite(String match) {
        call((r, text) -> Native.check(Native.lr_router_remove_rewrite(r, text.string("regex", match))));
    }

    /** Removes every rewrite rule. */
    public void clearRewrites() {
        call((r, text) -> Native.check(Native.lr_router_clear_rewrites(r)));
    }

    /**
     * Applies the rewrite rules to {@code url}: the rewritten URL, or empty when no rule matches. {@code url} need not
     * be absolute: rules may turn "www.example.com/x" into an app URL.
     */
    public Optional<String> rewrite(String url) {
        return call((r, text) -> {
            Memory out = text.cell();
            int rc = Native.check(Native.lr_router_rewrite(r, text.string("url", url), out));
            if (rc != LinkRouterException.OK) {
                return Optional.empty();
            }
            return Optional.of(Native.take(out.getPointer(0)));
        });
    }

    // -- Route tables ------------------------------------------------------------------------------------------

    /** A router holding the route table document {@code text}: {@link TableException} when it has problems. */
    public static Router fromJson(String text) {
        Router router = new Router();
        try {
            router.loadJson(text, true);
        } catch (RuntimeException e) {
            router.close();
            throw e;
        }
        return router;
    }

    /** A router holding the route table file at {@code path}: {@link TableException}, or EIO when it cannot be read. */
    public static Router fromFile(String path) {
        Router router = new Router();
        try {
            router.loadFile(path, true);
        } catch (RuntimeException e) {
            router.close();
            throw e;
        }
        return router;
    }

    /** {@link #fromFile(String)} for a Path. */
    public static Router fromFile(Path path) {
        return fromFile(path.toString());
    }

    private static int loadFlags(boolean replace) {
        return replace ? Native.LOAD_REPLACE : Native.LOAD_MERGE;
    }

    /**
     * Loads the route table document {@code text}, all or nothing: with {@code replace}, its routes and rules replace
     * the router's; without, they are added (merge: a conflict with an existing route is a problem, a rule whose
     * regex exists gets the new target in place). Limits stay. A document with problems changes nothing and throws
     * {@link TableException} listing each (pointer, code, reason); EINVAL for text with a NUL character or a lone
     * surrogate, ELIMIT over 256 MiB. A resolve on another thread sees the old table or the new one, whole.
     */
    public void loadJson(String text, boolean replace) {
        try {
            call((r, t) -> {
                Memory bytes = t.bytes("text", text);
                return Native.check(Native.lr_router_load_json(r, bytes, NativeText.length(bytes), loadFlags(replace)));
            });
        } catch (TableException e) {
            throw withProblems(e, () -> checkJson(text, replace));
        }
    }

    /** {@link #loadJson} with the content of the file at {@code path}; also EIO when it cannot be read. */
    public void loadFile(String path, boolean replace) {
        try {
            call((r, t) -> Native.check(Native.lr_router_load_file(r, t.string("path", path), loadFlags(replace))));
        } catch (TableException e) {
            throw withProblems(e, () -> checkFile(path, replace));
        }
    }

    /** {@link #loadFile(String, boolean)} for a Path. */
    public void loadFile(Path path, boolean replace) {
        loadFile(path.toString(), replace);
    }

    /**
     * The load's exception with structured problems: the same document checked again lists them in the same order
     * and form (see {@link TableException#problems()}).
     */
    private static TableException withProblems(TableException e, java.util.function.Supplier<TableReport> check) {
        List<TableProblem> checked;
        try {
            checked = check.get().problems();
        } catch (LinkRouterException again) { // the file went away, say: the lines alone
            checked = List.of();
        }
        return new TableException(e.getMessage(), e.offset(), checked);
    }

    /**
     * Judges the document {@code text} as {@link #loadJson} would load it into this router, changing nothing. An
     * invalid document is a report ({@code valid()} false), not an exception; EINVAL and ELIMIT as loadJson.
     */
    public TableReport checkJson(String text, boolean replace) {
        return call((r, t) -> {
            Memory bytes = t.bytes("text", text);
            Memory out = t.cell();
            return report(Native.lr_router_check_json(r, bytes, NativeText.length(bytes), loadFlags(replace), out), out);
        });
    }

    /** {@link #checkJson} on the file at {@code path}; EIO when it cannot be read. */
    public TableReport checkFile(String path, boolean replace) {
        return call((r, t) -> {
            Memory out = t.cell();
            return report(Native.lr_router_check_file(r, t.string("path", path), loadFlags(replace), out), out);
        });
    }

    /** A check's report, which comes with LR_OK and with LR_ETABLE alike. */
    private static TableReport report(int rc, Memory out) {
        Pointer text = out.getPointer(0);
        if (text == null) {
            Native.check(rc);
            throw new LinkRouterException(LinkRouterException.EMISUSE, "the library wrote no check report");
        }
        return TableReport.parse(Native.take(text));
    }

    /** Runs a function that writes a string for the caller, and takes it. */
    @FunctionalInterface
    private interface TextCall {
        int run(Pointer router, NativeText text, Memory out);
    }

    private String text(TextCall body) {
        return call((r, t) -> {
            Memory out = t.cell();
            int rc = body.run(r, t, out);
            Pointer text = out.getPointer(0);
            String taken = text == null ? null : Native.take(text);
            Native.check(rc);
            return taken;
        });
    }

    /**
     * The router's table as a document: routes in the order added, then the rewrite rules; keys in a fixed order,
     * meta keys sorted, two-space indentation, a final newline. Loading it gives the same table, and exporting that
     * gives the same bytes.
     */
    public String toJson() {
        return text((r, t, out) -> Native.lr_router_to_json(r, out));
    }

    /**
     * Builds the URL of the route called {@code name} (reverse routing). Each key of {@code params} names one of the
     * pattern's parameters (":id" is "id", "*path" is "path") or, when it starts with "?", a query parameter ("?tab"
     * appends tab=..., in the map's iteration order: use a LinkedHashMap). Values are percent-encoded for their
     * place, so the URL resolves back to the same route and values. ENOTFOUND when no route has that name; EINVAL
     * for a missing, unknown or empty parameter, a value that does not fit its type, an optional group given in
     * part, or groups that would build a URL resolving to other values (the message says which; lr_router_build_url
     * in the header lists every case); ELIMIT past the URL length limit.
     */
    public String buildUrl(String name, Map<String, String> params) {
        List<String> names = new ArrayList<>(params.size());
        List<String> values = new ArrayList<>(params.size());
        for (Map.Entry<String, String> e : params.entrySet()) {
            names.add(e.getKey());
            values.add(e.getValue());
        }
        return text((r, t, out) -> Native.lr_router_build_url(r, t.string("name", name),
            t.array(names, i -> "parameter " + i + ": name"), t.array(values, i -> "parameter " + i + ": value"),
            names.size(), out));
    }

    /**
     * Explains what {@link #resolve} does with {@code url}: the rewrite rules tried, the match sequence, the candidate
     * routes and why each did or did not match, the winner and its parameters. A URL the library refuses to resolve
     * (not absolute, too long, ...) is an Explanation whose {@link Explanation#error()} says why, not an exception;
     * but a url the binding cannot pass to the library throws: one holding a NUL character or a lone surrogate is
     * EINVAL, null is EMISUSE. Slow: for debugging and tools.
     */
    public Explanation explain(String url) {
        return Explanation.parse(text((r, t, out) -> Native.lr_router_explain(r, t.string("url", url), out)));
    }

    /**
     * {@link #explain} as text for people, one fact per line ("url", "rewrite", "sequence", "result", the candidates,
     * "params", "requires", "meta"), as {@code linkrouter explain} prints it.
     */
    public String explainText(String url) {
        return text((r, t, out) -> Native.lr_router_explain_text(r, t.string("url", url), out));
    }

    /**
     * Frees the router, once the calls running on other threads are done. Matches it returned stay valid. Closing
     * twice is a no-op; any other call on a closed router throws EMISUSE.
     */
    @Override
    public void close() {
        lock.writeLock().lock();
        try {
            handle.closing = true;
            cleanable.clean();
        } finally {
            lock.writeLock().unlock();
        }
    }

    @Override
    public String toString() {
        try {
            int n = count();
            return "Router[" + n + (n == 1 ? " route]" : " routes]");
        } catch (LinkRouterException e) {
            return "Router[closed]";
        }
    }
}
