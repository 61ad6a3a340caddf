/* check.h -- the error handling shared by the examples: stop at the first failing call and say why. */
#ifndef LINKROUTER_EXAMPLE_CHECK_H
#define LINKROUTER_EXAMPLE_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "linkrouter.h"

/* Negative codes are errors; LR_OK and LR_NOMATCH are outcomes the caller handles. */
#define CHECK(call)                                                                      \
    do {                                                                                 \
        int check_rc_ = (call);                                                          \
        if (check_rc_ < 0) {                                                             \
            fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,   \
                    lr_errstr(check_rc_), lr_last_error());                              \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

/* Stops the example: "FAILED: <message>" on stdout, where the expected output is compared, then exit 1. */
static inline void fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fputs("FAILED: ", stdout);
    vprintf(format, args);
    fputs("\n", stdout);
    va_end(args);
    exit(1);
}

/* Compares and goes on: a mismatch is told on stderr (what, got, want) and counted in *failures. */
static inline void expect_same(int *failures, const char *what, const char *got, const char *want)
{
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "MISMATCH %s:\n  got  %s\n  want %s\n", what, got, want);
        (*failures)++;
    }
}

/* Fails unless got is want. */
static inline void expect_text(const char *got, const char *want)
{
    if (strcmp(got, want) != 0) fail("expected '%s', got '%s'", want, got);
}

#endif
