// fma.rn.oob{.relu}.{f16,bf16,f16x2,bf16x2} on an sm_90 GPU: for each form, each operand position
// (a, b, c) and every 16-bit pattern x in that position (the other two operands 1.0; x2 forms:
// x in the low lane, 1.0 in the high lane), the result. Output OUTDIR/oob.u32: 8 forms x 3
// positions x 65536 results (x2 forms: the packed 32-bit result; scalar forms: zero-extended).
#include <cstdio>
#include <cstdint>
#include <vector>
#include <string>
#define ONE16 0x3c00u
#define ONEBF 0x3f80u
template <int F> __device__ uint32_t op(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t r = 0; unsigned short h;
    unsigned short a16 = a, b16 = b, c16 = c;
    switch (F) {
    case 0: asm volatile("fma.rn.oob.f16 %0, %1, %2, %3;" : "=h"(h) : "h"(a16), "h"(b16), "h"(c16)); r = h; break;
    case 1: asm volatile("fma.rn.oob.relu.f16 %0, %1, %2, %3;" : "=h"(h) : "h"(a16), "h"(b16), "h"(c16)); r = h; break;
    case 2: asm volatile("fma.rn.oob.bf16 %0, %1, %2, %3;" : "=h"(h) : "h"(a16), "h"(b16), "h"(c16)); r = h; break;
    case 3: asm volatile("fma.rn.oob.relu.bf16 %0, %1, %2, %3;" : "=h"(h) : "h"(a16), "h"(b16), "h"(c16)); r = h; break;
    case 4: asm volatile("fma.rn.oob.f16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); break;
    case 5: asm volatile("fma.rn.oob.relu.f16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); break;
    case 6: asm volatile("fma.rn.oob.bf16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); break;
    case 7: asm volatile("fma.rn.oob.relu.bf16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); break;
    }
    return r;
}
template <int F> __global__ void k(uint32_t *o) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= 3 * 65536) return;
    uint32_t pos = i >> 16, x = i & 0xffff;
    uint32_t one = (F == 2 || F == 3 || F == 6 || F == 7) ? ONEBF : ONE16;
    uint32_t v1 = (F >= 4) ? (one | (one << 16)) : one;
    uint32_t vx = (F >= 4) ? (x | (one << 16)) : x;
    uint32_t a = pos == 0 ? vx : v1, b = pos == 1 ? vx : v1, c = pos == 2 ? vx : v1;
    o[i] = op<F>(a, b, c);
}
int main(int argc, char **argv) {
    const uint32_t N = 3 * 65536;
    uint32_t *d; cudaMalloc(&d, 8 * N * 4);
    k<0><<<N / 256, 256>>>(d + 0 * N); k<1><<<N / 256, 256>>>(d + 1 * N);
    k<2><<<N / 256, 256>>>(d + 2 * N); k<3><<<N / 256, 256>>>(d + 3 * N);
    k<4><<<N / 256, 256>>>(d + 4 * N); k<5><<<N / 256, 256>>>(d + 5 * N);
    k<6><<<N / 256, 256>>>(d + 6 * N); k<7><<<N / 256, 256>>>(d + 7 * N);
    if (cudaDeviceSynchronize() != cudaSuccess) { fprintf(stderr, "failed\n"); return 1; }
    std::vector<uint32_t> h(8 * N);
    cudaMemcpy(h.data(), d, 8 * N * 4, cudaMemcpyDeviceToHost);
    std::string p = std::string(argv[1]) + "/oob.u32";
    FILE *f = fopen(p.c_str(), "wb"); fwrite(h.data(), 4, h.size(), f); fclose(f);
    const char *names[8] = {"f16", "relu.f16", "bf16", "relu.bf16", "f16x2", "relu.f16x2", "bf16x2", "relu.bf16x2"};
    for (int F = 0; F < 8; F++) {
        int zeros = 0;
        for (uint32_t i = 0; i < N; i++) { uint32_t r = h[F * N + i]; if ((F >= 4 ? (r & 0xffff) : r) == 0) zeros++; }
        printf("fma.rn.oob.%s: %d of %u results zero (low lane)\n", names[F], zeros, N);
    }
    return 0;
}
