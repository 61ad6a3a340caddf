/*
 * linkrouter_common.h - what the C harnesses of LinkRouter itself share (linkrouter_bench.c, instructions.c,
 * resolve_steps.c). Header-only, like bench_common.h; include it after bench_common.h.
 */
#ifndef LINKROUTER_COMMON_H
#define LINKROUTER_COMMON_H

#include "bench_common.h"
#include "linkrouter.h"

/* The open rows' handler: reads from the match it is lent what the resolve rows read (the target and every
 * parameter by name); the URL's bench_names is the open's context, the result a checksum of what was read. */
BENCH_API int bench_lr_read_match(const lr_match *m, void *context, void *user_data, void **result,
                                  const char **message) {
    (void)user_data;
    (void)message;
    const bench_names *p = context;
    uint64_t acc = strlen(lr_match_target(m));
    for (size_t k = 0; k < p->n; k++) {
        const char *v = lr_match_get(m, p->names[k]);
        acc += strlen(v) + (unsigned char)v[0];
    }
    *result = (void *)(uintptr_t)acc;
    return LR_OK;
}

/* A router holding the data set's routes, added one by one, each with its route id as target ("12"), and
 * `handler` (when not NULL) for every target. NULL, with the reason on stderr after `who`, when one is refused. */
BENCH_API lr_router *bench_lr_router(const bench_dataset *ds, const lr_handler *handler, const char *who) {
    lr_router *r;
    if (lr_router_new(&r) != LR_OK) {
        fprintf(stderr, "%s: %s\n", who, lr_last_error());
        return NULL;
    }
    for (size_t i = 0; i < ds->n; i++) {
        char id[16];
        snprintf(id, sizeof id, "%d", ds->rows[i].id);
        if (lr_router_add(r, ds->rows[i].pattern, id) != LR_OK ||
            (handler && lr_router_handle_target(r, id, handler) != LR_OK)) {
            fprintf(stderr, "%s: %s\n", who, lr_last_error());
            lr_router_free(r);
            return NULL;
        }
    }
    return r;
}

#endif
