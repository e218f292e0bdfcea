// wgmma layouts on an sm_90a GPU (second probe): where wgmma.mma_async takes each element of A
// (1) from registers (the `a` vector form) and (2) from shared memory under each swizzle mode
// (none, 32B, 64B, 128B), K-major and MN-major (imm-trans-a). B is the 16x16 identity (K-major,
// no swizzle, as confirmed by tests/hardware/wgmma), so D = A: D(m, n) is A(m, k = n), and
// every A source holds a distinct small integer (exact in f16 and in the f32 sum), its code.
// Output (text): for each case `case NAME` and 64 rows of 16 codes (D row-major, as integers):
//   registers: code = 8 * thread + 2 * register + half + 1 (thread 0..127 of the warpgroup,
//              register 0..3 of the a vector, half 0 = low 16 bits);
//   shared:    code = (byte offset of the f16 in the 4 KB A region) / 2 + 1.
// Descriptors: start 0 (the region is 1024-byte aligned), the swizzle mode in bits 62-63 (1 =
// 128B, 2 = 64B, 3 = 32B), leading byte offset 128 (no swizzle) or 16 (swizzled, unused for K
// of 16), stride byte offset 256 / 256 / 512 / 1024 (none / 32B / 64B / 128B: 8 rows of the
// swizzle width), as CUTLASS's canonical layouts use them.
//   nvcc -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a layouts.cu -o layouts
//   for c in 0 1 2 3 4 5 6 7 8; do ./layouts $c; done > wgmma-layouts.txt
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

typedef uint32_t u32;
typedef uint64_t u64;

__device__ inline u64 descriptor(const void* p, u32 lbo, u32 sbo, u32 swizzle) {
    u64 a = (u64)__cvta_generic_to_shared(p);
    return ((a >> 4) & 0x3fff) | ((u64)((lbo >> 4) & 0x3fff) << 16) |
           ((u64)((sbo >> 4) & 0x3fff) << 32) | ((u64)swizzle << 62);
}

__device__ inline void identity_b(half* sb) {
    // B (n, k) at (n / 8) * 256 + (k / 8) * 128 + (n % 8) * 16 + (k % 8) * 2 bytes.
    for (int i = threadIdx.x; i < 256; i += 128) {
        int n = i / 16, k = i % 16;
        sb[((n / 8) * 256 + (k / 8) * 128 + (n % 8) * 16 + (k % 8) * 2) / 2] =
            __float2half(n == k ? 1.0f : 0.0f);
    }
}

__device__ inline void store_d(float* out, const float* d) {
    int t = threadIdx.x, w = t / 32, l = t % 32, g = l / 4, q = l % 4;
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 4; i++)
            out[(16 * w + g + 8 * (i / 2)) * 16 + 8 * j + 2 * q + (i % 2)] = d[4 * j + i];
}

#define WGMMA_TAIL                                                                          \
    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),     \
      "+f"(d[7])

__global__ void from_registers(float* out) {
    __shared__ __align__(1024) half sb[512];
    identity_b(sb);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    u32 a[4];
    for (int r = 0; r < 4; r++) {
        unsigned short lo = __half_as_ushort(__float2half((float)(8 * threadIdx.x + 2 * r + 1)));
        unsigned short hi = __half_as_ushort(__float2half((float)(8 * threadIdx.x + 2 * r + 2)));
        a[r] = lo | (u32)hi << 16;
    }
    float d[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    u64 db = descriptor(sb, 128, 256, 0);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7}, "
        "{%8, %9, %10, %11}, %12, p, 1, 1, 0;\n}\n" WGMMA_TAIL
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    store_d(out, d);
}

template <int TRANS>
__global__ void from_shared(float* out, u32 lbo, u32 sbo, u32 swizzle) {
    __shared__ __align__(1024) half sa[2048];
    __shared__ __align__(1024) half sb[512];
    for (int i = threadIdx.x; i < 2048; i += 128) sa[i] = __float2half((float)(i + 1));
    identity_b(sb);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    float d[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    u64 da = descriptor(sa, lbo, sbo, swizzle), db = descriptor(sb, 128, 256, 0);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7}, "
        "%8, %9, p, 1, 1, %10, 0;\n}\n" WGMMA_TAIL
        : "l"(da), "l"(db), "n"(TRANS));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    store_d(out, d);
}

static void show(const char* name, float* dev) {
    float h[1024];
    if (cudaDeviceSynchronize() != cudaSuccess ||
        cudaMemcpy(h, dev, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) {
        std::printf("case %s failed: %s\n", name, cudaGetErrorString(cudaGetLastError()));
        cudaGetLastError();
        return;
    }
    std::printf("case %s\n", name);
    for (int m = 0; m < 64; m++) {
        for (int n = 0; n < 16; n++) std::printf("%s%d", n ? " " : "", (int)h[m * 16 + n]);
        std::printf("\n");
    }
}

// Case N (0..8) of: registers, then for each swizzle (none, 128B, 64B, 32B) K-major and
// MN-major; one case a process, so that a fault in one (a descriptor reading past shared
// memory) cannot end the others.
int main(int argc, char** argv) {
    int c = argc > 1 ? std::atoi(argv[1]) : 0;
    float* out;
    if (cudaMalloc(&out, 4096) != cudaSuccess || cudaMemset(out, 0, 4096) != cudaSuccess) return 1;
    if (c == 0) {
        from_registers<<<1, 128>>>(out);
        show("registers", out);
        return 0;
    }
    const char* names[4] = {"none", "128B", "64B", "32B"};
    const u32 sbo[4] = {256, 1024, 512, 256};
    int s = (c - 1) / 2, trans = (c - 1) % 2;
    if (s > 3) return 2;
    char name[64];
    std::snprintf(name, sizeof name, "shared %s swizzle %s", trans ? "MN-major" : "K-major", names[s]);
    if (trans)
        from_shared<1><<<1, 128>>>(out, s == 0 ? 128 : 16, sbo[s], s);
    else
        from_shared<0><<<1, 128>>>(out, s == 0 ? 128 : 16, sbo[s], s);
    show(name, out);
    return 0;
}
