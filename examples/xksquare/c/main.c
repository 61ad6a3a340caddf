/*
 * xksquare's deep links (seed 000), opened through LinkRouter's C ABI.
 *
 * The xksquare app routes `xksquare://<host>?targetclass=<screen>&...`: `com.dynamic` links open at once,
 * `com.authDynamic` links need a logged-in user (parked while logged out, replayed after login), and
 * `RAdapter=Model_RAdapter` turns bracket parameters (`info[nickname]=...&name[bb]=123`) into a typed model,
 * here a C struct filled from a table of fields. The routes are examples/xksquare/routes.json; the code here is
 * the app: its screens, its navigation stack, the `login` guard and the adapter.
 *
 * Run from the repository root: build/examples/seed-xksquare-c [demo]   (`demo`: the login scenario only)
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "linkrouter.h"

#define ROUTES "examples/xksquare/routes.json"
#define WEB_PAGE "examples/xksquare/open-app.html"
#define GIFT_LINK "xksquare://com.dynamic?targetclass=RouterTestViewController&name=%E4%BD%93%E8%B4%B4&num=2"
#define GIFT_SCREEN "RouterTestViewController(name=体贴, num=2)"
#define MODEL_LINK "xksquare://model.dynamic?RAdapter=Model_RAdapter&targetclass=XKTestJumpViewController" \
                   "&info[nickname]=%E4%BD%93%E8%B4%B4&name[bb]=123&num=2"
#define LINE_SIZE 512

/* The same strict integer as the Swift and Python programs: an optional '-', then digits only. */
static int parse_integer(const char *text, long *out)
{
    const char *digits = text[0] == '-' ? text + 1 : text;
    if (*digits == '\0' || strspn(digits, "0123456789") != strlen(digits) || strlen(digits) > 18) return 0;
    *out = strtol(text, NULL, 10);
    return 1;
}

/* ---- the typed model and its adapter (the seed's RAdapter) ---------------------------------------------------- */

struct jump_model {
    struct { char *nickname; } info;
    struct { long bb; } name;
    long num;
};

enum field_kind { FIELD_TEXT, FIELD_INTEGER };

/* One field of a model: the raw parameter name (the flat view keeps bracket keys as written), its dotted path
   for messages, its kind and where it lives in the struct. */
struct model_field {
    const char     *key;
    const char     *path;
    enum field_kind kind;
    size_t          offset;
};

struct adapter {
    const char               *name;
    size_t                    model_size;
    const struct model_field *fields;
    size_t                    field_count;
};

static const struct model_field jump_model_fields[] = {
    {"info[nickname]", "info.nickname", FIELD_TEXT, offsetof(struct jump_model, info.nickname)},
    {"name[bb]", "name.bb", FIELD_INTEGER, offsetof(struct jump_model, name.bb)},
    {"num", "num", FIELD_INTEGER, offsetof(struct jump_model, num)},
};

static const struct adapter adapters[] = {
    {"Model_RAdapter", sizeof(struct jump_model), jump_model_fields,
     sizeof jump_model_fields / sizeof jump_model_fields[0]},
};

static void free_model(const struct adapter *adapter, void *model)
{
    if (model == NULL) return;
    for (size_t i = 0; i < adapter->field_count; i++)
        if (adapter->fields[i].kind == FIELD_TEXT) free(*(char **)((char *)model + adapter->fields[i].offset));
    free(model);
}

/* Builds the adapter's struct from the match's parameters; NULL with the reason in `error` when a field is
   missing or not of its type. */
static void *adapt(const struct adapter *adapter, const lr_match *m, char *error, size_t error_size)
{
    char *model = calloc(1, adapter->model_size);
    if (model == NULL) {
        snprintf(error, error_size, "%s: out of memory", adapter->name);
        return NULL;
    }
    for (size_t i = 0; i < adapter->field_count; i++) {
        const struct model_field *field = &adapter->fields[i];
        const char *raw = lr_match_get(m, field->key);
        if (raw == NULL) {
            snprintf(error, error_size, "%s: %s is missing", adapter->name, field->path);
            free_model(adapter, model);
            return NULL;
        }
        if (field->kind == FIELD_INTEGER) {
            if (!parse_integer(raw, (long *)(model + field->offset))) {
                snprintf(error, error_size, "%s: %s: '%s' is not an integer", adapter->name, field->path, raw);
                free_model(adapter, model);
                return NULL;
            }
        } else if ((*(char **)(model + field->offset) = strdup(raw)) == NULL) {
            snprintf(error, error_size, "%s: out of memory", adapter->name);
            free_model(adapter, model);
            return NULL;
        }
    }
    return model;
}

static const struct adapter *find_adapter(const char *name)
{
    for (size_t i = 0; i < sizeof adapters / sizeof adapters[0]; i++)
        if (strcmp(adapters[i].name, name) == 0) return &adapters[i];
    return NULL;
}

/* ---- the app: session, screens, navigation stack -------------------------------------------------------------- */

struct screen {
    char class_name[64];
    char summary[256];
};

/* The parent view controller a link is opened from: screens are pushed onto it (it owns them). */
struct nav_stack {
    struct screen *screens[32];
    size_t         count;
};

struct app {
    lr_router       *router;
    const char      *user;        /* the logged-in user, NULL while logged out */
    struct nav_stack nav;
    char             error[LINE_SIZE];
};

/* Builds a screen from the match (and the model, when the link named an adapter); 0 with the reason in
   app->error when the link does not suit it. */
typedef int (*screen_factory)(struct app *app, const lr_match *m, const struct jump_model *model, struct screen *out);

static int integer_param(struct app *app, const lr_match *m, const char *key, const char *screen, long *out)
{
    const char *raw = lr_match_get(m, key);
    if (raw == NULL) raw = "";
    if (parse_integer(raw, out)) return 1;
    snprintf(app->error, sizeof app->error, "%s: %s '%s' is not an integer", screen, key, raw);
    return 0;
}

static const char *param_or(const lr_match *m, const char *key, const char *fallback)
{
    const char *value = lr_match_get(m, key);
    return value != NULL ? value : fallback;
}

static int router_test_screen(struct app *app, const lr_match *m, const struct jump_model *model, struct screen *out)
{
    long num;
    (void)model;
    if (!integer_param(app, m, "num", "RouterTestViewController", &num)) return 0;
    snprintf(out->summary, sizeof out->summary, "name=%s, num=%ld", param_or(m, "name", ""), num);
    return 1;
}

static int my_orders_screen(struct app *app, const lr_match *m, const struct jump_model *model, struct screen *out)
{
    /* Only reachable through com.authDynamic, so a user is logged in by the time it is built. */
    (void)model;
    snprintf(out->summary, sizeof out->summary, "user=%s, tab=%s", app->user, param_or(m, "tab", "all"));
    return 1;
}

static int jump_screen(struct app *app, const lr_match *m, const struct jump_model *model, struct screen *out)
{
    (void)m;
    if (model == NULL) {
        snprintf(app->error, sizeof app->error, "XKTestJumpViewController needs a model (RAdapter)");
        return 0;
    }
    snprintf(out->summary, sizeof out->summary, "info.nickname=%s, name.bb=%ld, num=%ld", model->info.nickname,
             model->name.bb, model->num);
    return 1;
}

static const struct {
    const char    *class_name;
    screen_factory make;
} screens[] = {
    {"RouterTestViewController", router_test_screen},
    {"MyOrdersViewController", my_orders_screen},
    {"XKTestJumpViewController", jump_screen},
};

/* The handler of every dynamic link: targetclass picks the screen; RAdapter, when given, builds its model; the
   screen is pushed onto the stack the link was opened from (the open's context). */
static int dynamic_jump(const lr_match *m, void *context, void *user_data, void **result, const char **message)
{
    struct app *app = user_data;
    struct nav_stack *nav = context;
    const char *class_name = lr_match_get(m, "targetclass");
    const char *adapter_name = lr_match_get(m, "RAdapter");
    screen_factory make = NULL;
    const struct adapter *adapter = NULL;
    void *model = NULL;
    struct screen *screen = NULL;

    *message = app->error;
    if (class_name == NULL || *class_name == '\0') {
        snprintf(app->error, sizeof app->error, "the link names no targetclass");
        return LR_EHANDLER;
    }
    for (size_t i = 0; i < sizeof screens / sizeof screens[0]; i++)
        if (strcmp(screens[i].class_name, class_name) == 0) make = screens[i].make;
    if (make == NULL) {
        snprintf(app->error, sizeof app->error, "no screen class '%s'", class_name);
        return LR_EHANDLER;
    }
    if (adapter_name != NULL) {
        if ((adapter = find_adapter(adapter_name)) == NULL) {
            snprintf(app->error, sizeof app->error, "no adapter '%s'", adapter_name);
            return LR_EHANDLER;
        }
        if ((model = adapt(adapter, m, app->error, sizeof app->error)) == NULL) return LR_EHANDLER;
    }
    if (nav->count == sizeof nav->screens / sizeof nav->screens[0]) {
        snprintf(app->error, sizeof app->error, "the navigation stack is full");
    } else if ((screen = calloc(1, sizeof *screen)) == NULL) {
        snprintf(app->error, sizeof app->error, "out of memory");
    } else if (make(app, m, model, screen)) {
        snprintf(screen->class_name, sizeof screen->class_name, "%s", class_name);
        nav->screens[nav->count++] = screen;
        *result = screen;
        if (adapter != NULL) free_model(adapter, model);
        return LR_OK;
    }
    free(screen);
    if (adapter != NULL) free_model(adapter, model);
    return LR_EHANDLER;
}

static int login_guard(const lr_match *m, void *context, void *user_data, const char **message)
{
    const struct app *app = user_data;
    (void)m, (void)context, (void)message;
    return app->user != NULL ? LR_ALLOW : LR_DEFER;
}

/* What the unmatched handler gives back: an xksquare link that is not a dynamic jump. */
static char other_route;

static int other_routes(const char *url, void *context, void *user_data, void **result, const char **message)
{
    (void)url, (void)context, (void)user_data, (void)message;
    *result = &other_route;
    return LR_OK;
}

static void count_visit(const char *url, void *context, void *data)
{
    (void)url, (void)context, (void)data;
}

static size_t waiting_for_login(struct app *app)
{
    size_t count = 0;
    CHECK(lr_router_pending(app->router, "login", count_visit, NULL, &count));
    return count;
}

static void describe_screen(const struct screen *screen, char *line, size_t size)
{
    snprintf(line, size, "pushed %s(%s)", screen->class_name, screen->summary);
}

static void describe_stack(const struct nav_stack *nav, char *line, size_t size)
{
    size_t used = 0;
    line[0] = '\0';
    for (size_t i = 0; i < nav->count && used < size; i++)
        used += (size_t)snprintf(line + used, size - used, "%s%s", i > 0 ? " > " : "", nav->screens[i]->class_name);
}

/* Opens a link from anywhere (in the app, a push message, a web page) and says what came of it in `line`. */
static void open_link(struct app *app, const char *url, char *line, size_t size)
{
    lr_open_options options = {0};
    void *result = NULL;
    options.context = &app->nav;
    int rc = lr_router_open(app->router, url, &options, &result);
    if (rc == LR_OK && result == &other_route)
        snprintf(line, size, "not a dynamic jump: left to the app's other routes");
    else if (rc == LR_OK)
        describe_screen(result, line, size);
    else if (rc == LR_DEFERRED)
        snprintf(line, size, "parked until login (%zu waiting)", waiting_for_login(app));
    else if (rc == LR_EHANDLER)
        snprintf(line, size, "error: %s", lr_last_error());
    else
        snprintf(line, size, "unexpected %s: %s", lr_errstr(rc), lr_last_error());
}

static void open_and_check(struct app *app, const char *url, const char *want)
{
    char line[LINE_SIZE];
    printf("open %s\n", url);
    open_link(app, url, line, sizeof line);
    printf("  %s\n", line);
    expect_text(line, want);
}

static void check_stack(struct app *app, const char *want)
{
    char line[LINE_SIZE];
    describe_stack(&app->nav, line, sizeof line);
    printf("  stack: %s\n", line);
    expect_text(line, want);
}

/* ---- the scenarios -------------------------------------------------------------------------------------------- */

static void login_free(struct app *app)
{
    printf("== a login-free link opens the screen its targetclass names, with decoded parameters\n");
    open_and_check(app, GIFT_LINK, "pushed " GIFT_SCREEN);
    check_stack(app, "RouterTestViewController");
}

/* What each replay came to, kept to be printed once resume returns (as Swift's and Python's resume report). */
struct replay_log {
    size_t count;
    char   urls[4][LINE_SIZE];
    char   lines[4][LINE_SIZE];
};

static void record_replay(const lr_outcome *outcome, void *data)
{
    struct replay_log *log = data;
    if (log->count < sizeof log->lines / sizeof log->lines[0]) {
        char *line = log->lines[log->count];
        snprintf(log->urls[log->count], LINE_SIZE, "%s", outcome->url);
        if (outcome->status == LR_OK)
            describe_screen(outcome->result, line, LINE_SIZE);
        else
            snprintf(line, LINE_SIZE, "unexpected %s: %s", lr_errstr(outcome->status), outcome->message);
    }
    log->count++;
}

static void print_log(int level, const char *message, void *user_data)
{
    (void)level, (void)user_data;
    printf("  [log] %s\n", message);
}

static void parked_then_replayed(struct app *app)
{
    char before[LINE_SIZE], after[LINE_SIZE], want[2 * LINE_SIZE];
    printf("== logged out: login-required links are parked\n");
    /* The router's own log (info: matches, guard verdicts, parking, replays) shows the core doing the parking. */
    CHECK(lr_router_set_log(app->router, LR_LOG_INFO, print_log, NULL, NULL));
    describe_stack(&app->nav, before, sizeof before);
    open_and_check(app, "xksquare://com.authDynamic?targetclass=MyOrdersViewController&tab=unpaid",
                   "parked until login (1 waiting)");
    open_and_check(app, "xksquare://com.authDynamic?targetclass=RouterTestViewController&name=%E8%AE%A2%E5%8D%95&num=7",
                   "parked until login (2 waiting)");
    describe_stack(&app->nav, after, sizeof after);
    expect_text(after, before); /* nothing opened while logged out */

    printf("== login as lili: the parked links open, in the order they came\n");
    app->user = "lili";
    size_t replayed = 0;
    struct replay_log log = {0};
    CHECK(lr_router_resume(app->router, "login", record_replay, &log, &replayed));
    CHECK(lr_router_set_log(app->router, LR_LOG_OFF, NULL, NULL, NULL));
    printf("resume login replayed %zu parked links:\n", replayed);
    if (replayed != 2 || log.count != 2) fail("expected 2 replays, got %zu", replayed);
    for (size_t i = 0; i < log.count; i++) printf("  %s\n    %s\n", log.urls[i], log.lines[i]);
    expect_text(log.lines[0], "pushed MyOrdersViewController(user=lili, tab=unpaid)");
    expect_text(log.lines[1], "pushed RouterTestViewController(name=订单, num=7)");
    if (waiting_for_login(app) != 0) fail("links still parked after resume");
    printf("  waiting now: 0\n");
    snprintf(want, sizeof want, "%s%sMyOrdersViewController > RouterTestViewController", before,
             before[0] != '\0' ? " > " : "");
    check_stack(app, want);
}

static void logged_in(struct app *app)
{
    printf("== logged in: a login-required link opens at once\n");
    open_and_check(app, "xksquare://com.authDynamic?targetclass=MyOrdersViewController",
                   "pushed MyOrdersViewController(user=lili, tab=all)");
}

static void typed_model(struct app *app)
{
    char error[LINE_SIZE];
    lr_match *m;
    printf("== RAdapter=Model_RAdapter: bracket parameters become a typed model\n");
    open_and_check(app, MODEL_LINK, "pushed XKTestJumpViewController(info.nickname=体贴, name.bb=123, num=2)");
    CHECK(lr_router_resolve(app->router, MODEL_LINK, &m));
    const struct adapter *adapter = find_adapter("Model_RAdapter");
    struct jump_model *model = adapt(adapter, m, error, sizeof error);
    lr_match_free(m);
    if (model == NULL) fail("%s", error);
    expect_text(model->info.nickname, "体贴");
    if (model->name.bb != 123 || model->num != 2) fail("expected bb 123 and num 2");
    printf("  model: JumpModel(info: Info(nickname: %s), name: Name(bb: %ld), num: %ld)\n", model->info.nickname,
           model->name.bb, model->num);
    free_model(adapter, model);
}

/* The page's whole text, or NULL. */
static char *read_file(const char *path)
{
    FILE *file = fopen(path, "rb");
    char *text = NULL;
    long size;
    if (file == NULL) return NULL;
    if (fseek(file, 0, SEEK_END) == 0 && (size = ftell(file)) >= 0 && fseek(file, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)size + 1)) != NULL) {
        text[fread(text, 1, (size_t)size, file)] = '\0';
    }
    fclose(file);
    return text;
}

static void push_and_web(struct app *app)
{
    /* The server puts the route in one field of the push message. */
    static const struct { const char *title, *router; } push = {"体贴 sent you a gift", GIFT_LINK};
    static const char href[] = "window.location.href = \"";
    char from_push[LINE_SIZE], from_web[LINE_SIZE], link[LINE_SIZE];

    printf("== a push message and a web page carry the same URL: the same screen\n");
    printf("push \"%s\" carries %s\n", push.title, push.router);
    open_link(app, push.router, from_push, sizeof from_push);
    printf("  %s\n", from_push);

    char *html = read_file(WEB_PAGE);
    if (html == NULL) fail("cannot read %s", WEB_PAGE);
    const char *start = strstr(html, href), *end = start != NULL ? strchr(start + strlen(href), '"') : NULL;
    if (end == NULL || (size_t)(end - start) >= sizeof link) fail("no link in %s", WEB_PAGE);
    start += strlen(href);
    snprintf(link, sizeof link, "%.*s", (int)(end - start), start);
    free(html);
    printf("web page %s links to %s\n", WEB_PAGE, link);
    open_link(app, link, from_web, sizeof from_web);
    printf("  %s\n", from_web);
    expect_text(from_push, "pushed " GIFT_SCREEN);
    expect_text(from_web, "pushed " GIFT_SCREEN);
    printf("  both opened %s, as the in-app link did\n", GIFT_SCREEN);
}

static const struct { const char *url, *want; } error_cases[] = {
    {"xksquare://com.dynamic?targetclass=NoSuchViewController", "error: no screen class 'NoSuchViewController'"},
    {"xksquare://com.dynamic?name=x", "error: the link names no targetclass"},
    {"xksquare://com.dynamic?targetclass=XKTestJumpViewController",
     "error: XKTestJumpViewController needs a model (RAdapter)"},
    {"xksquare://model.dynamic?RAdapter=Other_RAdapter&targetclass=XKTestJumpViewController",
     "error: no adapter 'Other_RAdapter'"},
    {"xksquare://model.dynamic?RAdapter=Model_RAdapter&targetclass=XKTestJumpViewController"
     "&info[age]=3&name[bb]=1&num=2",
     "error: Model_RAdapter: info.nickname is missing"},
    {"xksquare://model.dynamic?RAdapter=Model_RAdapter&targetclass=XKTestJumpViewController"
     "&info[nickname]=x&name[bb]=abc&num=2", "error: Model_RAdapter: name.bb: 'abc' is not an integer"},
    {"xksquare://com.other?x=1", "not a dynamic jump: left to the app's other routes"},
};

static void errors(struct app *app)
{
    char before[LINE_SIZE], after[LINE_SIZE];
    printf("== links the app cannot open: the caller gets the reason\n");
    describe_stack(&app->nav, before, sizeof before);
    for (size_t i = 0; i < sizeof error_cases / sizeof error_cases[0]; i++)
        open_and_check(app, error_cases[i].url, error_cases[i].want);
    describe_stack(&app->nav, after, sizeof after);
    expect_text(after, before); /* a failed jump pushes nothing */
}

int main(int argc, char **argv)
{
    static struct app app;
    lr_handler jump = {dynamic_jump, NULL, &app, NULL};

    if (lr_version_number() != LR_VERSION_NUMBER) fail("header %d, library %d", LR_VERSION_NUMBER, lr_version_number());
    CHECK(lr_router_new(&app.router));
    CHECK(lr_router_load_file(app.router, ROUTES, LR_LOAD_REPLACE));
    CHECK(lr_router_handle_target(app.router, "DynamicJump", &jump));
    CHECK(lr_router_add_guard(app.router, "login", 0, login_guard, &app, NULL));
    CHECK(lr_router_set_unmatched(app.router, other_routes, NULL, NULL));

    if (argc == 2 && strcmp(argv[1], "demo") == 0) {
        parked_then_replayed(&app);
    } else {
        login_free(&app);
        parked_then_replayed(&app);
        logged_in(&app);
        typed_model(&app);
        push_and_web(&app);
        errors(&app);
        printf("xksquare: all checks passed\n");
    }
    lr_router_free(app.router);
    for (size_t i = 0; i < app.nav.count; i++) free(app.nav.screens[i]);
    return 0;
}
