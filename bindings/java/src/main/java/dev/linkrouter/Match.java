package dev.linkrouter;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The result of {@link Router#resolve}: its fields are copied out of the library's lr_match through the getters;
 * immutable, it outlives its router and may be shared between threads. The library's JSON of the match
 * ({@link #json()}, {@link #nestedParams()}) is made on first use from the lr_match, which the Match keeps until then
 * (freed as soon as the JSON is made, or by a Cleaner when the Match is dropped without asking); when the routed URL
 * holds "%00", {@link #params()} needs the JSON, which is then made at once.
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

        long count = Native.lr_match_param_count(m);
        if (count > Integer.MAX_VALUE) {
            throw new LinkRouterException(LinkRouterException.ELIMIT, "the match's parameter count " + count
                + " is more than the binding takes");
        }
        int n = (int) count;
        Pointer[] cNames = new Pointer[n];
        Pointer[] cValues = new Pointer[n];
        String[] names = new String[n];
        String[] values = new String[n];
        for (int i = 0; i < n; i++) {
            cNames[i] = Native.lr_match_param_name(m, i);
            cValues[i] = Native.lr_match_param_value(m, i);
            names[i] = orEmpty(cNames[i]);
            values[i] = orEmpty(cValues[i]);
        }
        boolean[] kept = new boolean[n];
        String madeJson = keptParams(m, rewritten, pattern, cNames, cValues, names, values, kept);
        Map<String, String> merged = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            if (kept[i]) { // params agrees with lr_match_get (see keptParams)
                merged.put(names[i], values[i]);
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
        if (madeJson != null) { // the JSON view is made already: the lr_match is not needed any more
            synchronized (this) {
                json = madeJson;
            }
            cleanable.clean();
        }
    }

    /** The lr_match_get calls keptParams made (read by the tests). */
    static final AtomicLong MATCH_GET_CALLS = new AtomicLong();

    /**
     * How many name comparisons keptParams lets lr_match_get make (one call compares up to every parameter's name):
     * below it, for a URL holding "%00", a call per name costs less than the match's JSON (about a microsecond per
     * query pair). The tests set it to 0 to read every such match through the JSON.
     */
    static volatile long lookupBudget = 1 << 16;

    /**
     * Marks in {@code kept} the merged parameters params keeps: the ones lr_match_get finds by their names, in
     * O(parameters). (An lr_match_get per parameter, as the binding did first, costs O(parameters^2): found by review,
     * ~230 ms for 10,000 parameters where C takes 1.3 ms.) Merged names are unique, and lr_match_get finds every one
     * but a name holding a NUL, which a query key decoded from %00 does: its C string ends at the NUL
     * ({@code ?id%00=evil} gives "id") and must not take the place of the parameter whose whole name that is, nor
     * stand for a name no parameter has. Path parameter names are pattern text and extras C strings, so a name can
     * only hold a NUL when the routed URL holds "%00": else every parameter is kept. When it does, the match's JSON,
     * whose "query" lists every pair whole, tells which names hold a NUL ({@link NulNames}), and it is returned, made
     * once for the Match's JSON view (else null); for a small match, an lr_match_get per name is cheaper (see
     * {@link #lookupBudget}) and gives the answer directly. Among parameters that share a C string name, the one
     * whose whole name it is has the place SPEC §4 gives it: a path parameter's, a query key's by first appearance (an
     * extra of that name takes it over), or an extra's, last. lr_match_get decides where that place is not known:
     * when the name may be a path parameter's (at most one call per parameter name of the pattern, however long the
     * URL), or when the values are not the ones expected (never, by the library's rules).
     */
    private static String keptParams(Pointer m, String routed, String pattern, Pointer[] cNames, Pointer[] cValues,
                                     String[] names, String[] values, boolean[] kept) {
        if (!routed.contains("%00")) {
            for (int i = 0; i < kept.length; i++) {
                kept[i] = cNames[i] != null && cValues[i] != null;
            }
            return null;
        }
        // The parameters of each C string name, in merged order.
        Map<String, List<Integer>> groups = new LinkedHashMap<>();
        for (int i = 0; i < names.length; i++) {
            groups.computeIfAbsent(names[i], k -> new ArrayList<>()).add(i);
        }
        String text = null;
        NulNames nul = null;
        if ((long) groups.size() * names.length > lookupBudget) {
            text = matchJson(m);
            nul = text == null ? null : NulNames.read(text);
        }
        Set<String> pathNames = null; // made when first needed
        for (Map.Entry<String, List<Integer>> group : groups.entrySet()) {
            String name = group.getKey();
            List<Integer> members = group.getValue();
            if (nul != null) {
                int nulCount = nul.values.getOrDefault(name, List.of()).size();
                if (pathNames == null && nulCount > 0 && members.size() > nulCount) {
                    pathNames = pathNameCandidates(pattern);
                }
                int owner = nul.owner(name, members, values, pathNames);
                if (owner != NulNames.UNKNOWN) {
                    if (owner >= 0) {
                        int i = members.get(owner);
                        kept[i] = cNames[i] != null && cValues[i] != null;
                    }
                    continue;
                }
            }
            MATCH_GET_CALLS.incrementAndGet();
            int first = members.get(0);
            Pointer found = cNames[first] == null ? null : Native.lr_match_get(m, cNames[first]);
            for (int i : members) {
                kept[i] = found != null && found.equals(cValues[i]);
            }
        }
        return nul == null ? null : text;
    }

    /** lr_match_to_json's text of m; null when the library could not make it. */
    private static String matchJson(Pointer m) {
        try (Memory out = new Memory(8)) {
            out.clear();
            int rc = Native.lr_match_to_json(m, out);
            Pointer text = out.getPointer(0);
            if (text == null) {
                return null;
            }
            String taken = Native.take(text);
            return rc < 0 ? null : taken;
        }
    }

    /**
     * The merged parameters whose names hold a NUL, read from the match's JSON: the distinct query keys that hold one
     * (no path parameter or extra can have such a name, so none is replaced or dropped), in their merged order, by
     * first appearance. Names and values are as the getters give them, up to the first NUL.
     */
    private static final class NulNames {
        static final int UNKNOWN = -2;

        /** By C string name: the last value of each such key, in merged order. */
        final Map<String, List<String>> values = new HashMap<>();
        /** For a query key without a NUL: how many such keys of its C string name came first. */
        final Map<String, Integer> before = new HashMap<>();

        /** The names read from a match's JSON; null when the text is not one. */
        static NulNames read(String text) {
            Map<String, String> last = new LinkedHashMap<>(); // keys keep their first appearance's place
            try {
                Object doc = Json.parse(text);
                Object query = doc instanceof Map<?, ?> map ? map.get("query") : null;
                if (!(query instanceof List<?> pairs)) {
                    return null;
                }
                for (Object pair : pairs) {
                    if (!(pair instanceof List<?> kv) || kv.size() != 2 || !(kv.get(0) instanceof String key)
                        || !(kv.get(1) instanceof String value)) {
                        return null;
                    }
                    last.put(key, value);
                }
            } catch (IllegalArgumentException e) {
                return null;
            }
            NulNames out = new NulNames();
            for (Map.Entry<String, String> e : last.entrySet()) {
                String name = cPrefix(e.getKey());
                List<String> named = out.values.computeIfAbsent(name, k -> new ArrayList<>());
                if (name.length() != e.getKey().length()) {
                    named.add(cPrefix(e.getValue()));
                } else {
                    out.before.put(name, named.size());
                }
            }
            return out;
        }

        /**
         * Finds, among the parameters {@code members} (in merged order) that share the C string {@code name}, the one
         * whose whole name that is: its position in members, -1 when every name holds a NUL, or UNKNOWN when it
         * cannot say: the name may be a path parameter's ({@code pathNames}), or the values are not the ones expected.
         */
        int owner(String name, List<Integer> members, String[] paramValues, Set<String> pathNames) {
            List<String> nulValues = values.getOrDefault(name, List.of());
            int owner;
            if (nulValues.isEmpty() && members.size() == 1) {
                return 0;
            } else if (members.size() == nulValues.size()) {
                owner = -1;
            } else if (members.size() == nulValues.size() + 1 && pathNames != null && !pathNames.contains(name)) {
                // A query key's place, or an extra's, after every query key.
                owner = before.getOrDefault(name, nulValues.size());
            } else {
                return UNKNOWN;
            }
            int j = 0;
            for (int k = 0; k < members.size(); k++) {
                if (k == owner) {
                    continue;
                }
                if (!paramValues[members.get(k)].equals(nulValues.get(j))) {
                    return UNKNOWN;
                }
                j++;
            }
            return owner;
        }
    }

    /** s up to its first NUL: what a C string of it reads. */
    private static String cPrefix(String s) {
        int at = s.indexOf('\0');
        return at < 0 ? s : s.substring(0, at);
    }

    /**
     * The names a path parameter of {@code pattern} can have, and perhaps a few more: each run of name characters
     * (ASCII letters, digits, '_') after a ':', '{' or '*', and "*" (a bare catch-all's name).
     */
    private static Set<String> pathNameCandidates(String pattern) {
        Set<String> out = new HashSet<>();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c != ':' && c != '{' && c != '*') {
                continue;
            }
            int j = i + 1;
            while (j < pattern.length() && isNameChar(pattern.charAt(j))) {
                j++;
            }
            if (j > i + 1) {
                out.add(pattern.substring(i + 1, j));
            } else if (c == '*') {
                out.add("*");
            }
        }
        return out;
    }

    private static boolean isNameChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
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
     * library's: path parameters in pattern order, then query keys by first appearance, then extras. A query key
     * decoded from %00 holds a NUL, where the getters' C strings end: it is left out, as lr_match_get cannot find it
     * ({@code ?id%00=x} never stands for id); {@link #json()} has it whole.
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
