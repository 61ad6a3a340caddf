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
 *             Typed parameters ":id<int>" (int, uint, float, uuid, slug, a class "[a-z0-9]+"), parameters
 *             inside a segment "{name}.png", "v{n<uint>}", trailing optional groups "app://user/:id(/:tab)".
 *             Per segment a literal beats a typed or in-segment parameter, which beats ":param", which beats
 *             "*"; a scheme beats "*://"; matching backtracks, and the order routes were added in never matters.
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
 *   - Nothing in this library aborts the process: every input, however malformed, gets a status code. The one
 *     exception is a handle: an lr_router or lr_match must be one this library gave and not yet freed, of the
 *     kind the function takes. A freed handle, or a match given for a router, is undefined behavior (as in
 *     SQLite): it cannot be told from a live one without a cost on every call. NULL is always refused.
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
    LR_ELIMIT    =  -6,  /* a limit was hit (URL length, segments, parameters, regex match or depth limit, or
                            PCRE2's stop for a regex recursion looping at one position) */
    LR_ENOTFOUND =  -7,  /* the route or rule to remove does not exist */
    LR_ETABLE    =  -8,  /* a malformed route table file */
    LR_EIO       =  -9,  /* a file could not be read or written */
    LR_ENOMEM    = -10,  /* memory could not be allocated */
    LR_DEFERRED  =   2,  /* lr_router_open: a guard deferred the URL; it waits in that guard's queue (an expected
                            outcome, not an error: lr_router_resume replays it) */
    LR_EDENIED   = -11,  /* lr_router_open: a guard denied the URL; the message is the guard's */
    LR_ETIMEOUT  = -12,  /* lr_router_open: the handler did not reply in time; also a reply that came too late */
    LR_EREPLIED  = -13,  /* a reply completed a second time, or one the library does not know */
    LR_EHANDLER  = -14   /* a handler or guard failed without a status code of its own */
};

/* Static English text for a status code ("no match", "malformed pattern or template", ...); never NULL. */
const char *lr_errstr(int code);

/* The detail of this thread's last failing call, e.g.
   "malformed pattern 'app://a//b' at byte 8: empty segment ('//' in a pattern)".
   Never NULL ("" before any failure). Valid until this thread's next failing call; successful calls leave it.
   A NUL byte in the input it quotes (a URL given with its length, say) is written as the six characters \u0000,
   so the message is never cut short. */
const char *lr_last_error(void);

/* The byte offset that the same failing call's error is about, in the text its message quotes: the pattern, rewrite
   target or regex (LR_EPATTERN, LR_EREGEX, and LR_ELIMIT for a pattern with more segments than LR_LIMIT_SEGMENTS:
   the first segment past it; in a bulk call, in the item *failed_index names), or a table's JSON (LR_ETABLE for a
   syntax error, e.g. "JSON syntax error at byte 12 ..."). -1 when that error names no offset, and
   before any failure. Set with lr_last_error by every failing call, so the two always describe one error: read
   both before this thread's next call. (SQLite's sqlite3_error_offset, for LinkRouter's inputs.) */
int64_t lr_last_error_offset(void);

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
 *                count), or (lr_router_add_route) a route with the same name; the message names the existing
 *                route
 *   LR_ELIMIT    more segments than LR_LIMIT_SEGMENTS, more than 65,535 parameters (a fixed limit), or a pattern
 *                or target over 64 MiB
 *   LR_EINVAL    pattern or target is not UTF-8;  LR_EMISUSE  r, pattern or target is NULL */
int lr_router_add(lr_router *r, const char *pattern, const char *target);

/* Adds a route that also carries a name and metadata, both returned with its matches; either may be NULL.
   A name is unique in the router (LR_ECONFLICT names the route that has it; removing a route frees its name):
   lr_router_build_url finds the route by it.
   `metadata` is a JSON object whose values are strings, e.g. {"transition":"push","class":"UserViewController"}:
   the route's meta, which lr_match_metadata returns as one JSON object with sorted keys. Codes as lr_router_add,
   and LR_EINVAL when metadata is not such an object (not JSON, a value that is not a string, a key twice), or
   when the name is "" or holds a control character (a table file's rules: docs/TABLES.md).
   Each string is at most 64 MiB. */
int lr_router_add_route(lr_router *r, const char *pattern, const char *target, const char *name, const char *metadata);

/* Adds `count` routes at once, all or none: if one is refused, the table is left exactly as it was, the code is
   that route's, the message starts with "route <i>:", and *failed_index (when not NULL) is set to i. A conflict
   with a route earlier in the same call names it by its place, not as an existing route: "route 2: pattern
   'app://b/:y' conflicts with route 1 of this batch ('app://b/:x'): both match exactly the same URLs".
   Much faster than single adds for big tables: one snapshot is built instead of `count`. */
int lr_router_add_many(lr_router *r, const char *const *patterns, const char *const *targets, size_t count,
                       size_t *failed_index);

/* Removes the route that `pattern` would conflict with (same scheme, segment kinds and literals). A route with
   optional groups goes by a pattern that covers all its forms (its own, whatever the names); one that covers some
   of them is LR_ENOTFOUND and removes nothing. A route added before LR_LIMIT_SEGMENTS was lowered can still be
   removed (a pattern with more segments than every route and the limit is LR_ENOTFOUND).
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
    LR_LIMIT_REGEX_START = 7,  /* a rewrite regex is tried at start offsets up to this byte only, so a
                                  search costs at most START x MATCH steps;         1024; 0 .. 2^30     */
    LR_LIMIT_PENDING     = 8,  /* most deferred opens one guard's queue holds; an open deferred when its
                                  queue is full fails with LR_ELIMIT;               64; 0 .. 2^20       */
    LR_LIMIT_REPLY_TIMEOUT_MS = 9  /* how long lr_router_open waits for a handler's reply when the caller
                                  sets no timeout, milliseconds;                    10000; 1 .. 2^31-1  */
};

/* Sets a limit. LR_OK, or LR_EMISUSE for an unknown limit or a value out of its range (above). */
int lr_router_set_limit(lr_router *r, int limit, size_t value);

/* Reads a limit into *out. LR_OK or LR_EMISUSE. */
int lr_router_get_limit(lr_router *r, int limit, size_t *out);

/* ------------------------------------------------------------------------------------------------------------
 * Matches. Every string returned here is borrowed from the match and lives as long as it; none is NULL
 * unless said so. Passing a NULL match gives "" (or 0, or NULL for the indexed and lookup getters,
 * lr_match_name and lr_match_metadata).
 *
 * A match is one block of memory holding every string it reports: lr_router_resolve makes it with one
 * allocation, the getters read it in place (no allocation, no locking), lr_match_free releases it. Getters are
 * O(1) but lr_match_get and lr_match_meta, which compare names in order (O(number of parameters)).
 * A name or value decoded from %00 holds a NUL byte: its C string here ends at that byte, and lr_match_get
 * cannot find such a name; lr_router_resolve_into gives every name and value whole, with its length.
 * ------------------------------------------------------------------------------------------------------------ */

const char *lr_match_target(const lr_match *m);     /* the target the route was added with */
const char *lr_match_pattern(const lr_match *m);    /* the pattern as it was added */
const char *lr_match_url(const lr_match *m);        /* the URL as given */
const char *lr_match_rewritten(const lr_match *m);  /* the URL after rewriting (the same when no rule fired) */
const char *lr_match_scheme(const lr_match *m);     /* of the routed URL, lower-cased */
const char *lr_match_host(const lr_match *m);       /* the host the router compared: percent-decoded, lower-cased,
                                                       without userinfo and port ("%61ds.Example.net" gives
                                                       "ads.example.net"); as written (lower-cased) when its decoding
                                                       is malformed, not UTF-8 or holds a NUL; "" when none */
const char *lr_match_port(const lr_match *m);       /* digits, "" when none */
const char *lr_match_path(const lr_match *m);       /* as written, not decoded */
const char *lr_match_fragment(const lr_match *m);   /* as written, "" when none; the fragment is never routed */
const char *lr_match_name(const lr_match *m);       /* the route's name, NULL when it has none */
const char *lr_match_metadata(const lr_match *m);   /* the route's meta as a JSON object, NULL when it has none */
uint32_t    lr_match_route_id(const lr_match *m);   /* the route's id: its insertion number, never reused */

/* The route's meta (string key/values), sorted by key; lr_match_meta gives the value of `key`, NULL when absent.
   Out-of-range i gives NULL. */
size_t      lr_match_meta_count(const lr_match *m);
const char *lr_match_meta_name(const lr_match *m, size_t i);
const char *lr_match_meta_value(const lr_match *m, size_t i);
const char *lr_match_meta(const lr_match *m, const char *key);

/* The guards the route requires, in the order they run (see "Opening URLs"). Out-of-range i gives NULL. */
size_t      lr_match_requires_count(const lr_match *m);
const char *lr_match_requires(const lr_match *m, size_t i);

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
      ["name",] ["meta": {...},] ["requires": [...],] "params", "query"}
   "params" nests bracket keys: info[nickname]=x&tags[]=a&tags[]=b gives
   {"info": {"nickname": "x"}, "tags": ["a", "b"]}; "query" lists every pair as [key, value].
   LR_OK, LR_EMISUSE (m or out NULL), LR_ENOMEM. */
int lr_match_to_json(const lr_match *m, char **out);

/* A copy of `m` in *out, owned by the caller (free it with lr_match_free): how a handler keeps the match it was
   lent beyond its call. LR_OK, LR_EMISUSE (m or out NULL), LR_ENOMEM. */
int lr_match_clone(const lr_match *m, lr_match **out);

/* Frees a match that lr_router_resolve, lr_router_resolve_with or lr_match_clone returned. NULL is a no-op.
   Never free a match a handler or guard was lent. The calling thread keeps the memory of one small match (up to
   4 KiB) for its next lr_router_resolve, so a resolve-and-free loop costs no malloc; it is freed when the thread
   ends. */
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

/* A name and a value, as pointer and length; not NUL-terminated. In a result neither pointer is NULL, however
   empty the name or value (an empty catch-all, a bare query key "flag", "k=", "=v": length 0, pointer not NULL). */
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
    size_t      needed_scratch;    /*                                     a scratch size that suffices;
                                      both 0 after LR_OK, LR_NOMATCH and LR_ELIMIT for a limit */
} lr_result;

/* Scratch enough for a URL of `url_len` bytes when no rewrite rule fires (a rule's output needs more). */
#define LR_SCRATCH_SIZE(url_len) (8 * (size_t)(url_len) + 64)

/* Resolves url[0 .. url_len) (no NUL needed) into the caller's memory.
 *   LR_OK        *res and params[0 .. res->param_count) are filled
 *   LR_NOMATCH   no route matches
 *   LR_ELIMIT    either a limit was hit (as lr_router_resolve): then res->needed_params and res->needed_scratch
 *                are 0; or params_cap or scratch_cap was too small: then res->needed_params > params_cap or
 *                res->needed_scratch > scratch_cap, and the two say what suffices: one call again with (at
 *                least) both gives the lookup's answer, never LR_ELIMIT for want of room (for the same URL,
 *                while the router's routes and rules stay as they were). Room is checked before matching, so
 *                a URL that matches no route may first get LR_ELIMIT, then LR_NOMATCH
 *   LR_EINVAL, LR_ENOMEM, LR_EMISUSE as lr_router_resolve (res may not be NULL; params and scratch may be NULL
 *                with a zero capacity only: NULL with a capacity, or a length or capacity of more than PTRDIFF_MAX
 *                bytes, is LR_EMISUSE) */
int lr_router_resolve_into(lr_router *r, const char *url, size_t url_len, lr_result *res,
                           lr_param_ref *params, size_t params_cap, char *scratch, size_t scratch_cap);

/* The value of parameter `name` in a result, with the precedence of lr_router_resolve (path, then the last
   query pair of that name); its length in *value_len (when not NULL). Not NULL when present, even when empty
   (then *value_len is 0). NULL when absent, and NULL (with
   lr_last_error saying why) when res, params or name is NULL, or res holds counts no lookup writes, e.g.
   path_param_count > param_count. */
const char *lr_result_get(const lr_result *res, const lr_param_ref *params, const char *name, size_t *value_len);

/* Resolves url[0 .. url_len) into one packed buffer, for bindings that read a byte buffer faster than structures
 * (Python's ctypes reads it with struct.unpack_from). The layout, all integers little-endian uint32:
 *     word 0  bytes used                  word 4  path parameter count P
 *     word 1  route id                    word 5  query pair count Q (every pair, repeated keys included)
 *     word 2  flags: 1 rewritten,         word 6  string count S = 10 + 2P + 2Q + R
 *             2 has a name, 4 metadata    word 3  the route's required guard count R;  word 7  reserved (0)
 *   then S (offset, length) pairs of words, offsets from the start of `buf`, for the strings, in this order:
 *     target, pattern, name, metadata, routed URL, scheme (lower-cased), host (as lr_match_host), port, path, fragment,
 *     the P parameter names, the P parameter values, each query pair as key, value, then the R guard names;
 *   then the strings' bytes: UTF-8, not NUL-terminated.
 * Returns LR_OK, LR_NOMATCH, an error as lr_router_resolve, or LR_ELIMIT with *needed > cap when `buf` is too
 * small (call again with *needed bytes). *needed (when not NULL) is always set: the bytes used on LR_OK, the bytes
 * needed on LR_ELIMIT for want of room (> cap), and 0 on every other return, LR_ELIMIT for a limit (URL length,
 * segments, query pairs) included: *needed > cap tells a short buffer from a limit no buffer cures. `buf` may be
 * NULL with a zero cap only (a size query); NULL with a capacity, or a length or cap over PTRDIFF_MAX, is LR_EMISUSE. */
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
 *     $#...  (e.g. $#1, $#{name}, $#path)    the value percent-decoded (malformed sequences, and %00, kept as written)
 *     \$  a literal "$"      \\  a literal "\"
 * Expansion is one pass: substituted text is never scanned again. Example (FFRouter's):
 *     "(?:https://)?www.taobao.com/search/(.*)" -> "protocol://page/routerDetails?product=$$1"
 *     turns https://www.taobao.com/search/原子弹 into
 *     protocol://page/routerDetails?product=%E5%8E%9F%E5%AD%90%E5%BC%B9
 * Regexes run with PCRE2 match and depth limits (see Limits): a catastrophic regex ends in LR_ELIMIT, never a hang.
 * ------------------------------------------------------------------------------------------------------------ */

/* Adds a rule; a rule with the same `match` already present gets the new target in place (keeps its position).
   LR_OK, LR_EREGEX (PCRE2's message and offset), LR_EPATTERN (bad template, with offset), LR_EINVAL, LR_EMISUSE;
   LR_ELIMIT for a match or target over 64 MiB (as a route's strings), refused before it is copied. */
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

/* ------------------------------------------------------------------------------------------------------------
 * Route tables: a router's whole table as one JSON document (docs/TABLES.md, docs/linkrouter-table.schema.json),
 * loaded, checked and exported alike by every binding; URLs built from route names; lookups explained.
 *
 *     {"version": 1,
 *      "routes":   [{"pattern": "shop://product/:id", "target": "ProductScreen", "name": "product",
 *                    "requires": ["login"], "meta": {"transition": "push"}}],
 *      "rewrites": [{"match": "^https://shop\\.example\\.com/p/(\\d+)", "target": "shop://product/$1"}]}
 *
 * "version" is required (1); "routes" and "rewrites" may be left out; "$schema" (a string) is allowed and
 * ignored; any other key is an error. "name" (unique in the router), "requires" (guard names) and "meta"
 * (string values) are optional. A load is atomic: when the document has any problem, nothing changes, the call
 * returns LR_ETABLE, and lr_last_error() lists every problem, one per line, each as "<JSON pointer>: <reason>":
 *     /routes/3/pattern: malformed pattern 'shop://a//b' at byte 9: empty segment ('//' in a pattern)
 *     /routes/7/pattern: pattern 'shop://p/:x' conflicts with /routes/2 ('shop://p/:id'): both match ...
 *     /rewrites/1/match: invalid rewrite regex '(' at byte 1: missing closing parenthesis (PCRE2 error 114)
 * (lr_router_check_json gives the same problems as JSON). A resolve running on another thread during a load
 * sees the old table or the new one, whole.
 * ------------------------------------------------------------------------------------------------------------ */

#define LR_LOAD_REPLACE 0  /* the document's routes and rules replace the router's (limits stay) */
#define LR_LOAD_MERGE   1  /* its routes are added (a conflict with an existing route names both); its rules are
                              appended in order, a rule whose regex exists getting the new target in place */

/* Loads the route table document text[0 .. len) (UTF-8, no NUL needed or allowed) into the router.
 *   LR_OK        loaded: the router holds the document's table (LR_LOAD_REPLACE) or both (LR_LOAD_MERGE)
 *   LR_ETABLE    the document has problems; nothing changed; lr_last_error() lists them, one per line
 *   LR_EINVAL    text has a NUL byte (lr_last_error_offset() is where) or is not UTF-8; LR_ELIMIT len > 256 MiB
 *   LR_EMISUSE   r is NULL, text is NULL with len > 0, or flags is not LR_LOAD_REPLACE or LR_LOAD_MERGE */
int lr_router_load_json(lr_router *r, const char *text, size_t len, int flags);

/* lr_router_load_json with the content of the file at `path`.
   Also LR_EIO when the file cannot be opened or read (the message has the OS's reason), LR_ELIMIT when it is
   over 256 MiB, and LR_ETABLE (not LR_EINVAL) when its content is not UTF-8. */
int lr_router_load_file(lr_router *r, const char *path, int flags);

/* Checks a document as lr_router_load_json would load it into this router with `flags`, changing nothing, and
 * writes a report to *report (free with lr_string_free):
 *     {"valid": true|false,
 *      "problems": [{"pointer": "/routes/3/pattern", "code": -3, "reason": "malformed pattern ..."}, ...],
 *      "warnings": [{"pointer": "/routes/5", "kind": "shadowed", "reason": "..."}, ...]}
 * "code" is the status the problem alone would give (LR_EPATTERN, LR_ECONFLICT, LR_EREGEX, LR_ELIMIT, LR_ETABLE).
 * Warnings (only for a valid document): "shadowed" (a route that can never be the match),
 * "rewrite_routes_nowhere" (a rule whose target no route can match) and "overlap" (two routes that share URLs,
 * as lr_router_overlaps lists them).
 *   LR_OK        the document would load; *report is set
 *   LR_ETABLE    it would not; *report is set, and lr_last_error() lists the problems one per line
 *   LR_EINVAL, LR_ELIMIT, LR_EMISUSE as lr_router_load_json (also when report is NULL); *report = NULL */
int lr_router_check_json(lr_router *r, const char *text, size_t len, int flags, char **report);

/* lr_router_check_json on the file at `path`; LR_EIO when it cannot be read (*report = NULL). */
int lr_router_check_file(lr_router *r, const char *path, int flags, char **report);

/* The router's table as a document in *out (free with lr_string_free): routes in the order added, then the
   rewrite rules in order; keys in a fixed order (version, routes, rewrites; pattern, target, name, requires,
   meta), meta keys sorted, absent fields left out, two-space indentation, a final newline. Loading it gives
   the same table, and exporting that gives the same bytes. LR_OK, LR_EMISUSE, LR_ENOMEM. */
int lr_router_to_json(lr_router *r, char **out);

/* The route overlaps of the router's table as a JSON array in *out (free with lr_string_free): pairs of routes
 * that both match some URLs where precedence, not a literal, decides (docs/SEMANTICS.md §3). Adding such
 * routes is allowed; this says where they meet. Each element:
 *   {"kind": "typed" | "any_scheme", "winner": pattern, "winner_index": i, "other": pattern, "other_index": j,
 *    "example": a URL both match, which resolves to the winner (rewrite rules not applied), "reason": text}
 * "typed": at some place both have a parameter with a different type or literal prefix/suffix (`:id<int>` and
 * `:name`, `<uint>` and `<int>`, `{f}.png` and `:file`); "any_scheme": a scheme's route (often a catch-all)
 * hides a `*://` route for that scheme. Indices are positions in the route list (insertion order); elements are
 * ordered by other_index. An empty table, or one without such pairs, gives "[]". `linkrouter check` prints
 * the same pairs as warnings of kind "overlap". LR_OK, LR_EMISUSE (out NULL), LR_ENOMEM. */
int lr_router_overlaps(lr_router *r, char **out);

/* Builds the URL of the route called `name` (reverse routing) in *out (free with lr_string_free).
 * names[i] = values[i] for i < count (NULL arrays are fine when count is 0): each name is one of the pattern's
 * parameters (":id" is "id", "*path" is "path", a bare "*" is "*"), or, when it starts with "?", a query
 * parameter ("?tab" = "posts" appends tab=posts, in the order given). Each value is percent-encoded for its
 * place, so the URL resolves back to the same route and values:
 *   :param      every byte but A-Z a-z 0-9 - . _ ~ ! $ & ' ( ) * + , ; = becomes %XX ("." and ".." too);
 *               the value may not be empty
 *   :p<type>, x{p}y  the value must fit the type, encoded as a :param; the literal text around {p} is
 *               written as parsed, every byte but those a :param keeps becoming %XX, except : and @ in a
 *               path (in the host they would be a port or a user: "app://h:{port<uint>}/x" gives
 *               "app://h%3A80/x")
 *   *catch-all  split on "/", each piece encoded as a :param; empty pieces ("a//b", "/a") are refused; an
 *               empty value writes nothing. A catch-all resolves undecoded, so it comes back as written here
 *   ?query      key and value: every byte but A-Z a-z 0-9 - . _ ~ ! $ ' ( ) * , ; : @ / ? becomes %XX
 * Literals are written as the pattern writes them, but a host's "@" and final ":" as %40, %3A. Example:
 * route "product" = "shop://product/:id", {"id", "?ref"} = {"4 2", "mail&push"} gives
 * "shop://product/4%202?ref=mail%26push".
 *   LR_OK        *out is the URL
 *   LR_ENOTFOUND no route has that name
 *   LR_EINVAL    a parameter is missing, unknown, given twice or empty (":param"), a value does not fit its
 *                type, a catch-all value has an empty piece, a query name is empty or that of a path
 *                parameter, the route's scheme is "*" (no one URL to build), an optional group has some but
 *                not all of its parameters, the optional groups given would build a URL that resolves to
 *                other parameters (docs/SEMANTICS.md), or a string is not UTF-8
 *   LR_ELIMIT    the URL would be longer than LR_LIMIT_URL_LENGTH, or have more segments (host included) than
 *                LR_LIMIT_SEGMENTS or more query pairs than LR_LIMIT_PARAMS: a lookup would refuse it
 *   LR_EMISUSE   r, name or out is NULL, an array is NULL with count > 0, or an element is NULL */
int lr_router_build_url(lr_router *r, const char *name, const char *const *names, const char *const *values,
                        size_t count, char **out);

/* Explains what lr_router_resolve does with `url`, as one JSON object in *json_out (free with lr_string_free):
 *     {"url", "result": "matched" | "nomatch" | "error", ["error": {"code", "message"},]
 *      "rewrite": {"rules": [{"index", "match", "target",
 *                             "outcome": "fired" | "no_match" | "not_tried" | "skipped" | "error",
 *                             "indexed"}], "fired": <index> | null},
 *      "routed": the URL after rewriting, "sequence": [host, segments...] (decoded),
 *      "candidates": [{"pattern", "target", ["name",] "matched", "reason", "elements_matched"}],
 *      "candidates_omitted", "other_scheme_routes",
 *      "route": {"pattern", "target", ["name",] "requires", "meta"} | null,
 *      "params": {name: value, ...} (merged, raw keys), "requires": [guard, ...]}
 * Candidates are the routes with the URL's scheme (or "*"), at most 20, the winner first, then routes that
 * match but are outranked ("matches, but 'x' comes first (at segment 2, a literal beats a :param)"), then the
 * others by how far they got, each with the first difference ("segment 1 'p' is not 'c'", "the URL ends after
 * 2 elements; the pattern needs 3"). Rules are tried as lr_router_resolve tries them: "skipped" is a rule the
 * rule index leaves out for this URL ("indexed": false; the URL lacks a literal every match contains), whose
 * regex is not run; "not_tried" follows the rule that fired, and is every rule's outcome when the URL was refused
 * before any ran (over LR_LIMIT_URL_LENGTH). A URL the router refuses (not absolute, a limit)
 * gives "result": "error" with the code lr_router_resolve would return; when a rule's regex fails (a PCRE2
 * limit), the rules listed end with that one, "outcome": "error". Slow (every route is checked): for debugging
 * and tools.
 *   LR_OK        *json_out is set (whatever the result)
 *   LR_EINVAL    url is not UTF-8;  LR_EMISUSE  r, url or json_out is NULL;  LR_ENOMEM */
int lr_router_explain(lr_router *r, const char *url, char **json_out);

/* lr_router_explain as text for people, one fact per line ("url", "rewrite", "routed" after a rule fired,
   "sequence", "result", "candidates" with one line each, "params", "requires", "meta"): a control character in a value (a decoded
   newline or NUL in the URL's parameters, say) is written escaped ("\n", "\u0000"), so no value can break a
   line or end the string early. Same codes. */
int lr_router_explain_text(lr_router *r, const char *url, char **out);

/* ------------------------------------------------------------------------------------------------------------
 * Opening URLs: handlers, guards, deferred links, executors, logging.
 *
 * lr_router_open(r, url, opts, &result) rewrites and resolves `url`, runs the router's global guards and then
 * the route's required guards (in the order the route lists them), then calls the route's handler -- or, when
 * the route has none, the handler of its target -- and returns what the handler returned:
 *
 *     static int user_page(const lr_match *m, void *context, void *user_data, void **result,
 *                          const char **message) {
 *         *result = make_user_page(lr_match_get(m, "id"));
 *         return LR_OK;
 *     }
 *     lr_handler h = { user_page, NULL, NULL, NULL };
 *     lr_router_handle(r, "app://user/:id", &h);
 *     void *page;
 *     if (lr_router_open(r, "app://user/42", NULL, &page) == LR_OK) show(page);
 *
 * The outcomes of an open:
 *   LR_OK        the handler's (or the unmatched handler's) result is in *result
 *   LR_DEFERRED  a guard deferred the URL: it is parked, with its extras, context, dispatch, executor and
 *                timeout, in that guard's queue until lr_router_resume replays it (lr_router_pending lists them,
 *                lr_router_drop_pending drops); the executor must stay valid until then
 *   LR_NOMATCH   no route matches, and the router has no unmatched handler
 *   LR_EDENIED   a guard denied the URL (lr_last_error() is its message), or a guard the route requires is not
 *                registered (a missing check never lets a URL through)
 *   LR_ETIMEOUT  the handler did not reply within the timeout. A handler still waiting on its dispatch then is
 *                never run (its work does nothing): no handler acts on an open its caller was told failed. One
 *                already running runs on, and its reply is refused.
 *   LR_ENOTFOUND the route has no handler, nor has its target
 *   LR_ELIMIT    the guard's queue is full (LR_LIMIT_PENDING), or a limit of lr_router_resolve
 *   the handler's own negative status (LR_EHANDLER when it gives none), or the errors of lr_router_resolve.
 *
 * Handlers and guards run with no lock held: they may open other URLs, add routes or resume queues. The match
 * they are given is lent for the call, and its memory is reused by the thread's next open; lr_match_clone keeps a
 * copy. An asynchronous handler may use it until it replies, unless its open times out first: the match then
 * goes with the reply (see lr_reply_send), so a handler that reads it after its call returns (from another
 * thread, say) takes lr_match_clone during the call. Every callback comes with user_data and an optional
 * release(user_data), which the library calls once nothing can call the callback any more: after its route,
 * guard or router is gone and no open in flight still uses it (an asynchronous handler's reply is in flight
 * until it is sent or times out), from whichever thread lets go last, with no lock held (a release may call
 * the library, even this router, but must not free a router: it may run inside a lookup on any router of its
 * thread, where the per-thread cache lets go of an old table; free it later, outside the library's calls).
 * "Nothing can call it" includes the per-thread cache: each thread keeps the version of the table it last used
 * until its next lookup on that router, or its end, so a removed route's release may wait for a thread that
 * used the router and has been idle since (freeing the router lets go of every thread's copy at once). A
 * registration that fails keeps nothing and releases nothing.
 * ------------------------------------------------------------------------------------------------------------ */

/* A synchronous handler: sets *result (any pointer; leaving it NULL is "fire and forget") and returns LR_OK, or
   returns a negative status to fail the open, with an optional *message (copied at once). A positive return
   counts as LR_OK (as for the unmatched handler): only a negative one fails. */
typedef int (*lr_handler_fn)(const lr_match *m, void *context, void *user_data, void **result, const char **message);

/* An identifier of a pending reply, handed to an asynchronous handler. */
typedef uint64_t lr_reply;

/* An asynchronous handler: completes `reply` exactly once, now or later, from any thread, with lr_reply_send or
   lr_reply_fail (FFRouter's callback). A reply that never comes ends the open with LR_ETIMEOUT. */
typedef void (*lr_async_handler_fn)(const lr_match *m, void *context, void *user_data, lr_reply reply);

/* Frees what a callback's user_data holds; called once (see above). */
typedef void (*lr_release_fn)(void *user_data);

/* A handler: exactly one of `call` and `call_async` is set. */
typedef struct lr_handler {
    lr_handler_fn       call;
    lr_async_handler_fn call_async;
    void               *user_data;
    lr_release_fn       release;     /* may be NULL */
} lr_handler;

/* Adds a route for `pattern` (its target is the pattern itself) with its handler, in one change: an open never
   sees the route without it. Codes as lr_router_add, and LR_EMISUSE for a handler with neither or both calls. */
int lr_router_handle(lr_router *r, const char *pattern, const lr_handler *handler);

/* A route with everything it may carry, for lr_router_add_routes. */
typedef struct lr_route {
    const char        *pattern;
    const char        *target;          /* NULL: the pattern */
    const char        *name;            /* NULL: none; unique in the router */
    const char *const *requires;        /* the guards this route requires, in the order they run */
    size_t             requires_count;
    const char *const *meta_keys;       /* string key/values the route's matches report */
    const char *const *meta_values;
    size_t             meta_count;
    const lr_handler  *handler;         /* NULL: none (its target's handler answers, if any) */
} lr_route;

/* Adds `count` routes at once, all or none, as lr_router_add_many does (*failed_index names a refused one). */
int lr_router_add_routes(lr_router *r, const lr_route *routes, size_t count, size_t *failed_index);

/* Sets the handler of every route whose target is `target` and that has no handler of its own: how routes from
   a table file, which name targets, get their code. A NULL handler removes it. LR_OK, LR_EMISUSE, LR_EINVAL. */
int lr_router_handle_target(lr_router *r, const char *target, const lr_handler *handler);

/* Completes an asynchronous handler's reply with `result` (LR_OK), or refuses: LR_EREPLIED when it was completed
   before (or is unknown), LR_ETIMEOUT when the open stopped waiting (the result is then not delivered: it is
   still the handler's). A reply that timed out is let go at once (its match, its handler's user_data); the
   library remembers the ids of the last 1,024 such replies, and a later reply to an older one is unknown. */
int lr_reply_send(lr_reply reply, void *result);

/* Completes a reply with a failure: the open returns `code`, which must be negative, and `message` (NULL: a
   message naming the code). Codes as lr_reply_send, and LR_EMISUSE for a code that is not negative (the reply is
   then not completed: it is still the handler's to complete). */
int lr_reply_fail(lr_reply reply, int code, const char *message);

/* A reply its handler let go without completing it (a binding's finalizer: a garbage-collected reply object):
   completes it with LR_EHANDLER and "the handler dropped its reply without answering" when it is still pending,
   so that its open ends at once rather than at its timeout; else does nothing. Codes as lr_reply_send, but it
   never sets this thread's lr_last_error() or lr_last_error_offset(): a finalizer may run between another
   call's failure and the read of its error, on the same thread. */
int lr_reply_drop(lr_reply reply);

/* The handler for URLs no route matches (FFRouter's unregistered-URL handler), called by lr_router_open, never by
   lr_router_can_route: sets *result and returns LR_OK (or any positive value), or a negative status (and
   *message). Per-scheme fallbacks
   ("every https URL to the web page") are ordinary routes such as "https:// *rest" (without the space). */
typedef int (*lr_unmatched_fn)(const char *url, void *context, void *user_data, void **result, const char **message);

/* Sets the unmatched handler (a NULL fn removes it; a release given with it is called at once, on user_data).
   LR_OK, LR_EMISUSE. */
int lr_router_set_unmatched(lr_router *r, lr_unmatched_fn fn, void *user_data, lr_release_fn release);

/* A guard's verdict. */
enum lr_verdict {
    LR_ALLOW = 0,  /* go on to the next guard, then the handler */
    LR_DENY  = 1,  /* the open fails with LR_EDENIED and the guard's *message (Router-objc's willPerformURL veto) */
    LR_DEFER = 2   /* the open is parked in this guard's queue until lr_router_resume (a login-required link) */
};

/* A guard: returns a verdict (a negative status denies too), with an optional *message for LR_DENY. */
typedef int (*lr_guard_fn)(const lr_match *m, void *context, void *user_data, const char **message);

/* lr_router_add_guard flags. */
#define LR_GUARD_GLOBAL 1  /* runs for every match, before the routes' required guards */

/* Adds (or replaces) the guard `name`. Global guards run for every match, in the order they were added (a global
   guard replaced by a global one keeps its place); the others run for the routes that require them, after the
   global ones. LR_OK, LR_EMISUSE, LR_EINVAL. */
int lr_router_add_guard(lr_router *r, const char *name, int flags, lr_guard_fn fn, void *user_data, lr_release_fn release);

/* Removes the guard `name` (routes that require it are then denied). LR_OK, LR_ENOTFOUND, LR_EMISUSE. */
int lr_router_remove_guard(lr_router *r, const char *name);

/* Runs `work(arg)` somewhere, exactly once: a thread pool, a queue, the caller's event loop (URLMediator's "the
   queue the caller chooses"). */
typedef void (*lr_dispatch_fn)(void *executor, void (*work)(void *arg), void *arg);

/* How to open a URL; NULL options mean: no extras, no context, the handler runs on the calling thread, the
   router's reply timeout. */
typedef struct lr_open_options {
    const char *const *extra_names;   /* extra parameters (outrank path and query parameters) */
    const char *const *extra_values;
    size_t             extra_count;
    void              *context;       /* handed to guards and the handler as it is, and parked with a deferred open */
    lr_dispatch_fn     dispatch;      /* NULL: the handler runs on the calling thread */
    void              *executor;      /* dispatch's first argument; kept with a deferred open until it is replayed */
    uint32_t           timeout_ms;    /* how long to wait for the reply; 0: LR_LIMIT_REPLY_TIMEOUT_MS */
} lr_open_options;

/* Opens `url` and waits for the outcome (see the top of this section); *result (when result is not NULL) gets
   the handler's result on LR_OK, NULL otherwise. Blocking on a dispatch that needs the calling thread (its own
   serial queue, say) waits until the timeout: use lr_router_open_async there. */
int lr_router_open(lr_router *r, const char *url, const lr_open_options *opts, void **result);

/* What an open came to, for lr_router_open_async and lr_router_resume; its strings live for the callback. */
typedef struct lr_outcome {
    int         status;    /* as lr_router_open returns */
    void       *result;    /* the handler's result on LR_OK */
    const char *message;   /* why it did not open (a failure, LR_DEFERRED, LR_NOMATCH); "" on LR_OK */
    const char *url;       /* the URL opened, as given */
    void       *context;   /* the context it was opened with */
} lr_outcome;

typedef void (*lr_done_fn)(const lr_outcome *outcome, void *done_data);

/* Opens `url` without waiting: done(outcome, done_data) is called exactly once, from the thread that has the
   outcome (possibly this one, before lr_router_open_async returns). Returns LR_OK when the open started, or an
   error for bad arguments (then `done` is not called): LR_EMISUSE (r, url or done NULL, a count out of range, a
   NULL element), LR_EINVAL (url or an extra is not UTF-8). Whatever the URL then comes to, a URL that is not
   absolute (LR_EINVAL) or too long (LR_ELIMIT) included, goes to `done`. */
int lr_router_open_async(lr_router *r, const char *url, const lr_open_options *opts, lr_done_fn done, void *done_data);

/* Replays the opens parked by guard `name`, in the order they were parked, each through the whole open path (a
   URL that no longer routes goes to the unmatched handler; one deferred again is parked again, after the
   others, even in a queue that is full meanwhile), waiting for each; each(outcome, data) reports each one as it completes, before the next replay
   starts (each may be NULL). *replayed (when not NULL) is their number. LR_OK, LR_EMISUSE. */
int lr_router_resume(lr_router *r, const char *name, lr_done_fn each, void *data, size_t *replayed);

/* Calls visit(url, context, data) for each open parked by guard `name`, in order; *count (when not NULL) is
   their number. LR_OK, LR_EMISUSE. */
int lr_router_pending(lr_router *r, const char *name, void (*visit)(const char *url, void *context, void *data),
                      void *data, size_t *count);

/* Discards the opens parked by guard `name`, calling visit(url, context, data) for each (so their contexts can be
   freed); *dropped (when not NULL) is their number. LR_OK, LR_EMISUSE. */
int lr_router_drop_pending(lr_router *r, const char *name, void (*visit)(const char *url, void *context, void *data),
                           void *data, size_t *dropped);

/* Log levels: each includes those above it. */
enum lr_log_level { LR_LOG_OFF = 0, LR_LOG_ERROR = 1, LR_LOG_WARN = 2, LR_LOG_INFO = 3, LR_LOG_DEBUG = 4 };

typedef void (*lr_log_fn)(int level, const char *message, void *user_data);

/* Sends what opens do -- what matched, what was rewritten, which guard decided what, what was parked, replayed or
   dropped, failures -- to fn at `level` and below (FFRouter's log switch). Off by default; LR_LOG_OFF or a NULL
   fn turns it off (a release given then is called at once, on user_data), and off, no message is even made.
   LR_OK, LR_EMISUSE (an unknown level). */
int lr_router_set_log(lr_router *r, int level, lr_log_fn fn, void *user_data, lr_release_fn release);

#ifdef __cplusplus
}
#endif

#endif /* LINKROUTER_H */
