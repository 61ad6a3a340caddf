/*
 * test_semantics.c -- Tests/Data/semantics.json through the C ABI: the table the Swift, Python, Go and Java suites
 * run, so that C is held to the same rows (SPEC sections 2-4).
 *
 *   match       every row, with the routes added in order and reversed: the target (or no match, and
 *               lr_router_can_route agreeing), the pattern, the URL and its rewriting, the fragment, the flat
 *               parameters through lr_match_param_* and lr_match_get, and the nested view ("nested", else the flat
 *               one) in lr_match_to_json's "params"; extras passed in name order, as the other suites pass them
 *   malformed   lr_router_add refuses with LR_EPATTERN, the row's whole message and its byte offset
 *               (lr_last_error_offset), nothing is added
 *   wellFormed  added, one route
 *   conflicts   LR_ECONFLICT with the row's whole message, or both added
 *
 * The table is read by Tests/C/json_reader.h (no other tool in the C test path). Run from the repository root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_reader.h"
#include "linkrouter.h"

#define TABLE "Tests/Data/semantics.json"

/* The table's size when this test was written: fewer rows means the reader or the file lost some. */
#define AT_LEAST_MATCH      75
#define AT_LEAST_MALFORMED  22
#define AT_LEAST_WELLFORMED 14
#define AT_LEAST_CONFLICTS  14

static int failures;

#define FAIL(...)                                                                                          \
    do {                                                                                                   \
        fprintf(stderr, __VA_ARGS__);                                                                      \
        fputc('\n', stderr);                                                                               \
        failures++;                                                                                        \
    } while (0)

static int same(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

/* A table of the document, as an array; exits when it is missing or not an array (a missing table fails). */
static const jv *table(const jv *doc, const char *key)
{
    const jv *t = jv_get(doc, key);
    if (!t || t->kind != JV_ARRAY) {
        fprintf(stderr, "%s: no array \"%s\"\n", TABLE, key);
        exit(1);
    }
    return t;
}

/* A string field of a row, exiting when it is not a string. */
static const char *text(const jv *v, const char *what)
{
    if (!jv_str(v)) {
        fprintf(stderr, "%s: %s is not a string\n", TABLE, what);
        exit(1);
    }
    return v->string;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *grown = realloc(buf, cap *= 2);
            if (!grown)
                free(buf);
            buf = grown;
        }
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "%s: out of memory\n", path);
        exit(1);
    }
    *len = n;
    return buf;
}

static lr_router *new_router(void)
{
    lr_router *r = NULL;
    if (lr_router_new(&r) != LR_OK) {
        fprintf(stderr, "lr_router_new: %s\n", lr_last_error());
        exit(1);
    }
    return r;
}

static size_t route_count(lr_router *r)
{
    size_t n = 0;
    if (lr_router_count(r, &n) != LR_OK)
        FAIL("lr_router_count: %s", lr_last_error());
    return n;
}

static const char *pattern_of(const jv *routes, const char *target)
{
    for (size_t i = 0; i < routes->count; i++)
        if (same(jv_str(&routes->items[i].items[1]), target))
            return routes->items[i].items[0].string;
    return NULL;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One match row on router r; `order` names the run in messages. */
static void check_match_row(lr_router *r, const jv *routes, const jv *row, const char *order)
{
    const char *url = text(jv_get(row, "url"), "a match row's url");
    const jv *target_v = jv_get(row, "target");
    const char *target = jv_str(target_v);
    const jv *params = jv_get(row, "params"), *nested = jv_get(row, "nested"), *extra = jv_get(row, "extra");
    const char *fragment = jv_str(jv_get(row, "fragment"));
    if (!target_v || (!target && target_v->kind != JV_NULL) || !params || params->kind != JV_OBJECT) {
        fprintf(stderr, "%s: the row of %s has no target or params\n", TABLE, url);
        exit(1);
    }

    /* Extras in name order, as the Go and Java suites pass them (the table's object has no order of its own). */
    size_t n_extra = extra ? extra->count : 0;
    const char **names = malloc((n_extra + 1) * sizeof *names), **values = malloc((n_extra + 1) * sizeof *values);
    if (!names || !values) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n_extra; i++)
        names[i] = extra->keys[i];
    qsort(names, n_extra, sizeof *names, by_name);
    for (size_t i = 0; i < n_extra; i++)
        values[i] = text(jv_get(extra, names[i]), "an extra");

    lr_match *m = NULL;
    int rc = lr_router_resolve_with(r, url, names, values, n_extra, &m);
    int can = lr_router_can_route(r, url);
    free(names);
    free(values);
    if (can != (target != NULL))
        FAIL("%s [%s]: lr_router_can_route = %d, want %d", url, order, can, target != NULL);
    if (!target) {
        if (rc != LR_NOMATCH)
            FAIL("%s [%s]: status %d (%s), want no match", url, order, rc, rc == LR_OK ? lr_match_target(m) : "");
        lr_match_free(m);
        return;
    }
    if (rc != LR_OK) {
        FAIL("%s [%s]: status %d (%s), want %s", url, order, rc, lr_last_error(), target);
        return;
    }
    if (!same(lr_match_target(m), target))
        FAIL("%s [%s]: target %s, want %s", url, order, lr_match_target(m), target);
    if (!same(lr_match_pattern(m), pattern_of(routes, target)))
        FAIL("%s [%s]: pattern %s, want %s", url, order, lr_match_pattern(m), pattern_of(routes, target));
    if (!same(lr_match_url(m), url) || !same(lr_match_rewritten(m), url))
        FAIL("%s [%s]: url %s rewritten %s", url, order, lr_match_url(m), lr_match_rewritten(m));
    if (fragment && !same(lr_match_fragment(m), fragment))
        FAIL("%s [%s]: fragment %s, want %s", url, order, lr_match_fragment(m), fragment);
    if (lr_match_name(m) || lr_match_metadata(m) || lr_match_meta_count(m) || lr_match_requires_count(m))
        FAIL("%s [%s]: a name, meta or guards on a route added without them", url, order);

    /* The flat view: as many parameters as the row, each with the row's value, through both getters. */
    if (lr_match_param_count(m) != params->count)
        FAIL("%s [%s]: %zu parameters, want %zu", url, order, lr_match_param_count(m), params->count);
    for (size_t i = 0; i < lr_match_param_count(m); i++) {
        const char *name = lr_match_param_name(m, i), *value = lr_match_param_value(m, i);
        if (!same(value, jv_str(jv_get(params, name ? name : ""))))
            FAIL("%s [%s]: parameter %s = %s, not in the row", url, order, name ? name : "(null)", value ? value : "(null)");
    }
    for (size_t i = 0; i < params->count; i++)
        if (!same(lr_match_get(m, params->keys[i]), jv_str(&params->items[i])))
            FAIL("%s [%s]: lr_match_get(%s) = %s, want %s", url, order, params->keys[i],
                 lr_match_get(m, params->keys[i]) ? lr_match_get(m, params->keys[i]) : "(null)",
                 jv_str(&params->items[i]) ? jv_str(&params->items[i]) : "(not a string)");

    /* The nested view, in the library's JSON of the match. */
    char *json = NULL, err[160];
    jv doc;
    if (lr_match_to_json(m, &json) != LR_OK || !jv_parse(json, strlen(json), &doc, err, sizeof err)) {
        FAIL("%s [%s]: the match's JSON: %s", url, order, json ? err : lr_last_error());
    } else {
        if (!jv_equal(jv_get(&doc, "params"), nested ? nested : params))
            FAIL("%s [%s]: JSON params differ from the row's %s: %s", url, order, nested ? "nested" : "params", json);
        if (!same(jv_str(jv_get(&doc, "target")), target) || !same(jv_str(jv_get(&doc, "url")), url))
            FAIL("%s [%s]: JSON %s", url, order, json);
        jv_free(&doc);
    }
    lr_string_free(json);
    lr_match_free(m);
}

static size_t run_match(const jv *doc)
{
    const jv *routes = table(doc, "routes"), *rows = table(doc, "match");
    size_t ran = 0;
    for (size_t i = 0; i < routes->count; i++) {
        const jv *route = &routes->items[i];
        if (route->kind != JV_ARRAY || route->count != 2 || !jv_str(&route->items[0]) || !jv_str(&route->items[1])) {
            fprintf(stderr, "%s: route %zu is not [pattern, target]\n", TABLE, i);
            exit(1);
        }
    }
    for (int reversed = 0; reversed <= 1; reversed++) {
        lr_router *r = new_router();
        for (size_t k = 0; k < routes->count; k++) {
            const jv *route = &routes->items[reversed ? routes->count - 1 - k : k];
            if (lr_router_add(r, route->items[0].string, route->items[1].string) != LR_OK)
                FAIL("add %s: %s", route->items[0].string, lr_last_error());
        }
        for (size_t i = 0; i < rows->count; i++) {
            check_match_row(r, routes, &rows->items[i], reversed ? "reversed" : "in order");
            ran++;
        }
        lr_router_free(r);
    }
    return ran;
}

static size_t run_malformed(const jv *doc)
{
    const jv *rows = table(doc, "malformed");
    size_t ran = 0;
    for (size_t i = 0; i < rows->count; i++) {
        const jv *row = &rows->items[i];
        if (row->kind != JV_ARRAY || row->count != 3 || row->items[1].kind != JV_NUMBER) {
            fprintf(stderr, "%s: malformed row %zu is not [pattern, offset, message]\n", TABLE, i);
            exit(1);
        }
        const char *pattern = text(&row->items[0], "a malformed pattern");
        const char *message = text(&row->items[2], "a malformed pattern's message");
        long long offset = (long long)row->items[1].number;
        lr_router *r = new_router();
        int rc = lr_router_add(r, pattern, "T");
        if (rc != LR_EPATTERN || !same(lr_last_error(), message) || (long long)lr_last_error_offset() != offset
            || route_count(r) != 0)
            FAIL("'%s': status %d, message \"%s\", offset %lld; want LR_EPATTERN, \"%s\", offset %lld", pattern, rc,
                 lr_last_error(), (long long)lr_last_error_offset(), message, offset);
        lr_router_free(r);
        ran++;
    }
    return ran;
}

static size_t run_well_formed(const jv *doc)
{
    const jv *rows = table(doc, "wellFormed");
    size_t ran = 0;
    for (size_t i = 0; i < rows->count; i++) {
        const char *pattern = text(&rows->items[i], "a well-formed pattern");
        lr_router *r = new_router();
        int rc = lr_router_add(r, pattern, pattern);
        if (rc != LR_OK || route_count(r) != 1)
            FAIL("'%s': status %d (%s), want one route", pattern, rc, lr_last_error());
        lr_router_free(r);
        ran++;
    }
    return ran;
}

static size_t run_conflicts(const jv *doc)
{
    const jv *rows = table(doc, "conflicts");
    size_t ran = 0;
    for (size_t i = 0; i < rows->count; i++) {
        const jv *row = &rows->items[i];
        if (row->kind != JV_ARRAY || row->count != 4
            || !(row->items[2].kind == JV_TRUE ? jv_str(&row->items[3]) != NULL
                                                : row->items[2].kind == JV_FALSE && row->items[3].kind == JV_NULL)) {
            fprintf(stderr, "%s: conflict row %zu is not [existing, new, true, message] or [existing, new, false, null]\n",
                    TABLE, i);
            exit(1);
        }
        int conflicts = row->items[2].kind == JV_TRUE;
        const char *existing = text(&row->items[0], "a conflict's pattern"), *added = text(&row->items[1], "a pattern");
        lr_router *r = new_router();
        if (lr_router_add(r, existing, "old") != LR_OK)
            FAIL("'%s': %s", existing, lr_last_error());
        int rc = lr_router_add(r, added, "new");
        size_t n = route_count(r);
        if (conflicts) {
            const char *message = row->items[3].string;
            if (rc != LR_ECONFLICT || !same(lr_last_error(), message) || n != 1)
                FAIL("'%s' then '%s': status %d (%s), %zu routes; want a conflict, \"%s\"", existing, added, rc,
                     lr_last_error(), n, message);
        } else if (rc != LR_OK || n != 2) {
            FAIL("'%s' then '%s': status %d (%s), %zu routes; want both", existing, added, rc, lr_last_error(), n);
        }
        lr_router_free(r);
        ran++;
    }
    return ran;
}

int main(void)
{
    size_t len;
    char *text_ = read_file(TABLE, &len), err[160];
    jv doc;
    if (!jv_parse(text_, len, &doc, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", TABLE, err);
        return 1;
    }
    size_t rows = table(&doc, "match")->count, malformed = table(&doc, "malformed")->count;
    size_t well = table(&doc, "wellFormed")->count, conflicts = table(&doc, "conflicts")->count;
    size_t ran_match = run_match(&doc), ran_malformed = run_malformed(&doc);
    size_t ran_well = run_well_formed(&doc), ran_conflicts = run_conflicts(&doc);

    /* Every row ran (twice for match rows), and the table has not lost rows. */
    if (ran_match != 2 * rows || ran_malformed != malformed || ran_well != well || ran_conflicts != conflicts)
        FAIL("ran %zu match, %zu malformed, %zu well-formed, %zu conflict rows of %zu, %zu, %zu, %zu", ran_match,
             ran_malformed, ran_well, ran_conflicts, rows, malformed, well, conflicts);
    if (rows < AT_LEAST_MATCH || malformed < AT_LEAST_MALFORMED || well < AT_LEAST_WELLFORMED ||
        conflicts < AT_LEAST_CONFLICTS)
        FAIL("%s has %zu match, %zu malformed, %zu well-formed and %zu conflict rows: fewer than %d, %d, %d, %d",
             TABLE, rows, malformed, well, conflicts, AT_LEAST_MATCH, AT_LEAST_MALFORMED, AT_LEAST_WELLFORMED,
             AT_LEAST_CONFLICTS);
    jv_free(&doc);
    free(text_);
    if (failures) {
        fprintf(stderr, "test_semantics: %d failures\n", failures);
        return 1;
    }
    printf("test_semantics: %zu match rows (%zu in order, %zu reversed), %zu malformed, %zu well-formed, "
           "%zu conflicts: all as the table says\n", ran_match, rows, rows, ran_malformed, ran_well, ran_conflicts);
    return 0;
}
