/*
 * linkrouter.h -- the C interface of LinkRouter, an embeddable URL router.
 *
 * LinkRouter maps URLs -- deep links (app://user/42), push-notification links, web links
 * (https://www.example.com/p/7) -- to targets, with one routing table and one set of rules shared by every
 * language of an app: C, Python (ctypes), Swift, anything that can call C.
 *
 *     lr_router *r;
 *     lr_match  *m;
 *     lr_router_new(&r);
 *     lr_router_add(r, "app://user/:id", "UserPage");
 *     if (lr_router_resolve(r, "app://user/42?tab=posts", &m) == LR_OK) {
 *         printf("%s id=%s tab=%s\n", lr_match_target(m), lr_match_get(m, "id"), lr_match_get(m, "tab"));
 *         lr_match_free(m);
 *     }
 *     lr_router_free(r);
 *
 * This header is the manual. The full rules (URL parsing, pattern syntax, precedence, rewriting) are in
 * docs/SEMANTICS.md; in short:
 *
 *   URLs      scheme ":" ["//" authority] path ["?" query] ["#" fragment], UTF-8, raw UTF-8 and spaces accepted.
 *             The match sequence is the host (lower-cased, when non-empty) then the non-empty path segments,
 *             each percent-decoded after splitting on "/" (so %2F stays inside its segment).
 *   Patterns  scheme "://" segments, e.g. "app://user/:id", "https://www.example.com/p/:id", "*://x/:y",
 *             "files://open/ *path" (without the space). The first segment stands for the host.
 *             Per segment a literal beats ":param", which beats "*"; a scheme beats "*://"; matching
 *             backtracks, and the order routes were added in never matters.
 *   Params    extra (given at resolve time) > path (":name", "*name") > query; repeated query keys: the last wins.
 *
 * Conventions (libgit2's and SQLite's):
 *   - Functions return an int status: LR_OK (0), a positive expected outcome (LR_NOMATCH), or a negative error.
 *     lr_last_error() then describes the failure in words; the message is per thread.
 *   - Constructors fill an out-parameter (`lr_router **out`); what comes back through one belongs to the caller
 *     and is released with the matching _free function. Every _free accepts NULL.
 *   - Strings returned by getters are borrowed from their parent object (an lr_match) and live as long as it.
 *     Strings the library allocates for the caller (char **out) are released with lr_string_free(), never free().
 *   - All strings are NUL-terminated UTF-8. Invalid UTF-8 is refused with LR_EINVAL.
 *   - Nothing in this library aborts the process: every input, however malformed, gets a status code.
 *   - Thread safety: every function may be called on one router from any number of threads at once,
 *     registration included. A change builds a new snapshot of the table while lookups continue on the old one,
 *     then publishes it atomically: a lookup never waits for a change, and it sees the table before or after
 *     the change, never a mix. An lr_match is immutable and may be read from any thread.
 */
#ifndef LINKROUTER_H
#define LINKROUTER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------------------------
 * Versions
 * ------------------------------------------------------------------------------------------------------------ */

#define LR_VERSION_MAJOR 0
#define LR_VERSION_MINOR 1
#define LR_VERSION_PATCH 0
#define LR_VERSION_STRING "0.1.0"
#define LR_VERSION_NUMBER (LR_VERSION_MAJOR * 10000 + LR_VERSION_MINOR * 100 + LR_VERSION_PATCH)

/* The version of the library actually loaded, LR_VERSION_NUMBER of the header it was built with.
   Compare it with LR_VERSION_NUMBER to detect a header/library mismatch (SQLite's check). */
int lr_version_number(void);

/* ------------------------------------------------------------------------------------------------------------
 * Status codes. The values never change.
 * ------------------------------------------------------------------------------------------------------------ */

enum lr_status {
    LR_OK        =   0,  /* success */
    LR_NOMATCH   =   1,  /* no route (or no rewrite rule) matches: an expected outcome, not an error */
    LR_EMISUSE   =  -1,  /* a NULL handle or argument, or an argument out of range */
    LR_EINVAL    =  -2,  /* a malformed URL (e.g. no scheme), or text that is not UTF-8 */
    LR_EPATTERN  =  -3,  /* a malformed route pattern or rewrite template; the message gives the byte offset */
    LR_ECONFLICT =  -4,  /* a route matching exactly the URLs of an existing one; the message names it */
    LR_EREGEX    =  -5,  /* a rewrite regex PCRE2 will not compile; the message has PCRE2's text and offset */
    LR_ELIMIT    =  -6,  /* a limit was hit (URL length, segments, parameters, regex match or depth limit) */
    LR_ENOTFOUND =  -7,  /* the route or rule to remove does not exist */
    LR_ETABLE    =  -8,  /* a malformed route table file */
    LR_EIO       =  -9,  /* a file could not be read or written */
    LR_ENOMEM    = -10   /* memory could not be allocated */
};

/* Static English text for a status code ("no match", "malformed pattern", ...); never NULL. */
const char *lr_errstr(int code);

/* The detail of this thread's last failing call, e.g. "malformed pattern 'app://a//b' at byte 8: empty segment".
   Never NULL ("" before any failure). Valid until this thread's next failing call; successful calls leave it. */
const char *lr_last_error(void);

/* ------------------------------------------------------------------------------------------------------------
 * Routers
 * ------------------------------------------------------------------------------------------------------------ */

typedef struct lr_router lr_router;  /* opaque; one routing table and its rewrite rules */
typedef struct lr_match  lr_match;   /* opaque; the result of one lookup, owned by the caller */

/* Creates an empty router in *out. Returns LR_OK, or LR_EMISUSE when out is NULL. Free it with lr_router_free. */
int lr_router_new(lr_router **out);

/* Frees a router. NULL is a no-op. No other thread may be using the router, and matches it returned stay valid. */
void lr_router_free(lr_router *r);

/* Adds a route from `pattern` to `target` (any string; the router only hands it back).
 *   LR_OK        added
 *   LR_EPATTERN  malformed pattern (the message names the byte offset), or a parameter name used twice
 *   LR_ECONFLICT a route with the same scheme, segment kinds and literals exists (parameter names do not
 *                count); the message names the existing pattern
 *   LR_ELIMIT    more segments than LR_LIMIT_SEGMENTS, more than 65,535 parameters, or a pattern or target
 *                longer than 64 MiB (67,108,864 bytes): the most a route stores (a fixed bound, not a limit to set)
 *   LR_EINVAL    pattern or target is not UTF-8;  LR_EMISUSE  r, pattern or target is NULL */
int lr_router_add(lr_router *r, const char *pattern, const char *target);

/* Adds a route that also carries a name and metadata (free text, JSON by convention), both returned with its
   matches; either may be NULL, and each is at most 64 MiB. Codes as lr_router_add. */
int lr_router_add_route(lr_router *r, const char *pattern, const char *target, const char *name, const char *metadata);

/* Adds `count` routes at once, all or none: if one is refused, the table is left exactly as it was, the code is
   that route's, the message starts with "route <i>:", and *failed_index (when not NULL) is set to i.
   Much faster than single adds for big tables: one snapshot is built instead of `count`. */
int lr_router_add_many(lr_router *r, const char *const *patterns, const char *const *targets, size_t count,
                       size_t *failed_index);

/* Removes the route that `pattern` would conflict with (same scheme, segment kinds and literals).
   LR_OK, LR_ENOTFOUND when there is none, LR_EPATTERN, LR_EINVAL, LR_EMISUSE. */
int lr_router_remove(lr_router *r, const char *pattern);

/* Removes every route; rewrite rules stay. LR_OK or LR_EMISUSE. */
int lr_router_clear(lr_router *r);

/* The number of routes, in *out. LR_OK or LR_EMISUSE. */
int lr_router_count(lr_router *r, size_t *out);

/* 1 when `url` (after rewriting) matches a route, 0 when not, or a negative error:
   LR_EINVAL (not an absolute URL, not UTF-8), LR_ELIMIT, LR_EMISUSE. */
int lr_router_can_route(lr_router *r, const char *url);

/* Rewrites `url` (see Rewrite rules), matches it and fills *out with a new lr_match, owned by the caller.
 *   LR_OK        *out is the match; free it with lr_match_free
 *   LR_NOMATCH   no route matches; *out = NULL
 *   LR_EINVAL    not an absolute URL (no "scheme:"), or not UTF-8; *out = NULL
 *   LR_ELIMIT    longer than LR_LIMIT_URL_LENGTH, more than LR_LIMIT_SEGMENTS segments or LR_LIMIT_PARAMS query
 *                pairs, or a rewrite regex hit its match or depth limit; *out = NULL
 *   LR_ENOMEM    memory could not be allocated (only with limits raised far above their defaults); *out = NULL
 *   LR_EMISUSE   r, url or out is NULL */
int lr_router_resolve(lr_router *r, const char *url, lr_match **out);

/* lr_router_resolve with extra parameters, which outrank path and query parameters (FFRouter's
   "withParameters:"). names[i] = values[i] for i < count; NULL arrays are fine when count is 0. */
int lr_router_resolve_with(lr_router *r, const char *url, const char *const *names, const char *const *values,
                           size_t count, lr_match **out);

/* ------------------------------------------------------------------------------------------------------------
 * Limits: every call works in bounded time and memory. Each limit applies to calls made after it is set.
 * Memory a lookup takes is bounded by the limits, never by a length the caller passes; at their maxima (the
 * ranges below) a lookup still neither traps nor overflows a thread's stack (512 KiB suffices).
 * ------------------------------------------------------------------------------------------------------------ */

enum lr_limit {                /* what it bounds;                                 default; range       */
    LR_LIMIT_URL_LENGTH  = 1,  /* longest URL (and rewritten URL), bytes;           65536; 1 .. 2^30    */
    LR_LIMIT_SEGMENTS    = 2,  /* most path segments, host included, in a URL or pattern;
                                                                                   1024; 1 .. 2^20     */
    LR_LIMIT_PARAMS      = 3,  /* most query pairs in a URL;                        1024; 1 .. 2^24     */
    LR_LIMIT_NESTING     = 4,  /* deepest bracket key (a[b][c] is 2) still nested in the JSON view;
                                  deeper keys stay flat, as written;                  32; 0 .. 256      */
    LR_LIMIT_REGEX_MATCH = 5,  /* PCRE2 match limit of a rewrite regex, per start offset;
                                                                                  10000; 1 .. 2^32-1   */
    LR_LIMIT_REGEX_DEPTH = 6,  /* PCRE2 depth limit of a rewrite regex (interpreter only: PCRE2's JIT
                                  is bounded by a 1 MiB JIT stack per thread instead); 1000; 1 .. 2^32-1 */
    LR_LIMIT_REGEX_START = 7   /* a rewrite regex is tried at start offsets up to this byte only, so a
                                  search costs at most START x MATCH steps;         1024; 0 .. 2^30     */
};

/* Sets a limit. LR_OK, or LR_EMISUSE for an unknown limit or a value out of its range (above). */
int lr_router_set_limit(lr_router *r, int limit, size_t value);

/* Reads a limit into *out. LR_OK or LR_EMISUSE. */
int lr_router_get_limit(lr_router *r, int limit, size_t *out);

/* ------------------------------------------------------------------------------------------------------------
 * Matches. Every string returned here is borrowed from the match and lives as long as it; none is NULL
 * unless said so. Passing a NULL match gives "" (or 0, or NULL for the indexed and lookup getters).
 * ------------------------------------------------------------------------------------------------------------ */

const char *lr_match_target(const lr_match *m);     /* the target the route was added with */
const char *lr_match_pattern(const lr_match *m);    /* the pattern as it was added */
const char *lr_match_url(const lr_match *m);        /* the URL as given */
const char *lr_match_rewritten(const lr_match *m);  /* the URL after rewriting (the same when no rule fired) */
const char *lr_match_scheme(const lr_match *m);     /* of the routed URL, lower-cased */
const char *lr_match_host(const lr_match *m);       /* lower-cased, without userinfo and port; "" when none */
const char *lr_match_port(const lr_match *m);       /* digits, "" when none */
const char *lr_match_path(const lr_match *m);       /* as written, not decoded */
const char *lr_match_fragment(const lr_match *m);   /* as written, "" when none; the fragment is never routed */
const char *lr_match_name(const lr_match *m);       /* the route's name, NULL when it has none */
const char *lr_match_metadata(const lr_match *m);   /* the route's metadata, NULL when it has none */

/* The merged parameters (extra > path > query), each name once: path parameters in pattern order, then query
   keys in order of first appearance (with their last value), then extras. Names are raw keys: the query pair
   info[nickname]=x gives the name "info[nickname]". Out-of-range i gives NULL. */
size_t      lr_match_param_count(const lr_match *m);
const char *lr_match_param_name(const lr_match *m, size_t i);
const char *lr_match_param_value(const lr_match *m, size_t i);

/* The value of merged parameter `name`, or NULL when absent. */
const char *lr_match_get(const lr_match *m, const char *name);

/* Every query pair of the routed URL in order, repeated keys included, decoded. Out-of-range i gives NULL. */
size_t      lr_match_query_count(const lr_match *m);
const char *lr_match_query_name(const lr_match *m, size_t i);
const char *lr_match_query_value(const lr_match *m, size_t i);

/* The match as one JSON object in *out, freed with lr_string_free:
     {"target", "pattern", "url", "rewritten", "scheme", "host", "port", "path", "fragment",
      ["name", "metadata",] "params", "query"}
   "params" nests bracket keys: info[nickname]=x&tags[]=a&tags[]=b gives
   {"info": {"nickname": "x"}, "tags": ["a", "b"]}; "query" lists every pair as [key, value].
   LR_OK, LR_EMISUSE (m or out NULL), LR_ENOMEM. */
int lr_match_to_json(const lr_match *m, char **out);

/* Frees a match. NULL is a no-op. */
void lr_match_free(lr_match *m);

/* ------------------------------------------------------------------------------------------------------------
 * Zero-allocation lookups. The caller provides every byte of memory; nothing is allocated while resolving.
 *
 *     lr_result res;
 *     lr_param_ref params[16];
 *     char scratch[LR_SCRATCH_SIZE(512)];
 *     int rc = lr_router_resolve_into(r, url, strlen(url), &res, params, 16, scratch, sizeof scratch);
 *     if (rc == LR_OK)
 *         for (size_t i = 0; i < res.param_count; i++)
 *             printf("%.*s = %.*s\n", (int)params[i].name_len, params[i].name,
 *                                     (int)params[i].value_len, params[i].value);
 *
 * Values point into `url` when nothing needed decoding, else into `scratch`: keep both alive while using them.
 * target and pattern are borrowed from the router's table and stay valid until this thread's next call into the
 * library (any function), whatever other threads change meanwhile, or until the router is freed.
 * ------------------------------------------------------------------------------------------------------------ */

/* A name and a value, as pointer and length; not NUL-terminated. */
typedef struct lr_param_ref {
    const char *name;
    size_t      name_len;
    const char *value;
    size_t      value_len;
} lr_param_ref;

/* What lr_router_resolve_into reports. */
typedef struct lr_result {
    const char *target;            /* the route's target (NUL-terminated) */
    size_t      target_len;
    const char *pattern;           /* the route's pattern (NUL-terminated) */
    size_t      pattern_len;
    const char *routed;            /* the URL that was matched: `url` itself, or the rewritten URL in scratch */
    size_t      routed_len;
    uint32_t    route_id;          /* the route's id: its insertion number in this router, never reused */
    uint32_t    rewritten;         /* 1 when a rewrite rule fired */
    size_t      path_param_count;  /* params[0 .. path_param_count): the path parameters in pattern order */
    size_t      param_count;       /* params[path_param_count .. param_count): the query pairs in order, except
                                      keys a path parameter takes; when a key repeats, the last one wins */
    size_t      needed_params;     /* after LR_ELIMIT for want of room: a params capacity that suffices */
    size_t      needed_scratch;    /*                                     a scratch size that suffices */
} lr_result;

/* Scratch enough for a URL of `url_len` bytes when no rewrite rule fires (a rule's output needs more). */
#define LR_SCRATCH_SIZE(url_len) (8 * (size_t)(url_len) + 64)

/* Resolves url[0 .. url_len) (no NUL needed) into the caller's memory.
 *   LR_OK        *res and params[0 .. res->param_count) are filled
 *   LR_NOMATCH   no route matches
 *   LR_ELIMIT    either a limit was hit (as lr_router_resolve), or params_cap or scratch_cap was too small:
 *                then res->needed_params and res->needed_scratch say what suffices; call again
 *   LR_EINVAL, LR_ENOMEM, LR_EMISUSE as lr_router_resolve (res may not be NULL; params and scratch may be NULL
 *                with a zero capacity; a length or capacity of more than PTRDIFF_MAX bytes is LR_EMISUSE) */
int lr_router_resolve_into(lr_router *r, const char *url, size_t url_len, lr_result *res,
                           lr_param_ref *params, size_t params_cap, char *scratch, size_t scratch_cap);

/* The value of parameter `name` in a result, with the precedence of lr_router_resolve (path, then the last
   query pair of that name); its length in *value_len (when not NULL). NULL when absent, and NULL (with
   lr_last_error saying why) when res holds counts no lookup writes, e.g. path_param_count > param_count. */
const char *lr_result_get(const lr_result *res, const lr_param_ref *params, const char *name, size_t *value_len);

/* Resolves url[0 .. url_len) into one packed buffer, for bindings that read a byte buffer faster than structures
 * (Python's ctypes reads it with struct.unpack_from). The layout, all integers little-endian uint32:
 *     word 0  bytes used                  word 4  path parameter count P
 *     word 1  route id                    word 5  query pair count Q (every pair, repeated keys included)
 *     word 2  flags: 1 rewritten,         word 6  string count S = 10 + 2P + 2Q
 *             2 has a name, 4 metadata    word 3, word 7  reserved (0)
 *   then S (offset, length) pairs of words, offsets from the start of `buf`, for the strings, in this order:
 *     target, pattern, name, metadata, routed URL, scheme (lower-cased), host (lower-cased), port, path, fragment,
 *     the P parameter names, the P parameter values, then each query pair as key, value;
 *   then the strings' bytes: UTF-8, not NUL-terminated.
 * Returns LR_OK, LR_NOMATCH, an error as lr_router_resolve, or LR_ELIMIT with *needed > cap when `buf` is too
 * small (call again with *needed bytes). *needed (when not NULL) is always set on LR_OK and LR_ELIMIT. */
int lr_router_resolve_packed(lr_router *r, const char *url, size_t url_len, void *buf, size_t cap, size_t *needed);

/* ------------------------------------------------------------------------------------------------------------
 * Rewrite rules (FFRouter's rewrite engine, on PCRE2). Rewriting runs before matching, once.
 *
 * A rule is (match, target): `match` is a PCRE2 regex (UTF mode, JIT-compiled), `target` a template. Rules
 * are tried in the order added; the first whose regex is found anywhere in the URL wins, and the whole URL is
 * replaced by the expanded target. Template pieces:
 *     $N ${name}                    capture N (0-99) / named capture; an unset group gives ""
 *     $scheme $host $port $path $query $fragment $url     parts of the original URL, as written
 *     $$...  (e.g. $$1, $${name}, $$query)   the value percent-encoded: every byte but A-Z a-z 0-9 - . _ ~
 *     $#...  (e.g. $#1, $#{name}, $#path)    the value percent-decoded (malformed sequences kept as written)
 *     \$  a literal "$"      \\  a literal "\"
 * Expansion is one pass: substituted text is never scanned again. Example (FFRouter's):
 *     "(?:https://)?www.taobao.com/search/(.*)" -> "protocol://page/routerDetails?product=$$1"
 *     turns https://www.taobao.com/search/原子弹 into
 *     protocol://page/routerDetails?product=%E5%8E%9F%E5%AD%90%E5%BC%B9
 * Regexes run with PCRE2 match and depth limits (see Limits): a catastrophic regex ends in LR_ELIMIT, never a hang.
 * ------------------------------------------------------------------------------------------------------------ */

/* Adds a rule; a rule with the same `match` already present gets the new target in place (keeps its position).
   LR_OK, LR_EREGEX (PCRE2's message and offset), LR_EPATTERN (bad template, with offset), LR_EINVAL, LR_EMISUSE. */
int lr_router_add_rewrite(lr_router *r, const char *match, const char *target);

/* Adds `count` rules in order, all or none; *failed_index (when not NULL) names the refused rule. */
int lr_router_add_rewrites(lr_router *r, const char *const *matches, const char *const *targets, size_t count,
                           size_t *failed_index);

/* Removes the rule whose regex is exactly `match`. LR_OK, LR_ENOTFOUND, LR_EINVAL, LR_EMISUSE. */
int lr_router_remove_rewrite(lr_router *r, const char *match);

/* Removes every rewrite rule. LR_OK or LR_EMISUSE. */
int lr_router_clear_rewrites(lr_router *r);

/* Rewrites `url`: LR_OK with *out a new string (free with lr_string_free), or LR_NOMATCH with *out = NULL when
   no rule matches (the URL is left as it is). Also LR_ELIMIT, LR_EINVAL (not UTF-8), LR_EMISUSE.
   `url` need not be absolute here: rules may turn "www.example.com/x" into an app URL. */
int lr_router_rewrite(lr_router *r, const char *url, char **out);

/* Frees a string the library allocated. NULL is a no-op. */
void lr_string_free(char *s);

#ifdef __cplusplus
}
#endif

#endif /* LINKROUTER_H */
