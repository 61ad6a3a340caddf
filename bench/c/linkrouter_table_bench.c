/*
 * linkrouter_table_bench.c -- route tables as files (docs/TABLES.md): how long lr_router_load_file takes for a
 * 10,000-route table file (and, for scale, 1,000 and 100,000), how long lr_router_to_json and
 * lr_router_check_file take for it. Prints metric rows (bench/README.md, "The JSON line format").
 *
 * The table is generated: routes in the shape of the scale-N datasets (app://moduleK/resI[/:id[/detail|
 * /items/:item]]), every route named, one in ten requiring a guard and carrying meta, and 20 rewrite rules.
 * Each figure is the median of 7 runs, wall clock (a load allocates and builds; CPU time would hide nothing).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_common.h"
#include "linkrouter.h"

static void metric(const char *name, double value, const char *unit, const char *detail)
{
    printf("{\"metric\": \"%s\", \"router\": \"linkrouter\", \"lang\": \"c\", \"value\": %.2f, \"unit\": \"%s\", "
           "\"detail\": ", name, value, unit);
    bench_json_str(stdout, detail);
    printf("}\n");
    fflush(stdout);
}

/* Writes a table of n routes to `path`; returns its size in bytes. */
static long write_table(const char *path, int n)
{
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(1); }
    fprintf(f, "{\n  \"version\": 1,\n  \"routes\": [\n");
    for (int i = 0; i < n; i++) {
        int module = i / 100, res = i % 100;
        static const char *const tails[] = {"", "/:id", "/:id/detail", "/:id/items/:item"};
        fprintf(f, "    {\"pattern\": \"app://module%d/res%d%s\", \"target\": \"Screen%d\", \"name\": \"route.%d\"", module,
                res / 4, tails[res % 4], i, i);
        if (i % 10 == 0) fprintf(f, ", \"requires\": [\"login\"], \"meta\": {\"transition\": \"push\", \"class\": \"Screen%dController\"}", i);
        fprintf(f, "}%s\n", i + 1 < n ? "," : "");
    }
    fprintf(f, "  ],\n  \"rewrites\": [\n");
    for (int k = 0; k < 20; k++)
        fprintf(f, "    {\"match\": \"^https://www\\\\.site%d\\\\.com/m(\\\\d+)/r(\\\\d+)\", \"target\": \"app://module$1/res$2\"}%s\n", k,
                k + 1 < 20 ? "," : "");
    fprintf(f, "  ]\n}\n");
    long size = ftell(f);
    fclose(f);
    return size;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_ms(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

static int measure(int n, int primary)
{
    char path[256], detail[256], name[64];
    snprintf(path, sizeof path, "%s/linkrouter-table-%d-%d.json", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", n, (int)getpid());
    long bytes = write_table(path, n);
    enum { RUNS = 7 };
    double load[RUNS], export_[RUNS], check[RUNS];
    for (int run = 0; run < RUNS; run++) {
        lr_router *r;
        char *json = NULL, *report = NULL;
        lr_router_new(&r);
        uint64_t t0 = bench_now_ns();
        int rc = lr_router_load_file(r, path, LR_LOAD_REPLACE);
        uint64_t t1 = bench_now_ns();
        size_t count = 0;
        lr_router_count(r, &count);
        if (rc != LR_OK || count != (size_t)n) {
            fprintf(stderr, "load of %d routes: %d (%s), %zu routes\n", n, rc, lr_last_error(), count);
            printf("{\"runner\": \"linkrouter-table\", \"error\": \"the generated table did not load\"}\n");
            unlink(path);
            return 1;
        }
        lr_router_to_json(r, &json);
        uint64_t t2 = bench_now_ns();
        lr_router_check_file(r, path, LR_LOAD_REPLACE, &report);
        uint64_t t3 = bench_now_ns();
        load[run] = (double)(t1 - t0) / 1e6;
        export_[run] = (double)(t2 - t1) / 1e6;
        check[run] = (double)(t3 - t2) / 1e6;
        lr_string_free(json);
        lr_string_free(report);
        lr_router_free(r);
    }
    unlink(path);
    snprintf(name, sizeof name, "table_load_%d_ms", n);
    snprintf(detail, sizeof detail, "lr_router_load_file of a %d-route table file (%ld bytes, 20 rewrite rules), median of %d",
             n, bytes, RUNS);
    metric(name, median_ms(load, RUNS), "ms", detail);
    if (primary) {
        snprintf(detail, sizeof detail, "lr_router_to_json of the %d-route table", n);
        metric("table_export_10000_ms", median_ms(export_, RUNS), "ms", detail);
        snprintf(detail, sizeof detail, "lr_router_check_file of the %d-route table file (validation and warnings, no load)", n);
        metric("table_check_10000_ms", median_ms(check, RUNS), "ms", detail);
    }
    return 0;
}

int main(void)
{
    int status = measure(10000, 1);
    status |= measure(1000, 0);
    status |= measure(100000, 0);
    return status;
}
