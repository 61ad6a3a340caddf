/*
 * Router-objc (seed 001), served by LinkRouter's C ABI.
 *
 * Router-objc opens `scheme://className/methodName?key=value` links through a connector registered per scheme:
 * the native connector calls the action `methodName` of the target `Target_<className>` and returns the object it
 * builds (`app://user/detail?uid=1&name=Lili` gives a User); the HTTP connector opens http and https URLs in a
 * web controller. Each connector may refuse a URL first (`willPerformURL`), and every failure comes back to the
 * caller as an error. Here a connector registers its routes (target = the connector's name, handler = its
 * perform) and its willPerformURL as a guard those routes require.
 *
 * Run from the repository root: build/examples/seed-router-objc-c [demo]   (`demo`: target-action only)
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "linkrouter.h"

#define LINE_SIZE 512

/* The same strict integer as the Swift and Python programs: an optional '-', then digits only. */
static int parse_integer(const char *text, long *out)
{
    const char *digits = text[0] == '-' ? text + 1 : text;
    if (*digits == '\0' || strspn(digits, "0123456789") != strlen(digits) || strlen(digits) > 18) return 0;
    *out = strtol(text, NULL, 10);
    return 1;
}

/* ---- the objects targets build -------------------------------------------------------------------------------- */

enum object_kind { OBJECT_USER, OBJECT_PRODUCT, OBJECT_WEB_CONTROLLER, OBJECT_PERFORMED };

struct object {
    enum object_kind kind;
    union {
        struct { long uid; char name[64]; } user;
        struct { long id; } product;
        struct { char *url; } web_controller;
        struct { const char *connector; char *url; } performed;
    } as;
};

static void describe(const struct object *object, char *line, size_t size)
{
    switch (object->kind) {
    case OBJECT_USER: snprintf(line, size, "User(uid=%ld, name=%s)", object->as.user.uid, object->as.user.name); break;
    case OBJECT_PRODUCT: snprintf(line, size, "Product(id=%ld)", object->as.product.id); break;
    case OBJECT_WEB_CONTROLLER: snprintf(line, size, "WebController(url=%s)", object->as.web_controller.url); break;
    case OBJECT_PERFORMED:
        snprintf(line, size, "%s performed %s", object->as.performed.connector, object->as.performed.url);
        break;
    }
}

static struct object *new_object(enum object_kind kind)
{
    struct object *object = calloc(1, sizeof *object);
    if (object != NULL) object->kind = kind;
    return object;
}

static void free_object(struct object *object)
{
    if (object == NULL) return;
    if (object->kind == OBJECT_WEB_CONTROLLER) free(object->as.web_controller.url);
    if (object->kind == OBJECT_PERFORMED) free(object->as.performed.url);
    free(object);
}

/* ---- targets: Target_<className>, one function per action ----------------------------------------------------- */

/* An action fills *out, or returns a negative status with the reason in `error`. */
typedef int (*action_fn)(const lr_match *m, struct object **out, char *error, size_t error_size);

static int integer_param(const lr_match *m, const char *key, const char *action, long *out, char *error,
                         size_t error_size)
{
    const char *raw = lr_match_get(m, key);
    if (raw == NULL) raw = "";
    if (parse_integer(raw, out)) return 1;
    snprintf(error, error_size, "%s: %s '%s' is not an integer", action, key, raw);
    return 0;
}

/* app://user/detail?uid=x&name=xxx */
static int user_detail(const lr_match *m, struct object **out, char *error, size_t error_size)
{
    long uid;
    const char *name = lr_match_get(m, "name");
    if (!integer_param(m, "uid", "Target_user.detail", &uid, error, error_size)) return LR_EINVAL;
    if ((*out = new_object(OBJECT_USER)) == NULL) return LR_ENOMEM;
    (*out)->as.user.uid = uid;
    snprintf((*out)->as.user.name, sizeof (*out)->as.user.name, "%s", name != NULL ? name : "");
    return LR_OK;
}

/* app://user/userCenter */
static int user_center(const lr_match *m, struct object **out, char *error, size_t error_size)
{
    (void)m, (void)error, (void)error_size;
    return (*out = new_object(OBJECT_USER)) != NULL ? LR_OK : LR_ENOMEM;
}

static int product_show(const lr_match *m, struct object **out, char *error, size_t error_size)
{
    long id;
    if (!integer_param(m, "id", "Target_product.show", &id, error, error_size)) return LR_EINVAL;
    if ((*out = new_object(OBJECT_PRODUCT)) == NULL) return LR_ENOMEM;
    (*out)->as.product.id = id;
    return LR_OK;
}

static const struct {
    const char *target_class;
    const char *action;
    action_fn   call;
} actions[] = {
    {"Target_user", "detail", user_detail},
    {"Target_user", "userCenter", user_center},
    {"Target_product", "show", product_show},
};

/* ---- connectors ----------------------------------------------------------------------------------------------- */

/* Router-objc's URLConnector: will_perform may refuse a URL (0, with the reason) or let it through (1); perform
   opens it. `paths` are the route patterns it takes after "scheme://". */
struct connector {
    const char        *name;
    const char *const *paths;
    size_t             path_count;
    int (*will_perform)(struct connector *self, const lr_match *m);
    int (*perform)(struct connector *self, const lr_match *m, struct object **out);
    const char *const *blocked_hosts;      /* the HTTP connector's */
    size_t             blocked_count;
    char               message[LINE_SIZE]; /* the last refusal or error; the library copies it at once */
};

static int allow_every_url(struct connector *self, const lr_match *m)
{
    (void)self, (void)m;
    return 1;
}

static int native_perform(struct connector *self, const lr_match *m, struct object **out)
{
    const char *target = lr_match_get(m, "target"), *action = lr_match_get(m, "action");
    char target_class[128];
    int known_target = 0;
    snprintf(target_class, sizeof target_class, "Target_%s", target);
    for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++) {
        if (strcmp(actions[i].target_class, target_class) != 0) continue;
        known_target = 1;
        if (action != NULL && strcmp(actions[i].action, action) == 0)
            return actions[i].call(m, out, self->message, sizeof self->message);
    }
    if (!known_target)
        snprintf(self->message, sizeof self->message, "no target class '%s'", target_class);
    else if (action == NULL)
        snprintf(self->message, sizeof self->message, "%s names no action (scheme://className/methodName)",
                 lr_match_url(m));
    else
        snprintf(self->message, sizeof self->message, "%s has no action '%s'", target_class, action);
    return !known_target || action != NULL ? LR_ENOTFOUND : LR_EINVAL;
}

static int http_will_perform(struct connector *self, const lr_match *m)
{
    for (size_t i = 0; i < self->blocked_count; i++) {
        if (strcmp(lr_match_host(m), self->blocked_hosts[i]) == 0) {
            snprintf(self->message, sizeof self->message, "HTTPConnector refused %s: host %s is blocked",
                     lr_match_url(m), lr_match_host(m));
            return 0;
        }
    }
    return 1;
}

static int http_perform(struct connector *self, const lr_match *m, struct object **out)
{
    (void)self;
    if ((*out = new_object(OBJECT_WEB_CONTROLLER)) == NULL) return LR_ENOMEM;
    if (((*out)->as.web_controller.url = strdup(lr_match_url(m))) != NULL) return LR_OK;
    free_object(*out);
    return LR_ENOMEM;
}

/* A connector of the app's own, as the seed's README shows: it takes every test:// URL. */
static int test_perform(struct connector *self, const lr_match *m, struct object **out)
{
    if ((*out = new_object(OBJECT_PERFORMED)) == NULL) return LR_ENOMEM;
    (*out)->as.performed.connector = self->name;
    if (((*out)->as.performed.url = strdup(lr_match_url(m))) != NULL) return LR_OK;
    free_object(*out);
    return LR_ENOMEM;
}

/* The trampolines the library calls: the connector is their user_data. */
static int will_perform_guard(const lr_match *m, void *context, void *user_data, const char **message)
{
    struct connector *connector = user_data;
    (void)context;
    if (connector->will_perform(connector, m)) return LR_ALLOW;
    *message = connector->message;
    return LR_DENY;
}

static int perform_handler(const lr_match *m, void *context, void *user_data, void **result, const char **message)
{
    struct connector *connector = user_data;
    struct object *object = NULL;
    (void)context;
    int rc = connector->perform(connector, m, &object);
    if (rc < 0) {
        *message = connector->message;
        return rc;
    }
    *result = object;
    return LR_OK;
}

static char no_connector_message[LINE_SIZE];

static int no_connector(const char *url, void *context, void *user_data, void **result, const char **message)
{
    (void)context, (void)user_data, (void)result;
    snprintf(no_connector_message, sizeof no_connector_message, "no connector takes %s", url);
    *message = no_connector_message;
    return LR_ENOTFOUND;
}

/* Router-objc's registerConnector:forScheme:: the connector's routes for `scheme`, each requiring its
   willPerformURL guard, and the routes' handler, added in one change. */
static void register_connector(lr_router *router, struct connector *connector, const char *scheme)
{
    char guard[128], pattern[128];
    const char *requires[1] = {guard};
    lr_handler handler = {perform_handler, NULL, connector, NULL};
    snprintf(guard, sizeof guard, "%s.willPerformURL", connector->name);
    CHECK(lr_router_add_guard(router, guard, 0, will_perform_guard, connector, NULL));
    for (size_t i = 0; i < connector->path_count; i++) {
        lr_route route = {0};
        snprintf(pattern, sizeof pattern, "%s://%s", scheme, connector->paths[i]);
        route.pattern = pattern;
        route.target = connector->name;
        route.requires = requires;
        route.requires_count = 1;
        route.handler = &handler;
        CHECK(lr_router_add_routes(router, &route, 1, NULL));
    }
}

/* Router-objc's openURL:error:: the object the URL opens (the caller frees it), or NULL and the error. */
static struct object *open_url(lr_router *router, const char *url, char *error, size_t error_size)
{
    void *result = NULL;
    int rc = lr_router_open(router, url, NULL, &result);
    if (rc == LR_OK && result != NULL) return result;
    if (rc == LR_EDENIED)
        snprintf(error, error_size, "refused: %s", lr_last_error());
    else if (rc < 0)
        snprintf(error, error_size, "error: %s", lr_last_error());
    else
        snprintf(error, error_size, "unexpected %s", lr_errstr(rc));
    return NULL;
}

/* ---- the scenarios -------------------------------------------------------------------------------------------- */

static const char *const native_paths[] = {":target/:action", ":target"};
static const char *const every_path[] = {"*"};
static const char *const blocked_hosts[] = {"ads.example.net"};

static struct connector http_connector = {"HTTPConnector", every_path, 1, http_will_perform, http_perform,
                                          blocked_hosts, 1, ""};
static struct connector native_connector = {"NativeConnector", native_paths, 2, allow_every_url, native_perform,
                                            NULL, 0, ""};
static struct connector test_connector = {"TestConnector", every_path, 1, allow_every_url, test_perform, NULL, 0, ""};

/* Opens `url`, prints and checks what came of it; returns the object (the caller frees it) or NULL. */
static struct object *open_and_check(lr_router *router, const char *url, const char *want)
{
    char line[LINE_SIZE];
    printf("open %s\n", url);
    struct object *object = open_url(router, url, line, sizeof line);
    if (object != NULL) describe(object, line, sizeof line);
    printf("  %s\n", line);
    expect_text(line, want);
    return object;
}

static void target_action(lr_router *router)
{
    static const struct { const char *url, *want; } more[] = {
        {"app://user/detail?name=Lili&uid=2", "User(uid=2, name=Lili)"},
        {"app://user/userCenter", "User(uid=0, name=)"},
        {"app://product/show?id=7", "Product(id=7)"},
    };
    printf("== app://<className>/<methodName>?params calls the target's action and returns its object\n");
    struct object *user = open_and_check(router, "app://user/detail?uid=1&name=Lili", "User(uid=1, name=Lili)");
    if (user->kind != OBJECT_USER || user->as.user.uid != 1 || strcmp(user->as.user.name, "Lili") != 0)
        fail("expected the user 1, Lili"); /* a typed object, uid an integer */
    free_object(user);
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        free_object(open_and_check(router, more[i].url, more[i].want));
}

static void web_pages(lr_router *router)
{
    static const char *const urls[] = {"https://www.example.com/p/7?from=mail", "http://m.example.com/news"};
    char want[LINE_SIZE];
    printf("== http and https URLs go to the web controller, with the URL\n");
    for (size_t i = 0; i < sizeof urls / sizeof urls[0]; i++) {
        snprintf(want, sizeof want, "WebController(url=%s)", urls[i]);
        struct object *page = open_and_check(router, urls[i], want);
        expect_text(page->as.web_controller.url, urls[i]);
        free_object(page);
    }
}

static void custom_connector(lr_router *router)
{
    printf("== a connector of the app's own, registered for test://\n");
    free_object(open_and_check(router, "test://echo?word=hi", "TestConnector performed test://echo?word=hi"));
}

static const struct { const char *url, *want; } refused[] = {
    {"https://ads.example.net/landing",
     "refused: HTTPConnector refused https://ads.example.net/landing: host ads.example.net is blocked"},
    /* The host as the routes compare it: percent-encoding or case does not get past the veto. */
    {"https://%61ds.Example.net/landing",
     "refused: HTTPConnector refused https://%61ds.Example.net/landing: host ads.example.net is blocked"},
    {"app://order/detail?id=1", "error: no target class 'Target_order'"},
    {"app://user/delete?uid=1", "error: Target_user has no action 'delete'"},
    {"app://user", "error: app://user names no action (scheme://className/methodName)"},
    {"app://user/detail?uid=x&name=Lili", "error: Target_user.detail: uid 'x' is not an integer"},
    {"ftp://files.example.com/a.txt", "error: no connector takes ftp://files.example.com/a.txt"},
};

static void errors(lr_router *router)
{
    printf("== a veto or a failure comes back to the caller as an error\n");
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (open_and_check(router, refused[i].url, refused[i].want) != NULL) fail("%s opened", refused[i].url);
}

int main(int argc, char **argv)
{
    lr_router *router;
    if (lr_version_number() != LR_VERSION_NUMBER) fail("header %d, library %d", LR_VERSION_NUMBER, lr_version_number());
    CHECK(lr_router_new(&router));
    CHECK(lr_router_set_unmatched(router, no_connector, NULL, NULL));
    register_connector(router, &http_connector, "http");
    register_connector(router, &http_connector, "https");
    register_connector(router, &native_connector, "app");
    register_connector(router, &test_connector, "test");

    if (argc == 2 && strcmp(argv[1], "demo") == 0) {
        target_action(router);
    } else {
        target_action(router);
        web_pages(router);
        custom_connector(router);
        errors(router);
        printf("router-objc: all checks passed\n");
    }
    lr_router_free(router);
    return 0;
}
