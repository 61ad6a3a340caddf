/*
 * URLMediator (seed 003), in C: a table file maps module ids ("999") to view controller classes; a module is opened
 * by id with a parameter, as the URL scheme://Class/method/param, and the class's method runs on the queue the
 * caller chooses (none: the caller's own thread). A module id, class or method that does not exist is an error
 * the caller gets back; nothing crashes.
 *
 * The queues are the host's: serial work queues, each one thread, standing in for the main queue ("ui") and a
 * background queue. LinkRouter takes any dispatch function (lr_open_options.dispatch).
 *
 * Run from the repository root: build/examples/seed-urlmediator-c [demo]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "linkrouter.h"

enum { QUEUE_SLOTS = 8, MAX_VIEWS = 16, TEXT = 256 };

/* ---- queues --------------------------------------------------------------------------------------------------- */

/* Each thread knows which queue it is ("caller" for the main thread): what a handler reports it ran on. */
static pthread_key_t queue_name_key;

typedef struct work_item {
    void (*work)(void *);
    void *arg;
} work_item;

/* A serial queue: one thread running work items in the order they came. */
typedef struct work_queue {
    const char *name;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    work_item items[QUEUE_SLOTS];
    size_t head, count;
    int stopping;
    pthread_t thread;
} work_queue;

static void *queue_main(void *p)
{
    work_queue *q = p;
    pthread_setspecific(queue_name_key, q->name);
    for (;;) {
        pthread_mutex_lock(&q->lock);
        while (q->count == 0 && !q->stopping)
            pthread_cond_wait(&q->changed, &q->lock);
        if (q->count == 0) {  /* stopping, and nothing left to run */
            pthread_mutex_unlock(&q->lock);
            return NULL;
        }
        work_item item = q->items[q->head];
        q->head = (q->head + 1) % QUEUE_SLOTS;
        q->count--;
        pthread_cond_broadcast(&q->changed);
        pthread_mutex_unlock(&q->lock);
        item.work(item.arg);
    }
}

/* LinkRouter's dispatch function: queue the work; it runs exactly once, on the queue's thread. */
static void queue_dispatch(void *executor, void (*work)(void *), void *arg)
{
    work_queue *q = executor;
    pthread_mutex_lock(&q->lock);
    while (q->count == QUEUE_SLOTS)  /* full: wait for room rather than drop work the library counts on */
        pthread_cond_wait(&q->changed, &q->lock);
    q->items[(q->head + q->count) % QUEUE_SLOTS] = (work_item){work, arg};
    q->count++;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->lock);
}

static int queue_start(work_queue *q, const char *name)
{
    memset(q, 0, sizeof *q);
    q->name = name;
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->changed, NULL);
    return pthread_create(&q->thread, NULL, queue_main, q);
}

static void queue_stop(work_queue *q)
{
    pthread_mutex_lock(&q->lock);
    q->stopping = 1;
    pthread_cond_broadcast(&q->changed);
    pthread_mutex_unlock(&q->lock);
    pthread_join(q->thread, NULL);
    pthread_cond_destroy(&q->changed);
    pthread_mutex_destroy(&q->lock);
}

/* ---- the app: its navigation stack and its module classes ------------------------------------------------------- */

/* URLMediator's pushToViewController: one stack, pushed to from whichever queue a module runs on. */
typedef struct navigation {
    pthread_mutex_t lock;
    char views[MAX_VIEWS][TEXT];
    size_t count;
} navigation;

/* One call of a module, as the open's context: where the stack is, and what the method did and where. */
typedef struct module_call {
    navigation *nav;
    char ran_on[32];
    char did[TEXT];
    char refusal[TEXT];
} module_call;

typedef int (*module_method)(const char *class_name, const char *param, module_call *call);

/* +pushToModule: makes the view controller with the parameter (NULL: none, pushToModuleID: alone) and pushes it. */
static int push_to_module(const char *class_name, const char *param, module_call *call)
{
    if (!param)
        param = "nil";
    navigation *nav = call->nav;
    pthread_mutex_lock(&nav->lock);
    int full = nav->count == MAX_VIEWS;
    if (!full)
        snprintf(nav->views[nav->count++], TEXT, "%s(%s)", class_name, param);
    pthread_mutex_unlock(&nav->lock);
    if (full)
        return -1;
    snprintf(call->did, sizeof call->did, "%s.pushToModule(%s)", class_name, param);
    return 0;
}

/* A class linked into the app and the class methods it answers. GhostViewController is in the table, not here. */
typedef struct module_class {
    const char *name;
    const char *method_names[2];
    module_method methods[2];
} module_class;

static const module_class module_classes[] = {
    {"OneViewController", {"pushToModule", NULL}, {push_to_module, NULL}},
    {"TwoViewController", {"pushToModule", NULL}, {push_to_module, NULL}},
};

/* The handler of every module class: finds the method the URL names and calls it with the parameter, on whatever
   queue the library runs it. A method the class does not have is an error, as class_getClassMethod's NULL is. */
static int call_module(const lr_match *m, void *context, void *user_data, void **result, const char **message)
{
    (void)result;
    module_call *call = context;
    const module_class *cls = user_data;
    const char *queue = pthread_getspecific(queue_name_key);
    snprintf(call->ran_on, sizeof call->ran_on, "%s", queue ? queue : "an unnamed thread");

    const char *method = lr_match_get(m, "method");
    const char *param = lr_match_get(m, "param");
    if (!method) {  /* a route of another shape given this class as its target */
        snprintf(call->refusal, sizeof call->refusal, "%s needs a URL of the form scheme://%s/method[/param]",
                 cls->name, cls->name);
        *message = call->refusal;
        return LR_EINVAL;
    }
    for (size_t i = 0; i < 2 && cls->method_names[i]; i++)
        if (strcmp(cls->method_names[i], method) == 0) {
            if (cls->methods[i](cls->name, param, call) == 0)
                return LR_OK;
            snprintf(call->refusal, sizeof call->refusal, "%s.%s failed: the navigation stack is full", cls->name,
                     method);
            *message = call->refusal;
            return LR_EHANDLER;
        }
    snprintf(call->refusal, sizeof call->refusal, "%s has no method '%s'", cls->name, method);
    *message = call->refusal;
    return LR_ENOTFOUND;
}

/* A URL whose class is in no route: the caller learns so. */
static int no_module(const char *url, void *context, void *user_data, void **result, const char **message)
{
    (void)user_data;
    (void)result;
    module_call *call = context;
    snprintf(call->refusal, sizeof call->refusal, "no module answers %s", url);
    *message = call->refusal;
    return LR_ENOTFOUND;
}

/* ---- the scenario --------------------------------------------------------------------------------------------- */

/* One call and what must come of it: by module id (pushToModuleID:param:queue:) or by URL. */
typedef struct step {
    const char *module_id;  /* NULL: open `url` as it is */
    const char *param;      /* by id: NULL for none (pushToModuleID: alone) */
    const char *url;        /* by id: the URL the id must build; NULL when it builds none */
    const char *queue;      /* "ui", "background", or NULL: the caller's thread */
    const char *outcome;
    const char *stack;
} step;

static const step steps[] = {
    /* The headline (make demo): module 999 with parameter 1, run on the ui queue. */
    {"999", "1", "com.myiurlmediator://OneViewController/pushToModule/1", "ui",
     "OneViewController.pushToModule(1) ran on ui", "OneViewController(1)"},
    {"1000", "7", "com.myiurlmediator://TwoViewController/pushToModule/7", "background",
     "TwoViewController.pushToModule(7) ran on background", "OneViewController(1) > TwoViewController(7)"},
    {"999", "2", "com.myiurlmediator://OneViewController/pushToModule/2", NULL,
     "OneViewController.pushToModule(2) ran on caller",
     "OneViewController(1) > TwoViewController(7) > OneViewController(2)"},
    {"999", "a b/c", "com.myiurlmediator://OneViewController/pushToModule/a%20b%2Fc", "ui",
     "OneViewController.pushToModule(a b/c) ran on ui",
     "OneViewController(1) > TwoViewController(7) > OneViewController(2) > OneViewController(a b/c)"},
    {NULL, NULL, "com.MYIURLMediator://OneViewController/pushToModule/3", "background",
     "OneViewController.pushToModule(3) ran on background",
     "OneViewController(1) > TwoViewController(7) > OneViewController(2) > OneViewController(a b/c) > OneViewController(3)"},
    {NULL, NULL, "com.myiurlmediator://OneViewController/fly/1", "ui",
     "refused: OneViewController has no method 'fly'",
     "OneViewController(1) > TwoViewController(7) > OneViewController(2) > OneViewController(a b/c) > OneViewController(3)"},
    {"777", "1", NULL, "ui",
     "refused: no route is named '777'",
     "OneViewController(1) > TwoViewController(7) > OneViewController(2) > OneViewController(a b/c) > OneViewController(3)"},
    {"404", "1", "com.myiurlmediator://GhostViewController/pushToModule/1", "ui",
     "refused: route 'com.myiurlmediator://GhostViewController/:method(/:param)' (target 'GhostViewController') has no handler",
     "OneViewController(1) > TwoViewController(7) > OneViewController(2) > OneViewController(a b/c) > OneViewController(3)"},
    {NULL, NULL, "com.myiurlmediator://NoSuchController/pushToModule/1", "background",
     "refused: no module answers com.myiurlmediator://NoSuchController/pushToModule/1",
     "OneViewController(1) > TwoViewController(7) > OneViewController(2) > OneViewController(a b/c) > OneViewController(3)"},
    /* pushToModuleID: without a parameter: the route's optional group, left out of the URL built. */
    {"1000", NULL, "com.myiurlmediator://TwoViewController/pushToModule", "ui",
     "TwoViewController.pushToModule(nil) ran on ui",
     "OneViewController(1) > TwoViewController(7) > OneViewController(2) > OneViewController(a b/c) > OneViewController(3)"
     " > TwoViewController(nil)"},
};

static int failures;

static void describe_stack(navigation *nav, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    pthread_mutex_lock(&nav->lock);
    for (size_t i = 0; i < nav->count && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%s", i ? " > " : "", nav->views[i]);
    pthread_mutex_unlock(&nav->lock);
}

static void run_step(lr_router *router, navigation *nav, work_queue *ui, work_queue *background, const step *s)
{
    const char *on = s->queue ? s->queue : "the caller's thread";
    char outcome[2 * TEXT], stack[MAX_VIEWS * TEXT];
    char *built = NULL;
    const char *url = s->url;
    int rc = LR_OK;

    if (s->module_id) {
        if (s->param)
            printf("pushToModuleID %s param %s on %s\n", s->module_id, s->param, on);
        else
            printf("pushToModuleID %s on %s\n", s->module_id, on);
        /* The id is the route's name: the table gives the class, the method is pushToModule. */
        const char *names[] = {"method", "param"};
        const char *values[] = {"pushToModule", s->param};
        rc = lr_router_build_url(router, s->module_id, names, values, s->param ? 2 : 1, &built);
        url = built;
        if (rc == LR_OK) {
            printf("  url %s\n", built);
            expect_same(&failures, "the URL built", built, s->url ? s->url : "(none)");
        } else if (s->url) {
            expect_same(&failures, "the URL built", "(none)", s->url);
        }
    } else {
        printf("open %s on %s\n", s->url, on);
    }

    module_call call = {0};
    call.nav = nav;
    if (rc == LR_OK) {
        lr_open_options opts = {0};
        opts.context = &call;
        if (s->queue) {
            opts.dispatch = queue_dispatch;
            opts.executor = strcmp(s->queue, "ui") == 0 ? ui : background;
        }
        rc = lr_router_open(router, url, &opts, NULL);
    }
    if (rc == LR_OK)
        snprintf(outcome, sizeof outcome, "%s ran on %s", call.did, call.ran_on);
    else
        snprintf(outcome, sizeof outcome, "refused: %s", rc < 0 ? lr_last_error() : lr_errstr(rc));
    lr_string_free(built);

    printf("  %s\n", outcome);
    expect_same(&failures, s->module_id ? s->module_id : s->url, outcome, s->outcome);
    describe_stack(nav, stack, sizeof stack);
    printf("  stack: %s\n", stack);
    expect_same(&failures, "the stack", stack, s->stack);
}

/* URLMediator's call does not wait: NSURLSession hands the URL over and returns. lr_router_open_async is that call.
   To show it, the ui queue is kept busy behind a gate: the open returns, the stack is still as it was, and the
   module runs only when the gate opens and the queue reaches it; done() then reports the outcome. */
typedef struct gate {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int open;      /* the gate: the ui queue's blocker waits for it */
    int done;      /* the open's outcome came */
    int status;
    char message[TEXT];
} gate;

static void wait_for_gate(void *arg)
{
    gate *g = arg;
    pthread_mutex_lock(&g->lock);
    while (!g->open)
        pthread_cond_wait(&g->changed, &g->lock);
    pthread_mutex_unlock(&g->lock);
}

static void open_done(const lr_outcome *outcome, void *data)
{
    gate *g = data;
    pthread_mutex_lock(&g->lock);
    g->status = outcome->status;
    snprintf(g->message, sizeof g->message, "%s", outcome->message);
    g->done = 1;
    pthread_cond_broadcast(&g->changed);
    pthread_mutex_unlock(&g->lock);
}

static void run_without_waiting(lr_router *router, navigation *nav, work_queue *ui)
{
    static const char *const want_url = "com.myiurlmediator://TwoViewController/pushToModule/8";
    static const char *const want_outcome = "TwoViewController.pushToModule(8) ran on ui";
    char before[MAX_VIEWS * TEXT], after[MAX_VIEWS * TEXT], outcome[2 * TEXT];
    gate g = {0};
    pthread_mutex_init(&g.lock, NULL);
    pthread_cond_init(&g.changed, NULL);

    printf("pushToModuleID 1000 param 8 on ui, without waiting (ui is busy)\n");
    const char *names[] = {"method", "param"};
    const char *values[] = {"pushToModule", "8"};
    char *url = NULL;
    CHECK(lr_router_build_url(router, "1000", names, values, 2, &url));
    printf("  url %s\n", url);
    expect_same(&failures, "the URL built", url, want_url);

    describe_stack(nav, before, sizeof before);
    queue_dispatch(ui, wait_for_gate, &g);
    module_call call = {0};
    call.nav = nav;
    lr_open_options opts = {0};
    opts.context = &call;
    opts.dispatch = queue_dispatch;
    opts.executor = ui;
    CHECK(lr_router_open_async(router, url, &opts, open_done, &g));
    lr_string_free(url);

    /* Back at once: the module waits in the ui queue behind the gate. */
    pthread_mutex_lock(&g.lock);
    int done_early = g.done;
    pthread_mutex_unlock(&g.lock);
    describe_stack(nav, after, sizeof after);
    printf("  returned; %s\n", done_early ? "the module already ran" : "the module has not run yet");
    expect_same(&failures, "the open returned before the module ran", done_early ? "ran" : "not yet", "not yet");
    expect_same(&failures, "the stack before the module ran", after, before);

    pthread_mutex_lock(&g.lock);
    g.open = 1;
    pthread_cond_broadcast(&g.changed);
    while (!g.done)
        pthread_cond_wait(&g.changed, &g.lock);
    pthread_mutex_unlock(&g.lock);
    if (g.status == LR_OK)
        snprintf(outcome, sizeof outcome, "%s ran on %s", call.did, call.ran_on);
    else
        snprintf(outcome, sizeof outcome, "refused: %s", g.message);
    printf("  %s\n", outcome);
    expect_same(&failures, "the open without waiting", outcome, want_outcome);
    describe_stack(nav, after, sizeof after);
    printf("  stack: %s\n", after);
    char want_stack[MAX_VIEWS * TEXT + 32];
    snprintf(want_stack, sizeof want_stack, "%s > TwoViewController(8)", before);
    expect_same(&failures, "the stack", after, want_stack);
    pthread_cond_destroy(&g.changed);
    pthread_mutex_destroy(&g.lock);
}

int main(int argc, char **argv)
{
    int demo = argc == 2 && strcmp(argv[1], "demo") == 0;
    if (pthread_key_create(&queue_name_key, NULL) != 0)
        return 1;
    pthread_setspecific(queue_name_key, "caller");

    lr_router *router;
    CHECK(lr_router_new(&router));
    CHECK(lr_router_load_file(router, "examples/urlmediator/modules.json", LR_LOAD_REPLACE));
    size_t module_count;
    CHECK(lr_router_count(router, &module_count));
    printf("URLMediator: %zu modules from examples/urlmediator/modules.json\n", module_count);

    lr_handler handler = {call_module, NULL, NULL, NULL};
    for (size_t i = 0; i < sizeof module_classes / sizeof module_classes[0]; i++) {
        handler.user_data = (void *)&module_classes[i];
        CHECK(lr_router_handle_target(router, module_classes[i].name, &handler));
    }
    CHECK(lr_router_set_unmatched(router, no_module, NULL, NULL));

    static navigation nav;
    pthread_mutex_init(&nav.lock, NULL);
    work_queue ui, background;
    if (queue_start(&ui, "ui") != 0 || queue_start(&background, "background") != 0) {
        fprintf(stderr, "cannot start the queues\n");
        return 1;
    }

    size_t count = demo ? 1 : sizeof steps / sizeof steps[0];
    for (size_t i = 0; i < count; i++)
        run_step(router, &nav, &ui, &background, &steps[i]);
    if (!demo)
        run_without_waiting(router, &nav, &ui);

    queue_stop(&ui);
    queue_stop(&background);
    lr_router_free(router);
    pthread_mutex_destroy(&nav.lock);
    if (failures) {
        fprintf(stderr, "%d mismatch(es)\n", failures);
        return 1;
    }
    printf("ok: %zu calls as expected\n", demo ? count : count + 1);
    return 0;
}
