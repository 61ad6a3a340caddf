/*
 * fuzz_differential.c -- target (d): the router against a reference matcher written here, from
 * docs/SEMANTICS.md §1-3 and nothing else.
 *
 * The input's bytes choose a small route table (up to 8 patterns built from a pool of schemes, literals,
 * parameters and catch-alls, some of them ending in optional groups) and a URL (built from a pool of tokens chosen
 * to hit the interesting rules: case, percent-escapes good and bad, %2F, ports, userinfo, empty segments, query,
 * fragment, invalid UTF-8).
 * Optional groups (SEMANTICS §2): a pattern may end in 1 to 4 groups "(/...)" of one or two segments each, from
 * the same pools (`app://user/:p1(/:p2)(/a)`; a catch-all only as the last segment of the last group; the host
 * never in a group). The reference expands such a pattern into its entries, JLRoutes' order: every combination of
 * the groups, most included first (masks 2^k - 1 down to 0, the first group the highest bit), leaving out one
 * with the shape of an earlier one of the same pattern (the earlier keeps its URLs and parameter names; this is
 * not a conflict). Every entry answers for its route: the pattern as written and the route's target, and only the
 * parameters of the segments it keeps (a left-out group's parameter is absent, not "", so a query pair of that
 * name shows through).
 * The reference is deliberately simple -- no trie: for every entry it checks whether the entry matches the URL's
 * match sequence, and among the entries that match it picks the best by comparing lexicographically the keys
 *     scheme: a named scheme (0) before "*" (1);
 *     each segment: a "host:port" literal (0), a literal (1), a parameter (2 + its rule's rank, below), a
 *     catch-all (9);
 * where a key that ends where the URL ends (a prefix) comes before one that goes on with a catch-all.
 * Parameters come from a pool of rules (SEMANTICS §2-3), ranked as the precedence order says -- more literal
 * bytes first, then the narrower type, untyped last: "{p}.png" (0), "v{p}" (1), ":p<uint>" (2), ":p<int>" (3),
 * ":p<[a-c]+>" (4), ":p" (5). A rule that does not accept the element fails the entry at that place.
 * That is exactly what "literal > :param > *, with backtracking, scheme before *://" means: depth-first search in
 * that order returns the lexicographically smallest matching entry. Two entries have the same shape when they
 * have the same scheme (or both "*"), segment kinds, (decoded) literals and rules, whatever the parameter names;
 * entries of two routes with the same shape conflict and one route keeps one entry per shape, so the answer is
 * unique.
 * Checked: every lr_router_add's code (LR_ECONFLICT exactly when an entry of the new pattern has the shape of an
 * entry of a route added before; a refused pattern adds no entry); for the URL, the status, the route's pattern,
 * the path parameters (decoded values; the catch-all undecoded, joined with "/"), and the query pairs (decoded,
 * empty pieces skipped, path keys dropped), through lr_router_resolve_into; and the target, pattern and merged
 * parameters through lr_router_resolve.
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

/* Required segments: at most 5; optional groups: at most 4 (the library's limit), of one or two segments each. */
#define MAX_GROUPS 4
#define MAX_SEG (5 + 2 * MAX_GROUPS)
#define MAX_VARIANTS (1 << MAX_GROUPS)

typedef struct {
    char text[256];        /* the pattern as added */
    char target[16];
    int any_scheme;        /* "*://" */
    char scheme[8];        /* lower-cased */
    int nseg;              /* every segment, the groups' included */
    enum kind kind[MAX_SEG];
    int rule[MAX_SEG];     /* PARAM: its rule (see rule_text), RULE_PLAIN for ":name" */
    bstr lit[MAX_SEG];     /* decoded; lower-cased in the host position */
    char name[MAX_SEG][8]; /* parameter names, "*" for a bare catch-all */
    int group[MAX_SEG];    /* the optional group holding the segment (0 the first), -1 for a required one */
    int ngroups;
    int added;
} route;

/* One combination of a route's optional groups (the route itself when it has none): the segments it keeps. */
typedef struct {
    const route *r;
    int nseg;
    int seg[MAX_SEG];      /* indexes into r's segments, in order */
} entry;

static const char *const schemes[] = {"app", "web", "*", "App"};

/* The parameter rules, in precedence order (their index is their rank); %s is the parameter's name. */
static const char *const rule_text[] = {"{%s}.png", "v{%s}", ":%s<uint>", ":%s<int>", ":%s<[a-c]+>", ":%s"};
#define RULE_PLAIN 5
static const char *const literals[] = {
    "a", "b", "user", "A", "%41", "h:80", "x y", "\xc3\xa9", "%C3%A9", "%2F", "caf%C3%A9", "%zz", "a.b", "42",
    "%3Ax", "x*y", "%FF", "H", "h",
};
#define NLIT (sizeof literals / sizeof literals[0])

/* The route's first byte: scheme (s % 4), required segments ((s / 4) % 6); from 192 on (a quarter of the
   routes) it also has optional groups, chosen by one more byte: how many (g % 8: 1, 1, 1, 2, 2, 2, 3 or 4) and
   each one's size (bit 3 + i of g: one segment or two). Then one byte per segment: its kind and pool entry. */
static void build_route(route *r, const uint8_t **in, const uint8_t *end, int index)
{
    static const int group_counts[8] = {1, 1, 1, 2, 2, 2, 3, 4};
    uint8_t s = *in < end ? *(*in)++ : 0;
    memset(r, 0, sizeof *r);
    const char *scheme = schemes[s % 4];
    r->any_scheme = scheme[0] == '*';
    for (int i = 0; scheme[i]; i++) r->scheme[i] = lower(scheme[i]);
    r->nseg = (s / 4) % 6;
    for (int j = 0; j < MAX_SEG; j++) r->group[j] = -1;
    if (s >= 192) {
        uint8_t g = *in < end ? *(*in)++ : 0;
        r->ngroups = group_counts[g % 8];
        if (r->nseg == 0) r->nseg = 1; /* the host is never optional ("app://(/a)" is an error) */
        for (int i = 0; i < r->ngroups; i++)
            for (int k = 0; k < 1 + ((g >> (3 + i)) & 1); k++) r->group[r->nseg++] = i;
    }
    snprintf(r->target, sizeof r->target, "T%d", index);
    size_t o = (size_t)snprintf(r->text, sizeof r->text, "%s://", scheme);
    for (int j = 0; j < r->nseg; j++) {
        uint8_t k = *in < end ? *(*in)++ : 0;
        int kind = k % 8;
        if (j > 0 && r->group[j] >= 0 && r->group[j] != r->group[j - 1]) r->text[o++] = '(';
        if (j > 0) r->text[o++] = '/';
        if (kind <= 3) {
            const char *lit = literals[(k / 8) % NLIT];
            r->kind[j] = LIT;
            decode(&r->lit[j], lit, strlen(lit));
            if (j == 0)
                for (size_t q = 0; q < r->lit[j].n; q++) r->lit[j].b[q] = lower(r->lit[j].b[q]);
            o += (size_t)snprintf(r->text + o, sizeof r->text - o, "%s", lit);
        } else if (kind <= 5 || j < r->nseg - 1) { /* a catch-all only as the very last segment */
            r->kind[j] = PARAM;
            r->rule[j] = (k / 8) % 8 < RULE_PLAIN ? (k / 8) % 8 : RULE_PLAIN;
            snprintf(r->name[j], sizeof r->name[j], "p%d", j);
            o += (size_t)snprintf(r->text + o, sizeof r->text - o, rule_text[r->rule[j]], r->name[j]);
        } else {
            r->kind[j] = CATCH;
            snprintf(r->name[j], sizeof r->name[j], "%s", kind == 6 ? "rest" : "*");
            o += (size_t)snprintf(r->text + o, sizeof r->text - o, "*%s", kind == 6 ? "rest" : "");
        }
        if (r->group[j] >= 0 && (j + 1 == r->nseg || r->group[j + 1] != r->group[j])) r->text[o++] = ')';
    }
    r->text[o] = 0;
}

/* SEMANTICS §3: two entries have the same shape -- they match the same URLs -- when they have the same scheme
   (or both "*") and the same segment kinds, (decoded) literals and rules, whatever the parameter names. */
static int same_shape(const entry *a, const entry *b)
{
    const route *ra = a->r, *rb = b->r;
    if (ra->any_scheme != rb->any_scheme || (!ra->any_scheme && strcmp(ra->scheme, rb->scheme) != 0)) return 0;
    if (a->nseg != b->nseg) return 0;
    for (int j = 0; j < a->nseg; j++) {
        int x = a->seg[j], y = b->seg[j];
        if (ra->kind[x] != rb->kind[y]) return 0;
        if (ra->kind[x] == LIT && !beq(&ra->lit[x], rb->lit[y].b, rb->lit[y].n)) return 0;
        if (ra->kind[x] == PARAM && ra->rule[x] != rb->rule[y]) return 0;
    }
    return 1;
}

/* SEMANTICS §2, optional groups: the route's entries, JLRoutes' order -- every combination of the groups, most
   included first (group 0 is the highest bit of the mask) -- without those that have the shape of an earlier
   one (the earlier one takes their URLs, and its parameter names). Returns how many. */
static int expand(const route *r, entry out[MAX_VARIANTS])
{
    int n = 0, k = r->ngroups;
    for (int mask = (1 << k) - 1; mask >= 0; mask--) {
        entry *e = &out[n];
        e->r = r;
        e->nseg = 0;
        for (int j = 0; j < r->nseg; j++)
            if (r->group[j] < 0 || (mask & (1 << (k - 1 - r->group[j])))) e->seg[e->nseg++] = j;
        int repeated = 0;
        for (int v = 0; v < n && !repeated; v++) repeated = same_shape(&out[v], e);
        if (!repeated) n++;
    }
    return n;
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
    case 4: /* [a-c]+; in the host it is tested on the host lower-cased (B53) */
        if (n == 0) return 0;
        for (size_t i = 0; i < n; i++) {
            char c = fold ? lower(b[i]) : b[i];
            if (c < 'a' || c > 'c') return 0;
        }
        return 1;
    default: return n > 0;
    }
}

/* The entry's precedence key when it matches the URL (length stored in *len), else 0. */
static int entry_key(const entry *e, const parsed_url *u, int key[1 + MAX_SEG], int *len)
{
    const route *r = e->r;
    if (!r->any_scheme && !(strlen(r->scheme) == u->scheme_n && memcmp(r->scheme, u->scheme, u->scheme_n) == 0))
        return 0;
    key[0] = r->any_scheme;
    int has_catch = e->nseg > 0 && r->kind[e->seg[e->nseg - 1]] == CATCH;
    if (has_catch ? u->count < e->nseg - 1 : u->count != e->nseg) return 0;
    for (int j = 0; j < e->nseg; j++) {
        int x = e->seg[j];
        if (r->kind[x] == CATCH) { key[1 + j] = 9; continue; }
        if (r->kind[x] == PARAM) {
            size_t s0, e0;
            if (!rule_accepts(r->rule[x], &u->elem[j], j == 0 && u->host_first, &s0, &e0)) return 0;
            key[1 + j] = 2 + r->rule[x];
            continue;
        }
        if (j == 0 && u->host_first) {
            /* the host compares case-insensitively; "host:port" is tried before the host */
            if (u->port_n > 0) {
                bstr hp = u->elem[0];
                bappend(&hp, ":", 1);
                bappend(&hp, u->port, u->port_n);
                if (eq_folded(&hp, &r->lit[x])) { key[1] = 0; continue; }
            }
            if (!eq_folded(&u->elem[0], &r->lit[x])) return 0;
        } else if (!beq(&u->elem[j], r->lit[x].b, r->lit[x].n)) {
            return 0;
        }
        key[1 + j] = 1;
    }
    *len = 1 + e->nseg;
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
    /* parameter names, for query pairs that a left-out optional group's parameter lets through */
    "p1", "p2", "p3", "p4",
};
#define NTOK (sizeof tokens / sizeof tokens[0])

static parsed_url U;

#ifdef FUZZ_STATS
/* How often each outcome occurs over a corpus (to see that the generator reaches the interesting cases). */
static long stats[10];
static void print_stats(void)
{
    fprintf(stderr, "inputs %ld: match %ld, no match %ld, invalid %ld; catch-all %ld, host:port %ld, param %ld; "
            "route with optional groups %ld, of which without some group %ld; add refused (conflict) %ld\n",
            stats[0], stats[1], stats[2], stats[3], stats[4], stats[5], stats[6], stats[7], stats[8], stats[9]);
}
#define STAT(i) (stats[i]++)
#else
#define STAT(i) ((void)0)
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *in = data, *end = data + size;
    if (size < 2) return 0;

    /* The table: each route with its entries; a refused one has none. */
    static route routes[8];
    static entry entries[8][MAX_VARIANTS];
    int nentries[8];
    int nroutes = 1 + *in++ % 8;
    lr_router *r;
    FUZZ_CHECK(lr_router_new(&r) == LR_OK, "lr_router_new");
    for (int i = 0; i < nroutes; i++) {
        build_route(&routes[i], &in, end, i);
        nentries[i] = expand(&routes[i], entries[i]);
        int want = LR_OK;
        for (int k = 0; k < i; k++)
            for (int a = 0; routes[k].added && a < nentries[k]; a++)
                for (int b = 0; b < nentries[i]; b++)
                    if (same_shape(&entries[k][a], &entries[i][b])) want = LR_ECONFLICT;
        int rc = lr_router_add(r, routes[i].text, routes[i].target);
        if (rc != want) describe(routes, i + 1, "", 0);
        FUZZ_CHECK(rc == want, "adding %s: %d, the reference says %d", routes[i].text, rc, want);
        routes[i].added = rc == LR_OK;
        if (rc == LR_ECONFLICT) STAT(9);
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
    int best = -1, best_key[1 + MAX_SEG] = {0}, best_len = 0;
    const entry *win = NULL;
    if (U.status == LR_NOMATCH)
        for (int i = 0; i < nroutes; i++)
            for (int v = 0; routes[i].added && v < nentries[i]; v++) {
                int key[1 + MAX_SEG], len = 0;
                if (!entry_key(&entries[i][v], &U, key, &len)) continue;
                if (best < 0 || key_less(key, len, best_key, best_len)) {
                    best = i;
                    win = &entries[i][v];
                    memcpy(best_key, key, sizeof key);
                    best_len = len;
                }
            }
    if (best >= 0) U.status = LR_OK;
#ifdef FUZZ_TRACE
    /* -DFUZZ_TRACE: what an input means, to write seeds by hand (the library's answer must still agree). */
    describe(routes, nroutes, url, n);
    fprintf(stderr, "reference: %d %s (%d of its %d segments)\n", U.status, best >= 0 ? routes[best].text : "-",
            win ? win->nseg : 0, best >= 0 ? routes[best].nseg : 0);
#endif
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
        if (w->ngroups > 0) STAT(7);
        if (win->nseg < w->nseg) STAT(8);
        if (strcmp(res.pattern, w->text) != 0) {
            describe(routes, nroutes, url, n);
            FUZZ_CHECK(0, "route %s, the reference says %s", res.pattern, w->text);
        }
        /* Path parameters, the winning entry's only (a left-out group's are absent): :params in order (decoded),
           then the catch-all (undecoded, joined). */
        static bstr want[MAX_SEG];
        const char *names[MAX_SEG];
        int np = 0;
        for (int j = 0; j < win->nseg; j++) {
            int x = win->seg[j];
            if (w->kind[x] == PARAM) {
                size_t s0, e0;
                rule_accepts(w->rule[x], &U.elem[j], j == 0 && U.host_first, &s0, &e0);
                bset(&want[np], U.elem[j].b + s0, e0 - s0);
                names[np++] = w->name[x];
            }
        }
        for (int j = 0; j < win->nseg; j++)
            if (w->kind[win->seg[j]] == CATCH) {
                /* from the host (j == 0): the host as written, without userinfo and port, then the path */
                rest_value(&want[np], &U, j);
                names[np++] = w->name[win->seg[j]];
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
