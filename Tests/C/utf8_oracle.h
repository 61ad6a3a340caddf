/*
 * utf8_oracle.h -- strict UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF; NUL is
 * allowed), written plainly as the tests' independent reference for the library's own check. Shared by the C test
 * drivers and the fuzz harnesses.
 */
#ifndef LINKROUTER_UTF8_ORACLE_H
#define LINKROUTER_UTF8_ORACLE_H

#include <stddef.h>

static inline int utf8_valid(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c < 0x80) { i++; continue; }
        size_t len;
        unsigned cp;
        if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; }
        else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; }
        else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; }
        else return 0;
        if (i + len > n) return 0;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return 0;
            cp = cp << 6 | (s[i + k] & 0x3F);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;
        if (cp >= 0xD800 && cp <= 0xDFFF) return 0;
        i += len;
    }
    return 1;
}

#endif
