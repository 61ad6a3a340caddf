/*
 * json_reader.h -- a small strict JSON reader (RFC 8259) for the C tests, so that they read the tables the Swift,
 * Python, Go and Java suites read (Tests/Data/semantics.json) and the library's own JSON, with no other tool in
 * the C test path. Values become a tree of jv nodes: objects keep their keys in order, strings are NUL-terminated
 * UTF-8 (\u escapes and surrogate pairs decoded; "\u0000" is refused, as C strings cannot carry it).
 *
 *     jv doc;
 *     char err[128];
 *     if (!jv_parse(text, len, &doc, err, sizeof err)) fail(err);
 *     const jv *routes = jv_get(&doc, "routes");
 *     jv_free(&doc);
 *
 * For tests only: it allocates with malloc and exits on out-of-memory.
 */
#ifndef LR_TEST_JSON_READER_H
#define LR_TEST_JSON_READER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { JV_NULL, JV_FALSE, JV_TRUE, JV_NUMBER, JV_STRING, JV_ARRAY, JV_OBJECT } jv_kind;

typedef struct jv {
    jv_kind     kind;
    double      number;  /* JV_NUMBER */
    char       *string;  /* JV_STRING */
    struct jv  *items;   /* JV_ARRAY, JV_OBJECT: the values */
    char      **keys;    /* JV_OBJECT: keys[i] names items[i] */
    size_t      count;   /* JV_ARRAY, JV_OBJECT */
} jv;

typedef struct jv_reader {
    const char *text;
    size_t      len, at;
    char       *err;
    size_t      errcap;
} jv_reader;

#define JV_MAX_DEPTH 64

static void *jv_alloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "json_reader: out of memory\n");
        exit(1);
    }
    return q;
}

static int jv_fail(jv_reader *r, const char *what)
{
    snprintf(r->err, r->errcap, "malformed JSON at byte %zu: %s", r->at, what);
    return 0;
}

static void jv_space(jv_reader *r)
{
    while (r->at < r->len && strchr(" \t\r\n", r->text[r->at]) && r->text[r->at] != '\0')
        r->at++;
}

static int jv_peek(jv_reader *r, char c) { return r->at < r->len && r->text[r->at] == c; }

static int jv_hex4(jv_reader *r, unsigned *out)
{
    unsigned v = 0;
    if (r->len - r->at < 4)
        return jv_fail(r, "a short \\u escape");
    for (int i = 0; i < 4; i++) {
        char c = r->text[r->at++];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return jv_fail(r, "a malformed \\u escape");
    }
    *out = v;
    return 1;
}

/* Appends code point cp as UTF-8. */
static void jv_put(char **buf, size_t *n, size_t *cap, unsigned cp)
{
    unsigned char b[4];
    size_t k;
    if (cp < 0x80) { b[0] = (unsigned char)cp; k = 1; }
    else if (cp < 0x800) { b[0] = (unsigned char)(0xC0 | cp >> 6); b[1] = (unsigned char)(0x80 | (cp & 0x3F)); k = 2; }
    else if (cp < 0x10000) {
        b[0] = (unsigned char)(0xE0 | cp >> 12); b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        b[2] = (unsigned char)(0x80 | (cp & 0x3F)); k = 3;
    } else {
        b[0] = (unsigned char)(0xF0 | cp >> 18); b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
        b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F)); b[3] = (unsigned char)(0x80 | (cp & 0x3F)); k = 4;
    }
    if (*n + k + 1 > *cap) {
        *cap = 2 * (*n + k + 1);
        *buf = jv_alloc(*buf, *cap);
    }
    memcpy(*buf + *n, b, k);
    *n += k;
}

static int jv_string(jv_reader *r, char **out)
{
    size_t n = 0, cap = 16;
    char *buf = jv_alloc(NULL, cap);
    r->at++; /* the opening quote */
    for (;;) {
        if (r->at >= r->len) {
            free(buf);
            return jv_fail(r, "an unterminated string");
        }
        unsigned char c = (unsigned char)r->text[r->at++];
        unsigned cp = c;
        if (c == '"')
            break;
        if (c < 0x20) {
            free(buf);
            return jv_fail(r, "a control character in a string");
        }
        if (c == '\\') {
            if (r->at >= r->len) {
                free(buf);
                return jv_fail(r, "an unterminated escape");
            }
            char e = r->text[r->at++];
            switch (e) {
            case '"': cp = '"'; break;
            case '\\': cp = '\\'; break;
            case '/': cp = '/'; break;
            case 'b': cp = '\b'; break;
            case 'f': cp = '\f'; break;
            case 'n': cp = '\n'; break;
            case 'r': cp = '\r'; break;
            case 't': cp = '\t'; break;
            case 'u':
                if (!jv_hex4(r, &cp)) {
                    free(buf);
                    return 0;
                }
                if (cp >= 0xD800 && cp < 0xDC00) { /* a high surrogate: a low one must follow */
                    unsigned low;
                    if (r->len - r->at < 2 || r->text[r->at] != '\\' || r->text[r->at + 1] != 'u') {
                        free(buf);
                        return jv_fail(r, "a lone surrogate");
                    }
                    r->at += 2;
                    if (!jv_hex4(r, &low) || low < 0xDC00 || low > 0xDFFF) {
                        free(buf);
                        return jv_fail(r, "a lone surrogate");
                    }
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    free(buf);
                    return jv_fail(r, "a lone surrogate");
                } else if (cp == 0) {
                    free(buf);
                    return jv_fail(r, "\\u0000 (C strings cannot carry it)");
                }
                break;
            default:
                free(buf);
                return jv_fail(r, "an unknown escape");
            }
            jv_put(&buf, &n, &cap, cp);
            continue;
        }
        /* Raw bytes (UTF-8 included) are copied as they are. */
        if (n + 2 > cap) {
            cap *= 2;
            buf = jv_alloc(buf, cap);
        }
        buf[n++] = (char)c;
    }
    buf[n] = '\0';
    *out = buf;
    return 1;
}

static int jv_value(jv_reader *r, jv *out, int depth);

static void jv_free(jv *v);

static int jv_number(jv_reader *r, jv *out)
{
    size_t start = r->at;
    if (jv_peek(r, '-'))
        r->at++;
    if (jv_peek(r, '0')) {
        r->at++;
    } else {
        if (r->at >= r->len || r->text[r->at] < '1' || r->text[r->at] > '9')
            return jv_fail(r, "a malformed number");
        while (r->at < r->len && r->text[r->at] >= '0' && r->text[r->at] <= '9')
            r->at++;
    }
    if (jv_peek(r, '.')) {
        r->at++;
        if (r->at >= r->len || r->text[r->at] < '0' || r->text[r->at] > '9')
            return jv_fail(r, "a malformed number");
        while (r->at < r->len && r->text[r->at] >= '0' && r->text[r->at] <= '9')
            r->at++;
    }
    if (jv_peek(r, 'e') || jv_peek(r, 'E')) {
        r->at++;
        if (jv_peek(r, '+') || jv_peek(r, '-'))
            r->at++;
        if (r->at >= r->len || r->text[r->at] < '0' || r->text[r->at] > '9')
            return jv_fail(r, "a malformed number");
        while (r->at < r->len && r->text[r->at] >= '0' && r->text[r->at] <= '9')
            r->at++;
    }
    char digits[64];
    if (r->at - start >= sizeof digits)
        return jv_fail(r, "a number too long for a test");
    memcpy(digits, r->text + start, r->at - start);
    digits[r->at - start] = '\0';
    out->kind = JV_NUMBER;
    out->number = strtod(digits, NULL);
    return 1;
}

static int jv_items(jv_reader *r, jv *out, int depth, int object)
{
    size_t cap = 0;
    char close = object ? '}' : ']';
    out->kind = object ? JV_OBJECT : JV_ARRAY;
    r->at++;
    jv_space(r);
    if (jv_peek(r, close)) {
        r->at++;
        return 1;
    }
    for (;;) {
        if (out->count == cap) {
            cap = cap ? 2 * cap : 8;
            out->items = jv_alloc(out->items, cap * sizeof *out->items);
            if (object)
                out->keys = jv_alloc(out->keys, cap * sizeof *out->keys);
        }
        jv *item = &out->items[out->count];
        memset(item, 0, sizeof *item);
        jv_space(r);
        if (object) {
            if (!jv_peek(r, '"'))
                return jv_fail(r, "an object key must be a string");
            if (!jv_string(r, &out->keys[out->count]))
                return 0;
            jv_space(r);
            if (!jv_peek(r, ':')) {
                free(out->keys[out->count]);
                return jv_fail(r, "expected ':'");
            }
            r->at++;
        }
        if (!jv_value(r, item, depth + 1)) {
            if (object)
                free(out->keys[out->count]);
            jv_free(item);
            return 0;
        }
        out->count++;
        jv_space(r);
        if (jv_peek(r, ',')) {
            r->at++;
            continue;
        }
        if (jv_peek(r, close)) {
            r->at++;
            return 1;
        }
        return jv_fail(r, object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static int jv_word(jv_reader *r, const char *word, jv_kind kind, jv *out)
{
    size_t n = strlen(word);
    if (r->len - r->at < n || memcmp(r->text + r->at, word, n) != 0)
        return jv_fail(r, "unexpected text");
    r->at += n;
    out->kind = kind;
    return 1;
}

static int jv_value(jv_reader *r, jv *out, int depth)
{
    memset(out, 0, sizeof *out);
    if (depth > JV_MAX_DEPTH)
        return jv_fail(r, "nested too deep");
    jv_space(r);
    if (r->at >= r->len)
        return jv_fail(r, "a value is missing");
    switch (r->text[r->at]) {
    case '{': return jv_items(r, out, depth, 1);
    case '[': return jv_items(r, out, depth, 0);
    case '"': out->kind = JV_STRING; return jv_string(r, &out->string);
    case 't': return jv_word(r, "true", JV_TRUE, out);
    case 'f': return jv_word(r, "false", JV_FALSE, out);
    case 'n': return jv_word(r, "null", JV_NULL, out);
    default: return jv_number(r, out);
    }
}

/* Parses text[0 .. len) into *out (free it with jv_free); 0 with a message in err when it is not one JSON value. */
static int jv_parse(const char *text, size_t len, jv *out, char *err, size_t errcap)
{
    jv_reader r = {text, len, 0, err, errcap};
    if (!jv_value(&r, out, 0)) {
        jv_free(out);
        return 0;
    }
    jv_space(&r);
    if (r.at != len) {
        jv_free(out);
        return jv_fail(&r, "text after the value");
    }
    return 1;
}

static void jv_free(jv *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->count; i++) {
        jv_free(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
    memset(v, 0, sizeof *v);
}

/* The value of `key` in an object, NULL when absent (or when v is not an object). */
static const jv *jv_get(const jv *v, const char *key)
{
    if (!v || v->kind != JV_OBJECT)
        return NULL;
    for (size_t i = 0; i < v->count; i++)
        if (strcmp(v->keys[i], key) == 0)
            return &v->items[i];
    return NULL;
}

/* The string of a JV_STRING, NULL for anything else. */
static const char *jv_str(const jv *v) { return v && v->kind == JV_STRING ? v->string : NULL; }

/* Structural equality; objects compare as sets of keys (their order aside), arrays in order. */
static int jv_equal(const jv *a, const jv *b)
{
    if (!a || !b || a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case JV_NUMBER: return a->number == b->number;
    case JV_STRING: return strcmp(a->string, b->string) == 0;
    case JV_ARRAY:
        if (a->count != b->count)
            return 0;
        for (size_t i = 0; i < a->count; i++)
            if (!jv_equal(&a->items[i], &b->items[i]))
                return 0;
        return 1;
    case JV_OBJECT:
        if (a->count != b->count)
            return 0;
        for (size_t i = 0; i < a->count; i++)
            if (!jv_equal(&a->items[i], jv_get(b, a->keys[i])))
                return 0;
        return 1;
    default: return 1;
    }
}

#endif
