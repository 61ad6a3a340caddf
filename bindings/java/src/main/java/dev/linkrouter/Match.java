package dev.linkrouter;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The result of {@link Router#resolve}, copied out of the library's lr_match (which is freed at once): immutable,
 * it outlives its router and may be shared between threads.
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
    private final Map<String, String> params;
    private final List<Param> query;
    private final String json;

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

        Map<String, String> merged = new LinkedHashMap<>();
        long count = Native.lr_match_param_count(m);
        for (long i = 0; i < count; i++) {
            merged.put(orEmpty(Native.lr_match_param_name(m, i)), orEmpty(Native.lr_match_param_value(m, i)));
        }
        params = Collections.unmodifiableMap(merged);
        List<Param> pairs = new ArrayList<>();
        count = Native.lr_match_query_count(m);
        for (long i = 0; i < count; i++) {
            pairs.add(new Param(orEmpty(Native.lr_match_query_name(m, i)), orEmpty(Native.lr_match_query_value(m, i))));
        }
        query = Collections.unmodifiableList(pairs);

        try (Memory out = new Memory(8)) {
            out.clear();
            Native.check(Native.lr_match_to_json(m, out));
            json = Native.take(out.getPointer(0));
        }
    }

    /** Copies m and frees it, whatever happens. Called on the thread that resolved (errors are per thread). */
    static Match take(Pointer m) {
        try {
            return new Match(m);
        } finally {
            Native.lr_match_free(m);
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

    /** The host, lower-cased, without userinfo and port; "" when none. */
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

    /** The route's name ({@link Router#addRoute}), empty when it has none. */
    public Optional<String> name() {
        return Optional.ofNullable(name);
    }

    /** The route's metadata ({@link Router#addRoute}), empty when it has none. */
    public Optional<String> metadata() {
        return Optional.ofNullable(metadata);
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

    /** The match as lr_match_to_json writes it; its "params" nests bracket keys. */
    public String json() {
        return json;
    }

    /**
     * The "params" object of {@link #json()}: the merged parameters with bracket keys nested, as the library builds
     * them ({@code info[nickname]=x&tags[]=a} gives {@code {info={nickname=x}, tags=[a]}}). Values are String,
     * List and Map, in the library's order.
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> nestedParams() {
        Object doc = Json.parse(json);
        if (!(doc instanceof Map)) {
            throw new IllegalStateException("lr_match_to_json gave no object: " + json);
        }
        Object nested = ((Map<String, Object>) doc).get("params");
        return nested instanceof Map ? (Map<String, Object>) nested : Map.of();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Match m && json.equals(m.json);
    }

    @Override
    public int hashCode() {
        return Objects.hash(json);
    }

    @Override
    public String toString() {
        return "Match[" + target + " " + params + "]";
    }
}
