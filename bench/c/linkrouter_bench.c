/*
 * linkrouter_bench.c - LinkRouter through its C ABI, on the shared datasets.
 *
 * Build (bench/runners/linkrouter-c.sh does this):
 *   cc -O2 -IInclude -Ibench/c -ITests/C -rdynamic -o linkrouter_bench bench/c/linkrouter_bench.c \
 *      -Lbuild/lib -llinkrouter -Wl,-rpath,build/lib
 *
 * Rows, lang "c", each on every dataset, each lookup on the whole URL:
 *   - "linkrouter/resolve_into": lr_router_resolve_into (the zero-allocation call), the target and every
 *     parameter value read (pointer and length, first byte touched); the URL's length is known before timing,
 *     as Go's strings carry theirs;
 *   - "linkrouter/resolve": the README's first example, what a new user writes: lr_router_resolve +
 *     lr_match_target + lr_match_get of every parameter by name + lr_match_free;
 *   - "linkrouter/open" (GitHub set): lr_router_open of the URL, whose route's target has a synchronous handler
 *     that reads lr_match_target and every parameter by name (what "resolve" reads), logging off: the cost of
 *     opening against resolving plus the handler call.
 * Metric rows ({"metric": ...}): heap allocations per lr_router_resolve_into and per lr_router_resolve +
 * lr_match_free (malloc interposed, Tests/C/alloc_count.h), bulk add of 100,000 routes, 10,000 single adds, heap
 * bytes per route at 10,000 routes (mallinfo2 before and after), and what a typed parameter costs
 * (typed_param_check_ns: the same URL through ":id<int>" minus through ":id"; typed_param_refused_ns).
 * Every table is verified before it is timed, through both calls: each URL must reach its own route
 * (target = route id) with exactly the expected parameters.
 */
#include "bench_common.h"

#include <malloc.h>

#include "alloc_count.h"
#include "linkrouter_common.h"

#define MAX_PARAMS 32

typedef struct {
    lr_router *router;
    const bench_dataset *ds;
    const bench_url *urls;      /* what the passes read per lookup (bench_url) */
    const bench_names *names;
    char scratch[4096];
} lr_ctx;

static uint64_t into_pass(void *vctx, const size_t *order, size_t n) {
    lr_ctx *c = vctx;
    lr_result res;
    lr_param_ref params[MAX_PARAMS];
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        const bench_url *u = &c->urls[order[i]];
        if (lr_router_resolve_into(c->router, u->url, u->len, &res, params, MAX_PARAMS, c->scratch,
                                   sizeof c->scratch) == LR_OK) {
            acc += res.target_len + res.route_id;
            for (size_t k = 0; k < res.param_count; k++)
                acc += params[k].value_len + (unsigned char)params[k].value[0];
        }
    }
    return acc;
}

static uint64_t alloc_pass(void *vctx, const size_t *order, size_t n) {
    lr_ctx *c = vctx;
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        const bench_names *p = &c->names[order[i]];
        lr_match *m;
        if (lr_router_resolve(c->router, c->urls[order[i]].url, &m) == LR_OK) {
            acc += strlen(lr_match_target(m));
            for (size_t k = 0; k < p->n; k++) {
                const char *v = lr_match_get(m, p->names[k]);
                acc += strlen(v) + (unsigned char)v[0];
            }
            lr_match_free(m);
        }
    }
    return acc;
}

/* Every URL reaches its own route with exactly the expected parameters. */
static int verify(lr_ctx *c, char *err, size_t errlen) {
    lr_result res;
    lr_param_ref params[MAX_PARAMS];
    for (size_t i = 0; i < c->ds->n; i++) {
        const bench_row *r = &c->ds->rows[i];
        int rc = lr_router_resolve_into(c->router, r->url, strlen(r->url), &res, params, MAX_PARAMS, c->scratch,
                                        sizeof c->scratch);
        if (rc != LR_OK) {
            snprintf(err, errlen, "%s: rc %d (%s)", r->url, rc, rc < 0 ? lr_last_error() : "no match");
            return -1;
        }
        if (atoi(res.target) != r->id) {
            snprintf(err, errlen, "%s: reached route %s, expected %d", r->url, res.target, r->id);
            return -1;
        }
        if ((int)res.param_count != r->nparams) {
            snprintf(err, errlen, "%s: %zu parameters, expected %d", r->url, res.param_count, r->nparams);
            return -1;
        }
        for (int k = 0; k < r->nparams; k++) {
            size_t len;
            const char *v = lr_result_get(&res, params, r->pnames[k], &len);
            if (!v || len != strlen(r->pvalues[k]) || memcmp(v, r->pvalues[k], len) != 0) {
                snprintf(err, errlen, "%s: parameter %s is '%.*s', expected '%s'", r->url, r->pnames[k],
                         v ? (int)len : 6, v ? v : "absent", r->pvalues[k]);
                return -1;
            }
        }
    }
    return 0;
}

/* The same through lr_router_resolve: target, parameter count and every value by name. */
static int verify_match(lr_ctx *c, char *err, size_t errlen) {
    for (size_t i = 0; i < c->ds->n; i++) {
        const bench_row *r = &c->ds->rows[i];
        lr_match *m = NULL;
        int rc = lr_router_resolve(c->router, r->url, &m);
        if (rc != LR_OK) {
            snprintf(err, errlen, "%s: lr_router_resolve rc %d (%s)", r->url, rc, rc < 0 ? lr_last_error() : "no match");
            return -1;
        }
        int bad = 0;
        if (atoi(lr_match_target(m)) != r->id) {
            snprintf(err, errlen, "%s: lr_router_resolve reached route %s, expected %d", r->url, lr_match_target(m), r->id);
            bad = 1;
        } else if ((int)lr_match_param_count(m) != r->nparams) {
            snprintf(err, errlen, "%s: lr_router_resolve gave %zu parameters, expected %d", r->url,
                     lr_match_param_count(m), r->nparams);
            bad = 1;
        }
        for (int k = 0; !bad && k < r->nparams; k++) {
            const char *v = lr_match_get(m, r->pnames[k]);
            if (!v || strcmp(v, r->pvalues[k]) != 0) {
                snprintf(err, errlen, "%s: lr_match_get(%s) is '%s', expected '%s'", r->url, r->pnames[k],
                         v ? v : "(null)", r->pvalues[k]);
                bad = 1;
            }
        }
        lr_match_free(m);
        if (bad) return -1;
    }
    return 0;
}

/* Heap allocations per lookup of `pass` over one pass of the set (after a warm pass). */
static double allocations_per_lookup(lr_ctx *c, bench_pass_fn pass) {
    size_t *order = bench_order(c->ds->n);
    bench_sink += pass(c, order, c->ds->n);
    alloc_count = 0;
    alloc_counting = 1;
    bench_sink += pass(c, order, c->ds->n);
    alloc_counting = 0;
    free(order);
    return (double)alloc_count / (double)c->ds->n;
}

static uint64_t open_pass(void *vctx, const size_t *order, size_t n) {
    lr_ctx *c = vctx;
    uint64_t acc = 0;
    lr_open_options opts;
    memset(&opts, 0, sizeof opts);
    for (size_t i = 0; i < n; i++) {
        void *result = NULL;
        opts.context = (void *)&c->names[order[i]];
        if (lr_router_open(c->router, c->urls[order[i]].url, &opts, &result) == LR_OK) acc += (uint64_t)(uintptr_t)result;
    }
    return acc;
}

/* Gives every route of the table the open row's handler, by target (each route's target is its id). */
static int add_open_handlers(lr_ctx *c, char *err, size_t errlen) {
    static const lr_handler handler = {bench_lr_read_match, NULL, NULL, NULL};
    for (size_t i = 0; i < c->ds->n; i++) {
        char id[16];
        snprintf(id, sizeof id, "%d", c->ds->rows[i].id);
        if (lr_router_handle_target(c->router, id, &handler) != LR_OK) {
            snprintf(err, errlen, "lr_router_handle_target %s: %s", id, lr_last_error());
            return -1;
        }
    }
    /* Verified as the other rows are: each URL's handler answers with what resolve reads. */
    for (size_t i = 0; i < c->ds->n; i++) {
        const bench_row *r = &c->ds->rows[i];
        lr_open_options opts;
        memset(&opts, 0, sizeof opts);
        opts.context = (void *)&c->names[i];
        void *result = NULL;
        int rc = lr_router_open(c->router, r->url, &opts, &result);
        if (rc != LR_OK || result == NULL) {
            snprintf(err, errlen, "%s: lr_router_open rc %d (%s)", r->url, rc, rc < 0 ? lr_last_error() : "");
            return -1;
        }
    }
    return 0;
}

/* A router holding the dataset's routes (target = route id), added in one bulk call. */
static lr_router *build(const bench_dataset *ds, double *ms, char *err, size_t errlen) {
    const char **patterns = malloc(ds->n * sizeof(char *)), **targets = malloc(ds->n * sizeof(char *));
    char (*ids)[16] = malloc(ds->n * sizeof *ids);
    for (size_t i = 0; i < ds->n; i++) {
        snprintf(ids[i], sizeof ids[i], "%d", ds->rows[i].id);
        patterns[i] = ds->rows[i].pattern;
        targets[i] = ids[i];
    }
    lr_router *r = NULL;
    size_t failed = 0;
    uint64_t t0 = bench_now_ns();
    if (lr_router_new(&r) != LR_OK || lr_router_add_many(r, patterns, targets, ds->n, &failed) != LR_OK) {
        snprintf(err, errlen, "lr_router_add_many failed at route %zu: %s", failed, lr_last_error());
        lr_router_free(r);
        r = NULL;
    }
    *ms = (double)(bench_now_ns() - t0) / 1e6;
    free(patterns);
    free(targets);
    free(ids);
    return r;
}

static void metric(const char *name, double value, const char *unit, const char *detail) {
    printf("{\"metric\": \"%s\", \"router\": \"linkrouter\", \"lang\": \"c\", \"value\": %.2f, \"unit\": \"%s\", "
           "\"detail\": ", name, value, unit);
    bench_json_str(stdout, detail);
    printf("}\n");
    fflush(stdout);
}

/* ns per lr_router_resolve_into of `url`: one run of 200,000 lookups (thread CPU time). */
static double lookup_run_ns(lr_router *r, const char *url) {
    static char scratch[4096];
    lr_result res;
    lr_param_ref params[MAX_PARAMS];
    size_t n = strlen(url);
    uint64_t acc = 0, t0 = bench_cpu_ns();
    for (int i = 0; i < 200000; i++)
        if (lr_router_resolve_into(r, url, n, &res, params, MAX_PARAMS, scratch, sizeof scratch) == LR_OK)
            acc += res.route_id + params[0].value_len;
    bench_sink += acc;
    return (double)(bench_cpu_ns() - t0) / 200000.0;
}

static double median(double *v, int n) {
    for (int i = 1; i < n; i++)  /* insertion sort, then the middle */
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) { double t = v[j]; v[j] = v[j - 1]; v[j - 1] = t; }
    return v[n / 2];
}

/* The median of 7 runs of `url` through `r`. */
static double lookup_ns(lr_router *r, const char *url) {
    double runs[7];
    for (int k = 0; k < 7; k++) runs[k] = lookup_run_ns(r, url);
    return median(runs, 7);
}

/* What a typed parameter costs: the same URL through a plain ":id" and through ":id<int>" (with a plain ":name"
   beside it, so the node holds a special list), and a URL the type refuses, which falls back to the plain one. */
static void typed_metrics(void) {
    lr_router *plain, *typed;
    if (lr_router_new(&plain) != LR_OK || lr_router_new(&typed) != LR_OK) return;
    if (lr_router_add(plain, "bench://user/:id", "Plain") != LR_OK || lr_router_add(typed, "bench://user/:id<int>", "Int") != LR_OK ||
        lr_router_add(typed, "bench://user/:name", "Name") != LR_OK) {
        fprintf(stderr, "typed_metrics: %s\n", lr_last_error());
        return;
    }
    /* The two lookups alternate, run by run, and the check is the median of the 15 paired differences: a
       difference of a few ns between two ~100 ns figures taken one after the other moved with the machine's
       drift (6 to 10 ns between runs of make bench). */
    double plains[15], typeds[15], diffs[15];
    for (int k = 0; k < 15; k++) {  /* which runs first alternates too */
        if (k % 2 == 0) plains[k] = lookup_run_ns(plain, "bench://user/1234567");
        typeds[k] = lookup_run_ns(typed, "bench://user/1234567");
        if (k % 2 == 1) plains[k] = lookup_run_ns(plain, "bench://user/1234567");
        diffs[k] = typeds[k] - plains[k];
    }
    double check = median(diffs, 15), base = median(plains, 15), t = median(typeds, 15);
    double refused = lookup_ns(typed, "bench://user/joe1234");
    metric("plain_param_lookup_ns", base, "ns", "lr_router_resolve_into of bench://user/1234567 on bench://user/:id");
    metric("typed_param_lookup_ns", t, "ns", "the same URL on bench://user/:id<int> (beside bench://user/:name)");
    metric("typed_param_check_ns", check, "ns",
           "the <int> check: the median of 15 differences typed minus plain, the two run alternately");
    metric("typed_param_refused_ns", refused, "ns", "bench://user/joe1234 on the same table: <int> refuses, :name takes it");
    lr_router_free(plain);
    lr_router_free(typed);
}

static void build_metrics(void) {
    bench_dataset ds;
    char err[1024];
    double ms;
    /* 100,000 routes in one bulk call. */
    if (bench_dataset_load("scale-100000", &ds) == 0) {
        lr_router *r = build(&ds, &ms, err, sizeof err);
        if (r) metric("bulk_add_100000_ms", ms, "ms", "lr_router_add_many of scale-100000 into an empty router");
        lr_router_free(r);
        bench_dataset_free(&ds);
    }
    if (bench_dataset_load("scale-10000", &ds) != 0) return;
    /* 10,000 single adds: one snapshot per add. */
    lr_router *r;
    lr_router_new(&r);
    char id[16];
    uint64_t t0 = bench_now_ns();
    for (size_t i = 0; i < ds.n; i++) {
        snprintf(id, sizeof id, "%d", ds.rows[i].id);
        lr_router_add(r, ds.rows[i].pattern, id);
    }
    metric("single_adds_10000_ms", (double)(bench_now_ns() - t0) / 1e6, "ms",
           "10,000 lr_router_add calls of scale-10000, one after another");
    lr_router_free(r);
    /* Heap bytes held per route at 10,000 routes (bulk-built table). */
    struct mallinfo2 before = mallinfo2();
    r = build(&ds, &ms, err, sizeof err);
    struct mallinfo2 after = mallinfo2();
    if (r) {
        metric("bytes_per_route_10000", (double)(after.uordblks - before.uordblks) / (double)ds.n, "bytes",
               "heap in use (mallinfo2) after building scale-10000, minus before, per route");
        lr_router_free(r);
    }
    bench_dataset_free(&ds);
}

int main(void) {
    char names[16][64];
    setvbuf(stdout, NULL, _IOLBF, 0);
    int nds = bench_dataset_names(names, 16);
    int failures = 0;
    char version[64];
    snprintf(version, sizeof version, "\"version\": \"%s\"", LR_VERSION_STRING);
    for (int d = 0; d < nds; d++) {
        bench_dataset ds;
        if (bench_dataset_load(names[d], &ds) != 0) {
            bench_error_row("linkrouter/resolve_into", "c", names[d], 0, 0, "dataset could not be read");
            failures++;
            continue;
        }
        char err[1024] = "";
        double build_ms;
        lr_ctx c = {0};
        c.ds = &ds;
        bench_url *urls = bench_urls(&ds, 0);
        bench_names *pnames = bench_names_of(&ds);
        c.urls = urls;
        c.names = pnames;
        c.router = urls && pnames ? build(&ds, &build_ms, err, sizeof err) : NULL;
        if (!c.router) {
            bench_error_row("linkrouter/resolve_into", "c", ds.name, ds.n, 0, err);
            bench_error_row("linkrouter/resolve", "c", ds.name, ds.n, 0, err);
            failures++;
        } else if (verify(&c, err, sizeof err) != 0 || verify_match(&c, err, sizeof err) != 0) {
            fprintf(stderr, "linkrouter %s: VERIFICATION FAILED: %s\n", ds.name, err);
            bench_error_row("linkrouter/resolve_into", "c", ds.name, ds.n, 1, err);
            bench_error_row("linkrouter/resolve", "c", ds.name, ds.n, 1, err);
            failures++;
        } else {
            char ex[512];
            snprintf(ex, sizeof ex, "%s, \"build_ms\": %.1f, \"api\": \"lr_router_resolve_into (target and every "
                     "parameter read)\"", version, build_ms);
            bench_time("linkrouter/resolve_into", "c", &ds, into_pass, &c, ex);
            snprintf(ex, sizeof ex, "%s, \"build_ms\": %.1f, \"api\": \"lr_router_resolve + lr_match_target + "
                     "lr_match_get of every parameter + lr_match_free\"", version, build_ms);
            bench_time("linkrouter/resolve", "c", &ds, alloc_pass, &c, ex);
            if (strcmp(ds.name, "github") == 0) {
                metric("allocations_per_lookup", allocations_per_lookup(&c, into_pass), "allocations",
                       "heap allocations per lr_router_resolve_into on the GitHub set (malloc interposed)");
                metric("allocations_per_resolve", allocations_per_lookup(&c, alloc_pass), "allocations",
                       "heap allocations per lr_router_resolve + lr_match_free on the GitHub set (malloc interposed)");
                if (add_open_handlers(&c, err, sizeof err) != 0) {
                    fprintf(stderr, "linkrouter open: VERIFICATION FAILED: %s\n", err);
                    bench_error_row("linkrouter/open", "c", ds.name, ds.n, 1, err);
                    failures++;
                } else {
                    snprintf(ex, sizeof ex, "%s, \"api\": \"lr_router_open, a synchronous handler reading the target "
                             "and every parameter (logging off)\"", version);
                    bench_time("linkrouter/open", "c", &ds, open_pass, &c, ex);
                    metric("allocations_per_open", allocations_per_lookup(&c, open_pass), "allocations",
                           "heap allocations per lr_router_open with a synchronous handler on the GitHub set");
                }
            }
        }
        lr_router_free(c.router);
        free(urls);
        free(pnames);
        bench_dataset_free(&ds);
    }
    build_metrics();
    typed_metrics();
    if (bench_sink == 42) fprintf(stderr, "sink\n");
    return failures ? 1 : 0;
}
