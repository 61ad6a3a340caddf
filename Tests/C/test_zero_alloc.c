/*
 * test_zero_alloc.c -- lr_router_resolve_into allocates nothing: not for static URLs, not for parameters, not
 * for decoding, not for query pairs, not for catch-alls (after the thread's first call, which sets up its cache);
 * nor does lr_router_open with a synchronous handler (after the thread's first open); and each lookup and open
 * gives its expected answer, so that none passes by failing early. A control shows the counter works: a
 * lookup that must allocate its lr_match counts exactly one allocation.
 */
#include <stdio.h>
#include <string.h>

#include "alloc_count.h"
#include "linkrouter.h"

static int failures;

/* The handler of the opens below: checks what it was lent, and answers with the caller's context. */
static int opened_ok;
static int on_user(const lr_match *m, void *context, void *user_data, void **result, const char **message)
{
    (void)user_data;
    (void)message;
    const char *id = lr_match_get(m, "id");
    opened_ok += strcmp(lr_match_target(m), "User") == 0 && id && strcmp(id, "42") == 0;
    *result = context;
    return LR_OK;
}

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
    /* Each URL's exact answer: a lookup that fails early allocates nothing either, so the count proves nothing
       unless every lookup does its whole work. */
    static const struct { const char *url; int status; const char *target; size_t params; } rows[] = {
        {"app://user/42", LR_OK, "User", 1},
        {"app://search", LR_OK, "Search", 0},
        {"APP://User/%E4%BD%93/posts/7?tab=a&tab=b&q=%41", LR_OK, "Post", 5}, /* id, post, tab, tab, q */
        {"app://files/a//b/c/", LR_OK, "Files", 1},
        {"myapp://share/9", LR_OK, "Share", 1},
        {"https://www.example.com:8080/p/1", LR_OK, "Port", 1},
        {"app://secret/978", LR_OK, "Object", 2}, /* secret/:id dead-ends: the search backtracks to :object */
        {"app://nothing/at/all/here", LR_NOMATCH, NULL, 0},
        {"app:///user//42/#frag", LR_OK, "User", 1},
    };
    enum { N = sizeof rows / sizeof rows[0] };
    lr_result res;
    lr_param_ref params[16];
    char scratch[1024];
    int rcs[N];
    for (int pass = 0; pass < 2; pass++) { /* pass 0 warms the thread's snapshot cache */
        alloc_count = 0;
        alloc_counting = pass == 1;
        for (size_t i = 0; i < N; i++)
            rcs[i] = lr_router_resolve_into(r, rows[i].url, strlen(rows[i].url), &res, params, 16, scratch, sizeof scratch);
        alloc_counting = 0;
        /* Outside the counted window: check each answer (checking may print, and printing allocates). */
        for (size_t i = 0; i < N; i++) {
            int rc = lr_router_resolve_into(r, rows[i].url, strlen(rows[i].url), &res, params, 16, scratch, sizeof scratch);
            int ok = rcs[i] == rows[i].status && rc == rows[i].status &&
                     (rc != LR_OK || (strcmp(res.target, rows[i].target) == 0 && res.param_count == rows[i].params));
            if (!ok) {
                fprintf(stderr, "test_zero_alloc: %s gave %d (%s, %zu params), expected %d (%s, %zu params)\n",
                        rows[i].url, rcs[i], rc == LR_OK ? res.target : lr_last_error(), rc == LR_OK ? res.param_count : 0,
                        rows[i].status, rows[i].target ? rows[i].target : "no match", rows[i].params);
                failures++;
            }
        }
    }
    if (alloc_count != 0) {
        fprintf(stderr, "test_zero_alloc: %ld heap allocation(s) in %d lookups\n", alloc_count, (int)N);
        failures++;
    }

    /* Opening with a synchronous handler allocates nothing either, after the thread's first open: the match's
       memory is the thread's spare, and the URL is read where the caller keeps it (no String is made of it). */
    static const lr_handler user_handler = {on_user, NULL, NULL, NULL};
    if (lr_router_handle_target(r, "User", &user_handler) != LR_OK) return 1;
    enum { OPENS = 20 };
    int marker = 0, open_rcs[OPENS];
    void *results[OPENS];
    lr_open_options options = {0};
    options.context = &marker;
    for (int pass = 0; pass < 2; pass++) { /* pass 0 makes the thread's spare match */
        opened_ok = 0;
        alloc_count = 0;
        alloc_counting = pass == 1;
        for (int i = 0; i < OPENS; i++) open_rcs[i] = lr_router_open(r, "app://user/42?from=push-notification", &options, &results[i]);
        alloc_counting = 0;
    }
    int opens_right = opened_ok == OPENS;
    for (int i = 0; i < OPENS; i++) opens_right = opens_right && open_rcs[i] == LR_OK && results[i] == &marker;
    if (!opens_right) {
        fprintf(stderr, "test_zero_alloc: of %d opens of app://user/42?from=push-notification, %d reached the handler with id 42 (%s)\n", OPENS,
                opened_ok, lr_last_error());
        failures++;
    }
    if (alloc_count != 0) {
        fprintf(stderr, "test_zero_alloc: %ld heap allocation(s) in %d opens\n", alloc_count, OPENS);
        failures++;
    }

    /* The control: the counter sees the library's allocations, so the zeros above are measured, not the count of
       a malloc nobody calls. lr_router_resolve returns an lr_match in a block of its own; the first takes the
       thread's spare block (made by the opens above), so a second one, while the first is held, must allocate
       exactly one block: the match. */
    lr_match *held = NULL, *second = NULL;
    int held_rc = lr_router_resolve(r, "app://user/42", &held);
    alloc_count = 0;
    alloc_counting = 1;
    int second_rc = lr_router_resolve(r, "app://user/42", &second);
    alloc_counting = 0;
    long control_count = alloc_count;
    if (held_rc != LR_OK || second_rc != LR_OK || strcmp(lr_match_target(second), "User") != 0) {
        fprintf(stderr, "test_zero_alloc: the control's lookups of app://user/42 gave %d and %d (%s)\n", held_rc,
                second_rc, lr_last_error());
        failures++;
    }
    if (control_count != 1) {
        fprintf(stderr, "test_zero_alloc: the control (lr_router_resolve with the spare block held) counted %ld "
                        "allocation(s), expected 1: the counter does not see the library's mallocs\n", control_count);
        failures++;
    }
    lr_match_free(second);
    lr_match_free(held);
    lr_router_free(r);
    if (failures) return 1;
    printf("test_zero_alloc: 0 heap allocations in %d lookups and %d opens, each with its expected answer (the "
           "counter's control: %ld for an lr_match)\n", (int)N, OPENS, control_count);
    return 0;
}
