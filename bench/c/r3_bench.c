/*
 * r3_bench.c - libr3 (c9s/r3, Debian's libr3-dev 1.3.x) on the LinkRouter datasets.
 *
 * Build (bench/runners/c-r3.sh does this):
 *   cc -O2 -DHAVE_STRNDUP -DHAVE_STRDUP $(pkg-config --cflags r3) \
 *      -o r3_bench r3_bench.c $(pkg-config --libs r3)
 * (pkg-config gives -I/usr/include/r3 -lr3 -lpcre; without pkg-config:
 *  -I/usr/include/r3 -lr3 -lpcre.)
 *
 * Mapping: pattern gh://get/repos/:owner/:repo becomes the r3 path
 * /get/repos/{owner}/{repo} (host as first path element, scheme dropped);
 * the URL gh://get/repos/octocat/Hello-World is looked up as
 * /get/repos/octocat/Hello-World. {name} slugs use r3's default [^/]+ pattern,
 * which r3 compiles to its "no slash" opcode (no PCRE at match time).
 *
 * One lookup = match_entry_createl + r3_tree_matchl + read every captured
 * token (r3 1.3 strndup()s them into entry->vars) + match_entry_free, which
 * is how the r3 API is meant to be used per request.
 *
 * r3 1.3 captures values only, not slug names: names are taken from the
 * matched route's pattern, in order, and checked against the expected ones.
 */
#include "bench_common.h"

#include <r3.h>

#ifndef R3_VERSION
#define R3_VERSION "unknown"
#endif

typedef struct {
    node *tree;
    const bench_dataset *ds;
    const bench_url *urls; /* what the pass reads per lookup: each row's url_path (bench_url) */
    char **paths;        /* r3 paths, kept alive for the tree's lifetime */
    int *slot_count;     /* number of {slugs} per route */
    char ***slot_names;  /* slug names per route, in pattern order */
} r3_ctx;

/* get/repos/:owner/:repo -> /get/repos/{owner}/{repo}; collects names. */
static char *to_r3_path(const char *p, int *nslots, char **names) {
    size_t cap = strlen(p) * 2 + 4;
    char *out = malloc(cap);
    size_t o = 0;
    *nslots = 0;
    out[o++] = '/';
    while (*p) {
        if (*p == ':' && (o == 0 || out[o - 1] == '/')) {
            const char *s = ++p;
            while (*p && *p != '/') p++;
            out[o++] = '{';
            memcpy(out + o, s, (size_t)(p - s));
            o += (size_t)(p - s);
            out[o++] = '}';
            if (*nslots < BENCH_MAX_PARAMS) names[(*nslots)++] = bench_strdup_range(s, p);
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = 0;
    return out;
}

static char **sort_paths;
static int cmp_path_idx(const void *a, const void *b) {
    return strcmp(sort_paths[*(const size_t *)a], sort_paths[*(const size_t *)b]);
}

static uint64_t r3_pass(void *vctx, const size_t *order, size_t n) {
    r3_ctx *c = vctx;
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        const bench_url *u = &c->urls[order[i]];
        match_entry *e = match_entry_createl(u->url, (int)u->len);
        node *m = r3_tree_matchl(c->tree, u->url, (int)u->len, e);
        if (m) {
            acc += (uintptr_t)m->data;
            for (int k = 0; k < e->vars->len; k++) {
                const char *v = e->vars->tokens[k];
                acc += strlen(v) + (unsigned char)v[0];
            }
        }
        match_entry_free(e);
    }
    return acc;
}

/* Every URL must reach its own route with exactly the expected parameters. */
static int r3_verify(r3_ctx *c, char *err, size_t errlen) {
    const bench_dataset *ds = c->ds;
    for (size_t i = 0; i < ds->n; i++) {
        const bench_row *r = &ds->rows[i];
        match_entry *e = match_entry_createl(r->url_path, (int)r->url_path_len);
        node *m = r3_tree_matchl(c->tree, r->url_path, (int)r->url_path_len, e);
        int ok = 1;
        if (!m || !m->data) {
            snprintf(err, errlen, "%s: no match", r->url);
            ok = 0;
        } else {
            size_t got = (size_t)(uintptr_t)m->data - 1;
            if (got != i) {
                snprintf(err, errlen, "%s: matched route %d (%s), expected %d (%s)", r->url,
                         ds->rows[got].id, ds->rows[got].pattern, r->id, r->pattern);
                ok = 0;
            } else if (e->vars->len != r->nparams || c->slot_count[got] != r->nparams) {
                snprintf(err, errlen, "%s: %d parameters, expected %d", r->url, e->vars->len, r->nparams);
                ok = 0;
            } else {
                for (int k = 0; k < r->nparams && ok; k++) {
                    /* expected name k must be captured with the expected value */
                    int found = 0;
                    for (int s = 0; s < c->slot_count[got]; s++) {
                        if (strcmp(c->slot_names[got][s], r->pnames[k]) == 0) {
                            found = 1;
                            if (strcmp(e->vars->tokens[s], r->pvalues[k]) != 0) {
                                snprintf(err, errlen, "%s: %s=%s, expected %s", r->url, r->pnames[k],
                                         e->vars->tokens[s], r->pvalues[k]);
                                ok = 0;
                            }
                        }
                    }
                    if (!found) {
                        snprintf(err, errlen, "%s: parameter %s missing", r->url, r->pnames[k]);
                        ok = 0;
                    }
                }
            }
        }
        match_entry_free(e);
        if (!ok) return -1;
    }
    return 0;
}

int main(void) {
    char names[16][64];
    setvbuf(stdout, NULL, _IOLBF, 0);
    int nds = bench_dataset_names(names, 16);
    int failures = 0;
    char extra[128];
    snprintf(extra, sizeof extra, "\"version\": \"%s\"", R3_VERSION);
    for (int d = 0; d < nds; d++) {
        bench_dataset ds;
        if (bench_dataset_load(names[d], &ds) != 0) {
            bench_error_row("libr3", "c", names[d], 0, 0, "dataset could not be read");
            failures++;
            continue;
        }
        r3_ctx c = {0};
        c.ds = &ds;
        bench_url *urls = bench_urls(&ds, 1);
        c.urls = urls;
        c.tree = r3_tree_create(10);
        c.paths = calloc(ds.n, sizeof(char *));
        c.slot_count = calloc(ds.n, sizeof(int));
        c.slot_names = calloc(ds.n, sizeof(char **));
        char err[1024] = "";
        int build_ok = 1;
        uint64_t tb = bench_now_ns();
        for (size_t i = 0; i < ds.n; i++) {
            c.slot_names[i] = calloc(BENCH_MAX_PARAMS, sizeof(char *));
            c.paths[i] = to_r3_path(ds.rows[i].pattern_path, &c.slot_count[i], c.slot_names[i]);
        }
        /* r3 1.3.4 bug: inserting a route after a longer route that extends it
         * (/a/{x}/labels after /a/{x}/labels/{name}) leaves the shorter one
         * without data, so its URL finds no route. Inserting in byte order
         * (every prefix before its extensions) avoids it. */
        size_t *ins = malloc(ds.n * sizeof(size_t));
        for (size_t i = 0; i < ds.n; i++) ins[i] = i;
        sort_paths = c.paths;
        qsort(ins, ds.n, sizeof(size_t), cmp_path_idx);
        for (size_t k = 0; k < ds.n && build_ok; k++) {
            size_t i = ins[k];
            char *errstr = NULL;
            node *ret = r3_tree_insert_pathl_ex(c.tree, c.paths[i], (int)strlen(c.paths[i]), NULL,
                                                (void *)(uintptr_t)(i + 1), &errstr);
            if (!ret) {
                snprintf(err, sizeof err, "insert %s failed: %s", c.paths[i], errstr ? errstr : "?");
                build_ok = 0;
            }
            free(errstr);
        }
        free(ins);
        if (build_ok) {
            char *errstr = NULL;
            if (r3_tree_compile(c.tree, &errstr) != 0) {
                snprintf(err, sizeof err, "r3_tree_compile failed: %s", errstr ? errstr : "?");
                build_ok = 0;
            }
            free(errstr);
        }
        double build_ms = (double)(bench_now_ns() - tb) / 1e6;
        if (!build_ok) {
            bench_error_row("libr3", "c", ds.name, ds.n, 0, err);
        } else if (r3_verify(&c, err, sizeof err) != 0) {
            fprintf(stderr, "libr3 %s: VERIFICATION FAILED: %s\n", ds.name, err);
            bench_error_row("libr3", "c", ds.name, ds.n, 1, err);
            failures++;
        } else {
            char ex[256];
            snprintf(ex, sizeof ex, "%s, \"build_ms\": %.1f", extra, build_ms);
            bench_time("libr3", "c", &ds, r3_pass, &c, ex);
        }
        r3_tree_free(c.tree);
        for (size_t i = 0; i < ds.n; i++) {
            free(c.paths[i]);
            if (c.slot_names[i]) {
                for (int k = 0; k < c.slot_count[i]; k++) free(c.slot_names[i][k]);
                free(c.slot_names[i]);
            }
        }
        free(c.paths); free(c.slot_count); free(c.slot_names);
        free(urls);
        bench_dataset_free(&ds);
    }
    if (bench_sink == 42) fprintf(stderr, "sink\n");
    return failures ? 1 : 0;
}
