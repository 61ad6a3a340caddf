/*
 * demo.c -- one routing table for every kind of link an app receives (`make demo` runs it).
 *
 * Deep links from other apps, links in push notifications, web links (universal links) and links pushed in
 * a server config all resolve through the same table: the same precedence, the same decoding, the same
 * parameters, whichever language asks.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "linkrouter.h"

static const char *routes[][2] = {
    /* In-app deep links. */
    {"shop://product/:id", "ProductPage"},
    {"shop://product/:id/reviews", "ReviewsPage"},
    {"shop://product/new", "NewArrivalsPage"},          /* a literal beats :id, whatever the order */
    {"shop://user/:uid/orders/:order", "OrderPage"},
    {"shop://search", "SearchPage"},
    {"shop://help/*topic", "HelpCenter"},                /* the rest of the path, as written */
    /* Web links that the app opens natively; any other web link goes to a web view. */
    {"https://www.shop.example.com/p/:id", "ProductPage"},
    {"https://www.shop.example.com/u/:uid/orders/:order", "OrderPage"},
    {"https://*page", "WebView"},                        /* any other https link: host and path */
    {"*://share/:id", "SharePage"},                      /* share links, whatever the scheme */
    /* XKRouter-style links: the host says whether login is needed, the query names the target class. */
    {"xksquare://com.dynamic", "OpenWithoutLogin"},
    {"xksquare://com.authDynamic", "OpenAfterLogin"},
};

static const char *links[] = {
    "shop://product/8841?ref=push&campaign=black%20friday",
    "shop://product/new",
    "SHOP://Product/8841/reviews#latest",
    "shop://user/u-17/orders/A%2F2026-1138",
    "shop://search?q=%E5%8E%9F%E5%AD%90%E5%BC%B9&sort=price&sort=rating",
    "shop://help/returns/how-to",
    "https://WWW.shop.example.com/p/8841?utm_source=mail",
    "https://www.shop.example.com/u/u-17/orders/1138",
    "https://blog.example.com/2026/11/launch",
    "xksquare://com.dynamic?targetclass=RouterTestViewController&name=%E4%BD%93%E8%B4%B4&num=2",
    "xksquare://com.authDynamic?targetclass=OrderList&info[nickname]=x&info[level]=3",
    "myapp://share/77",
    "shop://nowhere/at/all",
    "not a url",
};

int main(void)
{
    lr_router *router;
    CHECK(lr_router_new(&router));
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
        CHECK(lr_router_add(router, routes[i][0], routes[i][1]));

    /* A rule from the server: old campaign links now open the search page. */
    CHECK(lr_router_add_rewrite(router, "^shop://campaign/(\\w+)", "shop://search?q=$1&from=campaign"));

    printf("%zu routes, 1 rewrite rule\n\n", sizeof routes / sizeof routes[0]);
    const char *all[sizeof links / sizeof links[0] + 1];
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) all[i] = links[i];
    all[sizeof links / sizeof links[0]] = "shop://campaign/winter";

    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        lr_match *m;
        int rc = lr_router_resolve(router, all[i], &m);
        printf("%s\n", all[i]);
        if (rc == LR_OK) {
            printf("  -> %s  (%s)", lr_match_target(m), lr_match_pattern(m));
            for (size_t k = 0; k < lr_match_param_count(m); k++)
                printf("  %s=%s", lr_match_param_name(m, k), lr_match_param_value(m, k));
            if (*lr_match_fragment(m)) printf("  #%s", lr_match_fragment(m));
            if (strcmp(lr_match_url(m), lr_match_rewritten(m)) != 0) printf("  [rewritten: %s]", lr_match_rewritten(m));
            printf("\n");
            lr_match_free(m);
        } else {
            printf("  -> %s%s%s\n", lr_errstr(rc), rc < 0 ? ": " : "", rc < 0 ? lr_last_error() : "");
        }
    }
    lr_router_free(router);
    return 0;
}
