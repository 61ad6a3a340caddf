/*
 * DCURLRouter (seed 002), in C: a route table file maps dariel:// URLs to screens, and each route's meta says how
 * the screen is shown (push, replace, present, pop-N, dismiss-N). Parameters come from the URL or from a
 * dictionary the caller passes, and the dictionary wins; http and https URLs open the web screen with the URL.
 * The "window" below is the host app's model of UIKit: a stack of presented layers, each a navigation stack.
 *
 * Run from the repository root: build/examples/seed-dcurlrouter-c [demo]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "linkrouter.h"

enum { MAX_PARAMS = 8, MAX_SCREENS = 8, MAX_LAYERS = 4, TEXT = 256 };

/* A view controller: what DCURLRouter's UIViewController category gives every screen. */
typedef struct screen {
    char class_name[64];
    char origin_url[TEXT];
    char path[TEXT];
    size_t param_count;
    char param_names[MAX_PARAMS][64];
    char param_values[MAX_PARAMS][TEXT];
} screen;

/* One presented layer: a navigation stack, or a screen presented without one (it cannot push). */
typedef struct layer {
    screen screens[MAX_SCREENS];
    size_t count;
    int navigable;
} layer;

/* The app's window: layers[0] is the root navigation stack, each present adds a layer on top. */
typedef struct window {
    layer layers[MAX_LAYERS];
    size_t count;
    char last_action[TEXT];  /* what the last open did, e.g. "push TwoViewController" */
    char refusal[TEXT];      /* why a handler refused; the library copies it at once */
} window;

/* The screen classes linked into the app. FiveViewController is in the table but not here: opening it fails. */
static const char *const screen_classes[] = {
    "OneViewController", "TwoViewController", "ThreeViewController", "FourViewController", "WebViewController",
};

static layer *top_layer(window *w) { return &w->layers[w->count - 1]; }

static screen *current_screen(window *w)
{
    layer *l = top_layer(w);
    return &l->screens[l->count - 1];
}

static void copy_text(char *to, size_t size, const char *from) { snprintf(to, size, "%s", from ? from : ""); }

static void set_param(screen *s, const char *name, const char *value)
{
    if (s->param_count == MAX_PARAMS)
        return;
    copy_text(s->param_names[s->param_count], sizeof s->param_names[0], name);
    copy_text(s->param_values[s->param_count], sizeof s->param_values[0], value);
    s->param_count++;
}

/* Sorts a screen's parameters by name, so that every language prints them in the same order. */
static void sort_params(screen *s)
{
    for (size_t i = 1; i < s->param_count; i++)
        for (size_t j = i; j > 0 && strcmp(s->param_names[j - 1], s->param_names[j]) > 0; j--) {
            char name[64], value[TEXT];
            memcpy(name, s->param_names[j], sizeof name);
            memcpy(value, s->param_values[j], sizeof value);
            memcpy(s->param_names[j], s->param_names[j - 1], sizeof name);
            memcpy(s->param_values[j], s->param_values[j - 1], sizeof value);
            memcpy(s->param_names[j - 1], name, sizeof name);
            memcpy(s->param_values[j - 1], value, sizeof value);
        }
}

/* Builds the screen a match opens: the params (the library's merge: caller dictionary > path > query), the
   original URL and its path. The web screen gets only the URL, as DCURLRouter's web controller does. */
static void make_screen(screen *s, const char *class_name, const lr_match *m)
{
    memset(s, 0, sizeof *s);
    copy_text(s->class_name, sizeof s->class_name, class_name);
    copy_text(s->origin_url, sizeof s->origin_url, lr_match_url(m));
    copy_text(s->path, sizeof s->path, lr_match_path(m));
    if (strcmp(class_name, "WebViewController") == 0) {
        set_param(s, "urlStr", lr_match_url(m));
        return;
    }
    for (size_t i = 0; i < lr_match_param_count(m); i++)
        set_param(s, lr_match_param_name(m, i), lr_match_param_value(m, i));
    sort_params(s);
}

static int refuse(window *w, const char **message, const char *why)
{
    copy_text(w->refusal, sizeof w->refusal, why);
    *message = w->refusal;
    return LR_EHANDLER;
}

/* The handler of every screen class: makes the screen and shows it as the route's meta "transition" says. */
static int open_screen(const lr_match *m, void *context, void *user_data, void **result, const char **message)
{
    window *w = context;
    const char *class_name = user_data;
    const char *transition = lr_match_meta(m, "transition");
    char why[TEXT];
    screen s;
    make_screen(&s, class_name, m);

    layer *top = top_layer(w);
    if (transition && strcmp(transition, "present") == 0) {
        if (w->count == MAX_LAYERS)
            return refuse(w, message, "cannot present: too many layers");
        int navigable = lr_match_meta(m, "navigation") && strcmp(lr_match_meta(m, "navigation"), "yes") == 0;
        layer *l = &w->layers[w->count++];
        l->screens[0] = s;
        l->count = 1;
        l->navigable = navigable;
        snprintf(w->last_action, sizeof w->last_action, "present %s%s", class_name,
                 navigable ? " in a navigation stack" : "");
    } else if (transition && (strcmp(transition, "push") == 0 || strcmp(transition, "replace") == 0)) {
        if (!top->navigable) {
            snprintf(why, sizeof why, "cannot push %s: %s was presented without a navigation stack", class_name,
                     current_screen(w)->class_name);
            return refuse(w, message, why);
        }
        /* DCURLRouter's replace: a screen of the same class on top is swapped for the new one; else a push. */
        if (strcmp(transition, "replace") == 0 && strcmp(current_screen(w)->class_name, class_name) == 0) {
            top->screens[top->count - 1] = s;
            snprintf(w->last_action, sizeof w->last_action, "replace %s with %s", class_name, class_name);
        } else {
            if (top->count == MAX_SCREENS)
                return refuse(w, message, "cannot push: the navigation stack is full");
            top->screens[top->count++] = s;
            snprintf(w->last_action, sizeof w->last_action, "push %s", class_name);
        }
    } else {
        snprintf(why, sizeof why, "route %s has no known transition", lr_match_pattern(m));
        return refuse(w, message, why);
    }
    *result = current_screen(w);
    return LR_OK;
}

/* Parses a positive count of screens ("2"); 0 when it is not one. */
static size_t parse_times(const char *text)
{
    size_t n = 0;
    if (!text || !*text)
        return 0;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9' || n > 1000)
            return 0;
        n = n * 10 + (size_t)(*p - '0');
    }
    return n;
}

/* The handler of the Navigator routes: pop-N and dismiss-N (or to the root), as the meta says. */
static int navigate_back(const lr_match *m, void *context, void *user_data, void **result, const char **message)
{
    (void)user_data;
    window *w = context;
    const char *transition = lr_match_meta(m, "transition");
    const char *to = lr_match_meta(m, "to");
    int to_root = to && strcmp(to, "root") == 0;
    char why[TEXT];

    if (transition && strcmp(transition, "pop") == 0) {
        layer *top = top_layer(w);
        size_t times = to_root ? top->count - 1 : parse_times(lr_match_get(m, "times"));
        /* DCURLRouter asserts here; a refusal the caller sees is kinder. */
        if (times == 0 || times >= top->count) {
            snprintf(why, sizeof why, "cannot pop %s: the top navigation stack holds %zu screen(s)",
                     lr_match_get(m, "times") ? lr_match_get(m, "times") : "to the root", top->count);
            return refuse(w, message, why);
        }
        top->count -= times;
        snprintf(w->last_action, sizeof w->last_action, "pop %zu, current %s", times, current_screen(w)->class_name);
    } else if (transition && strcmp(transition, "dismiss") == 0) {
        size_t times = to_root ? w->count - 1 : parse_times(lr_match_get(m, "times"));
        if (times == 0 || times >= w->count) {
            snprintf(why, sizeof why, "cannot dismiss %s: %zu layer(s) presented",
                     lr_match_get(m, "times") ? lr_match_get(m, "times") : "to the root", w->count - 1);
            return refuse(w, message, why);
        }
        w->count -= times;
        snprintf(w->last_action, sizeof w->last_action, "dismiss %zu, current %s", times,
                 current_screen(w)->class_name);
    } else {
        snprintf(why, sizeof why, "route %s has no known transition", lr_match_pattern(m));
        return refuse(w, message, why);
    }
    *result = current_screen(w);
    return LR_OK;
}

/* A URL no route matches: DCURLRouter asserts; here the caller gets the reason. */
static int no_screen(const char *url, void *context, void *user_data, void **result, const char **message)
{
    (void)user_data;
    (void)result;
    char why[TEXT];
    snprintf(why, sizeof why, "no route for %s: add it to the route table, or check its scheme", url);
    return refuse(context, message, why);
}

static void describe_window(const window *w, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < w->count; i++) {
        const layer *l = &w->layers[i];
        used += (size_t)snprintf(out + used, size - used, "%s%s(", i ? " / " : "", l->navigable ? "nav" : "modal");
        for (size_t j = 0; j < l->count && used < size; j++)
            used += (size_t)snprintf(out + used, size - used, "%s%s", j ? " > " : "", l->screens[j].class_name);
        if (used < size)
            used += (size_t)snprintf(out + used, size - used, ")");
        if (used >= size)
            return;
    }
}

/* What the target received: "params {a=1, b=2}, originUrl ..., path "..."". */
static void describe_screen(const screen *s, char *out, size_t size)
{
    size_t used = (size_t)snprintf(out, size, "params {");
    for (size_t i = 0; i < s->param_count && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%s=%s", i ? ", " : "", s->param_names[i],
                                 s->param_values[i]);
    if (used < size)
        snprintf(out + used, size - used, "}, originUrl %s, path \"%s\"", s->origin_url, s->path);
}

/* One open and what must come of it. `sees` is NULL for navigation back and for refusals. */
typedef struct step {
    const char *url;
    const char *extra_names[3];  /* the caller's dictionary, NULL-terminated */
    const char *extra_values[3];
    const char *outcome;         /* "push TwoViewController", or "refused: <why>" */
    const char *sees;
    const char *window;
} step;

static const step steps[] = {
    /* The headline (make demo): the URL's userid loses to the caller's dictionary; its name stays. */
    {"dariel://twoitem?name=dariel&userid=213213", {"userName", "userid"}, {"Hello", "32342"},
     "push TwoViewController",
     "params {name=dariel, userName=Hello, userid=32342}, originUrl dariel://twoitem?name=dariel&userid=213213, path \"\"",
     "nav(HomeViewController > TwoViewController)"},
    {"dariel://oneitem?name=dariel", {NULL}, {NULL},
     "push OneViewController",
     "params {name=dariel}, originUrl dariel://oneitem?name=dariel, path \"\"",
     "nav(HomeViewController > TwoViewController > OneViewController)"},
    {"dariel://oneitem", {"userName"}, {"Hello"},
     "replace OneViewController with OneViewController",
     "params {userName=Hello}, originUrl dariel://oneitem, path \"\"",
     "nav(HomeViewController > TwoViewController > OneViewController)"},
    {"dariel://threeitem?userid=213213", {NULL}, {NULL},
     "present ThreeViewController",
     "params {userid=213213}, originUrl dariel://threeitem?userid=213213, path \"\"",
     "nav(HomeViewController > TwoViewController > OneViewController) / modal(ThreeViewController)"},
    {"dariel://twoitem", {NULL}, {NULL},
     "refused: cannot push TwoViewController: ThreeViewController was presented without a navigation stack", NULL,
     "nav(HomeViewController > TwoViewController > OneViewController) / modal(ThreeViewController)"},
    {"dariel://fouritem", {NULL}, {NULL},
     "present FourViewController in a navigation stack",
     "params {}, originUrl dariel://fouritem, path \"\"",
     "nav(HomeViewController > TwoViewController > OneViewController) / modal(ThreeViewController) / nav(FourViewController)"},
    {"https://github.com/DarielChen/DCURLRouter?tab=readme", {NULL}, {NULL},
     "push WebViewController",
     "params {urlStr=https://github.com/DarielChen/DCURLRouter?tab=readme}, originUrl https://github.com/DarielChen/DCURLRouter?tab=readme, path \"/DarielChen/DCURLRouter\"",
     "nav(HomeViewController > TwoViewController > OneViewController) / modal(ThreeViewController) / nav(FourViewController > WebViewController)"},
    {"http://example.com", {NULL}, {NULL},
     "push WebViewController",
     "params {urlStr=http://example.com}, originUrl http://example.com, path \"\"",
     "nav(HomeViewController > TwoViewController > OneViewController) / modal(ThreeViewController) / nav(FourViewController > WebViewController > WebViewController)"},
    {"dariel://pop/2", {NULL}, {NULL},
     "pop 2, current FourViewController", NULL,
     "nav(HomeViewController > TwoViewController > OneViewController) / modal(ThreeViewController) / nav(FourViewController)"},
    {"dariel://pop/3", {NULL}, {NULL},
     "refused: cannot pop 3: the top navigation stack holds 1 screen(s)", NULL,
     "nav(HomeViewController > TwoViewController > OneViewController) / modal(ThreeViewController) / nav(FourViewController)"},
    {"dariel://dismiss/2", {NULL}, {NULL},
     "dismiss 2, current OneViewController", NULL,
     "nav(HomeViewController > TwoViewController > OneViewController)"},
    {"dariel://dismiss/1", {NULL}, {NULL},
     "refused: cannot dismiss 1: 0 layer(s) presented", NULL,
     "nav(HomeViewController > TwoViewController > OneViewController)"},
    {"dariel://pop/root", {NULL}, {NULL},
     "pop 2, current HomeViewController", NULL,
     "nav(HomeViewController)"},
    {"dariel://fiveitem", {NULL}, {NULL},
     "refused: route 'dariel://fiveitem' (target 'FiveViewController') has no handler", NULL,
     "nav(HomeViewController)"},
    {"dariel://sixitem", {NULL}, {NULL},
     "refused: no route for dariel://sixitem: add it to the route table, or check its scheme", NULL,
     "nav(HomeViewController)"},
    /* Two layers presented again, then dismissed to the root in one open. */
    {"dariel://threeitem?userid=1", {NULL}, {NULL},
     "present ThreeViewController",
     "params {userid=1}, originUrl dariel://threeitem?userid=1, path \"\"",
     "nav(HomeViewController) / modal(ThreeViewController)"},
    {"dariel://fouritem", {NULL}, {NULL},
     "present FourViewController in a navigation stack",
     "params {}, originUrl dariel://fouritem, path \"\"",
     "nav(HomeViewController) / modal(ThreeViewController) / nav(FourViewController)"},
    {"dariel://dismiss/root", {NULL}, {NULL},
     "dismiss 2, current HomeViewController", NULL,
     "nav(HomeViewController)"},
};

static int failures;

static void run_step(lr_router *router, window *w, const step *s)
{
    size_t extra_count = 0;
    while (extra_count < 3 && s->extra_names[extra_count])
        extra_count++;
    printf("open %s", s->url);
    for (size_t i = 0; i < extra_count; i++)
        printf("%s%s=%s", i ? ", " : " with {", s->extra_names[i], s->extra_values[i]);
    printf("%s\n", extra_count ? "}" : "");

    lr_open_options opts = {0};
    opts.extra_names = s->extra_names;
    opts.extra_values = s->extra_values;
    opts.extra_count = extra_count;
    opts.context = w;
    void *result = NULL;
    int rc = lr_router_open(router, s->url, &opts, &result);

    char outcome[2 * TEXT], sees[4 * TEXT], layers[8 * TEXT];
    if (rc == LR_OK) {
        copy_text(outcome, sizeof outcome, w->last_action);
    } else if (rc < 0) {
        snprintf(outcome, sizeof outcome, "refused: %s", lr_last_error());
    } else {
        snprintf(outcome, sizeof outcome, "unexpected status %d (%s)", rc, lr_errstr(rc));
    }
    printf("  %s\n", outcome);
    expect_same(&failures, s->url, outcome, s->outcome);
    if (s->sees) {
        if (rc == LR_OK && result) {
            describe_screen(result, sees, sizeof sees);
            printf("  sees %s\n", sees);
            expect_same(&failures, "what the screen sees", sees, s->sees);
        } else {
            expect_same(&failures, "what the screen sees", "(no screen)", s->sees);
        }
    }
    describe_window(w, layers, sizeof layers);
    printf("  window: %s\n", layers);
    expect_same(&failures, "the window", layers, s->window);
}

int main(int argc, char **argv)
{
    int demo = argc == 2 && strcmp(argv[1], "demo") == 0;
    static window w;  /* big: kept off the stack */
    lr_router *router;
    CHECK(lr_router_new(&router));
    CHECK(lr_router_load_file(router, "examples/dcurlrouter/routes.json", LR_LOAD_REPLACE));
    size_t route_count;
    CHECK(lr_router_count(router, &route_count));
    printf("DCURLRouter: %zu routes from examples/dcurlrouter/routes.json\n", route_count);

    /* The table names classes; the code gives each class that exists its handler. */
    lr_handler screen_handler = {open_screen, NULL, NULL, NULL};
    for (size_t i = 0; i < sizeof screen_classes / sizeof screen_classes[0]; i++) {
        screen_handler.user_data = (void *)screen_classes[i];
        CHECK(lr_router_handle_target(router, screen_classes[i], &screen_handler));
    }
    lr_handler back_handler = {navigate_back, NULL, NULL, NULL};
    CHECK(lr_router_handle_target(router, "Navigator", &back_handler));
    CHECK(lr_router_set_unmatched(router, no_screen, NULL, NULL));

    /* The app starts on its home screen, in the root navigation stack. */
    copy_text(w.layers[0].screens[0].class_name, sizeof w.layers[0].screens[0].class_name, "HomeViewController");
    w.layers[0].count = 1;
    w.layers[0].navigable = 1;
    w.count = 1;

    size_t count = demo ? 1 : sizeof steps / sizeof steps[0];
    for (size_t i = 0; i < count; i++)
        run_step(router, &w, &steps[i]);

    lr_router_free(router);
    if (failures) {
        fprintf(stderr, "%d mismatch(es)\n", failures);
        return 1;
    }
    printf("ok: %zu opens as expected\n", count);
    return 0;
}
