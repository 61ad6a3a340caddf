/*
 * fuzz_resolve.c -- target (a): URL parsing and lookup against a fixed table.
 *
 * The input is one URL (any bytes). It goes through every lookup entry point -- lr_router_resolve,
 * lr_router_can_route, lr_router_resolve_into (first with too little room, then with what it asked for) and
 * lr_router_resolve_packed -- and the answers must agree:
 *   - the same status everywhere (can_route's 1/0 for LR_OK/LR_NOMATCH), and only documented codes;
 *   - resolve_into and resolve give the same target, pattern, path parameters and merged query parameters;
 *   - packed's word 0 equals *needed, every (offset, length) lies inside the bytes used, and its strings equal
 *     resolve_into's;
 *   - every pointer resolve_into returns lies inside the URL, the scratch buffer or a NUL-terminated table
 *     string of the stated length; retrying with the sizes asked for never fails for want of room again;
 *   - every string a match returns is UTF-8, lr_match_to_json is one valid JSON object;
 *   - errors come with a readable lr_last_error. (A hang is libFuzzer's -timeout; a URL whose lookups take over a
 *     second is printed, for information only.)
 * The router's limits are set low so that every limit is reachable by short inputs, and it has rewrite rules
 * (one catastrophic) so that rewritten URLs, which live in scratch, are checked too.
 *
 * Extremes (issue 14): every input also goes through the length-taking entry points with lengths it does not have
 * -- 2^31, 2^32, 2^60, 2^62 and the URL limit + 1 must give LR_ELIMIT, 2^63 and SIZE_MAX LR_EMISUSE -- over its
 * exact-size buffer, so a length used before it is checked is an ASan report (or the trap or abort it used to be);
 * and through a second router with every limit at its maximum (the same routes; the rules but the catastrophic
 * one, which at a match limit of 2^32 - 1 would take as long as asked), whose entry points must agree.
 */
#include "fuzz_common.h"

static lr_router *router;
static lr_router *maxed; /* every LR_LIMIT_* at the largest value it accepts */

static const char *const routes[][2] = {
    {"app://user/:id", "User"},
    {"app://user/:id/posts", "UserPosts"},
    {"app://user/me", "Me"},
    {"app://:object/:id", "Object"},
    {"app://secret/:id/path", "Secret"},
    {"app://files/*path", "Files"},
    {"app://search", "Search"},
    {"*://share/:id", "AnyShare"},
    {"*://:a/:b/:c", "AnyThree"},
    {"https://www.example.com/p/:id", "Product"},
    {"https://www.example.com:8080/p/:id", "Product8080"},
    {"wildcard://*", "Wildcard"},
    {"app://caf%C3%A9/:id", "Cafe"},
    {"app://%3Aliteral/x*y/z:w", "Odd"},
    {"app://deep/a/b/c/d/e/f/g/h/i/j/k", "Deep"},
    {"app://many/:a/:b/:c/:d/:e/:f/:g/:h/:i/:j", "Many"},
    {"app:///", "Root"},
    {"http://[::1]:80/:x", "V6"},
};

static const char *const rules[][2] = {
    {"^old://(\\w+)", "app://files/$1/x"},
    {"^enc://([^?#]*)", "app://search?q=$$1&h=$$host"},
    {"^dec://([^?#]*)", "app://files/$#1?p=$#path&q=$#query"},
    {"^big://(.*)", "app://files/$1/$1/$1/$1/$1/$1/$1/$1"},
    {"^evil://(a+)+$", "app://evil"},
    {"^named://(?<who>[^/]*)/(?<what>.*)", "app://user/${who}/${what}?all=$url&frag=$$fragment"},
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (lr_router_new(&router) != LR_OK) abort();
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
        if (lr_router_add(router, routes[i][0], routes[i][1]) != LR_OK) {
            fprintf(stderr, "fuzz_resolve: cannot add %s: %s\n", routes[i][0], lr_last_error());
            abort();
        }
    if (lr_router_add_route(router, "app://named/:n", "Named", "named-route", "{\"auth\":\"true\"}") != LR_OK) {
        fprintf(stderr, "fuzz_resolve: cannot add the named route: %s\n", lr_last_error());
        abort();
    }
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (lr_router_add_rewrite(router, rules[i][0], rules[i][1]) != LR_OK) {
            fprintf(stderr, "fuzz_resolve: cannot add rule %s: %s\n", rules[i][0], lr_last_error());
            abort();
        }
    /* Low limits, so that short inputs reach every one of them. */
    if (lr_router_set_limit(router, LR_LIMIT_URL_LENGTH, 1024) != LR_OK ||
        lr_router_set_limit(router, LR_LIMIT_SEGMENTS, 24) != LR_OK ||
        lr_router_set_limit(router, LR_LIMIT_PARAMS, 16) != LR_OK ||
        lr_router_set_limit(router, LR_LIMIT_NESTING, 3) != LR_OK ||
        lr_router_set_limit(router, LR_LIMIT_REGEX_MATCH, 5000) != LR_OK ||
        lr_router_set_limit(router, LR_LIMIT_REGEX_DEPTH, 200) != LR_OK)
        abort();
    if (lr_router_new(&maxed) != LR_OK) abort();
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
        if (lr_router_add(maxed, routes[i][0], routes[i][1]) != LR_OK) abort();
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (strncmp(rules[i][0], "^evil://", 8) != 0 && lr_router_add_rewrite(maxed, rules[i][0], rules[i][1]) != LR_OK)
            abort();
    static const struct { int limit; size_t max; } maxima[] = {
        {LR_LIMIT_URL_LENGTH, (size_t)1 << 30}, {LR_LIMIT_SEGMENTS, (size_t)1 << 20}, {LR_LIMIT_PARAMS, (size_t)1 << 24},
        {LR_LIMIT_NESTING, 256}, {LR_LIMIT_REGEX_MATCH, 0xFFFFFFFFu}, {LR_LIMIT_REGEX_DEPTH, 0xFFFFFFFFu},
        {LR_LIMIT_REGEX_START, (size_t)1 << 30},
    };
    for (size_t i = 0; i < sizeof maxima / sizeof maxima[0]; i++)
        if (lr_router_set_limit(maxed, maxima[i].limit, maxima[i].max) != LR_OK ||
            lr_router_set_limit(maxed, maxima[i].limit, maxima[i].max + 1) != LR_EMISUSE) {
            fprintf(stderr, "fuzz_resolve: limit %d does not stop at %zu: %s\n", maxima[i].limit, maxima[i].max,
                    lr_last_error());
            abort();
        }
    return 0;
}

/* The length-taking lookups given lengths the URL does not have: refused by the length alone, before a byte past
   the buffer is read or anything is sized from the length. */
static void check_extreme_lengths(const char *url)
{
    static const struct { size_t length; int status; } lengths[] = {
        {(size_t)1 << 31, LR_ELIMIT}, {(size_t)1 << 32, LR_ELIMIT}, {(size_t)1 << 60, LR_ELIMIT},
        {(size_t)1 << 62, LR_ELIMIT}, {1025, LR_ELIMIT}, /* the fuzz router's URL limit is 1,024 */
        {(size_t)1 << 63, LR_EMISUSE}, {SIZE_MAX, LR_EMISUSE},
    };
    lr_result res;
    lr_param_ref params[4];
    char scratch[64];
    size_t needed = 0;
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        int rc = lr_router_resolve_into(router, url, lengths[i].length, &res, params, 4, scratch, sizeof scratch);
        FUZZ_CHECK(rc == lengths[i].status, "resolve_into with length %zu: %d, expected %d", lengths[i].length, rc,
                   lengths[i].status);
        rc = lr_router_resolve_packed(router, url, lengths[i].length, scratch, sizeof scratch, &needed);
        FUZZ_CHECK(rc == lengths[i].status, "resolve_packed with length %zu: %d, expected %d", lengths[i].length, rc,
                   lengths[i].status);
        if (lengths[i].length > 1025) { /* beyond the maxed router's limit too, except 1,025 */
            rc = lr_router_resolve_packed(maxed, url, lengths[i].length, scratch, sizeof scratch, &needed);
            FUZZ_CHECK(rc == lengths[i].status, "maxed resolve_packed with length %zu: %d", lengths[i].length, rc);
        }
    }
}

/* url[0..n) through the router whose limits are all at their maxima: documented codes, and its entry points
   agree with each other (status, target, parameter count). */
static void check_maxed(const char *cstr, const char *url, size_t n)
{
    lr_result res;
    lr_param_ref params[64];
    size_t scap = 8 * n + 4096;
    char *scratch = malloc(scap);
    FUZZ_CHECK(scratch, "out of memory");
    int rc_into = lr_router_resolve_into(maxed, url, n, &res, params, 64, scratch, scap);
    FUZZ_CHECK(rc_into == LR_OK || rc_into == LR_NOMATCH || rc_into == LR_EINVAL || rc_into == LR_ELIMIT,
               "maxed resolve_into returned undocumented %d", rc_into);
    lr_param_ref *more = NULL;
    if (rc_into == LR_ELIMIT) {
        /* Only for want of room (no input of 4 KiB reaches a limit at its maximum), and that may be said before
           the route is known: a rule's output is routed in scratch. Called again with what it asked for, it must
           answer. */
        FUZZ_CHECK(res.needed_params > 64 || res.needed_scratch > scap, "maxed resolve_into hit a limit: %s",
                   lr_last_error());
        size_t pcap = res.needed_params > 64 ? res.needed_params : 64;
        scap = res.needed_scratch > scap ? res.needed_scratch : scap;
        free(scratch);
        scratch = malloc(scap);
        more = malloc(pcap * sizeof *more);
        FUZZ_CHECK(scratch && more, "out of memory");
        rc_into = lr_router_resolve_into(maxed, url, n, &res, more, pcap, scratch, scap);
        FUZZ_CHECK(rc_into == LR_OK || rc_into == LR_NOMATCH || rc_into == LR_EINVAL,
                   "maxed resolve_into with the room it asked for returned %d: %s", rc_into, lr_last_error());
    }
    if (cstr) {
        lr_match *m = NULL;
        int rc = lr_router_resolve(maxed, cstr, &m);
        FUZZ_CHECK(rc == rc_into, "maxed resolve %d, resolve_into %d", rc, rc_into);
        if (rc == LR_OK && rc_into == LR_OK) {
            FUZZ_CHECK(strcmp(lr_match_target(m), res.target) == 0, "maxed targets %s and %s", lr_match_target(m),
                       res.target);
            char *json = NULL;
            FUZZ_CHECK(lr_match_to_json(m, &json) == LR_OK && fuzz_valid_json_object(json), "maxed JSON");
            lr_string_free(json);
        }
        lr_match_free(m);
    }
    free(more);
    free(scratch);
}

static int span_eq(const char *a, size_t an, const char *b, size_t bn)
{
    return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

static int inside(const char *p, size_t n, const char *base, size_t cap)
{
    return p && base && p >= base && (size_t)(p - base) <= cap && n <= cap - (size_t)(p - base);
}

/* A pointer resolve_into returned: inside the URL or the scratch buffer. */
static int in_url_or_scratch(const char *p, size_t n, const char *url, size_t url_len, const char *scratch,
                             size_t scratch_cap)
{
    if (n == 0) return 1; /* an empty span may point anywhere (or nowhere) */
    return inside(p, n, url, url_len) || inside(p, n, scratch, scratch_cap);
}

static uint32_t word(const unsigned char *buf, size_t i)
{
    const unsigned char *p = buf + 4 * i;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void check_error(int rc, const char *what, const char *url, size_t n)
{
    if (rc >= 0) return;
    const char *e = lr_last_error();
    if (!(e && *e && fuzz_valid_cstr(e))) fuzz_dump("url", url, n);
    FUZZ_CHECK(e && *e && fuzz_valid_cstr(e), "%s returned %d without a readable lr_last_error", what, rc);
}

/* Runs every lookup on url[0..n) and checks that they agree. `url` is a buffer of exactly n bytes (so ASan sees
   any read past its end); `cstr` is the same text NUL-terminated, for the C-string entry points. Without
   `with_cstring_api`, url may hold NUL bytes and only the length-taking entry points run. */
/* Whether the URL spells a NUL byte (%00), which decodes into a name or value a C string cannot hold whole. */
static int has_escaped_nul(const char *url, size_t n)
{
    for (size_t i = 0; i + 2 < n; i++)
        if (url[i] == '%' && url[i + 1] == '0' && url[i + 2] == '0') return 1;
    return 0;
}

static void check_url(const char *cstr, const char *url, size_t n, int with_cstring_api)
{
    long long t0 = fuzz_now_ns();
    lr_match *m = NULL;
    int rc = LR_OK, can = 0;
    if (with_cstring_api) {
        rc = lr_router_resolve(router, cstr, &m);
        FUZZ_CHECK(rc == LR_OK || rc == LR_NOMATCH || rc == LR_EINVAL || rc == LR_ELIMIT,
                   "lr_router_resolve returned undocumented %d", rc);
        FUZZ_CHECK((rc == LR_OK) == (m != NULL), "rc %d with match %p", rc, (void *)m);
        check_error(rc, "lr_router_resolve", url, n);
        can = lr_router_can_route(router, cstr);
        int can_as_rc = can == 1 ? LR_OK : can == 0 ? LR_NOMATCH : can;
        if (can_as_rc != rc) fuzz_dump("url", url, n);
        FUZZ_CHECK(can_as_rc == rc, "can_route %d but resolve %d", can, rc);
    }

    /* resolve_into, first with too little room. */
    lr_result res;
    lr_param_ref small_params[1];
    char small_scratch[8];
    int rc_small = lr_router_resolve_into(router, url, n, &res, small_params, 1, small_scratch, sizeof small_scratch);
    FUZZ_CHECK(rc_small == LR_OK || rc_small == LR_NOMATCH || rc_small == LR_EINVAL || rc_small == LR_ELIMIT,
               "resolve_into returned undocumented %d", rc_small);
    check_error(rc_small, "lr_router_resolve_into", url, n);
    size_t params_cap = 1, scratch_cap = sizeof small_scratch;
    if (rc_small == LR_ELIMIT && (res.needed_params > 0 || res.needed_scratch > 0)) {
        FUZZ_CHECK(res.needed_params > 1 || res.needed_scratch > sizeof small_scratch,
                   "LR_ELIMIT for room, but asks for no more (params %zu, scratch %zu)", res.needed_params,
                   res.needed_scratch);
        FUZZ_CHECK(res.needed_params < 100000 && res.needed_scratch < 64 * n + 100000,
                   "asks for absurd room: params %zu, scratch %zu for %zu bytes", res.needed_params, res.needed_scratch, n);
        params_cap = res.needed_params > 1 ? res.needed_params : 1;
        scratch_cap = res.needed_scratch > sizeof small_scratch ? res.needed_scratch : sizeof small_scratch;
    }
    lr_param_ref *params = malloc(params_cap * sizeof *params);
    char *scratch = malloc(scratch_cap);
    FUZZ_CHECK(params && scratch, "out of memory");
    int rc_into = lr_router_resolve_into(router, url, n, &res, params, params_cap, scratch, scratch_cap);
    check_error(rc_into, "lr_router_resolve_into", url, n);
    if (rc_into == LR_ELIMIT && (res.needed_params > 0 || res.needed_scratch > 0)) {
        fuzz_dump("url", url, n);
        FUZZ_CHECK(0, "resolve_into asked again for room after being given what it asked: caps (%zu, %zu), "
                      "needed (%zu, %zu)", params_cap, scratch_cap, res.needed_params, res.needed_scratch);
    }
    int agree = !with_cstring_api || rc_into == rc;
    if (!agree) fuzz_dump("url", url, n);
    FUZZ_CHECK(agree, "resolve_into %d but resolve %d", rc_into, rc);

    if (rc_into == LR_OK) {
        FUZZ_CHECK(res.target && strlen(res.target) == res.target_len, "target not NUL-terminated at target_len");
        FUZZ_CHECK(res.pattern && strlen(res.pattern) == res.pattern_len, "pattern not NUL-terminated at pattern_len");
        FUZZ_CHECK(in_url_or_scratch(res.routed, res.routed_len, url, n, scratch, scratch_cap),
                   "routed URL outside the URL and scratch");
        FUZZ_CHECK(res.rewritten == 0 ? res.routed == url && res.routed_len == n : res.rewritten == 1,
                   "rewritten flag %u with routed %p (url %p)", res.rewritten, (const void *)res.routed, (const void *)url);
        FUZZ_CHECK(res.path_param_count <= res.param_count && res.param_count <= params_cap,
                   "param counts %zu/%zu, cap %zu", res.path_param_count, res.param_count, params_cap);
        for (size_t i = 0; i < res.param_count; i++) {
            /* Path parameter names live in the router's table (checked against lr_match_param_name below);
               query keys, like every value, in the URL or the scratch buffer. */
            if (i < res.path_param_count)
                FUZZ_CHECK(params[i].name && params[i].name_len > 0, "path param %zu has no name", i);
            else
                FUZZ_CHECK(in_url_or_scratch(params[i].name, params[i].name_len, url, n, scratch, scratch_cap),
                           "query key %zu outside URL and scratch", i);
            FUZZ_CHECK(in_url_or_scratch(params[i].value, params[i].value_len, url, n, scratch, scratch_cap),
                       "param %zu value outside URL and scratch", i);
        }
    }

    /* resolve and resolve_into agree on target, pattern and parameters. */
    if (with_cstring_api && rc == LR_OK) {
        FUZZ_CHECK(strcmp(lr_match_target(m), res.target) == 0, "target %s vs %s", lr_match_target(m), res.target);
        FUZZ_CHECK(strcmp(lr_match_pattern(m), res.pattern) == 0, "pattern %s vs %s", lr_match_pattern(m), res.pattern);
        FUZZ_CHECK(strcmp(lr_match_url(m), cstr) == 0, "lr_match_url differs from the URL given");
        size_t pc = lr_match_param_count(m);
        FUZZ_CHECK(pc >= res.path_param_count, "merged params %zu < path params %zu", pc, res.path_param_count);
        for (size_t i = 0; i < res.path_param_count; i++) {
            const char *name = lr_match_param_name(m, i), *value = lr_match_param_value(m, i);
            FUZZ_CHECK(name && value, "param %zu missing", i);
            /* C strings stop at a decoded %00: compare up to the first NUL. */
            size_t vlen = strnlen(params[i].value, params[i].value_len);
            FUZZ_CHECK(span_eq(name, strlen(name), params[i].name, params[i].name_len) &&
                           span_eq(value, strlen(value), params[i].value, vlen),
                       "path param %zu: resolve %s=%s, resolve_into %.*s=%.*s", i, name, value,
                       (int)params[i].name_len, params[i].name, (int)params[i].value_len, params[i].value);
        }
        /* Query keys in order of first appearance with their last value, as resolve merges them. */
        size_t k = res.path_param_count;
        for (size_t i = res.path_param_count; i < res.param_count; i++) {
            int seen = 0;
            for (size_t j = res.path_param_count; j < i; j++)
                if (span_eq(params[j].name, params[j].name_len, params[i].name, params[i].name_len)) seen = 1;
            if (seen) continue;
            size_t last = i;
            for (size_t j = i + 1; j < res.param_count; j++)
                if (span_eq(params[j].name, params[j].name_len, params[i].name, params[i].name_len)) last = j;
            const char *name = lr_match_param_name(m, k), *value = lr_match_param_value(m, k);
            FUZZ_CHECK(name && value, "merged param %zu missing", k);
            size_t nlen = strnlen(params[i].name, params[i].name_len);
            size_t vlen = strnlen(params[last].value, params[last].value_len);
            if (nlen == params[i].name_len) /* a key with a NUL in it cannot be compared as a C string */
                FUZZ_CHECK(span_eq(name, strlen(name), params[i].name, nlen) &&
                               span_eq(value, strlen(value), params[last].value, vlen),
                           "query param %zu: resolve %s=%s, resolve_into %.*s=%.*s", k, name, value, (int)nlen,
                           params[i].name, (int)vlen, params[last].value);
            k++;
        }
        FUZZ_CHECK(k == pc, "merged param count %zu, expected %zu", pc, k);
        for (size_t i = 0; i < pc; i++) {
            FUZZ_CHECK(fuzz_valid_cstr(lr_match_param_name(m, i)) && fuzz_valid_cstr(lr_match_param_value(m, i)),
                       "param %zu not UTF-8", i);
            /* A name decoded from %00 holds a NUL: as a C string it is cut there, and no parameter has the cut
               name (the header's rule for NUL bytes); any other name is found by lr_match_get. */
            if (!has_escaped_nul(url, n))
                FUZZ_CHECK(lr_match_get(m, lr_match_param_name(m, i)) != NULL, "lr_match_get(%s) is NULL",
                           lr_match_param_name(m, i));
        }
        FUZZ_CHECK(lr_match_param_name(m, pc) == NULL && lr_match_param_value(m, pc) == NULL, "param past the end");
        size_t qc = lr_match_query_count(m);
        for (size_t i = 0; i < qc; i++)
            FUZZ_CHECK(fuzz_valid_cstr(lr_match_query_name(m, i)) && fuzz_valid_cstr(lr_match_query_value(m, i)),
                       "query pair %zu not UTF-8", i);
        FUZZ_CHECK(lr_match_query_name(m, qc) == NULL, "query pair past the end");
        const char *fields[] = {lr_match_rewritten(m), lr_match_scheme(m), lr_match_host(m), lr_match_port(m),
                                lr_match_path(m), lr_match_fragment(m)};
        for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
            FUZZ_CHECK(fuzz_valid_cstr(fields[i]), "match field %zu not UTF-8", i);
        char *json = NULL;
        int jrc = lr_match_to_json(m, &json);
        FUZZ_CHECK(jrc == LR_OK && json, "lr_match_to_json returned %d", jrc);
        if (!fuzz_valid_json_object(json)) {
            fuzz_dump("url", url, n);
            fprintf(stderr, "json: %s\n", json);
        }
        FUZZ_CHECK(fuzz_valid_json_object(json), "lr_match_to_json is not one valid JSON object");
        lr_string_free(json);
        /* packed: the same answer, in one buffer. */
        size_t needed = 0;
        unsigned char tiny[16];
        int prc = lr_router_resolve_packed(router, url, n, tiny, sizeof tiny, &needed);
        FUZZ_CHECK(prc == LR_ELIMIT && needed > sizeof tiny, "packed into 16 bytes: %d, needed %zu", prc, needed);
        size_t cap = needed;
        unsigned char *buf = malloc(cap);
        FUZZ_CHECK(buf, "out of memory");
        needed = 0;
        prc = lr_router_resolve_packed(router, url, n, buf, cap, &needed);
        FUZZ_CHECK(prc == LR_OK, "packed with the room it asked for: %d (needed %zu, cap %zu)", prc, needed, cap);
        FUZZ_CHECK(word(buf, 0) == needed && needed <= cap, "word 0 %u, needed %zu, cap %zu", word(buf, 0), needed, cap);
        uint32_t P = word(buf, 4), Q = word(buf, 5), S = word(buf, 6);
        FUZZ_CHECK(S == 10 + 2 * P + 2 * Q, "S %u, P %u, Q %u", S, P, Q);
        FUZZ_CHECK(P == res.path_param_count, "packed P %u, resolve_into %zu", P, res.path_param_count);
        FUZZ_CHECK(Q == qc, "packed Q %u, lr_match_query_count %zu", Q, qc);
        FUZZ_CHECK(32 + 8 * (size_t)S <= needed, "header of %u strings does not fit %zu bytes", S, needed);
        for (uint32_t s = 0; s < S; s++) {
            uint32_t off = word(buf, 8 + 2 * s), len = word(buf, 9 + 2 * s);
            FUZZ_CHECK(len == 0 || (off >= 32 + 8 * S && off <= needed && len <= needed - off),
                       "string %u at (%u, %u) outside %zu bytes", s, off, len, needed);
        }
#define PSTR(k) (const char *)buf + word(buf, 8 + 2 * (k)), word(buf, 9 + 2 * (k))
        FUZZ_CHECK(span_eq(PSTR(0), res.target, res.target_len), "packed target differs");
        FUZZ_CHECK(span_eq(PSTR(1), res.pattern, res.pattern_len), "packed pattern differs");
        FUZZ_CHECK(span_eq(PSTR(4), res.routed, res.routed_len), "packed routed URL differs");
        FUZZ_CHECK(((word(buf, 2) & 1) != 0) == (res.rewritten != 0), "packed rewritten flag differs");
        FUZZ_CHECK(word(buf, 1) == res.route_id, "packed route id %u, resolve_into %u", word(buf, 1), res.route_id);
        for (uint32_t i = 0; i < P; i++) {
            FUZZ_CHECK(span_eq(PSTR(10 + i), params[i].name, params[i].name_len), "packed param name %u", i);
            FUZZ_CHECK(span_eq(PSTR(10 + P + i), params[i].value, params[i].value_len), "packed param value %u", i);
        }
        for (uint32_t i = 0; i < Q; i++) {
            const char *qn = lr_match_query_name(m, i), *qv = lr_match_query_value(m, i);
            uint32_t nl = word(buf, 9 + 2 * (10 + 2 * P + 2 * i)), vl = word(buf, 9 + 2 * (11 + 2 * P + 2 * i));
            const char *np = (const char *)buf + word(buf, 8 + 2 * (10 + 2 * P + 2 * i));
            const char *vp = (const char *)buf + word(buf, 8 + 2 * (11 + 2 * P + 2 * i));
            FUZZ_CHECK(span_eq(qn, strlen(qn), np, strnlen(np, nl)) && span_eq(qv, strlen(qv), vp, strnlen(vp, vl)),
                       "packed query pair %u differs from lr_match_query", i);
        }
        if (word(buf, 2) & 2) FUZZ_CHECK(lr_match_name(m) && span_eq(PSTR(2), lr_match_name(m), strlen(lr_match_name(m))),
                                         "packed name differs");
#undef PSTR
        free(buf);
    } else if (rc_into != LR_OK) {
        size_t needed = 12345;
        unsigned char buf[64];
        int prc = lr_router_resolve_packed(router, url, n, buf, sizeof buf, &needed);
        FUZZ_CHECK(prc == rc_into, "packed %d but resolve_into %d", prc, rc_into);
        if (prc < 0) check_error(prc, "lr_router_resolve_packed", url, n);
    }
    lr_match_free(m);
    free(params);
    free(scratch);
    long long dt = fuzz_now_ns() - t0;
    if (dt > FUZZ_SLOW_NS) { /* information only: libFuzzer's -timeout fails a hang */
        fprintf(stderr, "fuzz_resolve: (information) lookups took %lld ms on\n", dt / 1000000);
        fuzz_dump("slow url", url, n);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *cstr = fuzz_strndup(data, size);
    size_t clen = strlen(cstr);
    char *exact = malloc(clen ? clen : 1);
    FUZZ_CHECK(exact, "out of memory");
    memcpy(exact, data, clen);
    check_url(cstr, exact, clen, 1); /* the C string, through every entry point */
    check_extreme_lengths(exact);
    check_maxed(cstr, exact, clen);
    free(exact);
    if (clen != size) {               /* NUL bytes inside: the length-taking entry points */
        exact = malloc(size);
        FUZZ_CHECK(exact, "out of memory");
        memcpy(exact, data, size);
        check_url(NULL, exact, size, 0);
        check_maxed(NULL, exact, size);
        free(exact);
    }
    free(cstr);
    return 0;
}
