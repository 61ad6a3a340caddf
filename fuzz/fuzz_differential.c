/*
 * fuzz_differential.c -- target (d): the router against a reference matcher written here, from
 * docs/SEMANTICS.md §1-3 and nothing else.
 *
 * The input's bytes choose a small route table (up to 8 patterns built from a pool of schemes, literals,
 * :params and catch-alls) and a URL (built from a pool of tokens chosen to hit the interesting rules: case,
 * percent-escapes good and bad, %2F, ports, userinfo, empty segments, query, fragment, invalid UTF-8).
 * The reference is deliberately simple -- no trie: for every route it checks whether the route matches the URL's
 * match sequence, and among the routes that match it picks the best by comparing, position by position,
 *     scheme: a named scheme (0) before "*" (1);
 *     each segment: a "host:port" literal (0), a literal (1), a parameter (2 + its rule's rank, below), a
 *     catch-all (9);
 * Parameters come from a pool of rules (SEMANTICS §2-3), ranked as the precedence order says -- more literal
 * bytes first, then the narrower type, untyped last: "{p}.png" (0), "v{p}" (1), ":p<uint>" (2), ":p<int>" (3),
 * ":p<[a-c]+>" (4), ":p" (5). A rule that does not accept the element fails the route at that place.
 * lexicographically, a route that ends where the URL ends before one that goes on with a catch-all. That is
 * exactly what "literal > :param > *, with backtracking, scheme before *://" means: depth-first search in that
 * order returns the lexicographically smallest matching route. Two routes with the same key would conflict, so
 * the answer is unique.
 * Checked: every lr_router_add's code (LR_ECONFLICT exactly when the reference says two patterns match the same
 * URLs); for the URL, the status, the route's pattern, the path parameters (decoded values; the catch-all
 * undecoded, joined with "/"), and the query pairs (decoded, empty pieces skipped, path keys dropped), through
 * lr_router_resolve_into; and the target, pattern and merged parameters through lr_router_resolve.
 * Any disagreement prints both answers and aborts.
 */
#include <stddef.h>

#include "fuzz_common.h"

/* ------------------------------------------------------------------------------------------------------------
 * Byte strings
 * ------------------------------------------------------------------------------------------------------------ */

typedef struct { char b[1024]; size_t n; } bstr;

static void bset(bstr *s, const char *p, size_t n)
{
    if (n > sizeof s->b) n = sizeof s->b;
    memcpy(s->b, p, n);
    s->n = n;
}

static void bappend(bstr *s, const char *p, size_t n)
{
    if (s->n + n > sizeof s->b) n = sizeof s->b - s->n;
    memcpy(s->b + s->n, p, n);
    s->n += n;
}

static int beq(const bstr *a, const char *p, size_t n) { return a->n == n && (n == 0 || memcmp(a->b, p, n) == 0); }

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c; }

static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* SEMANTICS §1: percent-decoded; when an escape is malformed or the result is not UTF-8, kept as written. */
static void decode(bstr *out, const char *p, size_t n)
{
    out->n = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] != '%') {
            out->b[out->n++] = p[i];
            continue;
        }
        if (i + 2 >= n) { bset(out, p, n); return; } /* fewer than two bytes after '%' */
        int hi = hexval(p[i + 1]), lo = hexval(p[i + 2]);
        if (hi < 0 || lo < 0) { bset(out, p, n); return; }
        out->b[out->n++] = (char)(hi * 16 + lo);
        i += 2;
    }
    if (!utf8_valid((const unsigned char *)out->b, out->n)) bset(out, p, n);
}

/* ------------------------------------------------------------------------------------------------------------
 * Patterns (SEMANTICS §2), as the generator builds them: always well-formed.
 * ------------------------------------------------------------------------------------------------------------ */

enum kind { LIT, PARAM, CATCH };

typedef struct {
    char text[256];   /* the pattern as added */
    char target[16];
    int any_scheme;   /* "*://" */
    char scheme[8];   /* lower-cased */
    int nseg;
    enum kind kind[6];
    int rule[6];      /* PARAM: its rule (see rule_text), RULE_PLAIN for ":name" */
    bstr lit[6];      /* decoded; lower-cased in the host position */
    char name[6][8];  /* parameter names, "*" for a bare catch-all */
    int added;
} route;

static const char *const schemes[] = {"app", "web", "*", "App"};

/* The parameter rules, in precedence order (their index is their rank); %s is the parameter's name. */
static const char *const rule_text[] = {"{%s}.png", "v{%s}", ":%s<uint>", ":%s<int>", ":%s<[a-c]+>", ":%s"};
#define RULE_PLAIN 5
static const char *const literals[] = {
    "a", "b", "user", "A", "%41", "h:80", "x y", "\xc3\xa9", "%C3%A9", "%2F", "caf%C3%A9", "%zz", "a.b", "42",
    "%3Ax", "x*y", "%FF", "H", "h",
};
#define NLIT (sizeof literals / sizeof literals[0])

static void build_route(route *r, const uint8_t **in, const uint8_t *end, int index)
{
    uint8_t s = *in < end ? *(*in)++ : 0;
    memset(r, 0, sizeof *r);
    const char *scheme = schemes[s % 4];
    r->any_scheme = scheme[0] == '*';
    for (int i = 0; scheme[i]; i++) r->scheme[i] = lower(scheme[i]);
    r->nseg = (s / 4) % 6;
    snprintf(r->target, sizeof r->target, "T%d", index);
    size_t o = (size_t)snprintf(r->text, sizeof r->text, "%s://", scheme);
    for (int j = 0; j < r->nseg; j++) {
        uint8_t k = *in < end ? *(*in)++ : 0;
        int kind = k % 8;
        if (j > 0) r->text[o++] = '/';
        if (kind <= 3) {
            const char *lit = literals[(k / 8) % NLIT];
            r->kind[j] = LIT;
            decode(&r->lit[j], lit, strlen(lit));
            if (j == 0)
                for (size_t q = 0; q < r->lit[j].n; q++) r->lit[j].b[q] = lower(r->lit[j].b[q]);
            o += (size_t)snprintf(r->text + o, sizeof r->text - o, "%s", lit);
        } else if (kind <= 5 || j < r->nseg - 1) {
            r->kind[j] = PARAM;
            r->rule[j] = (k / 8) % 8 < RULE_PLAIN ? (k / 8) % 8 : RULE_PLAIN;
            snprintf(r->name[j], sizeof r->name[j], "p%d", j);
            o += (size_t)snprintf(r->text + o, sizeof r->text - o, rule_text[r->rule[j]], r->name[j]);
        } else {
            r->kind[j] = CATCH;
            snprintf(r->name[j], sizeof r->name[j], "%s", kind == 6 ? "rest" : "*");
            o += (size_t)snprintf(r->text + o, sizeof r->text - o, "*%s", kind == 6 ? "rest" : "");
        }
    }
}

/* SEMANTICS §3: two patterns conflict when they have the same scheme (or both "*") and the same segment kinds
   and (decoded) literals, whatever the parameter names. */
static int conflicts(const route *a, const route *b)
{
    if (a->any_scheme != b->any_scheme || (!a->any_scheme && strcmp(a->scheme, b->scheme) != 0)) return 0;
    if (a->nseg != b->nseg) return 0;
    for (int j = 0; j < a->nseg; j++) {
        if (a->kind[j] != b->kind[j]) return 0;
        if (a->kind[j] == LIT && !beq(&a->lit[j], b->lit[j].b, b->lit[j].n)) return 0;
        if (a->kind[j] == PARAM && a->rule[j] != b->rule[j]) return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------------------------------------------------
 * URLs (SEMANTICS §1)
 * ------------------------------------------------------------------------------------------------------------ */

#define MAX_ELEMS 300
#define MAX_PAIRS 300

typedef struct {
    int status; /* LR_OK / LR_NOMATCH / LR_EINVAL */
    char scheme[64];
    size_t scheme_n;
    int host_first;
    const char *host_raw; size_t host_raw_n;  /* without userinfo and port */
    const char *port; size_t port_n;
    int count;
    bstr elem[MAX_ELEMS];                     /* decoded */
    const char *raw[MAX_ELEMS]; size_t raw_n[MAX_ELEMS];
    int npairs;
    bstr key[MAX_PAIRS], value[MAX_PAIRS];
} parsed_url;

static int all_digits(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) if (!is_digit(p[i])) return 0;
    return 1;
}

static void parse_url(parsed_url *u, const char *url, size_t n)
{
    memset(u, 0, offsetof(parsed_url, elem));
    u->count = 0;
    u->npairs = 0;
    if (!utf8_valid((const unsigned char *)url, n)) { u->status = LR_EINVAL; return; }
    /* scheme ":" */
    size_t i = 0;
    if (n == 0 || !is_alpha(url[0])) { u->status = LR_EINVAL; return; }
    while (i < n && (is_alpha(url[i]) || is_digit(url[i]) || url[i] == '+' || url[i] == '-' || url[i] == '.')) i++;
    if (i >= n || url[i] != ':' || i >= sizeof u->scheme) { u->status = LR_EINVAL; return; }
    for (size_t k = 0; k < i; k++) u->scheme[k] = lower(url[k]);
    u->scheme_n = i;
    i++;
    /* "//" authority */
    if (i + 1 < n && url[i] == '/' && url[i + 1] == '/') {
        size_t a = i + 2, e = a;
        while (e < n && url[e] != '/' && url[e] != '?' && url[e] != '#') e++;
        size_t h = a;
        for (size_t k = a; k < e; k++) if (url[k] == '@') h = k + 1; /* the last '@' ends the userinfo */
        size_t host_end = e, port_start = e;
        if (h < e && url[h] == '[') {
            size_t j = h;
            while (j < e && url[j] != ']') j++;
            if (j < e) {
                host_end = j + 1;
                if (host_end < e && url[host_end] == ':' && all_digits(url + host_end + 1, e - host_end - 1))
                    port_start = host_end + 1;
                else
                    host_end = e;
            }
        } else {
            for (size_t j = e; j > h; j--)
                if (url[j - 1] == ':') {
                    if (all_digits(url + j, e - j)) { host_end = j - 1; port_start = j; }
                    break;
                }
        }
        u->host_raw = url + h;
        u->host_raw_n = host_end - h;
        u->port = url + port_start;
        u->port_n = e - port_start;
        if (u->host_raw_n > 0) {
            decode(&u->elem[0], u->host_raw, u->host_raw_n);
            u->raw[0] = u->host_raw;
            u->raw_n[0] = u->host_raw_n;
            u->host_first = 1;
            u->count = 1;
        }
        i = e;
    }
    /* path: segments split on '/', empty ones dropped, each decoded */
    size_t path_end = i;
    while (path_end < n && url[path_end] != '?' && url[path_end] != '#') path_end++;
    while (i < path_end) {
        while (i < path_end && url[i] == '/') i++;
        size_t s = i;
        while (i < path_end && url[i] != '/') i++;
        if (i > s && u->count < MAX_ELEMS) {
            decode(&u->elem[u->count], url + s, i - s);
            u->raw[u->count] = url + s;
            u->raw_n[u->count] = i - s;
            u->count++;
        }
    }
    /* query: pieces on '&', empty ones skipped, "k=v" on the first '=', both decoded */
    if (i < n && url[i] == '?') {
        i++;
        size_t qend = i;
        while (qend < n && url[qend] != '#') qend++;
        while (i <= qend && u->npairs < MAX_PAIRS) {
            size_t s = i;
            while (i < qend && url[i] != '&') i++;
            if (i > s) {
                size_t eq = s;
                while (eq < i && url[eq] != '=') eq++;
                decode(&u->key[u->npairs], url + s, eq - s);
                if (eq < i) decode(&u->value[u->npairs], url + eq + 1, i - eq - 1);
                else u->value[u->npairs].n = 0;
                u->npairs++;
            }
            i++;
        }
    }
    u->status = LR_NOMATCH;
}

/* ------------------------------------------------------------------------------------------------------------
 * The reference matcher
 * ------------------------------------------------------------------------------------------------------------ */

static int eq_folded(const bstr *a, const bstr *lit)
{
    if (a->n != lit->n) return 0;
    for (size_t i = 0; i < a->n; i++) if (lower(a->b[i]) != lit->b[i]) return 0;
    return 1;
}

/* Whether `n` bytes at `p` are a decimal number no larger than `max` (digits only, at least one). */
static int number_at_most(const char *p, size_t n, unsigned long long max)
{
    unsigned long long v = 0;
    if (n == 0) return 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_digit(p[i])) return 0;
        unsigned d = (unsigned)(p[i] - '0');
        if (v > (max - d) / 10) return 0;
        v = v * 10 + d;
    }
    return 1;
}

/* Whether rule `rule` accepts the decoded element `e` (`fold`: the host, whose literals compare folded); the
   value is e[*start, *end). */
static int rule_accepts(int rule, const bstr *e, int fold, size_t *start, size_t *end)
{
    const char *b = e->b;
    size_t n = e->n;
    *start = 0;
    *end = n;
    switch (rule) {
    case 0:
        if (n <= 4) return 0;
        for (size_t i = 0; i < 4; i++) if ((fold ? lower(b[n - 4 + i]) : b[n - 4 + i]) != ".png"[i]) return 0;
        *end = n - 4;
        return 1;
    case 1:
        if (n <= 1 || (fold ? lower(b[0]) : b[0]) != 'v') return 0;
        *start = 1;
        return 1;
    case 2: return number_at_most(b, n, 18446744073709551615ULL);
    case 3:
        if (n > 0 && b[0] == '-') return number_at_most(b + 1, n - 1, 9223372036854775808ULL);
        return number_at_most(b, n, 9223372036854775807ULL);
    case 4:
        if (n == 0) return 0;
        for (size_t i = 0; i < n; i++) if (b[i] < 'a' || b[i] > 'c') return 0;
        return 1;
    default: return n > 0;
    }
}

/* The route's precedence key when it matches the URL (length stored in *len), else 0. */
static int route_key(const route *r, const parsed_url *u, int key[8], int *len)
{
    if (!r->any_scheme && !(strlen(r->scheme) == u->scheme_n && memcmp(r->scheme, u->scheme, u->scheme_n) == 0))
        return 0;
    key[0] = r->any_scheme;
    int has_catch = r->nseg > 0 && r->kind[r->nseg - 1] == CATCH;
    if (has_catch ? u->count < r->nseg - 1 : u->count != r->nseg) return 0;
    for (int j = 0; j < r->nseg; j++) {
        if (r->kind[j] == CATCH) { key[1 + j] = 9; continue; }
        if (r->kind[j] == PARAM) {
            size_t s0, e0;
            if (!rule_accepts(r->rule[j], &u->elem[j], j == 0 && u->host_first, &s0, &e0)) return 0;
            key[1 + j] = 2 + r->rule[j];
            continue;
        }
        if (j == 0 && u->host_first) {
            /* the host compares case-insensitively; "host:port" is tried before the host */
            if (u->port_n > 0) {
                bstr hp = u->elem[0];
                bappend(&hp, ":", 1);
                bappend(&hp, u->port, u->port_n);
                if (eq_folded(&hp, &r->lit[0])) { key[1] = 0; continue; }
            }
            if (!eq_folded(&u->elem[0], &r->lit[0])) return 0;
        } else if (!beq(&u->elem[j], r->lit[j].b, r->lit[j].n)) {
            return 0;
        }
        key[1 + j] = 1;
    }
    *len = 1 + r->nseg;
    return 1;
}

static int key_less(const int *a, int an, const int *b, int bn)
{
    for (int i = 0; i < an && i < bn; i++) if (a[i] != b[i]) return a[i] < b[i];
    return an < bn;
}

/* The catch-all's value: the elements from `first` on, as written, joined with "/". */
static void rest_value(bstr *out, const parsed_url *u, int first)
{
    out->n = 0;
    for (int i = first; i < u->count; i++) {
        if (i > first) bappend(out, "/", 1);
        bappend(out, u->raw[i], u->raw_n[i]);
    }
}

/* ------------------------------------------------------------------------------------------------------------ */

static void describe(route *routes, int nroutes, const char *url, size_t n)
{
    fprintf(stderr, "routes:\n");
    for (int i = 0; i < nroutes; i++) fprintf(stderr, "  %s -> %s%s\n", routes[i].text, routes[i].target,
                                              routes[i].added ? "" : " (refused)");
    fuzz_dump("url", url, n);
}

static const char *const url_schemes[] = {"app", "APP", "web", "Web", "zz", "1x", "", "a-b"};
static const char *const url_seps[] = {"://", ":", ":///", "://u@", "://u:p@", "://[::1]", "://", "://"};
static const char *const tokens[] = {
    "/", "/", "/", "a", "b", "user", "A", "%41", "%61", "h", ":80", ":", "@", "?", "#", "&", "=", "x", "42", "[",
    "]", " ", "+", "//", "%", "%zz", "%FF", "\xc3\xa9", "%C3%A9", "%2F", "x y", "h:80", "caf", "%3Ax", "x*y",
    ".", "%2", "\xff", "\xc3", "%00", "a.b", "H", "%48", "%c3%a9", "%C3", "\xed\xa0\x80", "rest", "*",
    /* for the parameter rules */
    ".png", ".PNG", "%2Epng", "v", "V", "%76", "-", "-5", "7", "18446744073709551616", "9223372036854775808", "c", "abc",
};
#define NTOK (sizeof tokens / sizeof tokens[0])

static parsed_url U;

#ifdef FUZZ_STATS
/* How often each outcome occurs over a corpus (to see that the generator reaches the interesting cases). */
static long stats[8];
static void print_stats(void)
{
    fprintf(stderr, "inputs %ld: match %ld, no match %ld, invalid %ld; catch-all %ld, host:port %ld, param %ld\n",
            stats[0], stats[1], stats[2], stats[3], stats[4], stats[5], stats[6]);
}
#define STAT(i) (stats[i]++)
#else
#define STAT(i) ((void)0)
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *in = data, *end = data + size;
    if (size < 2) return 0;

    /* The table. */
    route routes[8];
    int nroutes = 1 + *in++ % 8;
    lr_router *r;
    FUZZ_CHECK(lr_router_new(&r) == LR_OK, "lr_router_new");
    for (int i = 0; i < nroutes; i++) {
        build_route(&routes[i], &in, end, i);
        int want = LR_OK;
        for (int k = 0; k < i; k++)
            if (routes[k].added && conflicts(&routes[k], &routes[i])) want = LR_ECONFLICT;
        int rc = lr_router_add(r, routes[i].text, routes[i].target);
        if (rc != want) describe(routes, i + 1, "", 0);
        FUZZ_CHECK(rc == want, "adding %s: %d, the reference says %d", routes[i].text, rc, want);
        routes[i].added = rc == LR_OK;
    }

    /* The URL. */
    char url[1024];
    size_t n = 0;
    uint8_t s = in < end ? *in++ : 0;
    n += (size_t)snprintf(url + n, sizeof url - n, "%s%s", url_schemes[s % 8], url_seps[(s / 8) % 8]);
    while (in < end && n + 32 < sizeof url) { /* room for the longest token */
        const char *t = tokens[*in++ % NTOK];
        size_t tl = strlen(t);
        if (strcmp(t, "%00") == 0 && (s & 0x80) == 0) t = "%30"; /* keep decoded NULs rare */
        memcpy(url + n, t, tl);
        n += tl;
    }
    url[n] = 0;

    /* The reference's answer. */
    parse_url(&U, url, n);
    int best = -1, best_key[8] = {0}, best_len = 0;
    if (U.status == LR_NOMATCH)
        for (int i = 0; i < nroutes; i++) {
            int key[8], len = 0;
            if (!routes[i].added || !route_key(&routes[i], &U, key, &len)) continue;
            if (best < 0 || key_less(key, len, best_key, best_len)) {
                best = i;
                memcpy(best_key, key, sizeof key);
                best_len = len;
            }
        }
    if (best >= 0) U.status = LR_OK;
#ifdef FUZZ_STATS
    static int registered;
    if (!registered) { atexit(print_stats); registered = 1; }
#endif
    STAT(0);
    if (U.status == LR_OK) {
        STAT(1);
        for (int k = 1; k < best_len; k++) {
            if (best_key[k] == 9) STAT(4);
            if (best_key[k] == 0) STAT(5);
            if (best_key[k] >= 2 && best_key[k] <= 7) STAT(6);
        }
    } else if (U.status == LR_NOMATCH) STAT(2);
    else STAT(3);

    /* The library's, with lengths. */
    lr_result res;
    static lr_param_ref params[MAX_ELEMS + MAX_PAIRS];
    static char scratch[LR_SCRATCH_SIZE(sizeof url) + 1024];
    int rc = lr_router_resolve_into(r, url, n, &res, params, MAX_ELEMS + MAX_PAIRS, scratch, sizeof scratch);
    if (rc != U.status) {
        describe(routes, nroutes, url, n);
        FUZZ_CHECK(rc == U.status, "status %d (%s), the reference says %d (%s)", rc,
                   rc == LR_OK ? res.pattern : "-", U.status, best >= 0 ? routes[best].text : "-");
    }
    if (rc == LR_OK) {
        const route *w = &routes[best];
        if (strcmp(res.pattern, w->text) != 0) {
            describe(routes, nroutes, url, n);
            FUZZ_CHECK(0, "route %s, the reference says %s", res.pattern, w->text);
        }
        /* Path parameters: :params in order (decoded), then the catch-all (undecoded, joined). */
        bstr want[6];
        const char *names[6];
        int np = 0;
        for (int j = 0; j < w->nseg; j++) {
            if (w->kind[j] == PARAM) {
                size_t s0, e0;
                rule_accepts(w->rule[j], &U.elem[j], j == 0 && U.host_first, &s0, &e0);
                bset(&want[np], U.elem[j].b + s0, e0 - s0);
                names[np++] = w->name[j];
            }
        }
        for (int j = 0; j < w->nseg; j++)
            if (w->kind[j] == CATCH) {
                /* from the host (j == 0): the host as written, without userinfo and port, then the path */
                rest_value(&want[np], &U, j);
                names[np++] = w->name[j];
            }
        int ok = (int)res.path_param_count == np;
        for (int k = 0; ok && k < np; k++)
            ok = params[k].name_len == strlen(names[k]) && memcmp(params[k].name, names[k], params[k].name_len) == 0 &&
                 beq(&want[k], params[k].value, params[k].value_len);
        if (!ok) {
            describe(routes, nroutes, url, n);
            for (size_t k = 0; k < res.path_param_count; k++)
                fprintf(stderr, "  library: %.*s = \"%.*s\"\n", (int)params[k].name_len, params[k].name,
                        (int)params[k].value_len, params[k].value);
            for (int k = 0; k < np; k++)
                fprintf(stderr, "  reference: %s = \"%.*s\"\n", names[k], (int)want[k].n, want[k].b);
            FUZZ_CHECK(0, "path parameters differ (route %s)", w->text);
        }
        /* Query pairs, in order, without the keys a path parameter takes. */
        size_t q = res.path_param_count;
        int qok = 1;
        for (int k = 0; k < U.npairs && qok; k++) {
            int taken = 0;
            for (int p = 0; p < np; p++) taken |= beq(&U.key[k], names[p], strlen(names[p]));
            if (taken) continue;
            qok = q < res.param_count && beq(&U.key[k], params[q].name, params[q].name_len) &&
                  beq(&U.value[k], params[q].value, params[q].value_len);
            q++;
        }
        if (!qok || q != res.param_count) {
            describe(routes, nroutes, url, n);
            for (size_t k = res.path_param_count; k < res.param_count; k++)
                fprintf(stderr, "  library: %.*s = \"%.*s\"\n", (int)params[k].name_len, params[k].name,
                        (int)params[k].value_len, params[k].value);
            for (int k = 0; k < U.npairs; k++)
                fprintf(stderr, "  reference: %.*s = \"%.*s\"\n", (int)U.key[k].n, U.key[k].b, (int)U.value[k].n,
                        U.value[k].b);
            FUZZ_CHECK(0, "query pairs differ");
        }
    }

    /* The library's, through the C-string API (which stops at a NUL; the URL has none). */
    lr_match *m = NULL;
    int mrc = lr_router_resolve(r, url, &m);
    FUZZ_CHECK(mrc == rc, "lr_router_resolve %d, lr_router_resolve_into %d", mrc, rc);
    if (mrc == LR_OK) {
        FUZZ_CHECK(strcmp(lr_match_target(m), routes[best].target) == 0 &&
                       strcmp(lr_match_pattern(m), routes[best].text) == 0,
                   "lr_router_resolve gives %s (%s), the reference %s (%s)", lr_match_pattern(m), lr_match_target(m),
                   routes[best].text, routes[best].target);
        for (size_t k = 0; k < res.path_param_count; k++) {
            const char *v = lr_match_get(m, lr_match_param_name(m, k));
            FUZZ_CHECK((v && strncmp(v, params[k].value, params[k].value_len) == 0) ||
                           memchr(params[k].value, 0, params[k].value_len) != NULL,
                       "lr_match_get(%s) = %s", lr_match_param_name(m, k), v ? v : "(null)");
        }
    }
    lr_match_free(m);
    lr_router_free(r);
    return 0;
}
