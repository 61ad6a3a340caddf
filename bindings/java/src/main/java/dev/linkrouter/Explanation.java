package dev.linkrouter;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What {@link Router#explain} reports about a URL: lr_router_explain's JSON, decoded. The parts most often read are
 * methods; {@link #asMap()} has everything (each rewrite rule's outcome, for one), {@link #json()} the text.
 */
public final class Explanation {
    /** A route looked at: whether it matches, and why not ("segment 1 'p' is not 'c'"). */
    public record Candidate(String pattern, String target, Optional<String> name, boolean matched, String reason,
                            long elementsMatched) {
    }

    /** The winning route. */
    public record Route(String pattern, String target, Optional<String> name, List<String> requires,
                        Map<String, String> meta) {
    }

    private final Map<String, Object> doc;
    private final String json;

    private Explanation(Map<String, Object> doc, String json) {
        this.doc = doc;
        this.json = json;
    }

    @SuppressWarnings("unchecked")
    static Explanation parse(String json) {
        return new Explanation((Map<String, Object>) Json.parse(json), json);
    }

    /** The URL explained, as given. */
    public String url() {
        return (String) doc.get("url");
    }

    /** "matched", "nomatch", or "error" (the URL is refused: see {@link #error()}). */
    public String result() {
        return (String) doc.get("result");
    }

    /** Whether a route matches. */
    public boolean matched() {
        return "matched".equals(result());
    }

    /** The exception {@link Router#resolve} would throw for a refused URL; empty otherwise. */
    @SuppressWarnings("unchecked")
    public Optional<LinkRouterException> error() {
        Object error = doc.get("error");
        if (!(error instanceof Map)) {
            return Optional.empty();
        }
        Map<String, Object> e = (Map<String, Object>) error;
        return Optional.of(new LinkRouterException(((Long) e.get("code")).intValue(), (String) e.get("message")));
    }

    /** The index of the rewrite rule that fired; empty when none did. */
    @SuppressWarnings("unchecked")
    public Optional<Integer> firedRule() {
        Object fired = ((Map<String, Object>) doc.get("rewrite")).get("fired");
        return fired instanceof Long n ? Optional.of(n.intValue()) : Optional.empty();
    }

    /** The URL after rewriting. */
    public String routed() {
        return (String) doc.get("routed");
    }

    /** The host and segments matched, decoded. */
    @SuppressWarnings("unchecked")
    public List<String> sequence() {
        return (List<String>) doc.get("sequence");
    }

    /**
     * The routes with the URL's scheme (or "*"), at most 20: the winner first, then routes that match but are
     * outranked, then the others by how far they got, each with its first difference.
     */
    @SuppressWarnings("unchecked")
    public List<Candidate> candidates() {
        List<Candidate> out = new ArrayList<>();
        for (Object item : (List<Object>) doc.get("candidates")) {
            Map<String, Object> c = (Map<String, Object>) item;
            out.add(new Candidate((String) c.get("pattern"), (String) c.get("target"),
                Optional.ofNullable((String) c.get("name")), (Boolean) c.get("matched"), (String) c.get("reason"),
                (Long) c.get("elements_matched")));
        }
        return Collections.unmodifiableList(out);
    }

    /** The candidates left out past the first 20. */
    public long candidatesOmitted() {
        return (Long) doc.get("candidates_omitted");
    }

    /** The routes with another scheme, never candidates. */
    public long otherSchemeRoutes() {
        return (Long) doc.get("other_scheme_routes");
    }

    /** The winning route; empty when none matches. */
    @SuppressWarnings("unchecked")
    public Optional<Route> route() {
        Object route = doc.get("route");
        if (!(route instanceof Map)) {
            return Optional.empty();
        }
        Map<String, Object> r = (Map<String, Object>) route;
        return Optional.of(new Route((String) r.get("pattern"), (String) r.get("target"),
            Optional.ofNullable((String) r.get("name")), (List<String>) r.get("requires"),
            (Map<String, String>) r.get("meta")));
    }

    /** The merged parameters (extra > path > query), raw keys, in the library's order. */
    @SuppressWarnings("unchecked")
    public Map<String, String> params() {
        return Collections.unmodifiableMap(new LinkedHashMap<>((Map<String, String>) doc.get("params")));
    }

    /** The guards the winning route requires, in the order they run. */
    @SuppressWarnings("unchecked")
    public List<String> requires() {
        return (List<String>) doc.get("requires");
    }

    /** The whole explanation as maps, lists, strings, numbers and booleans (the JSON's keys). */
    public Map<String, Object> asMap() {
        return doc;
    }

    /** The library's JSON, as it wrote it. */
    public String json() {
        return json;
    }

    @Override
    public String toString() {
        return "Explanation[" + url() + ": " + result() + "]";
    }
}
