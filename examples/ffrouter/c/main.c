/*
 * examples/ffrouter/c/main.c -- FFRouter's README walk-through, step by step, on LinkRouter's C ABI.
 *
 * FFRouter (iOS) registers URLs with one of three kinds of handler (fire and forget, one that returns an object,
 * one that answers through an asynchronous callback), routes URLs with extra parameters of any type, answers
 * canRouteURL:, sends unregistered URLs to one handler, unregisters one route or all, logs what it does, and
 * rewrites URLs with regex rules before routing them. This program does each of those in the README's order and
 * checks every outcome: a wrong one prints what differed and exits with status 1.
 *
 * The app is modelled as a navigation stack: a fire-and-forget handler pushes a screen (a view controller in
 * FFRouter's demo) describing what it was given.
 *
 * Run from the repository root:  build/examples/seed-ffrouter-c        (everything)
 *                                build/examples/seed-ffrouter-c demo   (the URL rewrite scenario only)
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* nanosleep; the harness passes it too */
#endif
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "linkrouter.h"

/* ---------------------------------------------------------------------------------------------------------------
 * Checks: a wrong outcome is reported on stderr and ends the program with status 1.
 * ------------------------------------------------------------------------------------------------------------ */

static void expect_str(int line, const char *what, const char *got, const char *want)
{
    if (got != NULL && want != NULL && strcmp(got, want) == 0)
        return;
    fprintf(stderr, "main.c:%d: %s: got '%s', want '%s'\n", line, what, got ? got : "(null)", want ? want : "(null)");
    exit(1);
}

static void expect_int(int line, const char *what, long got, long want)
{
    if (got == want)
        return;
    fprintf(stderr, "main.c:%d: %s: got %ld, want %ld\n", line, what, got, want);
    exit(1);
}

#define EXPECT_STR(what, got, want) expect_str(__LINE__, what, got, want)
#define EXPECT_INT(what, got, want) expect_int(__LINE__, what, (long)(got), (long)(want))

/* ---------------------------------------------------------------------------------------------------------------
 * The app: a navigation stack, and the objects its handlers make.
 * ------------------------------------------------------------------------------------------------------------ */

/* UIImage's stand-in: an object that is not a string, handed to a handler with the open. C extras are strings,
   so it travels as the open's context, which the handler receives as it is. */
struct image {
    const char *name;
    int width, height;
};

struct screen {
    char description[512]; /* class name, then what the handler was given */
    char url[512];         /* the full URL the handler saw (FFRouter's FFRouterParameterURLKey) */
};

/* Handlers run on the thread that opens (no executor is given), so the stack needs no lock. */
static struct {
    struct screen stack[32];
    size_t depth;
    int log_lines;        /* lines the log sink received */
    pthread_t worker;     /* the thread the callback handler replies from */
    int worker_started;
} app;

/* What the object handler returns (FFRouter's routeObjectURL:). */
struct object_details {
    char nickname[64];
};

/* Appends printf-style text to buf (of size cap), truncating. */
static void append(char *buf, size_t cap, const char *fmt, ...)
{
    size_t len = strlen(buf);
    if (len + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
}

static struct screen *push_screen(const char *class_name, const char *url, const char **message)
{
    if (app.depth == sizeof app.stack / sizeof app.stack[0]) {
        *message = "the navigation stack is full";
        return NULL;
    }
    struct screen *s = &app.stack[app.depth++];
    snprintf(s->description, sizeof s->description, "%s", class_name);
    snprintf(s->url, sizeof s->url, "%s", url);
    return s;
}

/* ---------------------------------------------------------------------------------------------------------------
 * Handlers: the three kinds, the unregistered-URL handler and the log sink.
 * ------------------------------------------------------------------------------------------------------------ */

/* Fire and forget (FFRouter's registerRouteURL:handler:): pushes a screen of class `user_data` showing the
   parameters it got, leaves *result NULL. */
static int show_screen(const lr_match *m, void *context, void *user_data, void **result, const char **message)
{
    (void)result;
    struct screen *s = push_screen(user_data, lr_match_url(m), message);
    if (s == NULL)
        return LR_EHANDLER;
    for (size_t i = 0; i < lr_match_param_count(m); i++)
        append(s->description, sizeof s->description, " %s=%s", lr_match_param_name(m, i), lr_match_param_value(m, i));
    const struct image *img = context;
    if (img != NULL)
        append(s->description, sizeof s->description, " img=%s(%dx%d)", img->name, img->width, img->height);
    printf("  pushed %s\n", s->description);
    return LR_OK;
}

/* Returns an object (FFRouter's registerObjectRouteURL:handler:); the caller of the open owns it. */
static int make_object(const lr_match *m, void *context, void *user_data, void **result, const char **message)
{
    (void)context;
    (void)user_data;
    struct object_details *object = calloc(1, sizeof *object);
    if (object == NULL) {
        *message = "out of memory";
        return LR_ENOMEM;
    }
    const char *nickname = lr_match_get(m, "nickname");
    snprintf(object->nickname, sizeof object->nickname, "%s", nickname ? nickname : "");
    *result = object;
    return LR_OK;
}

struct later_reply {
    lr_reply reply;
    char nickname[64];
};

/* The worker thread of the callback handler: answers a little later, from another thread. */
static void *reply_later(void *arg)
{
    struct later_reply *later = arg;
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    char *object = malloc(128);
    if (object == NULL) {
        lr_reply_fail(later->reply, LR_ENOMEM, "out of memory");
    } else {
        snprintf(object, 128, "Any Object for %s", later->nickname);
        if (lr_reply_send(later->reply, object) != LR_OK)
            free(object); /* not delivered (the open timed out): still ours */
    }
    free(later);
    return NULL;
}

/* Answers through its reply, later (FFRouter's registerCallbackRouteURL:handler: and its targetCallBack). */
static void answer_later(const lr_match *m, void *context, void *user_data, lr_reply reply)
{
    (void)context;
    (void)user_data;
    struct later_reply *later = calloc(1, sizeof *later);
    if (later == NULL) {
        lr_reply_fail(reply, LR_ENOMEM, "out of memory");
        return;
    }
    later->reply = reply;
    const char *nickname = lr_match_get(m, "nickname");
    snprintf(later->nickname, sizeof later->nickname, "%s", nickname ? nickname : "");
    printf("  handler: the answer comes later, from a worker thread\n");
    if (pthread_create(&app.worker, NULL, reply_later, later) != 0) {
        free(later);
        lr_reply_fail(reply, LR_EHANDLER, "no worker thread");
        return;
    }
    app.worker_started = 1;
}

/* FFRouter's routeUnregisterURLHandler:: every URL no route matches lands here. */
static int unregistered_url(const char *url, void *context, void *user_data, void **result, const char **message)
{
    (void)context;
    (void)user_data;
    (void)result;
    struct screen *s = push_screen("UnregisteredURLViewController", url, message);
    if (s == NULL)
        return LR_EHANDLER;
    append(s->description, sizeof s->description, " url=%s", url);
    printf("  pushed %s\n", s->description);
    return LR_OK;
}

static const char *const level_names[] = {"off", "error", "warning", "info", "debug"};

static void log_line(int level, const char *message, void *user_data)
{
    (void)user_data;
    app.log_lines++;
    printf("  log %s: %s\n", level >= 0 && level <= LR_LOG_DEBUG ? level_names[level] : "?", message);
}

/* ---------------------------------------------------------------------------------------------------------------
 * Opening, as FFRouter's routeURL: does, with its outcome checked.
 * ------------------------------------------------------------------------------------------------------------ */

static lr_router *router;

/* Opens `url` with a fire-and-forget handler (or the unregistered-URL one): the open returns nothing, and the
   screen it pushed is `want` and saw the full URL. */
static void route_url(const char *url, const lr_open_options *opts, const char *want)
{
    size_t depth = app.depth;
    void *result = NULL;
    CHECK(lr_router_open(router, url, opts, &result));
    EXPECT_INT("a fire-and-forget open's result", result != NULL, 0);
    EXPECT_INT("screens pushed", app.depth, depth + 1);
    EXPECT_STR("the screen pushed", app.stack[app.depth - 1].description, want);
    EXPECT_STR("the URL the handler saw", app.stack[app.depth - 1].url, url);
}

static void expect_can_route(const char *url, int want)
{
    int can = lr_router_can_route(router, url);
    CHECK(can);
    printf("can route %s: %s\n", url, can ? "yes" : "no");
    EXPECT_INT("can route", can, want);
}

/* One URL through the rewrite rules (FFRouter's rewriteURL:), then opened when a rule fired. */
struct rewrite_case {
    const char *url;
    const char *rewritten; /* NULL: no rule matches, and nothing routes the URL */
    const char *screen;    /* the screen opening it pushes */
};

static void rewrite_and_open(const struct rewrite_case *c)
{
    char *out = NULL;
    int rc = lr_router_rewrite(router, c->url, &out);
    CHECK(rc);
    printf("rewrite %s\n", c->url);
    if (c->rewritten == NULL) {
        EXPECT_INT("rewrite status", rc, LR_NOMATCH);
        int can = lr_router_can_route(router, c->url);
        CHECK(can);
        printf("  no rule matches; can route: %s\n", can ? "yes" : "no");
        EXPECT_INT("can route an URL no rule rewrites", can, 0);
        return;
    }
    EXPECT_INT("rewrite status", rc, LR_OK);
    printf("  = %s\n", out);
    EXPECT_STR("rewritten URL", out, c->rewritten);
    lr_string_free(out);
    printf("open %s\n", c->url);
    route_url(c->url, NULL, c->screen);
}

static void add_rule(const char *match, const char *target)
{
    CHECK(lr_router_add_rewrite(router, match, target));
    printf("add rule %s -> %s\n", match, target);
}

/* ---------------------------------------------------------------------------------------------------------------
 * The walk-through, in the README's order.
 * ------------------------------------------------------------------------------------------------------------ */

static void register_urls(void)
{
    printf("== Register URLs with the three kinds of handler\n");
    static const struct {
        const char *kind, *pattern, *screen_class;
    } fire_and_forget[] = {
        {"fire and forget:  ", "protocol://page/routerDetails/:id", "RouterDetailsViewController"},
        {"fire and forget:  ", "protocol://page/routerDetails", "RouterDetailsViewController"},
        {"fire and forget:  ", "wildcard://*", "WildcardViewController"},
    };
    for (size_t i = 0; i < sizeof fire_and_forget / sizeof fire_and_forget[0]; i++) {
        lr_handler h = {show_screen, NULL, (void *)fire_and_forget[i].screen_class, NULL};
        CHECK(lr_router_handle(router, fire_and_forget[i].pattern, &h));
        printf("%s %s\n", fire_and_forget[i].kind, fire_and_forget[i].pattern);
    }
    lr_handler object = {make_object, NULL, NULL, NULL};
    CHECK(lr_router_handle(router, "protocol://page/routerObjectDetails", &object));
    printf("returns an object: protocol://page/routerObjectDetails\n");
    lr_handler callback = {NULL, answer_later, NULL, NULL};
    CHECK(lr_router_handle(router, "protocol://page/RouterCallbackDetails", &callback));
    printf("async callback:    protocol://page/RouterCallbackDetails\n");

    /* A pattern matching exactly the URLs of a registered one is refused, and the message names that one. */
    lr_handler again = {show_screen, NULL, "Duplicate", NULL};
    int rc = lr_router_handle(router, "protocol://page/routerDetails/:productId", &again);
    printf("register protocol://page/routerDetails/:productId: %s\n", lr_last_error());
    EXPECT_INT("registering a duplicate", rc, LR_ECONFLICT);

    size_t count = 0;
    CHECK(lr_router_count(router, &count));
    printf("routes: %zu\n", count);
    EXPECT_INT("routes", count, 5);
}

static void route_fire_and_forget(void)
{
    printf("\n== routeURL: a fire-and-forget handler pushes a screen; the open returns nothing\n");
    static const struct {
        const char *url, *screen;
    } cases[] = {
        {"protocol://page/routerDetails/666?nickname=imlifengfeng",
         "RouterDetailsViewController id=666 nickname=imlifengfeng"},
        /* Plain parameters can simply be spliced into the URL. */
        {"protocol://page/routerDetails?nickname=imlifengfeng&id=666",
         "RouterDetailsViewController nickname=imlifengfeng id=666"},
        /* A path parameter outranks a query parameter of the same name. */
        {"protocol://page/routerDetails/7?id=1", "RouterDetailsViewController id=7"},
        {"wildcard://any/thing?at=all", "WildcardViewController *=any/thing at=all"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        printf("open %s\n", cases[i].url);
        route_url(cases[i].url, NULL, cases[i].screen);
    }
}

static void route_object(void)
{
    printf("\n== routeObjectURL: the handler returns an object\n");
    const char *url = "protocol://page/routerObjectDetails?nickname=imlifengfeng";
    printf("open %s\n", url);
    void *result = NULL;
    CHECK(lr_router_open(router, url, NULL, &result));
    struct object_details *object = result;
    EXPECT_INT("an object came back", object != NULL, 1);
    printf("  returned ObjectDetails nickname=%s\n", object->nickname);
    EXPECT_STR("the object's nickname", object->nickname, "imlifengfeng");
    free(object);
}

/* What the caller's targetCallback got, handed from the replying thread to the main one. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done, status;
    char *object;
} callback_result = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, NULL};

/* FFRouter's targetCallback: called once, from the thread that has the outcome. */
static void target_callback(const lr_outcome *outcome, void *data)
{
    (void)data;
    if (outcome->status == LR_OK)
        printf("  targetCallback got: %s\n", (const char *)outcome->result);
    pthread_mutex_lock(&callback_result.lock);
    callback_result.status = outcome->status;
    callback_result.object = outcome->status == LR_OK ? outcome->result : NULL;
    callback_result.done = 1;
    pthread_cond_signal(&callback_result.cond);
    pthread_mutex_unlock(&callback_result.lock);
}

static void route_callback(void)
{
    printf("\n== routeCallbackURL: the handler answers later, through a callback\n");
    const char *url = "protocol://page/RouterCallbackDetails?nickname=imlifengfeng";
    printf("open %s\n", url);
    CHECK(lr_router_open_async(router, url, NULL, target_callback, NULL));
    pthread_mutex_lock(&callback_result.lock);
    while (!callback_result.done)
        pthread_cond_wait(&callback_result.cond, &callback_result.lock);
    pthread_mutex_unlock(&callback_result.lock);
    if (app.worker_started)
        pthread_join(app.worker, NULL);
    EXPECT_INT("the callback's status", callback_result.status, LR_OK);
    EXPECT_STR("the callback's object", callback_result.object, "Any Object for imlifengfeng");
    free(callback_result.object);
}

static void route_with_objects(void)
{
    printf("\n== routeURL withParameters: extra parameters, one of them not a string\n");
    static const struct image img = {"router_test_img", 120, 80};
    const char *names[] = {"source"};
    const char *values[] = {"push"};
    lr_open_options opts = {names, values, 1, (void *)&img, NULL, NULL, 0};
    const char *url = "protocol://page/routerDetails?nickname=imlifengfeng";
    printf("open %s with source=push img=<image router_test_img 120x80>\n", url);
    route_url(url, &opts, "RouterDetailsViewController nickname=imlifengfeng source=push img=router_test_img(120x80)");
}

static void can_route(void)
{
    printf("\n== canRouteURL\n");
    static const struct {
        const char *url;
        int can;
    } cases[] = {
        {"protocol://page/routerDetails/1", 1},
        {"protocol://page/routerDetails/1/more", 0},
        {"wildcard://whatever/you/like", 1},
        {"protocol://page/unknown", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_can_route(cases[i].url, cases[i].can);
}

static void unregistered(void)
{
    printf("\n== An unregistered URL\n");
    const char *url = "protocol://page/unknown?from=test";
    int rc = lr_router_open(router, url, NULL, NULL);
    printf("open %s: no route, and no handler for unregistered URLs yet\n", url);
    EXPECT_INT("opening an unregistered URL", rc, LR_NOMATCH);
    CHECK(lr_router_set_unmatched(router, unregistered_url, NULL, NULL));
    printf("set the handler for unregistered URLs\n");
    printf("open %s\n", url);
    route_url(url, NULL, "UnregisteredURLViewController url=protocol://page/unknown?from=test");
}

static void logging(void)
{
    printf("\n== Logging on, then off\n");
    CHECK(lr_router_set_log(router, LR_LOG_INFO, log_line, NULL, NULL));
    printf("log on (info)\n");
    app.log_lines = 0;
    printf("open protocol://page/routerDetails/8\n");
    route_url("protocol://page/routerDetails/8", NULL, "RouterDetailsViewController id=8");
    int while_on = app.log_lines;
    CHECK(lr_router_set_log(router, LR_LOG_OFF, NULL, NULL, NULL));
    printf("log off\n");
    app.log_lines = 0;
    printf("open protocol://page/routerDetails/9\n");
    route_url("protocol://page/routerDetails/9", NULL, "RouterDetailsViewController id=9");
    printf("log lines: %d while on, %d while off\n", while_on, app.log_lines);
    EXPECT_INT("log lines while on", while_on, 1);
    EXPECT_INT("log lines while off", app.log_lines, 0);
}

static const char amazon_search[] = "(?:https://)?www.amazon.com/search/(.*)";

static void rewrite_one(void)
{
    printf("\n== URL rewrite: one rule, $1 is the first group\n");
    add_rule(amazon_search, "protocol://page/routerDetails?product=$1");
    static const struct rewrite_case atomic_bomb = {
        "https://www.amazon.com/search/Atomic_bomb", "protocol://page/routerDetails?product=Atomic_bomb",
        "RouterDetailsViewController product=Atomic_bomb"};
    rewrite_and_open(&atomic_bomb);
}

static void rewrite_bulk(void)
{
    printf("\n== URL rewrite: rules in bulk; (\\d+) takes digits, $$1 encodes, $#1 decodes, $host and $query\n");
    /* All or none: FFRouter's addRewriteRules:. */
    static const char *const matches[] = {
        "(?:https://)?www.amazon.com/dp/(\\d+)",
        "(?:https://)?www.taobao.com/search/(.*)",
        "(?:https://)?www.jd.com/search/(.*)",
        "(?:https://)?m.taobao.com/item",
    };
    static const char *const targets[] = {
        "protocol://page/routerDetails/$1",
        "protocol://page/routerDetails?product=$$1",
        "protocol://page/routerDetails?product=$#1",
        "protocol://page/routerDetails?$query&from=$host",
    };
    size_t count = sizeof matches / sizeof matches[0];
    CHECK(lr_router_add_rewrites(router, matches, targets, count, NULL));
    for (size_t i = 0; i < count; i++)
        printf("add rule %s -> %s\n", matches[i], targets[i]);

    static const struct rewrite_case cases[] = {
        {"https://www.amazon.com/dp/42", "protocol://page/routerDetails/42", "RouterDetailsViewController id=42"},
        {"https://www.amazon.com/dp/B00X", NULL, NULL},
        {"https://www.taobao.com/search/原子弹", "protocol://page/routerDetails?product=%E5%8E%9F%E5%AD%90%E5%BC%B9",
         "RouterDetailsViewController product=原子弹"},
        {"https://www.jd.com/search/%e5%8e%9f%e5%ad%90%e5%bc%b9", "protocol://page/routerDetails?product=原子弹",
         "RouterDetailsViewController product=原子弹"},
        {"https://m.taobao.com/item?nickname=imlifengfeng",
         "protocol://page/routerDetails?nickname=imlifengfeng&from=m.taobao.com",
         "RouterDetailsViewController nickname=imlifengfeng from=m.taobao.com"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        rewrite_and_open(&cases[i]);
}

static void remove_rules(void)
{
    printf("\n== Remove one rewrite rule, then all\n");
    CHECK(lr_router_remove_rewrite(router, amazon_search));
    printf("remove rule %s\n", amazon_search);
    static const struct rewrite_case cases[] = {
        {"https://www.amazon.com/search/Atomic_bomb", NULL, NULL},
        {"https://www.taobao.com/search/原子弹", "protocol://page/routerDetails?product=%E5%8E%9F%E5%AD%90%E5%BC%B9",
         "RouterDetailsViewController product=原子弹"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        rewrite_and_open(&cases[i]);
    int rc = lr_router_remove_rewrite(router, amazon_search);
    printf("remove rule %s again: %s\n", amazon_search, lr_errstr(rc));
    EXPECT_INT("removing a removed rule", rc, LR_ENOTFOUND);

    CHECK(lr_router_clear_rewrites(router));
    printf("remove all rules\n");
    static const struct rewrite_case none = {"https://www.taobao.com/search/原子弹", NULL, NULL};
    rewrite_and_open(&none);
}

static void unregister(void)
{
    printf("\n== Unregister one URL, then all\n");
    CHECK(lr_router_remove(router, "wildcard://*"));
    printf("unregister wildcard://*\n");
    expect_can_route("wildcard://any/thing", 0);
    printf("open wildcard://any/thing\n");
    route_url("wildcard://any/thing", NULL, "UnregisteredURLViewController url=wildcard://any/thing");
    int rc = lr_router_remove(router, "wildcard://*");
    printf("unregister wildcard://* again: %s\n", lr_errstr(rc));
    EXPECT_INT("unregistering a removed route", rc, LR_ENOTFOUND);

    CHECK(lr_router_clear(router));
    printf("unregister all\n");
    size_t count = 1;
    CHECK(lr_router_count(router, &count));
    printf("routes: %zu\n", count);
    EXPECT_INT("routes", count, 0);
    expect_can_route("protocol://page/routerDetails/1", 0);
    printf("open protocol://page/routerObjectDetails\n");
    route_url("protocol://page/routerObjectDetails", NULL,
              "UnregisteredURLViewController url=protocol://page/routerObjectDetails");
}

int main(int argc, char **argv)
{
    if (lr_version_number() != LR_VERSION_NUMBER) {
        fprintf(stderr, "header %d, library %d\n", LR_VERSION_NUMBER, lr_version_number());
        return 1;
    }
    int demo = argc == 2 && strcmp(argv[1], "demo") == 0;
    if (argc > 1 && !demo) {
        fprintf(stderr, "usage: %s [demo]\n", argv[0]);
        return 2;
    }
    CHECK(lr_router_new(&router));
    printf("FFRouter's README, step by step, on LinkRouter\n\n");
    register_urls();
    if (demo) {
        rewrite_one();
        rewrite_bulk();
    } else {
        route_fire_and_forget();
        route_object();
        route_callback();
        route_with_objects();
        can_route();
        unregistered();
        logging();
        rewrite_one();
        rewrite_bulk();
        remove_rules();
        unregister();
    }
    printf("\nnavigation stack: %zu screens; every outcome as expected\n", app.depth);
    lr_router_free(router);
    return 0;
}
