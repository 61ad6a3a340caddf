/*
 * fuzz_open.c -- target (f): opening URLs (docs/OPENING.md): handlers, guards, deferred opens, the unmatched
 * handler, asynchronous replies, executors, logging.
 *
 * The input is a script, one step per line: the line's first byte chooses the step (modulo 16: 'p' is 0 ... '}'
 * 13, 'n' 14, 'o' 15), the rest is its argument (a URL, extras after tabs, a guard's name, a pattern). A fresh router per input holds fixed routes: a route's own
 * handler, a target's handler, a route requiring a guard that defers, one requiring a guard never registered, an
 * asynchronous handler, a route without handler, a failing handler whose message points into its match, a
 * handler that opens another URL, a catch-all. Checked:
 *   - every open returns what the open path (docs/OPENING.md) says for what lr_router_resolve_with returns on the
 *     same URL and extras, given the guards' verdicts of the moment: the resolve error itself, LR_NOMATCH or the
 *     unmatched handler, LR_EDENIED, LR_DEFERRED, LR_ENOTFOUND, the handler's status and message, its result;
 *   - a handler is called exactly once per open it answers, with the caller's context, and the match it is lent
 *     is the match lr_router_resolve_with gives (lr_match_to_json, byte for byte); a nested open leaves the outer
 *     handler's match as it was; a second reply is refused;
 *   - an open whose executor keeps the work for later times out (LR_ETIMEOUT, 1 ms), and its handler, run later
 *     (some after lr_router_free), still reads its match, and its reply is refused as late;
 *   - lr_router_open_async calls done at most once, never for an open it refused; resume replays as many opens
 *     as were pending and reports each once; drop_pending hands each back once and empties the queue;
 *   - a refused registration keeps nothing; every user_data registered with a release is released exactly once
 *     once the router is freed and its late handlers have run (waited for by count, since the header lets it come
 *     from another thread: a release that never comes hangs the input, and libFuzzer's -timeout reports it);
 *     every message (lr_last_error, the log) is UTF-8.
 */
#include <pthread.h>

#include "fuzz_common.h"

/* ---- What the callbacks saw, reset per input. ---- */

static int sync_calls, unmatched_calls, async_calls;
static char *last_json;          /* lr_match_to_json of the last match a synchronous handler was lent */
static void *last_context;
static char *unmatched_url;
static int gate_mode;            /* the global guard: 0 allow, 1 deny, 2 defer, 3 a negative status */
static int logged_in;            /* the "auth" guard: allow when logged in, else defer */
static int nest_depth;
static int running_late;         /* handlers run by the late executor, after their open timed out */
static int sync_marker, unmatched_marker, async_marker;

/* user_data with a release: each must be released exactly once. A release may come from another thread (the
   header allows the one that lets go last), hence the atomics, and `released` counts under a lock with a
   condition signalled per release, so that the end of an input waits for the count, not for a time. */
typedef struct { int magic, released; } owned;
static owned owned_pool[64];
static int owned_count, registered, released;
static pthread_mutex_t release_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t release_signal = PTHREAD_COND_INITIALIZER;

static owned *new_owned(void)
{
    FUZZ_CHECK(owned_count < 64, "too many registrations for the pool");
    owned *o = &owned_pool[owned_count++];
    o->magic = 0x5eed;
    o->released = 0;
    return o;
}

static void release_owned(void *user_data)
{
    owned *o = user_data;
    FUZZ_CHECK(o && o->magic == 0x5eed, "release of something never registered");
    FUZZ_CHECK(__atomic_exchange_n(&o->released, 1, __ATOMIC_SEQ_CST) == 0, "released twice");
    pthread_mutex_lock(&release_lock);
    released++;
    pthread_cond_broadcast(&release_signal);
    pthread_mutex_unlock(&release_lock);
}

/* Waits until `count` releases have arrived, however long that takes: no clock. A release that never comes
   hangs here, and libFuzzer's -timeout (mk/reliability.mk) stops the run with the input as a reproducer. */
static int wait_for_releases(int count)
{
    pthread_mutex_lock(&release_lock);
    while (released < count) pthread_cond_wait(&release_signal, &release_lock);
    int seen = released;
    pthread_mutex_unlock(&release_lock);
    return seen;
}

static void check_message(const char *what)
{
    const char *e = lr_last_error();
    FUZZ_CHECK(e && fuzz_valid_cstr(e), "%s: lr_last_error is not UTF-8", what);
}

static int on_sync(const lr_match *m, void *context, void *user_data, void **result, const char **message)
{
    (void)user_data;
    (void)message;
    sync_calls++;
    last_context = context;
    lr_string_free(last_json);
    last_json = NULL;
    FUZZ_CHECK(lr_match_to_json(m, &last_json) == LR_OK && fuzz_valid_json_object(last_json), "a handler's match as JSON");
    *result = &sync_marker;
    return LR_OK;
}

static void on_async(const lr_match *m, void *context, void *user_data, lr_reply reply)
{
    (void)m;
    (void)context;
    (void)user_data;
    async_calls++;
    /* Late (its open timed out): refused as such, and the reply is not delivered. */
    int first = lr_reply_send(reply, &async_marker);
    FUZZ_CHECK(first == (running_late ? LR_ETIMEOUT : LR_OK), "the first reply gave %d", first);
    int second = lr_reply_send(reply, &async_marker);
    FUZZ_CHECK(second == LR_EREPLIED || (running_late && second == LR_ETIMEOUT), "a second reply gave %d", second);
    int third = lr_reply_fail(reply, LR_EHANDLER, "late");
    FUZZ_CHECK(third == LR_EREPLIED || (running_late && third == LR_ETIMEOUT), "a failure after the reply gave %d", third);
}

/* Fails with a code of its own and, as message, the value of its parameter: a string inside the match. */
static int on_fail(const lr_match *m, void *context, void *user_data, void **result, const char **message)
{
    (void)context;
    (void)user_data;
    (void)result;
    *message = lr_match_get(m, "code");
    return -100 - (int)(strlen(lr_match_get(m, "code")) % 3);
}

/* Opens app://user/<id> from inside a handler; the match it was lent must not change meanwhile. */
static lr_router *router;

static int on_nest(const lr_match *m, void *context, void *user_data, void **result, const char **message)
{
    (void)context;
    (void)user_data;
    (void)message;
    char *before = NULL, *after = NULL;
    FUZZ_CHECK(lr_match_to_json(m, &before) == LR_OK, "the outer match as JSON");
    if (nest_depth < 2) {
        nest_depth++;
        const char *id = lr_match_get(m, "id");
        size_t n = strlen(id);
        char *url = malloc(n + 12);
        FUZZ_CHECK(url != NULL, "malloc");
        memcpy(url, "app://user/", 11);
        memcpy(url + 11, id, n + 1);
        void *inner = NULL;
        /* Run late, the open meets the guards' verdicts of that moment, or no router (LR_EMISUSE) after the free. */
        int rc = lr_router_open(router, url, NULL, &inner);
        FUZZ_CHECK(rc == LR_OK || rc == LR_NOMATCH || rc == LR_EINVAL || rc == LR_ELIMIT ||
                   (running_late && (rc == LR_DEFERRED || rc == LR_EDENIED)) || (!router && rc == LR_EMISUSE),
                   "a nested open returned %d", rc);
        free(url);
        nest_depth--;
    }
    FUZZ_CHECK(lr_match_to_json(m, &after) == LR_OK && strcmp(before, after) == 0,
               "a nested open changed the outer handler's match:\n%s\n--\n%s", before, after);
    lr_string_free(before);
    lr_string_free(after);
    *result = &sync_marker;
    return LR_OK;
}

static int on_unmatched(const char *url, void *context, void *user_data, void **result, const char **message)
{
    (void)context;
    (void)user_data;
    (void)message;
    unmatched_calls++;
    free(unmatched_url);
    unmatched_url = strdup(url);
    *result = &unmatched_marker;
    return LR_OK;
}

static int gate(const lr_match *m, void *context, void *user_data, const char **message)
{
    (void)m;
    (void)context;
    (void)user_data;
    if (gate_mode == 1) *message = "the gate says no";
    return gate_mode == 0 ? LR_ALLOW : gate_mode == 1 ? LR_DENY : gate_mode == 2 ? LR_DEFER : -7;
}

static int auth(const lr_match *m, void *context, void *user_data, const char **message)
{
    (void)m;
    (void)context;
    (void)user_data;
    (void)message;
    return logged_in ? LR_ALLOW : LR_DEFER;
}

static void on_log(int level, const char *message, void *user_data)
{
    (void)user_data;
    FUZZ_CHECK(level >= LR_LOG_ERROR && level <= LR_LOG_DEBUG, "log level %d", level);
    FUZZ_CHECK(message && *message && fuzz_valid_cstr(message), "a log message that is empty or not UTF-8");
}

static void run_now(void *executor, void (*work)(void *arg), void *arg)
{
    (void)executor;
    work(arg);
}

/* An executor that runs nothing now: the work waits until a later step or the end of the input (after
   lr_router_free), so the open it came from times out first and its handler runs late. */
typedef struct { void (*work)(void *arg); void *arg; } queued_work;
static queued_work later[8];
static int later_count;

static void run_later(void *executor, void (*work)(void *arg), void *arg)
{
    (void)executor;
    if (later_count < 8) {
        later[later_count].work = work;
        later[later_count].arg = arg;
        later_count++;
    } else {
        work(arg);  /* no room: now, and the open answers as usual */
    }
}

static void run_late_work(void)
{
    running_late = 1;
    for (int i = 0; i < later_count; i++) later[i].work(later[i].arg);
    later_count = 0;
    running_late = 0;
}

/* ---- The router of one input. ---- */

static int gate_registered, auth_registered, item_handled, unmatched_set;

static void add_guard(const char *name, int flags, lr_guard_fn fn)
{
    owned *o = new_owned();
    FUZZ_CHECK(lr_router_add_guard(router, name, flags, fn, o, release_owned) == LR_OK, "add guard %s", name);
    registered++;
}

static void handle_item(int on)
{
    lr_handler h = {on_sync, NULL, NULL, NULL};
    if (on) {
        h.user_data = new_owned();
        h.release = release_owned;
    }
    FUZZ_CHECK(lr_router_handle_target(router, "Item", on ? &h : NULL) == LR_OK, "handle_target Item");
    if (on) registered++;
    item_handled = on;
}

static void set_unmatched(int on)
{
    owned *o = on ? new_owned() : NULL;
    FUZZ_CHECK(lr_router_set_unmatched(router, on ? on_unmatched : NULL, o, on ? release_owned : NULL) == LR_OK,
               "set_unmatched");
    if (on) registered++;
    unmatched_set = on;
}

static void build(void)
{
    FUZZ_CHECK(lr_router_new(&router) == LR_OK, "lr_router_new");
    static const char *const auth_req[] = {"auth"}, *const nope_req[] = {"nope"};
    static const char *const meta_keys[] = {"k"}, *const meta_values[] = {"v"};
    lr_handler sync = {on_sync, NULL, NULL, NULL}, async = {NULL, on_async, NULL, NULL};
    lr_handler fail = {on_fail, NULL, NULL, NULL}, nest = {on_nest, NULL, NULL, NULL};
    lr_route routes[] = {
        {"app://user/:id", "User", "user", NULL, 0, meta_keys, meta_values, 1, &sync},
        {"app://item/:id", "Item", NULL, NULL, 0, NULL, NULL, 0, NULL},
        {"app://login/*rest", "Login", NULL, auth_req, 1, NULL, NULL, 0, &sync},
        {"app://admin/:x", "Admin", NULL, nope_req, 1, NULL, NULL, 0, &sync},
        {"app://async/:id", "Async", NULL, NULL, 0, NULL, NULL, 0, &async},
        {"app://none/:id", "None", NULL, NULL, 0, NULL, NULL, 0, NULL},
        {"app://fail/:code", "Fail", NULL, NULL, 0, NULL, NULL, 0, &fail},
        {"app://nest/:id", "Nest", NULL, NULL, 0, NULL, NULL, 0, &nest},
        {"https://*rest", "Web", NULL, NULL, 0, NULL, NULL, 0, &sync},
    };
    size_t failed = 0;
    FUZZ_CHECK(lr_router_add_routes(router, routes, sizeof routes / sizeof routes[0], &failed) == LR_OK,
               "the fixed routes (failed at %zu)", failed);
    add_guard("gate", LR_GUARD_GLOBAL, gate);
    add_guard("auth", 0, auth);
    gate_registered = auth_registered = 1;
    handle_item(1);
    unmatched_set = 0;
}

/* ---- Opens, checked against the open path. ---- */

/* What lr_router_open must return for a URL that lr_router_resolve_with matched to `target`, and which guard
   queue grows (NULL: none). */
static int expected_for_match(const char *target, const char **parks, int *handler_kind)
{
    *parks = NULL;
    *handler_kind = 0;  /* 0 none, 1 sync (on_sync), 2 async, 3 fail, 4 nest */
    if (gate_registered && gate_mode != 0) {
        if (gate_mode == 2) {
            *parks = "gate";
            return LR_DEFERRED;
        }
        return LR_EDENIED;
    }
    if (strcmp(target, "Login") == 0) {
        if (!auth_registered) return LR_EDENIED;
        if (!logged_in) {
            *parks = "auth";
            return LR_DEFERRED;
        }
    }
    if (strcmp(target, "Admin") == 0) return LR_EDENIED;
    if (strcmp(target, "None") == 0) return LR_ENOTFOUND;
    if (strcmp(target, "Item") == 0 && !item_handled) return LR_ENOTFOUND;
    if (strcmp(target, "Async") == 0) {
        *handler_kind = 2;
        return LR_OK;
    }
    if (strcmp(target, "Fail") == 0) {
        *handler_kind = 3;
        return LR_OK;  /* the handler's code, checked by the caller */
    }
    if (strcmp(target, "Nest") == 0) {
        *handler_kind = 4;
        return LR_OK;
    }
    *handler_kind = 1;
    return LR_OK;
}

static size_t pending_count(const char *name)
{
    size_t count = 0;
    FUZZ_CHECK(lr_router_pending(router, name, NULL, NULL, &count) == LR_OK, "lr_router_pending %s", name);
    return count;
}

/* `dispatch`: 0 none, 1 an executor that runs the work at once, 2 one that runs it later (with a 1 ms timeout). */
static void open_checked(const char *url, const char *const *names, const char *const *values, size_t n, int dispatch)
{
    /* What resolve says first. */
    lr_match *m = NULL;
    int resolved = lr_router_resolve_with(router, url, names, values, n, &m);
    char *json = NULL;
    char *target = NULL, *code = NULL;
    size_t code_len = 0;
    if (resolved == LR_OK) {
        FUZZ_CHECK(lr_match_to_json(m, &json) == LR_OK, "resolve's match as JSON");
        target = strdup(lr_match_target(m));
        /* The failing handler's message is its parameter, as lr_router_open words a callback's message. */
        const char *value = lr_match_get(m, "code");
        if (value) {
            code_len = strlen(value);
            code = strdup(fuzz_valid_cstr(value) ? value : "(a message that is not UTF-8)");
        }
    }
    lr_match_free(m);

    const char *parks = NULL;
    int kind = 0;
    int expected = resolved == LR_OK ? expected_for_match(target, &parks, &kind)
                 : resolved == LR_NOMATCH ? (unmatched_set ? LR_OK : LR_NOMATCH) : resolved;
    size_t parked_before = parks ? pending_count(parks) : 0;
    if (parks && parked_before >= 64) {
        expected = LR_ELIMIT;  /* LR_LIMIT_PENDING's default */
        parks = NULL;
    }
    if (kind == 3) expected = -100 - (int)(code_len % 3);

    int calls_before = sync_calls, unmatched_before = unmatched_calls, async_before = async_calls;
    static int context_token;
    lr_open_options opts;
    memset(&opts, 0, sizeof opts);
    opts.extra_names = names;
    opts.extra_values = values;
    opts.extra_count = n;
    opts.context = &context_token;
    if (dispatch) opts.dispatch = dispatch == 1 ? run_now : run_later;
    if (dispatch == 2) opts.timeout_ms = 1;
    int queued_before = later_count;
    void *result = NULL;
    int rc = lr_router_open(router, url, &opts, &result);

    /* Work left for later: the open timed out. Only an open that reaches a handler dispatches it (the
       unmatched handler may run where it is). */
    int queued = later_count > queued_before;
    if (queued) {
        FUZZ_CHECK(kind != 0 || (resolved == LR_NOMATCH && unmatched_set), "work dispatched for an open that has no handler to run");
        expected = LR_ETIMEOUT;
        kind = 0;
    } else if (dispatch == 2 && kind != 0 && later_count < 8) {
        FUZZ_CHECK(0, "the handler of %s did not run on the executor given", url);
    }
    FUZZ_CHECK(rc == expected, "open of %s returned %d, expected %d (resolve %d, target %s)", url, rc, expected,
               resolved, target ? target : "-");
    if (rc < 0 || rc == LR_NOMATCH) check_message("open");
    if (rc != LR_OK) FUZZ_CHECK(result == NULL, "a result with status %d", rc);
    if (kind == 3) FUZZ_CHECK(strcmp(lr_last_error(), code) == 0, "the handler's message: %s, expected %s", lr_last_error(), code);

    /* (The nesting handler's own open calls the other handlers: not counted.) */
    int ran = rc == LR_OK || kind == 3;
    if (kind != 4 && !queued) {
        FUZZ_CHECK(sync_calls - calls_before == (ran && kind == 1 ? 1 : 0), "the handler ran %d times",
                   sync_calls - calls_before);
        FUZZ_CHECK(async_calls - async_before == (ran && kind == 2 ? 1 : 0), "the async handler ran %d times",
                   async_calls - async_before);
        FUZZ_CHECK(unmatched_calls - unmatched_before == (resolved == LR_NOMATCH && unmatched_set ? 1 : 0),
                   "the unmatched handler ran %d times", unmatched_calls - unmatched_before);
    }
    if (rc == LR_OK && kind == 1) {
        FUZZ_CHECK(result == &sync_marker && last_context == &context_token, "the handler's result or context");
        FUZZ_CHECK(strcmp(last_json, json) == 0, "the handler's match is not resolve's:\n%s\n--\n%s", last_json, json);
    }
    if (rc == LR_OK && kind == 2) FUZZ_CHECK(result == &async_marker, "the async reply's result");
    if (rc == LR_OK && resolved == LR_NOMATCH) {
        FUZZ_CHECK(result == &unmatched_marker && strcmp(unmatched_url, url) == 0, "the unmatched handler's URL or result");
    }
    if (parks) FUZZ_CHECK(pending_count(parks) == parked_before + 1, "a deferred open is not parked in %s", parks);
    lr_string_free(json);
    free(target);
    free(code);
}

/* ---- Asynchronous opens, queues. ---- */

static int done_calls[16];
static int async_opens;

static void on_done(const lr_outcome *outcome, void *done_data)
{
    int *calls = done_data;
    (*calls)++;
    FUZZ_CHECK(*calls == 1, "done called %d times", *calls);
    FUZZ_CHECK(outcome && fuzz_valid_cstr(outcome->message) && outcome->url, "an outcome's strings");
}

static int replay_reports;

static void on_each(const lr_outcome *outcome, void *data)
{
    (void)data;
    replay_reports++;
    FUZZ_CHECK(outcome && fuzz_valid_cstr(outcome->message) && fuzz_valid_cstr(outcome->url), "a replay's outcome");
    FUZZ_CHECK(outcome->status <= LR_DEFERRED, "a replay's status %d", outcome->status);
}

static int visits;

static void on_visit(const char *url, void *context, void *data)
{
    (void)context;
    (void)data;
    visits++;
    FUZZ_CHECK(url != NULL, "a parked open without URL");
}

static void queue_step(const char *name, int drop)
{
    size_t before = pending_count(name), count = 0;
    visits = 0;
    replay_reports = 0;
    if (drop) {
        FUZZ_CHECK(lr_router_drop_pending(router, name, on_visit, NULL, &count) == LR_OK, "drop_pending");
        FUZZ_CHECK(count == before && (size_t)visits == before, "dropped %zu, visited %d, pending %zu", count, visits, before);
        FUZZ_CHECK(pending_count(name) == 0, "a queue not empty after drop_pending");
    } else {
        FUZZ_CHECK(lr_router_resume(router, name, on_each, NULL, &count) == LR_OK, "resume");
        FUZZ_CHECK(count == before && (size_t)replay_reports == before, "replayed %zu, reported %d, pending %zu", count,
                   replay_reports, before);
    }
}

/* ---- The script. ---- */

static void step(const char *line)
{
    unsigned op = (unsigned char)line[0] % 16;
    const char *arg = line[0] ? line + 1 : line;
    switch (op) {
    case 0:
    case 1:
        open_checked(arg, NULL, NULL, 0, op == 1);
        break;
    case 2: {  /* url, then up to three extras: \t names, then \t values */
        char *pieces[7];
        size_t count = fuzz_split((const uint8_t *)arg, strlen(arg), '\t', pieces, 7);
        size_t n = (count - 1) / 2;
        open_checked(pieces[0], (const char *const *)pieces + 1, (const char *const *)pieces + 1 + n, n, 0);
        for (size_t i = 0; i < count; i++) free(pieces[i]);
        break;
    }
    case 3: {
        if (async_opens >= 16) break;
        int *calls = &done_calls[async_opens++];
        int rc = lr_router_open_async(router, arg, NULL, on_done, calls);
        FUZZ_CHECK(rc == LR_OK || rc < 0, "open_async returned %d", rc);
        if (rc != LR_OK) FUZZ_CHECK(*calls == 0, "done was called for a refused open");
        break;
    }
    case 4: queue_step(arg[0] % 2 ? "auth" : "gate", 0); break;
    case 5: queue_step(arg[0] % 2 ? "auth" : "gate", 1); break;
    case 6: gate_mode = (unsigned char)arg[0] % 4; break;
    case 7: logged_in = !logged_in; break;
    case 8:
        if (auth_registered) {
            FUZZ_CHECK(lr_router_remove_guard(router, "auth") == LR_OK, "remove_guard auth");
            auth_registered = 0;
        } else {
            add_guard("auth", 0, auth);
            auth_registered = 1;
        }
        break;
    case 9: handle_item(!item_handled); break;
    case 10: set_unmatched(!unmatched_set); break;
    case 11: {
        owned *o = new_owned();
        int rc = lr_router_set_log(router, (unsigned char)arg[0] % 6, on_log, o, release_owned);
        FUZZ_CHECK(rc == LR_OK || rc == LR_EMISUSE, "set_log returned %d", rc);
        if (rc == LR_OK) registered++;
        else owned_count--;  /* kept nothing: the slot is free again */
        break;
    }
    case 12: {  /* a route of any bytes, with a handler: documented codes, nothing kept when refused */
        owned *o = new_owned();
        lr_handler h = {on_sync, NULL, o, release_owned};
        int rc = lr_router_handle(router, arg, &h);
        FUZZ_CHECK(rc == LR_OK || rc == LR_EPATTERN || rc == LR_ECONFLICT || rc == LR_EINVAL || rc == LR_ELIMIT,
                   "lr_router_handle returned %d", rc);
        if (rc == LR_OK) registered++;
        else {
            check_message("handle");
            FUZZ_CHECK(!__atomic_load_n(&o->released, __ATOMIC_SEQ_CST), "a refused registration released its user_data");
            owned_count--;
        }
        break;
    }
    case 13:  /* the gate is replaced in place, or removed */
        if (arg[0] % 2 && gate_registered) {
            FUZZ_CHECK(lr_router_remove_guard(router, "gate") == LR_OK, "remove_guard gate");
            gate_registered = 0;
        } else {
            add_guard("gate", LR_GUARD_GLOBAL, gate);
            gate_registered = 1;
        }
        break;
    case 14: open_checked(arg, NULL, NULL, 0, 2); break;
    case 15: run_late_work(); break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sync_calls = unmatched_calls = async_calls = 0;
    gate_mode = 0;
    logged_in = 0;
    nest_depth = 0;
    pthread_mutex_lock(&release_lock);
    owned_count = registered = released = 0;
    pthread_mutex_unlock(&release_lock);
    async_opens = 0;
    later_count = 0;
    memset(done_calls, 0, sizeof done_calls);
    build();

    char *lines[16];
    size_t count = fuzz_split(data, size, '\n', lines, 16);
    for (size_t i = 0; i < count; i++) {
        step(lines[i]);
        free(lines[i]);
    }

    size_t dropped = 0;
    FUZZ_CHECK(lr_router_drop_pending(router, "gate", NULL, NULL, &dropped) == LR_OK, "drop gate");
    FUZZ_CHECK(lr_router_drop_pending(router, "auth", NULL, NULL, &dropped) == LR_OK, "drop auth");
    lr_router_free(router);
    router = NULL;
    run_late_work();  /* handlers whose opens timed out, after the router is gone: they must still find their match */
    /* The header lets the last release come from whichever thread lets go last: waited for by count. (A reply's
       timer held the log sink until its deadline, and released it on a dispatch thread; it holds nothing of the
       open's now.) Each release is checked once (release_owned), so no more than `registered` can arrive. */
    int done_releasing = wait_for_releases(registered);
    FUZZ_CHECK(done_releasing == registered, "%d of %d user_data released", done_releasing, registered);
    for (int i = 0; i < async_opens; i++) FUZZ_CHECK(done_calls[i] <= 1, "done called %d times", done_calls[i]);
    lr_string_free(last_json);
    last_json = NULL;
    free(unmatched_url);
    unmatched_url = NULL;
    return 0;
}
