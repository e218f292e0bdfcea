// CUDA's device-side runtime as nvcc calls it: printf (vprintf), assert (__assertfail),
// malloc/free, __nanosleep, clock/clock64/%globaltimer (docs/executor.md, "Device-side runtime").
#include <cstdio>
#include <cassert>
#include "printf_cases.h"

// Every thread runs the printf calls of printf_cases.h with its global index.
extern "C" __global__ void printf_formats(int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        PRINTF_CASES(i)
    }
}

// out[i] = what printf returned (the number of arguments), then 0-argument and 3-argument calls.
extern "C" __global__ void printf_returns(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[3 * i] = printf("no arguments\n");
        out[3 * i + 1] = printf("%d %s %f\n", i, "x", 1.0);
        out[3 * i + 2] = printf("%*d\n", 4, i);
    }
}

// assert(in[i] != 7): the launch fails with the GPU's assertion message where in[i] is 7.
extern "C" __global__ void assert_not_seven(const int* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        assert(in[i] != 7);
    }
}

// Each thread allocates n ints, fills them with k + i, sums them and frees them:
// out[i] = (sum << 1) | (malloc succeeded).
extern "C" __global__ void heap_sum(int n, unsigned long long* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int* p = (int*)malloc(n * sizeof(int));
    out[i] = (unsigned long long)(p != 0);
    if (p) {
        for (int k = 0; k < n; k++) p[k] = k + i;
        int s = 0;
        for (int k = 0; k < n; k++) s += p[k];
        out[i] |= (unsigned long long)s << 1;
        free(p);
    }
}

// Allocates `bytes` and keeps the pointer (no free): out[i] = the address (0 when the heap is
// exhausted).
extern "C" __global__ void heap_exhaust(unsigned long long bytes, unsigned long long* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = (unsigned long long)malloc(bytes);
}

// __nanosleep, clock64, clock and %globaltimer run: out = {clock64 difference, clock, timer}.
extern "C" __global__ void sleep_clock(long long* out) {
    long long a = clock64();
    __nanosleep(100);
    unsigned c = clock();
    unsigned long long g;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
    out[0] = clock64() - a;
    out[1] = c;
    out[2] = g;
}
