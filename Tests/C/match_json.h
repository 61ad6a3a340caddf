/*
 * match_json.h -- the strings the C tests build to compare a match's JSON whole (lr_match_to_json): `repeat` for
 * long and deeply nested inputs, and the JSON a match of app://user/:id by app://user/1?... writes. Shared by
 * test_badinput.c and test_extremes.c, which both check query keys nested up to the nesting limit and past it.
 */
#ifndef LINKROUTER_MATCH_JSON_H
#define LINKROUTER_MATCH_JSON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A string made of a head, `count` copies of a unit, and a tail (malloc'd; the process exits when out of memory). */
static char *repeat(const char *head, const char *unit, size_t count, const char *tail)
{
    size_t h = strlen(head), u = strlen(unit), t = strlen(tail);
    char *s = malloc(h + u * count + t + 1);
    if (!s) { fprintf(stderr, "out of memory\n"); exit(2); }
    memcpy(s, head, h);
    for (size_t i = 0; i < count; i++) memcpy(s + h + i * u, unit, u);
    memcpy(s + h + u * count, tail, t + 1);
    return s;
}

/* The JSON of a match of app://user/:id by `url` (app://user/1?...): `params` after the id, and `query`. */
static char *user1_json(const char *url, const char *params, const char *query)
{
    size_t cap = 2 * strlen(url) + strlen(params) + strlen(query) + 256;
    char *s = malloc(cap);
    if (!s) { fprintf(stderr, "out of memory\n"); exit(2); }
    snprintf(s, cap,
             "{\"target\":\"User\",\"pattern\":\"app://user/:id\",\"url\":\"%s\",\"rewritten\":\"%s\",\"scheme\":\"app\","
             "\"host\":\"user\",\"port\":\"\",\"path\":\"/1\",\"fragment\":\"\",\"params\":{\"id\":\"1\",%s},\"query\":%s}",
             url, url, params, query);
    return s;
}

/* The JSON of a match by `url`, app://user/1?k followed by `levels` "[x]" and "=v", when the key is deeper than the
   nesting limit: the key stays flat, as written, in params and in query. */
static char *user1_flat_json(const char *url, size_t levels)
{
    char *key = repeat("k", "[x]", levels, "");
    char *params = repeat("\"", key, 1, "\":\"v\""), *query = repeat("[[\"", key, 1, "\",\"v\"]]");
    char *json = user1_json(url, params, query);
    free(key);
    free(params);
    free(query);
    return json;
}

#endif
