package dev.linkrouter;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The result of {@link Router#resolve}: its fields are copied out of the library's lr_match through the getters;
 * immutable, it outlives its router and may be shared between threads. The library's JSON of the match
 * ({@link #json()}, {@link #nestedParams()}) is made on first use from the lr_match, which the Match keeps until then
 * (freed as soon as the JSON is made, or by a Cleaner when the Match is dropped without asking).
 */
public final class Match {
    private final String target;
    private final String pattern;
    private final String url;
    private final String rewritten;
    private final String scheme;
    private final String host;
    private final String port;
    private final String path;
    private final String fragment;
    private final String name;
    private final String metadata;
    private final Map<String, String> meta;
    private final List<String> requires;
    private final long routeId;
    private final Map<String, String> params;
    private final List<Param> query;

    /** The lr_match, held for the JSON view until it is made; the Cleaner's action. */
    private static final class Held implements Runnable {
        private volatile Pointer pointer;

        Held(Pointer pointer) {
            this.pointer = pointer;
            LIVE_NATIVE.incrementAndGet();
        }

        @Override
        public void run() { // once: by json(), or by the Cleaner once the Match is unreachable
            Pointer p = pointer;
            pointer = null;
            if (p != null) {
                Native.lr_match_free(p);
                LIVE_NATIVE.decrementAndGet();
            }
        }
    }

    /** The lr_matches Match objects hold (read by the tests: it comes back down once matches are collected). */
    static final AtomicLong LIVE_NATIVE = new AtomicLong();

    private final Held held;
    private final Cleaner.Cleanable cleanable;
    private String json; // guarded by this

    private Match(Pointer m) {
        target = Native.string(Native.lr_match_target(m));
        pattern = Native.string(Native.lr_match_pattern(m));
        url = Native.string(Native.lr_match_url(m));
        rewritten = Native.string(Native.lr_match_rewritten(m));
        scheme = Native.string(Native.lr_match_scheme(m));
        host = Native.string(Native.lr_match_host(m));
        port = Native.string(Native.lr_match_port(m));
        path = Native.string(Native.lr_match_path(m));
        fragment = Native.string(Native.lr_match_fragment(m));
        name = Native.string(Native.lr_match_name(m));
        metadata = Native.string(Native.lr_match_metadata(m));
        routeId = Integer.toUnsignedLong(Native.lr_match_route_id(m));

        Map<String, String> merged = new LinkedHashMap<>();
        long count = Native.lr_match_param_count(m);
        for (long i = 0; i < count; i++) {
            // A name decoded from %00 ends at its NUL in the getters: only the parameter lr_match_get finds by that
            // name is kept under it, so that ?id%00=x never takes the place of the path's id.
            Pointer pname = Native.lr_match_param_name(m, i), pvalue = Native.lr_match_param_value(m, i);
            if (pname != null && pvalue != null && pvalue.equals(Native.lr_match_get(m, pname))) {
                merged.put(Native.string(pname), Native.string(pvalue));
            }
        }
        params = Collections.unmodifiableMap(merged);
        List<Param> pairs = new ArrayList<>();
        count = Native.lr_match_query_count(m);
        for (long i = 0; i < count; i++) {
            pairs.add(new Param(orEmpty(Native.lr_match_query_name(m, i)), orEmpty(Native.lr_match_query_value(m, i))));
        }
        query = Collections.unmodifiableList(pairs);
        Map<String, String> keyValues = new LinkedHashMap<>();
        count = Native.lr_match_meta_count(m);
        for (long i = 0; i < count; i++) {
            keyValues.put(orEmpty(Native.lr_match_meta_name(m, i)), orEmpty(Native.lr_match_meta_value(m, i)));
        }
        meta = Collections.unmodifiableMap(keyValues);
        List<String> guards = new ArrayList<>();
        count = Native.lr_match_requires_count(m);
        for (long i = 0; i < count; i++) {
            guards.add(orEmpty(Native.lr_match_requires(m, i)));
        }
        requires = Collections.unmodifiableList(guards);

        held = new Held(m);
        cleanable = Native.CLEANER.register(this, held);
    }

    /** A Match owning m (for its JSON view); m is freed here when reading its fields fails. */
    static Match take(Pointer m) {
        try {
            return new Match(m);
        } catch (RuntimeException | Error e) {
            Native.lr_match_free(m);
            throw e;
        }
    }

    // Within the counts the getters never give NULL; a NULL reads as "" rather than failing later.
    private static String orEmpty(Pointer p) {
        String s = Native.string(p);
        return s == null ? "" : s;
    }

    /** The target the route was added with. */
    public String target() {
        return target;
    }

    /** The route's pattern as it was added. */
    public String pattern() {
        return pattern;
    }

    /** The URL as given. */
    public String url() {
        return url;
    }

    /** The URL after rewriting: the same as {@link #url()} when no rule fired. */
    public String rewritten() {
        return rewritten;
    }

    /** The scheme of the routed URL, lower-cased. */
    public String scheme() {
        return scheme;
    }

    /** The host the routes compared: percent-decoded, lower-cased, without userinfo and port; "" when none. */
    public String host() {
        return host;
    }

    /** The port's digits, "" when none. */
    public String port() {
        return port;
    }

    /** The path as written, not decoded. */
    public String path() {
        return path;
    }

    /** The fragment as written, "" when none; the fragment is never routed. */
    public String fragment() {
        return fragment;
    }

    /** The route's name ({@link Router#addRoute}, a table's "name"), empty when it has none. */
    public Optional<String> name() {
        return Optional.ofNullable(name);
    }

    /**
     * The route's meta as one JSON object with sorted keys (lr_match_metadata), empty when it has none;
     * {@link #meta()} is the same as a map.
     */
    public Optional<String> metadata() {
        return Optional.ofNullable(metadata);
    }

    /** The route's meta (string key/values), sorted by key; empty when it has none. */
    public Map<String, String> meta() {
        return meta;
    }

    /** The guards the route requires, in the order they run; empty when none. */
    public List<String> requires() {
        return requires;
    }

    /** The route's id: its insertion number in its router, never reused (a uint32). */
    public long routeId() {
        return routeId;
    }

    /**
     * The merged parameters (extra > path > query), each name once, with raw keys: the query pair
     * {@code info[nickname]=x} gives the key {@code "info[nickname]"} (lr_match_get's view). Iteration order is the
     * library's: path parameters in pattern order, then query keys by first appearance, then extras.
     */
    public Map<String, String> params() {
        return params;
    }

    /** The value of merged parameter {@code name}, if present. */
    public Optional<String> get(String name) {
        return Optional.ofNullable(params.get(name));
    }

    /** Every query pair of the routed URL in order, repeated keys included, decoded. */
    public List<Param> query() {
        return query;
    }

    /**
     * The match as lr_match_to_json writes it, made on first use (the same bytes for every language); its "params"
     * nests bracket keys.
     */
    public synchronized String json() {
        if (json == null) {
            try (Memory out = new Memory(8)) {
                out.clear();
                Native.check(Native.lr_match_to_json(held.pointer, out));
                json = Native.take(out.getPointer(0));
            } finally {
                Reference.reachabilityFence(this); // the Cleaner may not free the lr_match during the call
            }
            cleanable.clean();
        }
        return json;
    }

    /**
     * The "params" object of {@link #json()}: the merged parameters with bracket keys nested, as the library builds
     * them ({@code info[nickname]=x&tags[]=a} gives {@code {info={nickname=x}, tags=[a]}}). Values are String,
     * List and Map, in the library's order.
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> nestedParams() {
        String text = json();
        Object doc = Json.parse(text);
        if (!(doc instanceof Map)) {
            throw new IllegalStateException("lr_match_to_json gave no object: " + text);
        }
        Object nested = ((Map<String, Object>) doc).get("params");
        return nested instanceof Map ? (Map<String, Object>) nested : Map.of();
    }

    /** Matches are equal when the library writes the same JSON of them. */
    @Override
    public boolean equals(Object other) {
        return other instanceof Match m && json().equals(m.json());
    }

    @Override
    public int hashCode() {
        return Objects.hash(json());
    }

    @Override
    public String toString() {
        return "Match[" + target + " " + params + "]";
    }
}
