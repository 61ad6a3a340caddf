/*
 * fuzz_pattern.c -- target (b): the route pattern parser and registration.
 *
 * The input is split on '\n' into a pattern, a second pattern and a URL. On a router holding a few known routes:
 *   - lr_router_add(pattern) returns a documented code; a refusal leaves the count and every known answer as they
 *     were and comes with a readable message (the byte offset for LR_EPATTERN, the existing pattern for
 *     LR_ECONFLICT); on success the count grows by one, a URL written from the pattern routes (when the pattern
 *     is plain enough to write one), and lr_router_remove(pattern) takes it away again;
 *   - lr_router_add_many with the pattern among good ones is all or none and names the refused index;
 *   - lr_router_remove(second pattern) on arbitrary bytes never removes anything it should not;
 *   - the URL resolves afterwards with a documented code, and the known routes still answer.
 */
#include "fuzz_common.h"

static const char *const base[][2] = {
    {"app://user/:id", "User"},
    {"app://files/*path", "Files"},
    {"*://share/:id", "Share"},
    {"https://www.example.com/p/:id", "Product"},
};
#define NBASE (sizeof base / sizeof base[0])

static const char *const probes[][2] = {
    {"app://user/42", "User"},
    {"app://files/a/b", "Files"},
    {"zz://share/9", "Share"},
    {"https://WWW.example.com/p/7", "Product"},
};

/* The known routes answer as they did. Routes the fuzzed pattern adds may take precedence over them, so this
   runs only when the table holds exactly the known routes. */
static void check_base(lr_router *r, const char *when)
{
    size_t n = 0;
    FUZZ_CHECK(lr_router_count(r, &n) == LR_OK && n == NBASE, "%s: count %zu, expected %zu", when, n, NBASE);
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        lr_match *m = NULL;
        int rc = lr_router_resolve(r, probes[i][0], &m);
        FUZZ_CHECK(rc == LR_OK && strcmp(lr_match_target(m), probes[i][1]) == 0, "%s: %s gives %d (%s)", when,
                   probes[i][0], rc, rc == LR_OK ? lr_match_target(m) : "");
        lr_match_free(m);
    }
}

static int plain_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~';
}

/* A URL that the pattern must match, when every literal is plain enough to be written into a URL as is:
   ":name" becomes "v", ":name<int>" a value of its type, "*name" becomes "rest/of/it". Returns 0 when no such
   URL is written (in-segment "{name}" parameters, optional groups and character classes are not written). */
/* Elements of a URL as the segment limit counts them: the host (when not empty), then each path segment. A
   URL written from an accepted pattern may pass that limit where its catch-all takes several segments. */
static size_t url_segments(const char *u)
{
    const char *p = strstr(u, "://");
    if (!p) return 0;
    p += 3;
    const char *end = p + strcspn(p, "?#");
    const char *s = p;
    while (s < end && *s != '/') s++;
    size_t n = s > p;
    while (s < end) {
        while (s < end && *s == '/') s++;
        if (s >= end) break;
        n++;
        while (s < end && *s != '/') s++;
    }
    return n;
}

static int url_for(const char *pattern, char *out, size_t cap)
{
    const char *sep = strstr(pattern, "://");
    if (!sep || sep == pattern) return 0;
    size_t o = 0;
    for (const char *p = pattern; p < sep; p++) {
        if (!plain_byte((unsigned char)*p) && *p != '+' && !(*p >= 'A' && *p <= 'Z')) return 0;
        if (o + 1 >= cap) return 0;
        out[o++] = *p == '*' ? 'x' : *p;
    }
    if (*pattern == '*') { o = 0; out[o++] = 'x'; }
    if (o + 3 >= cap) return 0;
    memcpy(out + o, "://", 3);
    o += 3;
    const char *s = sep + 3;
    int first = 1;
    while (*s) {
        const char *e = strchr(s, '/');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len == 0) break; /* the trailing "/" */
        if (!first) { if (o + 1 >= cap) return 0; out[o++] = '/'; }
        const char *piece;
        size_t plen;
        const char *type = s[0] == ':' ? memchr(s, '<', len) : NULL;
        if (type) {
            /* a typed parameter: a value of its type, or no URL for a character class */
            size_t tl = len - (size_t)(type - s);
            if ((tl == 5 && memcmp(type, "<int>", 5) == 0) || (tl == 6 && memcmp(type, "<uint>", 6) == 0) ||
                (tl == 7 && memcmp(type, "<float>", 7) == 0)) { piece = "7"; plen = 1; }
            else if (tl == 6 && memcmp(type, "<slug>", 6) == 0) { piece = "v"; plen = 1; }
            else if (tl == 6 && memcmp(type, "<uuid>", 6) == 0) { piece = "00000000-0000-0000-0000-000000000000"; plen = 36; }
            else return 0;
        }
        else if (s[0] == ':') { piece = "v"; plen = 1; }
        else if (s[0] == '*') { piece = "rest/of/it"; plen = 10; }
        else {
            for (size_t k = 0; k < len; k++) if (!plain_byte((unsigned char)s[k])) return 0;
            piece = s;
            plen = len;
        }
        if (o + plen >= cap) return 0;
        memcpy(out + o, piece, plen);
        o += plen;
        first = 0;
        s += len;
        if (*s == '/') s++;
    }
    if (first) return 0; /* "app://": no host to write */
    out[o] = 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *piece[3] = {0};
    size_t pieces = fuzz_split(data, size, '\n', piece, 3);
    const char *pattern = piece[0];
    const char *other = pieces > 1 ? piece[1] : "app://user/:x";
    const char *url = pieces > 2 ? piece[2] : "app://user/1";

    lr_router *r;
    FUZZ_CHECK(lr_router_new(&r) == LR_OK, "lr_router_new");
    for (size_t i = 0; i < NBASE; i++) FUZZ_CHECK(lr_router_add(r, base[i][0], base[i][1]) == LR_OK, "base route");
    FUZZ_CHECK(lr_router_set_limit(r, LR_LIMIT_SEGMENTS, 16) == LR_OK, "set_limit");

    /* 1. Add the pattern. */
    int rc = lr_router_add(r, pattern, "Fuzzed");
    FUZZ_CHECK(rc == LR_OK || rc == LR_EPATTERN || rc == LR_ECONFLICT || rc == LR_ELIMIT || rc == LR_EINVAL,
               "lr_router_add returned undocumented %d", rc);
    size_t n = 0;
    FUZZ_CHECK(lr_router_count(r, &n) == LR_OK, "count");
    if (rc != LR_OK) {
        const char *e = lr_last_error();
        FUZZ_CHECK(e && *e && fuzz_valid_cstr(e), "refusal %d without a readable message", rc);
        if (rc == LR_EPATTERN) FUZZ_CHECK(strstr(e, "at byte ") != NULL, "LR_EPATTERN without an offset: %s", e);
        if (rc == LR_ECONFLICT) {
            int names_one = 0;
            for (size_t i = 0; i < NBASE; i++) {
                char quoted[128];
                snprintf(quoted, sizeof quoted, "'%s'", base[i][0]);
                if (strstr(e, quoted)) names_one = 1;
            }
            FUZZ_CHECK(names_one, "LR_ECONFLICT does not name the existing pattern: %s", e);
        }
        check_base(r, "after a refused add");
        /* The same pattern in a bulk add among good ones: refused too, at its index, nothing added. */
        const char *ps[] = {"bulk://a/1", "bulk://a/2", pattern, "bulk://a/3"};
        const char *ts[] = {"B1", "B2", "Fuzzed", "B3"};
        size_t failed = 99;
        int brc = lr_router_add_many(r, ps, ts, 4, &failed);
        FUZZ_CHECK(brc < 0, "add_many accepted a pattern that add refused (%d)", rc);
        FUZZ_CHECK(failed <= 3, "add_many failed_index %zu", failed);
        if (failed == 2) {
            FUZZ_CHECK(brc == rc, "add_many code %d, add %d", brc, rc);
            FUZZ_CHECK(strncmp(lr_last_error(), "route 2:", 8) == 0, "add_many message: %s", lr_last_error());
        }
        check_base(r, "after a refused add_many");
    } else {
        FUZZ_CHECK(n == NBASE + 1, "count %zu after a successful add", n);
        char u[512];
        if (url_for(pattern, u, sizeof u)) {
            lr_match *m = NULL;
            int urc = lr_router_resolve(r, u, &m);
            if (urc != LR_OK) fprintf(stderr, "pattern %s, url %s\n", pattern, u);
            FUZZ_CHECK(urc == LR_OK || (urc == LR_ELIMIT && url_segments(u) > 16),
                       "a URL written from the pattern does not route: %d", urc);
            lr_match_free(m);
        }
        /* Adding it again conflicts. */
        int again = lr_router_add(r, pattern, "Again");
        FUZZ_CHECK(again == LR_ECONFLICT, "adding the same pattern twice: %d", again);
        int rrc = lr_router_remove(r, pattern);
        FUZZ_CHECK(rrc == LR_OK, "removing a pattern just added: %d", rrc);
        check_base(r, "after add and remove");
        /* In a bulk add among good ones: accepted, all of them. */
        const char *ps[] = {"bulk://a/1", pattern, "bulk://a/2"};
        const char *ts[] = {"B1", "Fuzzed", "B2"};
        size_t failed = 99;
        int brc = lr_router_add_many(r, ps, ts, 3, &failed);
        FUZZ_CHECK(lr_router_count(r, &n) == LR_OK, "count");
        if (brc == LR_OK) {
            FUZZ_CHECK(n == NBASE + 3, "count %zu after a bulk add of 3", n);
            FUZZ_CHECK(lr_router_remove(r, "bulk://a/1") == LR_OK && lr_router_remove(r, "bulk://a/2") == LR_OK &&
                           lr_router_remove(r, pattern) == LR_OK,
                       "removing the bulk-added routes");
        } else {
            /* Only a clash with the bulk routes themselves can refuse it now. */
            FUZZ_CHECK(brc == LR_ECONFLICT && failed <= 2, "bulk add of an accepted pattern: %d at %zu", brc, failed);
            FUZZ_CHECK(n == NBASE, "count %zu after a refused bulk add", n);
        }
        check_base(r, "after bulk add and remove");
    }

    /* 2. Remove arbitrary bytes: only a known route may go, and then the count says so. */
    int rrc = lr_router_remove(r, other);
    FUZZ_CHECK(rrc == LR_OK || rrc == LR_ENOTFOUND || rrc == LR_EPATTERN || rrc == LR_ELIMIT || rrc == LR_EINVAL,
               "lr_router_remove returned undocumented %d", rrc);
    FUZZ_CHECK(lr_router_count(r, &n) == LR_OK, "count");
    FUZZ_CHECK(n == (rrc == LR_OK ? NBASE - 1 : NBASE), "count %zu after remove returned %d", n, rrc);
    if (rrc < 0) FUZZ_CHECK(*lr_last_error(), "remove refused without a message");
    if (rrc == LR_OK) {
        /* Put it back by re-adding whichever base route is missing. */
        for (size_t i = 0; i < NBASE; i++) lr_router_add(r, base[i][0], base[i][1]);
    }
    check_base(r, "after remove");

    /* 3. The URL, against the table with the fuzzed pattern in it. */
    rc = lr_router_add(r, pattern, "Fuzzed");
    lr_match *m = NULL;
    int urc = lr_router_resolve(r, url, &m);
    FUZZ_CHECK(urc == LR_OK || urc == LR_NOMATCH || urc == LR_EINVAL || urc == LR_ELIMIT,
               "resolve returned undocumented %d", urc);
    if (urc == LR_OK) {
        const char *t = lr_match_target(m);
        int known = strcmp(t, "Fuzzed") == 0;
        for (size_t i = 0; i < NBASE; i++) known |= strcmp(t, base[i][1]) == 0;
        FUZZ_CHECK(known, "resolve answered an unknown target %s", t);
        if (strcmp(t, "Fuzzed") == 0) FUZZ_CHECK(strcmp(lr_match_pattern(m), pattern) == 0, "pattern differs");
    }
    lr_match_free(m);
    if (rc == LR_OK) FUZZ_CHECK(lr_router_remove(r, pattern) == LR_OK, "remove after the URL");
    check_base(r, "at the end");

    /* 4. Extremes: the pattern with every limit at its maximum (a short pattern is never refused for a limit
       then), the second line as a name and metadata, and the URL through the resolve paths of that router. */
    static const struct { int limit; size_t max; } maxima[] = {
        {LR_LIMIT_URL_LENGTH, (size_t)1 << 30}, {LR_LIMIT_SEGMENTS, (size_t)1 << 20}, {LR_LIMIT_PARAMS, (size_t)1 << 24},
        {LR_LIMIT_NESTING, 256},
    };
    for (size_t i = 0; i < sizeof maxima / sizeof maxima[0]; i++)
        FUZZ_CHECK(lr_router_set_limit(r, maxima[i].limit, maxima[i].max) == LR_OK, "limit %d at its maximum",
                   maxima[i].limit);
    rc = lr_router_add_route(r, pattern, "Maxed", other, other);
    FUZZ_CHECK(rc == LR_OK || rc == LR_EPATTERN || rc == LR_ECONFLICT || rc == LR_EINVAL,
               "lr_router_add_route with the limits at their maxima returned %d", rc);
    m = NULL;
    urc = lr_router_resolve(r, url, &m);
    FUZZ_CHECK(urc == LR_OK || urc == LR_NOMATCH || urc == LR_EINVAL, "resolve with the limits at their maxima: %d", urc);
    if (urc == LR_OK) {
        char *json = NULL;
        FUZZ_CHECK(lr_match_to_json(m, &json) == LR_OK && fuzz_valid_json_object(json), "JSON");
        lr_string_free(json);
    }
    lr_match_free(m);
    lr_router_free(r);
    for (size_t i = 0; i < pieces; i++) free(piece[i]);
    return 0;
}
