/*
 * bench_common.h - shared harness for the C router benchmark runners.
 *
 * Header-only on purpose: a runner is one .c file that includes this header,
 * so `cc -O2 -o X X.c <libs>` is the whole build.
 *
 * What it gives a runner:
 *   - bench_dataset_load(): reads a dataset TSV (id, pattern, url, params).
 *   - bench_urls(), bench_names_of(): what a timed pass reads per lookup, dense (see bench_url).
 *   - bench_order(): the deterministic shuffled lookup order shared with the
 *     Swift and Python harnesses (same LCG, same seed, same permutation).
 *   - bench_time(): calibrate, warm up, time BENCH_RUNS runs of one "pass"
 *     callback, print the common JSON line.
 *   - bench_error_row(): the JSON line for a router that could not be built
 *     or that answered wrong.
 *
 * Environment (set by bench/run.sh, all optional):
 *   LINKROUTER_DATA   data folder (default: ../shared/data relative to repo root)
 *   BENCH_DATASETS    space separated dataset names (default: all five)
 *   BENCH_RUNS        timed runs per (router, dataset) (default 11; 7 for >= 100000 routes)
 *   BENCH_RUN_MS      target duration of one run in ms (default 150; 100 for >= 100000 routes)
 *   BENCH_MAX_PASS_MS if one pass over all URLs takes longer, time a prefix of
 *                     the shuffled order only (default 1000)
 *   BENCH_CLOCK       cpu (default: thread CPU time) or wall (monotonic clock)
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* r3_str.h evaluates it in #if: needs a value */
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_MAX_PARAMS 16

/* Helpers are static (header-only); unused ones must not warn. */
#define BENCH_API static __attribute__((unused))

typedef struct {
    int id;                 /* route id (column 1) */
    char *pattern;          /* full pattern, e.g. gh://get/repos/:owner/:repo */
    char *pattern_path;     /* pattern without "scheme://": get/repos/:owner/:repo */
    char *url;              /* full URL, e.g. gh://get/repos/octocat/Hello-World */
    size_t url_len;         /* its length, known before timing (as a Go string's, or r3's url_path_len) */
    char *url_path;         /* "/" + URL without "scheme://": /get/repos/octocat/Hello-World */
    size_t url_path_len;
    int nparams;
    char *pnames[BENCH_MAX_PARAMS];   /* expected parameter names, in pattern order */
    char *pvalues[BENCH_MAX_PARAMS];  /* expected values */
} bench_row;

typedef struct {
    char name[64];          /* dataset name: github, scale-10, ... */
    size_t n;
    bench_row *rows;
} bench_dataset;

static volatile uint64_t bench_sink; /* defeats dead-code elimination */

BENCH_API uint64_t bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

BENCH_API const char *bench_data_dir(void) {
    const char *d = getenv("LINKROUTER_DATA");
    return (d && *d) ? d : "../shared/data";
}

BENCH_API long bench_env_long(const char *name, long dflt) {
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    return strtol(v, NULL, 10);
}

/* Space separated list of dataset names; returns count, fills names[]. */
BENCH_API int bench_dataset_names(char names[][64], int max) {
    const char *env = getenv("BENCH_DATASETS");
    const char *dflt = "github scale-10 scale-1000 scale-10000 scale-100000";
    const char *s = (env && *env) ? env : dflt;
    int n = 0;
    while (*s && n < max) {
        while (*s == ' ' || *s == ',') s++;
        if (!*s) break;
        int k = 0;
        while (*s && *s != ' ' && *s != ',' && k < 63) names[n][k++] = *s++;
        names[n][k] = 0;
        n++;
    }
    return n;
}

BENCH_API char *bench_strdup_range(const char *a, const char *b) {
    size_t n = (size_t)(b - a);
    char *s = malloc(n + 1);
    memcpy(s, a, n);
    s[n] = 0;
    return s;
}

/* Loads <data>/<name>.tsv where name "github" maps to github-routes.tsv.
 * Returns 0 on success, -1 with a message on stderr otherwise. */
BENCH_API int bench_dataset_load(const char *name, bench_dataset *ds) {
    char path[4096];
    if (strcmp(name, "github") == 0)
        snprintf(path, sizeof path, "%s/github-routes.tsv", bench_data_dir());
    else
        snprintf(path, sizeof path, "%s/%s.tsv", bench_data_dir(), name);
    FILE *f = fopen(path, "r");
    if (!f) { fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno)); return -1; }
    snprintf(ds->name, sizeof ds->name, "%.63s", name);
    size_t cap = 1024;
    ds->n = 0;
    ds->rows = malloc(cap * sizeof(bench_row));
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    while ((len = getline(&line, &lcap, f)) >= 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
        if (len == 0 || line[0] == '#') continue;
        char *cols[4] = {0};
        int nc = 0;
        char *p = line;
        cols[nc++] = p;
        while (*p && nc < 4) { if (*p == '\t') { *p = 0; cols[nc++] = p + 1; } p++; }
        if (nc < 3) { fprintf(stderr, "%s: bad line\n", path); fclose(f); return -1; }
        if (ds->n == cap) { cap *= 2; ds->rows = realloc(ds->rows, cap * sizeof(bench_row)); }
        bench_row *r = &ds->rows[ds->n++];
        memset(r, 0, sizeof *r);
        r->id = atoi(cols[0]);
        r->pattern = strdup(cols[1]);
        r->url = strdup(cols[2]);
        r->url_len = strlen(cols[2]);
        const char *pp = strstr(r->pattern, "://");
        r->pattern_path = strdup(pp ? pp + 3 : r->pattern);
        const char *up = strstr(r->url, "://");
        up = up ? up + 3 : r->url;
        r->url_path_len = strlen(up) + 1;
        r->url_path = malloc(r->url_path_len + 1);
        r->url_path[0] = '/';
        memcpy(r->url_path + 1, up, r->url_path_len);
        if (nc == 4 && cols[3][0]) {
            char *q = cols[3];
            while (*q && r->nparams < BENCH_MAX_PARAMS) {
                char *semi = strchr(q, ';');
                char *end = semi ? semi : q + strlen(q);
                char *eq = memchr(q, '=', (size_t)(end - q));
                if (!eq) { fprintf(stderr, "%s: bad params '%s'\n", path, cols[3]); fclose(f); return -1; }
                r->pnames[r->nparams] = bench_strdup_range(q, eq);
                r->pvalues[r->nparams] = bench_strdup_range(eq + 1, end);
                r->nparams++;
                q = semi ? semi + 1 : end;
            }
        }
    }
    free(line);
    fclose(f);
    return 0;
}

/* What a timed pass reads per lookup besides the router, in dense arrays indexed by row: the URL and its length
 * (16 bytes a URL, as the Go harness's []string of paths, Swift's [String] and Python's list), and the names of
 * the parameters a pass asks for (as Swift's names[i]; the names themselves in one pool). A pass that read the
 * URL from its 320-byte bench_row paid a cache miss of the harness's own per lookup on the large sets (3.2 MB of
 * rows at 10,000 URLs, more than this machine's L2), which no other language's harness paid. */
typedef struct {
    const char *url;
    size_t len;
} bench_url;

typedef struct {
    const char *const *names;
    size_t n;
} bench_names;

/* The URLs of the rows (path_only: their url_path, "/" + the URL without "scheme://"), in row order. */
BENCH_API bench_url *bench_urls(const bench_dataset *ds, int path_only) {
    bench_url *u = malloc((ds->n ? ds->n : 1) * sizeof *u);
    if (!u) return NULL;
    for (size_t i = 0; i < ds->n; i++) {
        const bench_row *r = &ds->rows[i];
        u[i].url = path_only ? r->url_path : r->url;
        u[i].len = path_only ? r->url_path_len : r->url_len;
    }
    return u;
}

/* The expected parameter names of the rows, in row order: one block holding the entries, the pointers and the
 * bytes of every name (free() it whole). */
BENCH_API bench_names *bench_names_of(const bench_dataset *ds) {
    size_t count = 0, bytes = 0;
    for (size_t i = 0; i < ds->n; i++)
        for (int k = 0; k < ds->rows[i].nparams; k++) {
            count++;
            bytes += strlen(ds->rows[i].pnames[k]) + 1;
        }
    size_t n = ds->n ? ds->n : 1;
    char *block = malloc(n * sizeof(bench_names) + (count ? count : 1) * sizeof(char *) + (bytes ? bytes : 1));
    if (!block) return NULL;
    bench_names *entries = (bench_names *)(void *)block;
    const char **pointers = (const char **)(void *)(block + n * sizeof(bench_names));
    char *pool = (char *)(pointers + (count ? count : 1));
    for (size_t i = 0; i < ds->n; i++) {
        entries[i].names = pointers;
        entries[i].n = (size_t)ds->rows[i].nparams;
        for (int k = 0; k < ds->rows[i].nparams; k++) {
            size_t len = strlen(ds->rows[i].pnames[k]) + 1;
            memcpy(pool, ds->rows[i].pnames[k], len);
            *pointers++ = pool;
            pool += len;
        }
    }
    return entries;
}

BENCH_API void bench_dataset_free(bench_dataset *ds) {
    for (size_t i = 0; i < ds->n; i++) {
        bench_row *r = &ds->rows[i];
        free(r->pattern); free(r->pattern_path); free(r->url); free(r->url_path);
        for (int k = 0; k < r->nparams; k++) { free(r->pnames[k]); free(r->pvalues[k]); }
    }
    free(ds->rows);
    ds->rows = NULL;
    ds->n = 0;
}

/* Deterministic shuffled lookup order, identical in C, Swift and Python:
 * Fisher-Yates from the end with a 64-bit LCG (Knuth MMIX constants), seed 42,
 * j = (state >> 33) % (i + 1). */
BENCH_API size_t *bench_order(size_t n) {
    size_t *o = malloc((n ? n : 1) * sizeof(size_t));
    for (size_t i = 0; i < n; i++) o[i] = i;
    uint64_t st = 42;
    for (size_t i = n; i > 1; i--) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        size_t j = (size_t)((st >> 33) % (uint64_t)i);
        size_t t = o[i - 1]; o[i - 1] = o[j]; o[j] = t;
    }
    return o;
}

/* One pass: look up order[0..n) once each, read the parameters, return a
 * checksum (e.g. sum of parameter lengths) so the work cannot be elided. */
typedef uint64_t (*bench_pass_fn)(void *ctx, const size_t *order, size_t n);

BENCH_API int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

BENCH_API void bench_json_str(FILE *out, const char *s) {
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') { fputc('\\', out); fputc(c, out); }
        else if (c < 0x20) fprintf(out, "\\u%04x", c);
        else fputc(c, out);
    }
    fputc('"', out);
}

/* A row for a router that could not be built (wrong_answer 0) or that answered
 * wrong in verification (wrong_answer 1). Either way it is not timed. */
BENCH_API void bench_error_row(const char *router, const char *lang, const char *dataset,
                            size_t routes, int wrong_answer, const char *error) {
    printf("{\"router\": "); bench_json_str(stdout, router);
    printf(", \"lang\": "); bench_json_str(stdout, lang);
    printf(", \"dataset\": "); bench_json_str(stdout, dataset);
    printf(", \"routes\": %zu, \"verified\": false", routes);
    if (wrong_answer) printf(", \"wrong_answer\": true");
    printf(", \"error\": ");
    bench_json_str(stdout, error);
    printf("}\n");
    fflush(stdout);
}

/* Which clock the ns_* fields use: BENCH_CLOCK=cpu (default: this thread's CPU time,
 * CLOCK_THREAD_CPUTIME_ID, which leaves out the time the process is descheduled for
 * other processes on this shared 2-vCPU machine) or BENCH_CLOCK=wall (CLOCK_MONOTONIC).
 * Both are measured for every run; the row carries both medians. */
BENCH_API int bench_clock_is_cpu(void) {
    const char *c = getenv("BENCH_CLOCK");
    return !(c && strcmp(c, "wall") == 0);
}

BENCH_API uint64_t bench_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

BENCH_API double bench_median(double *v, long n) {
    qsort(v, (size_t)n, sizeof(double), bench_cmp_double);
    return (n % 2) ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* Calibrate, warm up, time, print the JSON line. `extra_json` (may be NULL)
 * is appended verbatim inside the object, e.g. "\"version\": \"1.3.4\"". */
BENCH_API void bench_time(const char *router, const char *lang, const bench_dataset *ds,
                          bench_pass_fn pass, void *ctx, const char *extra_json) {
    int big = ds->n >= 100000;
    long runs = bench_env_long("BENCH_RUNS", big ? 7 : 11);
    long run_ms = bench_env_long("BENCH_RUN_MS", big ? 100 : 150);
    long max_pass_ms = bench_env_long("BENCH_MAX_PASS_MS", 1000);
    int use_cpu = bench_clock_is_cpu();
    uint64_t (*clk)(void) = use_cpu ? bench_cpu_ns : bench_now_ns;
    if (runs < 1) runs = 1;
    if (runs > 1000) runs = 1000;
    size_t *order = bench_order(ds->n);
    size_t n = ds->n;
    uint64_t sink = 0;

    /* warm-up + calibration: one full pass, then passes until >= run_ms/2 */
    uint64_t t0 = clk();
    sink += pass(ctx, order, n);
    uint64_t one = clk() - t0;
    if (one > (uint64_t)max_pass_ms * 1000000ull) {
        /* time a prefix of the shuffled order only */
        size_t m = (size_t)((double)n * (double)max_pass_ms * 1e6 / (double)one);
        if (m < 1000) m = n < 1000 ? n : 1000;
        n = m;
    }
    uint64_t warm_total = 0, warm_passes = 0;
    do {
        t0 = clk();
        sink += pass(ctx, order, n);
        warm_total += clk() - t0;
        warm_passes++;
    } while (warm_total < (uint64_t)run_ms * 500000ull);
    double per_pass = (double)warm_total / (double)warm_passes;
    uint64_t reps = (uint64_t)((double)run_ms * 1e6 / per_pass + 0.5);
    if (reps < 1) reps = 1;

    double *cpu = malloc((size_t)runs * sizeof(double));
    double *wall = malloc((size_t)runs * sizeof(double));
    for (long r = 0; r < runs; r++) {
        uint64_t w0 = bench_now_ns(), c0 = bench_cpu_ns();
        for (uint64_t k = 0; k < reps; k++) sink += pass(ctx, order, n);
        uint64_t c1 = bench_cpu_ns(), w1 = bench_now_ns();
        cpu[r] = (double)(c1 - c0) / (double)(reps * n);
        wall[r] = (double)(w1 - w0) / (double)(reps * n);
    }
    bench_sink += sink;
    double cpu_median = bench_median(cpu, runs);   /* sorts cpu[] */
    double wall_median = bench_median(wall, runs); /* sorts wall[] */
    double *ns = use_cpu ? cpu : wall;
    double median = use_cpu ? cpu_median : wall_median;

    printf("{\"router\": "); bench_json_str(stdout, router);
    printf(", \"lang\": "); bench_json_str(stdout, lang);
    printf(", \"dataset\": "); bench_json_str(stdout, ds->name);
    printf(", \"routes\": %zu, \"ns_median\": %.1f, \"ns_min\": %.1f, \"ns_max\": %.1f"
           ", \"runs\": %ld, \"lookups_per_run\": %llu, \"urls_timed\": %zu, \"verified\": true"
           ", \"clock\": \"%s\", \"cpu_ns_median\": %.1f, \"wall_ns_median\": %.1f",
           ds->n, median, ns[0], ns[runs - 1], runs, (unsigned long long)(reps * n), n,
           use_cpu ? "thread-cpu" : "wall", cpu_median, wall_median);
    if (n < ds->n) printf(", \"note\": \"timed the first %zu URLs of the shuffled order per run\"", n);
    if (extra_json && *extra_json) printf(", %s", extra_json);
    printf("}\n");
    fflush(stdout);
    free(cpu);
    free(wall);
    free(order);
}

#endif /* BENCH_COMMON_H */
