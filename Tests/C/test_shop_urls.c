/*
 * test_shop_urls.c -- the same table, the same answers: resolves every URL of Tests/Data/shop-urls.txt against
 * examples/tables/shop.json and holds the output, one line per URL, to Tests/Data/shop-urls.expected, byte for
 * byte. The Swift, Python, Go and Java suites hold their own output to the same file, so all five agree.
 *
 *     build/tests/test_shop_urls            check (run from the repository root)
 *     build/tests/test_shop_urls --print    write the lines to stdout (to regenerate the expected file)
 *
 * A line is lr_match_to_json's text for a match, "nomatch <url>" when no route matches, and "error <code> <url>"
 * when the URL is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linkrouter.h"

#define TABLE    "examples/tables/shop.json"
#define URLS     "Tests/Data/shop-urls.txt"
#define EXPECTED "Tests/Data/shop-urls.expected"

/* The lines of a file without their "\n"; NULL (with a message) when it cannot be read. */
typedef struct lines {
    char  **items;
    size_t  count;
} lines;

static int read_lines(const char *path, lines *out)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 0;
    }
    char  *line = NULL;
    size_t cap = 0, room = 0;
    ssize_t n;
    out->items = NULL;
    out->count = 0;
    while ((n = getline(&line, &cap, f)) >= 0) {
        if (n > 0 && line[n - 1] == '\n')
            line[--n] = '\0';
        if (out->count == room) {
            room = room ? 2 * room : 64;
            char **grown = realloc(out->items, room * sizeof *grown);
            if (!grown) {
                fprintf(stderr, "%s: out of memory\n", path);
                exit(1);
            }
            out->items = grown;
        }
        out->items[out->count] = strdup(line);
        if (!out->items[out->count]) {
            fprintf(stderr, "%s: out of memory\n", path);
            exit(1);
        }
        out->count++;
    }
    free(line);
    fclose(f);
    return 1;
}

static void free_lines(lines *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->items[i]);
    free(l->items);
}

/* Blank lines and comments are not URLs. */
static int is_url(const char *line) { return line[0] != '\0' && line[0] != '#'; }

/* The line for one URL, in a new string. */
static char *answer(lr_router *r, const char *url)
{
    lr_match *m = NULL;
    char *json = NULL, *line;
    int rc = lr_router_resolve(r, url, &m);
    if (rc == LR_OK) {
        if (lr_match_to_json(m, &json) != LR_OK) {
            fprintf(stderr, "lr_match_to_json: %s\n", lr_last_error());
            exit(1);
        }
        line = strdup(json);
        lr_string_free(json);
        lr_match_free(m);
    } else {
        size_t size = strlen(url) + 32;
        line = malloc(size);
        if (line) {
            if (rc == LR_NOMATCH)
                snprintf(line, size, "nomatch %s", url);
            else
                snprintf(line, size, "error %d %s", rc, url);
        }
    }
    if (!line) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return line;
}

int main(int argc, char **argv)
{
    int print = argc > 1 && strcmp(argv[1], "--print") == 0;
    lines urls, expected = {NULL, 0};
    lr_router *r = NULL;
    if (!read_lines(URLS, &urls) || (!print && !read_lines(EXPECTED, &expected)))
        return 1;
    if (lr_router_new(&r) != LR_OK || lr_router_load_file(r, TABLE, LR_LOAD_REPLACE) != LR_OK) {
        fprintf(stderr, "%s: %s\n", TABLE, lr_last_error());
        return 1;
    }

    int failures = 0;
    size_t resolved = 0;
    for (size_t i = 0; i < urls.count; i++) {
        if (!is_url(urls.items[i]))
            continue;
        char *line = answer(r, urls.items[i]);
        if (print) {
            printf("%s\n", line);
        } else if (resolved >= expected.count) {
            fprintf(stderr, "%s: no line for URL %zu (%s)\n", EXPECTED, resolved + 1, urls.items[i]);
            failures++;
        } else if (strcmp(line, expected.items[resolved]) != 0) {
            fprintf(stderr, "%s line %zu (%s):\n  got      %s\n  expected %s\n", EXPECTED, resolved + 1,
                    urls.items[i], line, expected.items[resolved]);
            failures++;
        }
        free(line);
        resolved++;
    }
    if (!print) {
        /* Every expected line was compared: as many lines as URLs, and at least the ~20 the list has. */
        if (expected.count != resolved || resolved < 20) {
            fprintf(stderr, "%zu URLs in %s, %zu lines in %s\n", resolved, URLS, expected.count, EXPECTED);
            failures++;
        }
        if (failures == 0)
            printf("test_shop_urls: %zu URLs, every line as expected\n", resolved);
    }
    free_lines(&urls);
    free_lines(&expected);
    lr_router_free(r);
    return failures ? 1 : 0;
}
