/* What lr_router_resolve costs beyond lr_router_resolve_into, step by step (make bench-steps, bench/steps.sh):
 * ns per lookup of each step on one data set, in the data set's order and in the bench's shuffled order (the
 * order `make bench` times). A figure is the fastest of 9 runs of at least 400,000 lookups, thread CPU time: a
 * quick look for a change's effect, not the published figures (those are `make bench`'s medians).
 *
 *   resolve_steps SET
 *
 * Steps: resolve_into (target and every value read, as the bench's row); lr_router_resolve + lr_match_free;
 * the same + lr_match_target; the same + lr_match_get of every parameter (the bench's resolve row);
 * lr_router_open with a synchronous handler reading what the previous step reads (the bench's open row).
 */
#include "bench_common.h"
#include "linkrouter_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { INTO, RESOLVE_FREE, TARGET, PARAMS, OPEN, STEPS };
static const char *const step_names[STEPS] = {
    "resolve_into, target and values read",
    "lr_router_resolve + lr_match_free",
    "  + lr_match_target",
    "  + lr_match_get of every parameter",
    "lr_router_open, handler reading the same",
};

/* One lookup of `u` (its parameters' names `p`) in `step`; a checksum of what it read. */
static uint64_t step_once(lr_router *r, int step, const bench_url *u, const bench_names *p, char *scratch,
                          size_t scratch_size)
{
    uint64_t acc = 0;
    if (step == INTO) {
        lr_result res;
        lr_param_ref params[BENCH_MAX_PARAMS];
        if (lr_router_resolve_into(r, u->url, u->len, &res, params, BENCH_MAX_PARAMS, scratch, scratch_size) == LR_OK) {
            acc += res.target_len + res.route_id;
            for (size_t k = 0; k < res.param_count; k++) acc += params[k].value_len + (unsigned char)params[k].value[0];
        }
    } else if (step == OPEN) {
        lr_open_options opts;
        memset(&opts, 0, sizeof opts);
        opts.context = (void *)p;
        void *result = NULL;
        if (lr_router_open(r, u->url, &opts, &result) == LR_OK) acc += (uintptr_t)result;
    } else {
        lr_match *m;
        if (lr_router_resolve(r, u->url, &m) == LR_OK) {
            if (step >= TARGET) acc += strlen(lr_match_target(m));
            if (step >= PARAMS)
                for (size_t k = 0; k < p->n; k++) {
                    const char *v = lr_match_get(m, p->names[k]);
                    acc += strlen(v) + (unsigned char)v[0];
                }
            lr_match_free(m);
        }
    }
    return acc;
}

static const bench_url *urls;     /* what each lookup reads, dense, as make bench's passes (bench_url) */
static const bench_names *pnames;

/* The fastest of 9 runs, ns per lookup, of `step` over the rows in `order`. */
static double time_step(lr_router *r, int step, const bench_dataset *ds, const size_t *order)
{
    static char scratch[4096];
    size_t passes = (400000 + ds->n - 1) / ds->n;
    double best = 1e300;
    uint64_t acc = 0;
    for (int run = 0; run < 9; run++) {
        uint64_t t0 = bench_cpu_ns();
        for (size_t p = 0; p < passes; p++)
            for (size_t i = 0; i < ds->n; i++)
                acc += step_once(r, step, &urls[order[i]], &pnames[order[i]], scratch, sizeof scratch);
        double ns = (double)(bench_cpu_ns() - t0) / (double)(passes * ds->n);
        if (ns < best) best = ns;
    }
    bench_sink += acc;
    return best;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: resolve_steps SET\n");
        return 2;
    }
    static bench_dataset ds;
    if (bench_dataset_load(argv[1], &ds) != 0 || ds.n == 0) {
        fprintf(stderr, "resolve_steps: cannot load data set %s\n", argv[1]);
        return 1;
    }
    static const lr_handler handler = {bench_lr_read_match, NULL, NULL, NULL};
    lr_router *r = bench_lr_router(&ds, &handler, "resolve_steps");
    if (!r) return 1;
    /* Every URL reaches its own route through both calls before anything is timed. */
    for (size_t i = 0; i < ds.n; i++) {
        lr_match *m;
        char id[16];
        snprintf(id, sizeof id, "%d", ds.rows[i].id);
        if (lr_router_resolve(r, ds.rows[i].url, &m) != LR_OK || strcmp(lr_match_target(m), id) != 0) {
            fprintf(stderr, "resolve_steps: %s does not reach route %s\n", ds.rows[i].url, id);
            return 1;
        }
        lr_match_free(m);
    }
    size_t *in_order = malloc(ds.n * sizeof *in_order), *shuffled = bench_order(ds.n);
    urls = bench_urls(&ds, 0);
    pnames = bench_names_of(&ds);
    if (!in_order || !shuffled || !urls || !pnames) return 1;
    for (size_t i = 0; i < ds.n; i++) in_order[i] = i;

    printf("%s, %zu URLs: ns per lookup (fastest of 9 runs, thread CPU time)\n", ds.name, ds.n);
    printf("%-44s %10s %10s\n", "step", "in order", "shuffled");
    double into[2] = {0, 0}, params[2] = {0, 0};
    for (int step = 0; step < STEPS; step++) {
        double a = time_step(r, step, &ds, in_order), b = time_step(r, step, &ds, shuffled);
        if (step == INTO) { into[0] = a; into[1] = b; }
        if (step == PARAMS) { params[0] = a; params[1] = b; }
        printf("%-44s %10.1f %10.1f\n", step_names[step], a, b);
    }
    printf("%-44s %9.2fx %9.2fx\n", "resolve (with reads) / resolve_into", params[0] / into[0], params[1] / into[1]);
    free(in_order);
    free(shuffled);
    lr_router_free(r);
    return 0;
}
