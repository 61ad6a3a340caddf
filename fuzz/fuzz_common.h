/*
 * fuzz_common.h -- helpers shared by the libFuzzer harnesses in fuzz/: invariant checks that abort with a
 * readable message, a strict UTF-8 validator, a small JSON validator, a clock (for information only: nothing fails
 * on time), and an input splitter.
 *
 * Every harness links against liblinkrouter.so built with -sanitize=fuzzer,address (see fuzz/README.md), so an
 * out-of-bounds read in the library is an ASan report, a trap in the Swift core is a crash, and a broken
 * invariant here is an abort(): all three stop libFuzzer and leave a reproducer.
 */
#ifndef LINKROUTER_FUZZ_COMMON_H
#define LINKROUTER_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "linkrouter.h"
#include "utf8_oracle.h"  /* Tests/C: the tests' reference for strict UTF-8 */

/* A broken invariant: say which, with the input's context, and abort so libFuzzer keeps the reproducer. */
#define FUZZ_CHECK(cond, ...)                                                                          \
    do {                                                                                               \
        if (!(cond)) {                                                                                 \
            fprintf(stderr, "\n*** %s:%d: invariant failed: %s\n    ", __FILE__, __LINE__, #cond);     \
            fprintf(stderr, __VA_ARGS__);                                                              \
            fprintf(stderr, "\n    lr_last_error: %s\n", lr_last_error());                             \
            abort();                                                                                   \
        }                                                                                              \
    } while (0)

/* No harness fails on time: PCRE2's step limits and the library's other limits bound the work, and a hang is
   libFuzzer's -timeout (mk/reliability.mk). A lookup slower than this is printed for information only. */
#define FUZZ_SLOW_NS (1000LL * 1000 * 1000)

static inline long long fuzz_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline int fuzz_valid_cstr(const char *s)
{
    return s && utf8_valid((const unsigned char *)s, strlen(s));
}

/* ---- A small JSON validator (RFC 8259), enough to prove lr_match_to_json escapes untrusted text. ---- */

typedef struct { const char *p, *end; int depth; } fuzz_json;

static int fuzz_json_value(fuzz_json *j);

static void fuzz_json_ws(fuzz_json *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

static int fuzz_json_string(fuzz_json *j)
{
    if (j->p >= j->end || *j->p != '"') return 0;
    j->p++;
    const char *start = j->p;
    while (j->p < j->end) {
        unsigned char c = (unsigned char)*j->p;
        if (c == '"') {
            int ok = utf8_valid((const unsigned char *)start, (size_t)(j->p - start));
            j->p++;
            return ok;
        }
        if (c < 0x20) return 0; /* control characters must be escaped */
        if (c == '\\') {
            j->p++;
            if (j->p >= j->end) return 0;
            char e = *j->p;
            if (e == 'u') {
                for (int k = 1; k <= 4; k++) {
                    if (j->p + k >= j->end) return 0;
                    char h = j->p[k];
                    if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F'))) return 0;
                }
                j->p += 4;
            } else if (!strchr("\"\\/bfnrt", e) || e == 0) {
                return 0;
            }
        }
        j->p++;
    }
    return 0;
}

static int fuzz_json_value(fuzz_json *j)
{
    if (++j->depth > 200) return 0;
    fuzz_json_ws(j);
    if (j->p >= j->end) return 0;
    int ok = 1;
    char c = *j->p;
    if (c == '"') {
        ok = fuzz_json_string(j);
    } else if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        j->p++;
        fuzz_json_ws(j);
        if (j->p < j->end && *j->p == close) {
            j->p++;
        } else {
            for (;;) {
                if (c == '{') {
                    fuzz_json_ws(j);
                    if (!fuzz_json_string(j)) return 0;
                    fuzz_json_ws(j);
                    if (j->p >= j->end || *j->p != ':') return 0;
                    j->p++;
                }
                if (!fuzz_json_value(j)) return 0;
                fuzz_json_ws(j);
                if (j->p >= j->end) return 0;
                if (*j->p == ',') { j->p++; continue; }
                if (*j->p == close) { j->p++; break; }
                return 0;
            }
        }
    } else if (j->end - j->p >= 4 && memcmp(j->p, "null", 4) == 0) {
        j->p += 4;
    } else if (j->end - j->p >= 4 && memcmp(j->p, "true", 4) == 0) {
        j->p += 4;
    } else if (j->end - j->p >= 5 && memcmp(j->p, "false", 5) == 0) {
        j->p += 5;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        while (j->p < j->end && strchr("-+0123456789.eE", *j->p)) j->p++;
    } else {
        ok = 0;
    }
    j->depth--;
    return ok;
}

/* 1 when `s` is exactly one JSON object (and nothing after it). */
static inline int fuzz_valid_json_object(const char *s)
{
    if (!s) return 0;
    fuzz_json j = {s, s + strlen(s), 0};
    fuzz_json_ws(&j);
    if (j.p >= j.end || *j.p != '{') return 0;
    if (!fuzz_json_value(&j)) return 0;
    fuzz_json_ws(&j);
    return j.p == j.end;
}

/* ---- Splitting an input into NUL-terminated pieces. ---- */

/* Copies data[0..n) into a fresh NUL-terminated buffer (the library reads C strings up to their first NUL). */
static inline char *fuzz_strndup(const uint8_t *data, size_t n)
{
    char *s = malloc(n + 1);
    if (!s) abort();
    if (n) memcpy(s, data, n);
    s[n] = 0;
    return s;
}

/* Splits `data` on `sep` into at most `max` NUL-terminated pieces (the last one takes the rest).
   Returns the number of pieces; free each with free(). */
static inline size_t fuzz_split(const uint8_t *data, size_t n, uint8_t sep, char **pieces, size_t max)
{
    size_t count = 0, start = 0;
    for (size_t i = 0; i <= n && count < max; i++) {
        if (i == n || (data[i] == sep && count + 1 < max)) {
            pieces[count++] = fuzz_strndup(data + start, i - start);
            start = i + 1;
        }
    }
    return count;
}

/* Prints bytes with escapes, for messages about failing inputs. */
static inline void fuzz_dump(const char *label, const void *data, size_t n)
{
    const unsigned char *s = data;
    fprintf(stderr, "%s (%zu bytes): \"", label, n);
    for (size_t i = 0; i < n && i < 400; i++) {
        if (s[i] >= 0x20 && s[i] < 0x7F && s[i] != '"' && s[i] != '\\') fputc(s[i], stderr);
        else fprintf(stderr, "\\x%02x", s[i]);
    }
    fprintf(stderr, "%s\"\n", n > 400 ? "..." : "");
}

#endif
