/*
 * fuzz_rewrite.c -- target (c): rewrite rules (PCRE2 regexes and templates) from an untrusted server.
 *
 * The input is split on '\n'. The first line's first byte picks how many of the next lines are rules (1-4);
 * each rule line is "regex" or "regex\ttemplate"; the lines after the rules are URLs (a few fixed URLs are always
 * added, among them long runs of 'a' that catastrophic regexes choke on).
 *   - lr_router_add_rewrite returns a documented code with a readable message, and a refusal changes nothing;
 *   - every URL's lr_router_rewrite returns a documented code: the match and depth limits must stop a
 *     catastrophic regex (LR_ELIMIT), never hang (a hang is libFuzzer's -timeout; a slow call is printed, for
 *     information only); the output is UTF-8 and no longer than the URL limit;
 *   - which rule fires is checked against a reference written here with PCRE2 itself: rules are tried in the
 *     order added and the first whose regex is found anywhere in the URL wins. Rules without a template get
 *     the template "rule://<n>", so the output names the rule the library chose (this checks the rule index
 *     the library uses to skip rules, against plain first-match order);
 *   - lr_router_resolve of the rewritten URLs (a catch-all route takes them) returns a documented code;
 *   - removing every rule added leaves a router that rewrites nothing.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "fuzz_common.h"

#define MAX_RULES 4
#define URL_LIMIT 4096

struct rule {
    char *regex;
    const char *template;
    char own_template[32];
    pcre2_code *code; /* the reference's compiled copy */
    int constant;     /* the template is "rule://<n>": its output names the rule */
};

static pcre2_match_context *match_context;
static pcre2_match_data *match_data;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    match_context = pcre2_match_context_create(NULL);
    match_data = pcre2_match_data_create(64, NULL);
    /* The library's defaults (LR_LIMIT_REGEX_MATCH 10000, LR_LIMIT_REGEX_DEPTH 1000), set explicitly below. */
    pcre2_set_match_limit(match_context, 10000);
    pcre2_set_depth_limit(match_context, 1000);
    return 0;
}

/* The reference: the first rule (in order) whose regex is found in the URL. -1 none, -2 a limit was hit
   (JIT and interpreter count steps differently, so limit cases are not compared). */
static int reference_rule(struct rule *rules, size_t count, const char *url)
{
    for (size_t i = 0; i < count; i++) {
        if (!rules[i].code) continue;
        int rc = pcre2_match(rules[i].code, (PCRE2_SPTR)url, strlen(url), 0, 0, match_data, match_context);
        if (rc >= 0) return (int)i;
        if (rc != PCRE2_ERROR_NOMATCH) return -2;
    }
    return -1;
}

static void check_rewrite(lr_router *r, struct rule *rules, size_t count, const char *url)
{
    char *out = (char *)1;
    long long t0 = fuzz_now_ns();
    int rc = lr_router_rewrite(r, url, &out);
    long long dt = fuzz_now_ns() - t0;
    if (dt > FUZZ_SLOW_NS) { /* information only: libFuzzer's -timeout fails a hang */
        fprintf(stderr, "fuzz_rewrite: (information) lr_router_rewrite took %lld ms with\n", dt / 1000000);
        for (size_t i = 0; i < count; i++) fprintf(stderr, "rule %zu: %s\n", i, rules[i].regex);
        fuzz_dump("url", url, strlen(url));
    }
    FUZZ_CHECK(rc == LR_OK || rc == LR_NOMATCH || rc == LR_ELIMIT || rc == LR_EINVAL,
               "lr_router_rewrite returned undocumented %d", rc);
    FUZZ_CHECK((rc == LR_OK) == (out != NULL), "rc %d with out %p", rc, (void *)out);
    if (rc < 0) FUZZ_CHECK(*lr_last_error() && fuzz_valid_cstr(lr_last_error()), "no readable message for %d", rc);
    if (rc == LR_OK) {
        if (!fuzz_valid_cstr(out)) fuzz_dump("output", out, strlen(out));
        FUZZ_CHECK(fuzz_valid_cstr(out), "rewritten URL is not UTF-8");
        FUZZ_CHECK(strlen(out) <= URL_LIMIT, "rewritten URL of %zu bytes passed the limit", strlen(out));
    }
    if (!fuzz_valid_cstr(url)) {
        FUZZ_CHECK(rc == LR_EINVAL, "a URL that is not UTF-8 gave %d", rc);
    } else if (rc == LR_OK || rc == LR_NOMATCH) {
        int want = reference_rule(rules, count, url);
        if (want != -2) {
            int ok;
            if (want == -1) ok = rc == LR_NOMATCH;
            else if (rules[want].constant) ok = rc == LR_OK && strcmp(out, rules[want].own_template) == 0;
            else ok = rc == LR_OK;
            if (!ok) {
                for (size_t i = 0; i < count; i++)
                    fprintf(stderr, "rule %zu: %s -> %s%s\n", i, rules[i].regex, rules[i].template,
                            rules[i].code ? "" : " (refused)");
                fuzz_dump("url", url, strlen(url));
            }
            FUZZ_CHECK(ok, "the library gave %d (%s), the reference says rule %d", rc, rc == LR_OK ? out : "-", want);
        }
    }
    /* The rewritten URL routes (or is refused) with a documented code. */
    lr_match *m = NULL;
    int mrc = lr_router_resolve(r, url, &m);
    FUZZ_CHECK(mrc == LR_OK || mrc == LR_NOMATCH || mrc == LR_ELIMIT || mrc == LR_EINVAL,
               "resolve after rewrite returned undocumented %d", mrc);
    if (mrc == LR_OK && rc == LR_OK) FUZZ_CHECK(strcmp(lr_match_rewritten(m), out) == 0, "rewritten differs");
    lr_match_free(m);
    if (rc == LR_OK) lr_string_free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *line[16] = {0};
    size_t lines = fuzz_split(data, size, '\n', line, 16);
    size_t nrules = lines > 1 ? 1 + (size_t)((unsigned char)line[0][0] % MAX_RULES) : 0;
    if (nrules > lines - 1) nrules = lines - 1;

    lr_router *r;
    FUZZ_CHECK(lr_router_new(&r) == LR_OK, "lr_router_new");
    FUZZ_CHECK(lr_router_add(r, "*://*rest", "Any") == LR_OK, "catch-all");
    FUZZ_CHECK(lr_router_set_limit(r, LR_LIMIT_URL_LENGTH, URL_LIMIT) == LR_OK, "set_limit");
    FUZZ_CHECK(lr_router_set_limit(r, LR_LIMIT_REGEX_MATCH, 10000) == LR_OK, "set_limit");
    FUZZ_CHECK(lr_router_set_limit(r, LR_LIMIT_REGEX_DEPTH, 1000) == LR_OK, "set_limit");

    struct rule rules[MAX_RULES];
    size_t count = 0;
    for (size_t i = 0; i < nrules; i++) {
        struct rule *ru = &rules[count];
        memset(ru, 0, sizeof *ru);
        ru->regex = line[1 + i];
        char *tab = strchr(ru->regex, '\t');
        snprintf(ru->own_template, sizeof ru->own_template, "rule://%zu", count);
        if (tab) {
            *tab = 0;
            ru->template = tab + 1;
        } else {
            ru->template = ru->own_template;
            ru->constant = 1;
        }
        int rc = lr_router_add_rewrite(r, ru->regex, ru->template);
        FUZZ_CHECK(rc == LR_OK || rc == LR_EREGEX || rc == LR_EPATTERN || rc == LR_EINVAL,
                   "lr_router_add_rewrite returned undocumented %d", rc);
        if (rc != LR_OK) {
            const char *e = lr_last_error();
            FUZZ_CHECK(*e && fuzz_valid_cstr(e), "refusal %d without a readable message", rc);
            if (rc == LR_EREGEX || rc == LR_EPATTERN) FUZZ_CHECK(strstr(e, "byte") != NULL, "no offset: %s", e);
            continue;
        }
        /* A regex added again replaces the earlier rule's template in place. */
        for (size_t k = 0; k < count; k++)
            if (rules[k].code && strcmp(rules[k].regex, ru->regex) == 0) {
                memcpy(rules[k].own_template, ru->own_template, sizeof ru->own_template);
                rules[k].constant = ru->constant;
                rules[k].template = ru->constant ? rules[k].own_template : ru->template;
                ru = NULL;
                break;
            }
        if (!ru) continue;
        int err;
        PCRE2_SIZE off;
        ru->code = pcre2_compile((PCRE2_SPTR)ru->regex, strlen(ru->regex), PCRE2_UTF | PCRE2_NEVER_BACKSLASH_C, &err,
                                 &off, NULL);
        FUZZ_CHECK(ru->code != NULL, "the library compiled a regex that PCRE2 refuses: %s", ru->regex);
        pcre2_jit_compile(ru->code, PCRE2_JIT_COMPLETE);
        count++;
    }

    static const char *const fixed[] = {
        "app://user/42?tab=posts#top",
        "https://www.example.com/search/%E5%8E%9F%E5%AD%90?q=1",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab",
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxz",
        "",
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) check_rewrite(r, rules, count, fixed[i]);
    for (size_t i = 1 + nrules; i < lines; i++) check_rewrite(r, rules, count, line[i]);

    /* Remove every rule: nothing rewrites any more. */
    for (size_t i = 0; i < count; i++) {
        int rc = lr_router_remove_rewrite(r, rules[i].regex);
        FUZZ_CHECK(rc == LR_OK, "removing rule %zu (%s): %d", i, rules[i].regex, rc);
        pcre2_code_free(rules[i].code);
    }
    char *out = NULL;
    int rc = lr_router_rewrite(r, fixed[0], &out);
    FUZZ_CHECK(rc == LR_NOMATCH && out == NULL, "rewrite after removing every rule: %d", rc);
    lr_router_free(r);
    for (size_t i = 0; i < lines; i++) free(line[i]);
    return 0;
}
