/*
 * tables.c -- a shop app's whole routing table as one JSON file (examples/tables/shop.json), the part of
 * `make demo` that the iOS, Android, web and backend code of one product would share.
 *
 * It checks the file as CI would, loads it, resolves the links the app receives (deep links, universal links,
 * push links, old web links that rewrite rules migrate), builds URLs from route names, and explains a link that
 * does not open. Run it from the repository root.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "linkrouter.h"

#define TABLE "examples/tables/shop.json"

static const char *links[] = {
    "shop://product/42?ref=mail",                        /* a deep link */
    "shop://cart",                                       /* a page behind login: the route says so */
    "https://shop.example.com/p/7?utm_source=ad",        /* a universal link */
    "shop://push/order/981/status",                      /* a push notification */
    "http://oldshop.example.com/item.php?id=1234",       /* old web links, rewritten */
    "https://m.shop.example.com/c/shoes",
    "shop://help/returns/late%20parcel",
    "shop://unknown/page",
};

int main(void)
{
    lr_router *r;
    char *report = NULL;
    CHECK(lr_router_new(&r));

    /* What `linkrouter check` runs in CI: the problems that would make the file fail to load, then warnings. */
    CHECK(lr_router_check_file(r, TABLE, LR_LOAD_REPLACE, &report));
    printf("check: %s\n\n", report);
    lr_string_free(report);

    CHECK(lr_router_load_file(r, TABLE, LR_LOAD_REPLACE));
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        lr_match *m = NULL;
        int rc = lr_router_resolve(r, links[i], &m);
        CHECK(rc);
        if (rc == LR_NOMATCH) {
            printf("%-46s  no route\n", links[i]);
            continue;
        }
        const char *meta = lr_match_metadata(m);
        printf("%-46s  %-18s name=%s", links[i], lr_match_target(m), lr_match_name(m) ? lr_match_name(m) : "-");
        for (size_t k = 0; k < lr_match_param_count(m); k++)
            printf(" %s=%s", lr_match_param_name(m, k), lr_match_param_value(m, k));
        printf("%s%s\n", meta ? " meta=" : "", meta ? meta : "");
        lr_match_free(m);
    }

    /* Reverse routing: URLs from route names, each value encoded for its place. */
    const char *names[] = {"id", "?ref"}, *values[] = {"42", "mail & push"};
    const char *topic[] = {"topic"}, *path[] = {"returns/late parcel"};
    char *url = NULL;
    CHECK(lr_router_build_url(r, "product", names, values, 2, &url));
    printf("\nurl for product: %s\n", url);
    lr_string_free(url);
    CHECK(lr_router_build_url(r, "help", topic, path, 1, &url));
    printf("url for help:    %s\n", url);
    lr_string_free(url);

    /* Why does a link not open? */
    char *text = NULL;
    CHECK(lr_router_explain_text(r, "shop://orders/12/invoice", &text));
    printf("\n%s", text);
    lr_string_free(text);

    lr_router_free(r);
    return 0;
}
