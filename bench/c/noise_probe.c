/*
 * noise_probe.c - how steady is the CPU right now? Times a fixed integer loop
 * (~20 ms here) 25 times on the pinned CPU and prints one JSON object with the
 * fastest, median and slowest wall time in ms, and the median of this thread's CPU
 * time. run.sh runs it before and after the runners; the report prints it under
 * "Machine", so a noisy run can be recognised (wall far above CPU time: the process
 * was waiting for the CPU, i.e. other processes were running).
 */
#include "bench_common.h" /* the runners' clocks and median */

int main(void) {
    enum { N = 25 };
    double ms[N], cpu[N];
    volatile uint64_t x = 0;
    for (int r = 0; r < N; r++) {
        uint64_t t = bench_now_ns(), c = bench_cpu_ns();
        for (uint64_t i = 0; i < 30000000ull; i++) x += i * i;
        cpu[r] = (double)(bench_cpu_ns() - c) / 1e6;
        ms[r] = (double)(bench_now_ns() - t) / 1e6;
    }
    double median = bench_median(ms, N); /* sorts ms[] */
    printf("{\"min_ms\": %.1f, \"median_ms\": %.1f, \"max_ms\": %.1f, \"cpu_median_ms\": %.1f, \"samples\": %d}\n",
           ms[0], median, ms[N - 1], bench_median(cpu, N), N);
    return 0;
}
