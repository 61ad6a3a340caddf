/*
 * test_memory.c -- a freed router's memory is returned, whatever threads used it (issue 14).
 *
 * Each thread caches the snapshot of the routers it last used, so that lookups need no lock and no reference
 * counting. Those caches used to own the snapshots: a long-lived thread pool that once resolved against a
 * 100,000-route router kept the whole table after lr_router_free, until its threads ended. Here a pool of four
 * threads resolves against such a router and stays alive, parked, while the main thread frees it: the heap in use
 * must then be back where it was before the router was made (within a tenth of the table), and RSS too.
 *
 * Measured with glibc's mallinfo2 (bytes in use) and /proc/self/statm (RSS, after malloc_trim). ASan, TSan and
 * valgrind replace malloc, which makes both figures meaningless there: the scenario still runs (leaks and races
 * are theirs to find), and only the figures go unchecked. LR_STRESS_SCALE (< 1) scales the route count down.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linkrouter.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#endif

#define THREADS 4

static int failures;

/* The pool: each round, every thread resolves `count` URLs against `router`, says so, and waits for the next. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int round_number, done;
static lr_router *router;
static size_t count;

static void *pool_thread(void *arg)
{
    size_t k = (size_t)arg;
    int seen = 0;
    for (;;) {
        pthread_mutex_lock(&lock);
        while (round_number == seen) pthread_cond_wait(&changed, &lock);
        seen = round_number;
        lr_router *r = router;
        size_t n = count;
        pthread_mutex_unlock(&lock);
        if (seen < 0) return NULL;
        char url[64];
        for (size_t i = k; i < n; i += n / 8 + 1) {
            snprintf(url, sizeof url, "app://t/%zu/x", i);
            lr_match *m = NULL;
            int rc = lr_router_resolve(r, url, &m);
            lr_match_free(m);
            if (rc != LR_OK) {
                fprintf(stderr, "test_memory: %s gave %d: %s\n", url, rc, lr_last_error());
                pthread_mutex_lock(&lock);
                failures++;
                pthread_mutex_unlock(&lock);
            }
        }
        pthread_mutex_lock(&lock);
        done++;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
    }
}

/* Runs one round of the pool against `r` (a negative round ends the threads) and waits for it to finish. */
static void pool_round(lr_router *r, size_t n, int number)
{
    pthread_mutex_lock(&lock);
    router = r;
    count = n;
    done = 0;
    round_number = number;
    pthread_cond_broadcast(&changed);
    while (number > 0 && done < THREADS) pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
}

static size_t heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd; /* blocks in the arenas, and blocks mmap'ed on their own */
}

static size_t rss(void)
{
    unsigned long size = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%lu %lu", &size, &resident) != 2) resident = 0;
        fclose(f);
    }
    return resident * (size_t)sysconf(_SC_PAGESIZE);
}

static lr_router *table(size_t routes)
{
    char (*patterns)[32] = malloc(routes * sizeof *patterns);
    const char **ps = malloc(routes * sizeof *ps), **ts = malloc(routes * sizeof *ts);
    for (size_t i = 0; i < routes; i++) {
        snprintf(patterns[i], sizeof patterns[i], "app://t/%zu/:id", i);
        ps[i] = patterns[i];
        ts[i] = "T";
    }
    lr_router *r = NULL;
    if (lr_router_new(&r) != LR_OK || lr_router_add_many(r, ps, ts, routes, NULL) != LR_OK) {
        fprintf(stderr, "test_memory: cannot build a table of %zu routes: %s\n", routes, lr_last_error());
        exit(2);
    }
    free(patterns);
    free(ps);
    free(ts);
    return r;
}

int main(void)
{
    size_t routes = 100000;
    const char *env = getenv("LR_STRESS_SCALE");
    if (env && atof(env) > 0 && atof(env) < 1) routes = (size_t)((double)routes * atof(env));
    if (routes < 1000) routes = 1000;

    /* The pool exists, and has used a router, before the baseline: its stacks and per-thread state are not the
       table's. */
    pthread_t threads[THREADS];
    for (size_t k = 0; k < THREADS; k++) pthread_create(&threads[k], NULL, pool_thread, (void *)k);
    lr_router *small = table(10);
    pool_round(small, 10, 1);

    malloc_trim(0);
    size_t heap0 = heap_in_use(), rss0 = rss();
    lr_router *big = table(routes);
    pool_round(big, routes, 2);
    size_t heap1 = heap_in_use(), rss1 = rss();
    lr_router_free(big); /* the pool threads are alive, and their caches last saw `big` */
    malloc_trim(0);
    size_t heap2 = heap_in_use(), rss2 = rss();

    size_t table_bytes = heap1 > heap0 ? heap1 - heap0 : 0;
    size_t kept = heap2 > heap0 ? heap2 - heap0 : 0;
    size_t rss_table = rss1 > rss0 ? rss1 - rss0 : 0, rss_kept = rss2 > rss0 ? rss2 - rss0 : 0;
    printf("test_memory: %zu routes, %d threads: heap in use %zu KiB before, %zu KiB with the router, %zu KiB after "
           "lr_router_free; RSS %zu, %zu, %zu KiB\n", routes, THREADS, heap0 / 1024, heap1 / 1024, heap2 / 1024,
           rss0 / 1024, rss1 / 1024, rss2 / 1024);
#ifdef UNDER_SANITIZER
    (void)table_bytes, (void)kept, (void)rss_table, (void)rss_kept;
    printf("test_memory: a sanitizer replaces malloc: figures not checked\n");
#else
    if (heap1 == 0) {
        printf("test_memory: no glibc heap statistics (valgrind?): figures not checked\n");
    } else {
        if (table_bytes < routes * 50) {
            fprintf(stderr, "test_memory: the table took only %zu bytes: the measure is wrong\n", table_bytes);
            failures++;
        }
        if (kept > table_bytes / 10) {
            fprintf(stderr, "test_memory: %zu KiB of a %zu KiB table still in use after lr_router_free\n", kept / 1024,
                    table_bytes / 1024);
            failures++;
        }
        if (rss_kept > rss_table / 4) {
            fprintf(stderr, "test_memory: RSS %zu KiB above the baseline after lr_router_free (the table took %zu KiB)\n",
                    rss_kept / 1024, rss_table / 1024);
            failures++;
        }
    }
#endif
    pool_round(NULL, 0, -1);
    for (size_t k = 0; k < THREADS; k++) pthread_join(threads[k], NULL);
    lr_router_free(small);
    if (failures) {
        fprintf(stderr, "test_memory: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_memory: all passed\n");
    return 0;
}
