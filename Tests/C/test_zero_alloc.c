/*
 * test_zero_alloc.c -- lr_router_resolve_into allocates nothing: not for static URLs, not for parameters, not
 * for decoding, not for query pairs, not for catch-alls (after the thread's first call, which sets up its cache).
 */
#include <stdio.h>
#include <string.h>

#include "alloc_count.h"
#include "linkrouter.h"

int main(void)
{
    lr_router *r;
    if (lr_router_new(&r) != LR_OK) return 1;
    const char *routes[][2] = {
        {"app://user/:id", "User"},       {"app://user/:id/posts/:post", "Post"}, {"app://search", "Search"},
        {"app://files/*path", "Files"},   {"*://share/:id", "Share"},              {"https://www.example.com:8080/p/:id", "Port"},
        {"app://:object/:id", "Object"},  {"app://secret/:id/path", "Secret"},
    };
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
        if (lr_router_add(r, routes[i][0], routes[i][1]) != LR_OK) return 1;
    const char *urls[] = {
        "app://user/42", "app://search", "APP://User/%E4%BD%93/posts/7?tab=a&tab=b&q=%41",
        "app://files/a//b/c/", "myapp://share/9", "https://www.example.com:8080/p/1",
        "app://secret/978", "app://nothing/at/all/here", "app:///user//42/#frag",
    };
    lr_result res;
    lr_param_ref params[16];
    char scratch[1024];
    for (int pass = 0; pass < 2; pass++) {  /* pass 0 warms the thread's snapshot cache */
        alloc_count = 0;
        alloc_counting = pass == 1;
        for (size_t i = 0; i < sizeof urls / sizeof urls[0]; i++)
            lr_router_resolve_into(r, urls[i], strlen(urls[i]), &res, params, 16, scratch, sizeof scratch);
        alloc_counting = 0;
    }
    lr_router_free(r);
    if (alloc_count != 0) {
        fprintf(stderr, "test_zero_alloc: %ld heap allocation(s) in %zu lookups\n", alloc_count,
                sizeof urls / sizeof urls[0]);
        return 1;
    }
    printf("test_zero_alloc: 0 heap allocations in %zu lookups\n", sizeof urls / sizeof urls[0]);
    return 0;
}
