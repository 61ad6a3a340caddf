/*
 * alloc_count.h -- counts heap allocations made while `alloc_counting` is set, by interposing malloc and its
 * relatives in the executable (liblinkrouter.so's calls resolve to these first) and forwarding to glibc's
 * __libc_* entry points. Used by the zero-allocation test and the benchmark.
 *
 * Include it in exactly one translation unit of an executable linked with -rdynamic.
 */
#ifndef LINKROUTER_ALLOC_COUNT_H
#define LINKROUTER_ALLOC_COUNT_H

#include <errno.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static volatile int alloc_counting;
static volatile long alloc_count;

#define ALLOC_COUNT() do { if (alloc_counting) alloc_count++; } while (0)

void *malloc(size_t n) { ALLOC_COUNT(); return __libc_malloc(n); }
void *calloc(size_t k, size_t n) { ALLOC_COUNT(); return __libc_calloc(k, n); }
void *realloc(void *p, size_t n) { ALLOC_COUNT(); return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t a, size_t n) { ALLOC_COUNT(); return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { ALLOC_COUNT(); return __libc_memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n)
{
    ALLOC_COUNT();
    void *p = __libc_memalign(a, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

#endif
