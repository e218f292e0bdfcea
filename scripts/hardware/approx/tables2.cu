// Second set of full tables (scripts/hardware/approx/tables.sh tanh-sin): tanh.approx.f32 over
// the binades where it is neither the identity nor 1, and sin/cos.approx.f32 as functions of
// the revolutions the unit sees.
//   tanh: every positive f32 with exponent field 119..129 ([2^-8, 8)), 11 x 2^23 results,
//         written to OUTDIR/tanh.approx.f32.u32 (binade by binade); and the number of negative
//         operands -x whose result is not -tanh(x) (printed).
//   sin/cos: for every f32 x in [0, 2) whose revolutions r = RZ(x * f32(1/2pi)) are below 1/4,
//         the result is stored at index floor(r * 2^25) (2^23 slots); a second operand landing
//         on a filled slot with another result counts as a conflict (printed; 0 means the unit
//         keeps at most 25 fraction bits of r there). Empty slots hold 0xffffffff.
//         OUTDIR/sin.q0.u32, OUTDIR/cos.q0.u32.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <string>

__device__ __forceinline__ uint32_t tanhf_(uint32_t a) { uint32_t r; asm volatile("tanh.approx.f32 %0, %1;" : "=r"(r) : "r"(a)); return r; }
__device__ __forceinline__ uint32_t sinf_(uint32_t a) { uint32_t r; asm volatile("sin.approx.ftz.f32 %0, %1;" : "=r"(r) : "r"(a)); return r; }
__device__ __forceinline__ uint32_t cosf_(uint32_t a) { uint32_t r; asm volatile("cos.approx.ftz.f32 %0, %1;" : "=r"(r) : "r"(a)); return r; }

__global__ void k_tanh(uint32_t *o, unsigned long long *bad, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
    uint32_t a = (119u << 23) + i;
    uint32_t r = tanhf_(a);
    o[i] = r;
    if (tanhf_(a | 0x80000000u) != (r ^ 0x80000000u)) atomicAdd(bad, 1ull);
}
__global__ void k_sincos(uint32_t *s, uint32_t *c, unsigned long long *conf, unsigned long long *count) {
    uint32_t a = blockIdx.x * blockDim.x + threadIdx.x; if (a >= 0x40000000u) return;
    float r = __fmul_rz(__uint_as_float(a), 0.15915493667125701904f);
    if (!(r < 0.25f)) return;
    uint32_t idx = (uint32_t)(r * 33554432.0f);  // exact: r has at most 24 significant bits
    if (idx >= (1u << 23)) return;
    atomicAdd(count, 1ull);
    uint32_t vs = sinf_(a), vc = cosf_(a);
    uint32_t old = atomicCAS(&s[idx], 0xffffffffu, vs);
    if (old != 0xffffffffu && old != vs) atomicAdd(&conf[0], 1ull);
    old = atomicCAS(&c[idx], 0xffffffffu, vc);
    if (old != 0xffffffffu && old != vc) atomicAdd(&conf[1], 1ull);
}

static void put(const char *dir, const char *name, const std::vector<uint32_t> &h) {
    std::string p = std::string(dir) + "/" + name;
    FILE *f = fopen(p.c_str(), "wb"); fwrite(h.data(), 4, h.size(), f); fclose(f);
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: tables2 OUTDIR\n"); return 2; }
    const uint32_t NT = 11u << 23;
    uint32_t *d; unsigned long long *cnt;
    cudaMalloc(&d, (size_t)NT * 4); cudaMalloc(&cnt, 64); cudaMemset(cnt, 0, 64);
    k_tanh<<<(NT + 255) / 256, 256>>>(d, cnt, NT);
    if (cudaDeviceSynchronize() != cudaSuccess) { fprintf(stderr, "tanh failed\n"); return 1; }
    std::vector<uint32_t> h(NT);
    cudaMemcpy(h.data(), d, (size_t)NT * 4, cudaMemcpyDeviceToHost);
    unsigned long long c[8];
    cudaMemcpy(c, cnt, 64, cudaMemcpyDeviceToHost);
    printf("tanh.approx.f32: %u results; negative operands not odd-symmetric: %llu\n", NT, c[0]);
    put(argv[1], "tanh.approx.f32.u32", h);
    const uint32_t NQ = 1u << 23;
    uint32_t *s, *co;
    cudaMalloc(&s, NQ * 4); cudaMalloc(&co, NQ * 4);
    cudaMemset(s, 0xff, NQ * 4); cudaMemset(co, 0xff, NQ * 4); cudaMemset(cnt, 0, 64);
    k_sincos<<<(0x40000000u + 255) / 256, 256>>>(s, co, cnt, cnt + 2);
    if (cudaDeviceSynchronize() != cudaSuccess) { fprintf(stderr, "sincos failed\n"); return 1; }
    cudaMemcpy(c, cnt, 64, cudaMemcpyDeviceToHost);
    std::vector<uint32_t> hs(NQ), hc(NQ);
    cudaMemcpy(hs.data(), s, NQ * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(hc.data(), co, NQ * 4, cudaMemcpyDeviceToHost);
    size_t empty = 0; for (auto v : hs) empty += v == 0xffffffffu;
    printf("sin/cos quadrant 0: %llu operands, conflicts sin %llu cos %llu, empty slots %zu of %u\n", c[2], c[0], c[1], empty, NQ);
    put(argv[1], "sin.q0.u32", hs); put(argv[1], "cos.q0.u32", hc);
    return 0;
}
