/*
 * ffrouter.c -- FFRouter's routes, served by LinkRouter from C.
 *
 * FFRouter (iOS) registers URL patterns such as "protocol://page/routerDetails/:id" or a wildcard that
 * takes a whole scheme, routes URLs with extra parameters, asks canRouteURL: first, and rewrites URLs with regex rules before
 * routing them. This program does the same through liblinkrouter's C ABI and prints what each URL resolves to.
 *
 * Build:  cc -Wall -Wextra -Werror -IInclude examples/c/ffrouter.c -Lbuild/lib -llinkrouter -Wl,-rpath,build/lib
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "linkrouter.h"

/* Prints a match: its target, then every merged parameter (extra > path > query). */
static void print_match(const char *url, const lr_match *m)
{
    printf("%s\n  -> %s (pattern %s)\n", url, lr_match_target(m), lr_match_pattern(m));
    for (size_t i = 0; i < lr_match_param_count(m); i++)
        printf("     %s = %s\n", lr_match_param_name(m, i), lr_match_param_value(m, i));
    if (strcmp(lr_match_url(m), lr_match_rewritten(m)) != 0)
        printf("     (rewritten to %s)\n", lr_match_rewritten(m));
}

int main(void)
{
    if (lr_version_number() != LR_VERSION_NUMBER) {
        fprintf(stderr, "header %d, library %d\n", LR_VERSION_NUMBER, lr_version_number());
        return 1;
    }

    lr_router *router;
    CHECK(lr_router_new(&router));

    /* FFRouter's three kinds of registered URL: with a parameter, a wildcard, and a plain page.
       The target is any string the app uses to find its handler (a class name, a handler id...). */
    CHECK(lr_router_add(router, "protocol://page/routerDetails/:id", "RouterDetailsViewController"));
    CHECK(lr_router_add(router, "wildcard://*", "WildcardHandler"));
    CHECK(lr_router_add(router, "protocol://page/routerObjectDetails", "ObjectDetailsProvider"));
    CHECK(lr_router_add(router, "protocol://page/RouterCallbackDetails", "CallbackDetailsProvider"));

    /* A pattern that matches exactly the URLs of an existing one is refused, and the message names it. */
    int rc = lr_router_add(router, "protocol://page/routerDetails/:productId", "Duplicate");
    printf("adding a duplicate: %s: %s\n\n", lr_errstr(rc), lr_last_error());

    /* canRouteURL: */
    printf("can route protocol://page/routerDetails/1: %d\n", lr_router_can_route(router, "protocol://page/routerDetails/1"));
    printf("can route protocol://page/unknown: %d\n\n", lr_router_can_route(router, "protocol://page/unknown"));

    /* routeURL: with the parameters in the URL... */
    const char *urls[] = {
        "protocol://page/routerDetails/666?nickname=imlifengfeng&id=1",  /* the path's id wins over the query's */
        "protocol://page/RouterCallbackDetails?nickname=imlifengfeng",
        "wildcard://any/thing?at=all",
    };
    for (size_t i = 0; i < sizeof urls / sizeof urls[0]; i++) {
        lr_match *m;
        CHECK(rc = lr_router_resolve(router, urls[i], &m));
        if (rc == LR_OK) {
            print_match(urls[i], m);
            lr_match_free(m);
        }
    }

    /* ...and routeURL:withParameters:, whose extra parameters outrank the URL's. */
    const char *names[] = {"nickname", "img"};
    const char *values[] = {"from-extra", "router_test_img"};
    lr_match *m;
    const char *url = "protocol://page/routerDetails/7?nickname=imlifengfeng";
    CHECK(rc = lr_router_resolve_with(router, url, names, values, 2, &m));
    if (rc == LR_OK) {
        print_match(url, m);
        lr_match_free(m);
    }

    /* URL rewriting: FFRouter's taobao and jd rules. $$1 percent-encodes the capture, $#1 decodes it. */
    CHECK(lr_router_add_rewrite(router, "(?:https://)?www.taobao.com/search/(.*)",
                                "protocol://page/routerDetails?product=$$1"));
    CHECK(lr_router_add_rewrite(router, "(?:https://)?www.jd.com/search/(.*)",
                                "protocol://page/routerDetails?product=$#1"));
    CHECK(lr_router_add(router, "protocol://page/routerDetails", "ProductSearch"));
    const char *web[] = {
        "https://www.taobao.com/search/原子弹",
        "https://www.jd.com/search/%E5%8E%9F%E5%AD%90%E5%BC%B9",
    };
    for (size_t i = 0; i < sizeof web / sizeof web[0]; i++) {
        CHECK(rc = lr_router_resolve(router, web[i], &m));
        if (rc == LR_OK) {
            print_match(web[i], m);
            lr_match_free(m);
        }
    }

    /* An unregistered URL: FFRouter calls its "unregistered URL" handler; here it is LR_NOMATCH. */
    rc = lr_router_resolve(router, "protocol://page/nowhere", &m);
    printf("protocol://page/nowhere: %s\n", lr_errstr(rc));

    /* unregisterRouteURL: */
    CHECK(lr_router_remove(router, "wildcard://*"));
    rc = lr_router_resolve(router, "wildcard://any/thing", &m);
    printf("after removing wildcard://*: %s\n", lr_errstr(rc));

    lr_router_free(router);
    return 0;
}
