/*
 * fuzz_table.c -- target (e): route table documents from an untrusted server (docs/TABLES.md).
 *
 * The input is a table document, any bytes. Into a router that already holds a base table:
 *   - lr_router_check_json and lr_router_load_json give the same status (merge and replace), and on LR_ETABLE
 *     the same message, one problem per line, each "<pointer>: <reason>" with a pointer that starts with "/" (or
 *     a document-level reason); the check report is one JSON object;
 *   - a refused load changes nothing: the export is byte-identical and the base routes still answer;
 *   - an accepted load round-trips: export, load into a fresh router, export again gives the same bytes; an
 *     accepted merge keeps the base route (found by name: the merged rules and routes may take its URL);
 *   - explain of a few URLs returns one JSON object whose "result" agrees with lr_router_resolve's status;
 *   - every call returns a documented code (a hang is libFuzzer's -timeout, not a time check here).
 */
#include "fuzz_common.h"

static const char base[] =
    "{\"version\": 1, \"routes\": [{\"pattern\": \"base://user/:id\", \"target\": \"User\", \"name\": \"user\"},"
    " {\"pattern\": \"base://files/*path\", \"target\": \"Files\"}], \"rewrites\": [{\"match\": \"^old://u/(\\\\d+)\","
    " \"target\": \"base://user/$1\"}]}";

static const char *const probes[] = {"base://user/42", "old://u/7", "app://x/y?z=1", "https://a.example.com/p/1", "nourl"};

static lr_router *fresh(void)
{
    lr_router *r = NULL;
    FUZZ_CHECK(lr_router_new(&r) == LR_OK, "lr_router_new");
    FUZZ_CHECK(lr_router_load_json(r, base, strlen(base), LR_LOAD_REPLACE) == LR_OK, "base table");
    return r;
}

static char *export_of(lr_router *r)
{
    char *json = NULL;
    FUZZ_CHECK(lr_router_to_json(r, &json) == LR_OK && json, "lr_router_to_json");
    return json;
}

static void check_base_answers(lr_router *r)
{
    lr_match *m = NULL;
    FUZZ_CHECK(lr_router_resolve(r, "base://user/42", &m) == LR_OK && strcmp(lr_match_target(m), "User") == 0,
               "the base table no longer answers");
    lr_match_free(m);
}

/* After a merge the base route is still there, under its name. (Its URL may now go elsewhere: a merged rule may
   rewrite it, a merged literal route may take it; so it is found by name, not resolved.) */
static void check_base_route_kept(lr_router *r)
{
    const char *names[] = {"id"}, *values[] = {"42"};
    char *url = NULL;
    FUZZ_CHECK(lr_router_build_url(r, "user", names, values, 1, &url) == LR_OK && strcmp(url, "base://user/42") == 0,
               "a merge lost the base route named user (%s)", url ? url : lr_last_error());
    lr_string_free(url);
}

/* Every line of a LR_ETABLE message is "<pointer>: <reason>" or a document-level reason; none is empty. */
static void check_problem_lines(const char *message)
{
    FUZZ_CHECK(fuzz_valid_cstr(message) && *message, "empty or invalid message");
    const char *line = message;
    while (line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        FUZZ_CHECK(len > 0, "an empty problem line in: %s", message);
        for (size_t i = 0; i < len; i++) FUZZ_CHECK((unsigned char)line[i] >= 0x20 || line[i] == '\t', "a control byte in a line");
        line = end ? end + 1 : NULL;
    }
}

static void one_mode(const uint8_t *data, size_t size, int flags)
{
    lr_router *r = fresh();
    char *before = export_of(r);
    char *report = NULL;

    int checked = lr_router_check_json(r, (const char *)data, size, flags, &report);
    char *check_message = checked == LR_ETABLE ? strdup(lr_last_error()) : NULL;
    int loaded = lr_router_load_json(r, (const char *)data, size, flags);

    FUZZ_CHECK(loaded == LR_OK || loaded == LR_ETABLE || loaded == LR_EINVAL || loaded == LR_ELIMIT,
               "lr_router_load_json returned %d", loaded);
    FUZZ_CHECK(checked == loaded, "check says %d, load says %d", checked, loaded);
    if (checked == LR_OK || checked == LR_ETABLE) {
        FUZZ_CHECK(fuzz_valid_json_object(report), "the check report is not one JSON object: %s", report ? report : "(null)");
    } else {
        FUZZ_CHECK(report == NULL, "a report with status %d", checked);
    }

    char *after = export_of(r);
    if (loaded != LR_OK) {
        FUZZ_CHECK(strcmp(before, after) == 0, "a refused load (%d) changed the table", loaded);
        check_base_answers(r);
        if (loaded == LR_ETABLE) {
            check_problem_lines(lr_last_error());
            FUZZ_CHECK(strcmp(check_message, lr_last_error()) == 0, "check and load list different problems:\n%s\n--\n%s",
                       check_message, lr_last_error());
        }
    } else {
        /* Round trip: export -> load -> export gives the same bytes. */
        lr_router *again = NULL;
        FUZZ_CHECK(lr_router_new(&again) == LR_OK, "lr_router_new");
        int rc = lr_router_load_json(again, after, strlen(after), LR_LOAD_REPLACE);
        FUZZ_CHECK(rc == LR_OK, "the export does not load (%d): %s", rc, after);
        char *twice = export_of(again);
        FUZZ_CHECK(strcmp(after, twice) == 0, "export -> load -> export differs:\n%s\n--\n%s", after, twice);
        lr_string_free(twice);
        lr_router_free(again);
        if (flags == LR_LOAD_MERGE) check_base_route_kept(r);
    }

    /* Explain agrees with resolve on the result. */
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        char *json = NULL;
        lr_match *m = NULL;
        int resolved = lr_router_resolve(r, probes[i], &m);
        lr_match_free(m);
        FUZZ_CHECK(lr_router_explain(r, probes[i], &json) == LR_OK, "explain %s", probes[i]);
        FUZZ_CHECK(fuzz_valid_json_object(json), "explain is not one JSON object: %s", json);
        const char *want = resolved == LR_OK ? "\"result\":\"matched\"" : resolved == LR_NOMATCH ? "\"result\":\"nomatch\"" : "\"result\":\"error\"";
        FUZZ_CHECK(strstr(json, want) != NULL, "resolve %s gave %d but explain says: %s", probes[i], resolved, json);
        lr_string_free(json);
    }
    /* URL building by name: a documented code whatever the table holds. */
    const char *names[] = {"id", "?q"}, *values[] = {"4 2", "a&b"};
    char *url = NULL;
    int built = lr_router_build_url(r, "user", names, values, 2, &url);
    FUZZ_CHECK(built == LR_OK || built == LR_ENOTFOUND || built == LR_EINVAL || built == LR_ELIMIT, "build_url gave %d", built);
    FUZZ_CHECK((built == LR_OK) == (url != NULL), "build_url's out");
    lr_string_free(url);

    free(check_message);
    lr_string_free(report);
    lr_string_free(before);
    lr_string_free(after);
    lr_router_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    one_mode(data, size, LR_LOAD_REPLACE);
    one_mode(data, size, LR_LOAD_MERGE);
    return 0;
}
