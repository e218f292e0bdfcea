// The NVIDIA host reference side of scripts/golden/bench.sh: the same loops as the
// `bench_compare` example of crates/softfloat, over the same inputs (xorshift64 seed
// 0x9e3779b97f4a7c15), printing "name ns_per_conversion checksum".
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp8.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

static uint64_t g_state = 0x9e3779b97f4a7c15ULL;
static uint64_t next() { g_state ^= g_state << 13; g_state ^= g_state >> 7; g_state ^= g_state << 17; return g_state; }

// Half the inputs are arbitrary bit patterns, half have exponents within 2^-20..2^20.
static uint32_t f32_input() {
    uint64_t r = next();
    uint32_t u = (uint32_t)r;
    if (r >> 63) u = (u & 0x807fffffu) | ((uint32_t)(107 + ((r >> 40) % 41)) << 23);
    return u;
}
static uint16_t f16_input() {
    uint64_t r = next();
    uint16_t u = (uint16_t)r;
    if (r >> 63) u = (uint16_t)((u & 0x83ffu) | ((uint16_t)(5 + ((r >> 40) % 21)) << 10));
    return u;
}

template <class F>
static void run(const char* name, size_t n, int reps, F f) {
    uint32_t acc = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; r++)
        for (size_t i = 0; i < n; i++) acc = acc * 31u + f(i);
    auto t1 = std::chrono::steady_clock::now();
    double ns = std::chrono::duration<double, std::nano>(t1 - t0).count() / (double)(n * reps);
    std::printf("%s %.3f %08x\n", name, ns, acc);
}

int main() {
    const size_t n = 1 << 20;
    const int reps = 20;
    std::vector<uint32_t> f32(n), h2(n);
    for (size_t i = 0; i < n; i++) f32[i] = f32_input();
    for (size_t i = 0; i < n; i++) h2[i] = (uint32_t)f16_input() << 16 | f16_input();
    auto asf = [&](size_t i) { float f; std::memcpy(&f, &f32[i], 4); return f; };
    run("f32_to_e4m3", n, reps, [&](size_t i) { return (uint32_t)__nv_cvt_float_to_fp8(asf(i), __NV_SATFINITE, __NV_E4M3); });
    run("f32_to_f16", n, reps, [&](size_t i) { return (uint32_t)static_cast<__half_raw>(__float2half_rn(asf(i))).x; });
    run("f32_to_e2m1", n, reps, [&](size_t i) { return (uint32_t)__nv_cvt_float_to_fp4(asf(i), __NV_E2M1, cudaRoundNearest); });
    run("f16x2_to_e5m2x2", n, reps, [&](size_t i) {
        __half2_raw r; r.x = (unsigned short)(h2[i] & 0xffff); r.y = (unsigned short)(h2[i] >> 16);
        return (uint32_t)__nv_cvt_halfraw2_to_fp8x2(r, __NV_SATFINITE, __NV_E5M2); });
    run("f32_to_bf16", n, reps, [&](size_t i) { return (uint32_t)static_cast<__nv_bfloat16_raw>(__float2bfloat16_rn(asf(i))).x; });
    return 0;
}
