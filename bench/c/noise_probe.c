/*
 * noise_probe.c - how steady is the CPU right now? Times a fixed integer loop
 * (~20 ms here) 25 times on the pinned CPU and prints one JSON object with the
 * fastest, median and slowest wall time in ms, and the median of this thread's CPU
 * time. run.sh runs it before and after the runners; the report prints it under
 * "Machine", so a noisy run can be recognised (wall far above CPU time: the process
 * was waiting for the CPU, i.e. other processes were running).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static uint64_t cpu_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void) {
    enum { N = 25 };
    double ms[N], cpu[N];
    volatile uint64_t x = 0;
    for (int r = 0; r < N; r++) {
        uint64_t t = now_ns(), c = cpu_ns();
        for (uint64_t i = 0; i < 30000000ull; i++) x += i * i;
        cpu[r] = (double)(cpu_ns() - c) / 1e6;
        ms[r] = (double)(now_ns() - t) / 1e6;
    }
    qsort(ms, N, sizeof ms[0], cmp);
    qsort(cpu, N, sizeof cpu[0], cmp);
    printf("{\"min_ms\": %.1f, \"median_ms\": %.1f, \"max_ms\": %.1f, \"cpu_median_ms\": %.1f, \"samples\": %d}\n",
           ms[0], ms[N / 2], ms[N - 1], cpu[N / 2], N);
    return 0;
}
