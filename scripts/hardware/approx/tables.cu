// Full binade tables of the f32 approximate instructions on an sm_90 GPU, for building
// bit-exact models (scripts/hardware/approx/tables.sh; README.md "Full tables").
//   ex2.approx.ftz.f32  x = +-k * 2^-23, k in [0, 2^23)   (2^24 results: + then -)
//   rcp.approx.ftz.f32  bit patterns 0x3f800000 + i, i in [0, 2^23)   ([1, 2))
//   rsqrt.approx.ftz.f32, sqrt.approx.ftz.f32  0x3f800000 + i, i in [0, 2^24)   ([1, 4))
//   lg2.approx.ftz.f32  0x3f000000 + i, i in [0, 2^24)   ([0.5, 2))
// Each table is written as little-endian u32 results to OUTDIR/<name>.u32.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>
#include <string>

__device__ __forceinline__ uint32_t ex2f(uint32_t a) { uint32_t r; asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=r"(r) : "r"(a)); return r; }
__device__ __forceinline__ uint32_t rcpf(uint32_t a) { uint32_t r; asm volatile("rcp.approx.ftz.f32 %0, %1;" : "=r"(r) : "r"(a)); return r; }
__device__ __forceinline__ uint32_t rsqf(uint32_t a) { uint32_t r; asm volatile("rsqrt.approx.ftz.f32 %0, %1;" : "=r"(r) : "r"(a)); return r; }
__device__ __forceinline__ uint32_t sqrf(uint32_t a) { uint32_t r; asm volatile("sqrt.approx.ftz.f32 %0, %1;" : "=r"(r) : "r"(a)); return r; }
__device__ __forceinline__ uint32_t lg2f(uint32_t a) { uint32_t r; asm volatile("lg2.approx.ftz.f32 %0, %1;" : "=r"(r) : "r"(a)); return r; }

__global__ void k_ex2(uint32_t *o, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
    float x = (float)(i & 0x7fffff) * 0x1p-23f; if (i >> 23) x = -x;
    o[i] = ex2f(__float_as_uint(x));
}
__global__ void k_rcp(uint32_t *o, uint32_t n) { uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = rcpf(0x3f800000u + i); }
__global__ void k_rsq(uint32_t *o, uint32_t n) { uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = rsqf(0x3f800000u + i); }
__global__ void k_sqr(uint32_t *o, uint32_t n) { uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = sqrf(0x3f800000u + i); }
__global__ void k_lg2(uint32_t *o, uint32_t n) { uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = lg2f(0x3f000000u + i); }

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: tables OUTDIR\n"); return 2; }
    const uint32_t N = 1u << 24;
    uint32_t *d; if (cudaMalloc(&d, N * 4) != cudaSuccess) { fprintf(stderr, "cudaMalloc failed\n"); return 1; }
    std::vector<uint32_t> h(N);
    struct Job { const char *name; void (*k)(uint32_t *, uint32_t); uint32_t n; } jobs[] = {
        {"ex2.approx.ftz.f32", k_ex2, 1u << 24}, {"rcp.approx.ftz.f32", k_rcp, 1u << 23},
        {"rsqrt.approx.ftz.f32", k_rsq, 1u << 24}, {"sqrt.approx.ftz.f32", k_sqr, 1u << 24},
        {"lg2.approx.ftz.f32", k_lg2, 1u << 24},
    };
    for (auto &j : jobs) {
        j.k<<<(j.n + 255) / 256, 256>>>(d, j.n);
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", j.name, cudaGetErrorString(e)); return 1; }
        cudaMemcpy(h.data(), d, j.n * 4, cudaMemcpyDeviceToHost);
        std::string p = std::string(argv[1]) + "/" + j.name + ".u32";
        FILE *f = fopen(p.c_str(), "wb"); fwrite(h.data(), 4, j.n, f); fclose(f);
        printf("%s: %u results, first %08x last %08x\n", j.name, j.n, h[0], h[j.n - 1]);
    }
    return 0;
}
