/* Instructions per operation, for callgrind (bench/instructions.sh): deterministic, where wall-clock figures on a
 * shared 2-core VM move by 10-50 %. One process runs one mode over a data set for a number of rounds; the script
 * runs it twice (2 and 12 rounds) and divides the difference by the lookups in between, so that loading the set
 * and building the router cancel out.
 *
 *   instructions into    SET ROUNDS   lr_router_resolve_into, target and every parameter read
 *   instructions resolve SET ROUNDS   lr_router_resolve + lr_match_target + lr_match_get of each parameter + free
 *   instructions open    SET ROUNDS   lr_router_open, a synchronous handler reading the same
 *   instructions plain   -   ROUNDS   bench://user/1234567 on bench://user/:id (one route)
 *   instructions typed   -   ROUNDS   the same URL on bench://user/:id<int>, beside bench://user/:name
 */
#include "bench_common.h"
#include "linkrouter_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int one_route(const char *mode, int rounds)
{
    lr_router *r;
    if (lr_router_new(&r) != LR_OK) return 1;
    int typed = strcmp(mode, "typed") == 0;
    if ((typed ? lr_router_add(r, "bench://user/:id<int>", "Int") : lr_router_add(r, "bench://user/:id", "Plain")) != LR_OK ||
        (typed && lr_router_add(r, "bench://user/:name", "Name") != LR_OK)) {
        fprintf(stderr, "instructions: %s\n", lr_last_error());
        return 1;
    }
    static const char url[] = "bench://user/1234567";
    char scratch[4096];
    lr_result res;
    lr_param_ref params[64];
    uint64_t acc = 0;
    for (long i = 0; i < 10000L * rounds; i++)
        if (lr_router_resolve_into(r, url, sizeof url - 1, &res, params, 64, scratch, sizeof scratch) == LR_OK)
            acc += res.target_len + params[0].value_len;
    printf("%s: %llu\n", mode, (unsigned long long)acc);
    lr_router_free(r);
    return acc == 0;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: instructions into|resolve|open|plain|typed SET ROUNDS\n");
        return 2;
    }
    const char *mode = argv[1], *set = argv[2];
    int rounds = atoi(argv[3]);
    if (strcmp(mode, "plain") == 0 || strcmp(mode, "typed") == 0) return one_route(mode, rounds);

    static bench_dataset ds;
    if (bench_dataset_load(set, &ds) != 0) {
        fprintf(stderr, "instructions: cannot load data set %s\n", set);
        return 1;
    }
    static const lr_handler handler = {bench_lr_read_match, NULL, NULL, NULL};  /* make bench's open row's */
    bench_names *names = bench_names_of(&ds);
    if (!names) return 1;
    lr_router *r = bench_lr_router(&ds, strcmp(mode, "open") == 0 ? &handler : NULL, "instructions");
    if (!r) return 1;
    char scratch[4096];
    lr_result res;
    lr_param_ref params[64];
    uint64_t acc = 0, misses = 0;
    enum { INTO, RESOLVE, OPEN } op = strcmp(mode, "into") == 0 ? INTO : strcmp(mode, "resolve") == 0 ? RESOLVE : OPEN;
    for (int k = 0; k < rounds; k++)
        for (size_t i = 0; i < ds.n; i++) {
            const bench_row *row = &ds.rows[i];
            if (op == INTO) {
                if (lr_router_resolve_into(r, row->url, strlen(row->url), &res, params, 64, scratch, sizeof scratch) != LR_OK) {
                    misses++;
                    continue;
                }
                acc += res.target_len;
                for (size_t p = 0; p < res.param_count; p++) acc += params[p].value_len;
            } else if (op == RESOLVE) {
                lr_match *m;
                if (lr_router_resolve(r, row->url, &m) != LR_OK) {
                    misses++;
                    continue;
                }
                acc += strlen(lr_match_target(m));
                for (int p = 0; p < row->nparams; p++) acc += strlen(lr_match_get(m, row->pnames[p]));
                lr_match_free(m);
            } else {
                lr_open_options o = {0};
                o.context = (void *)&names[i];
                void *out;
                if (lr_router_open(r, row->url, &o, &out) != LR_OK)
                    misses++;
                else
                    acc += (uintptr_t)out;  /* the handler's checksum of what it read */
            }
        }
    printf("%s %s: %llu (%llu misses)\n", mode, set, (unsigned long long)(acc + bench_sink), (unsigned long long)misses);
    lr_router_free(r);
    free(names);
    return misses != 0;
}
