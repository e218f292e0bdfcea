// Tensor-core GEMM samples (tests/mma-kernels/README.md).
//

// A bf16 GEMM tile the way hand-tuned CUDA kernels feed the tensor cores: each warp stages a
// 16x16 tile of A and a 16x8 tile of B in shared memory, loads the mma fragments with
// ldmatrix (A with .x4, B with .x2.trans, since B is stored k-major) and accumulates
// mma.sync.aligned.m16n8k16 in f32. C[M][N] = A[M][K] * B[K][N]; one warp (blockDim.x == 32)
// per 16x8 tile of C; M, N, K multiples of 16, 8, 16.
#include <cuda_bf16.h>
#include <stdint.h>

extern "C" __global__ void ldmatrix_mma_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B,
                                             float* C, int M, int N, int K) {
    __shared__ __align__(16) __nv_bfloat16 As[16 * 16];
    __shared__ __align__(16) __nv_bfloat16 Bs[16 * 8];
    int lane = threadIdx.x;
    int row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = lane; i < 256; i += 32) As[i] = A[(row0 + i / 16) * K + k0 + i % 16];
        for (int i = lane; i < 128; i += 32) Bs[i] = B[(k0 + i / 8) * N + col0 + i % 8];
        __syncwarp();
        // Lanes 8m..8m+7 address the rows of matrix m: A[0:8, 0:8], A[8:16, 0:8],
        // A[0:8, 8:16], A[8:16, 8:16] (the a0..a3 registers of the mma A fragment).
        int m = lane / 8, r = lane % 8;
        uint32_t a[4], b[2];
        uint32_t a_addr =
            (uint32_t)__cvta_generic_to_shared(&As[(r + 8 * (m % 2)) * 16 + 8 * (m / 2)]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                     : "r"(a_addr));
        // Lanes 0..15 address the rows k = 0..15 of the B tile; .trans gives the column
        // fragments b0 (k 0..7) and b1 (k 8..15).
        uint32_t b_addr = (uint32_t)__cvta_generic_to_shared(&Bs[(lane % 16) * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                     : "=r"(b[0]), "=r"(b[1])
                     : "r"(b_addr));
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
            "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
        __syncwarp();
    }
    int g = lane / 4, t = lane % 4;
    C[(row0 + g) * N + col0 + 2 * t] = d[0];
    C[(row0 + g) * N + col0 + 2 * t + 1] = d[1];
    C[(row0 + g + 8) * N + col0 + 2 * t] = d[2];
    C[(row0 + g + 8) * N + col0 + 2 * t + 1] = d[3];
}

// An FP8 GEMM as inference kernels for sm_89/sm_90 write it: A[M][K] and B (stored transposed,
// Bt[N][K], so every k-run is contiguous) in e4m3, f32 accumulation with
// mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32, a per-tensor scale applied to the f32
// accumulator, and an e4m3 output through cvt.rn.satfinite.e4m3x2.f32 (two adjacent columns per
// 16-bit word: column 2t in the low byte). The raw accumulator goes to Acc as well. One warp per
// 16x8 tile of C; M, N, K multiples of 16, 8, 32. The fragments are loaded straight from global
// memory as the ISA lays them out ("Matrix Fragments for mma.m16n8k32"): lane = 4g + t, A word
// r holds row g + 8(r%2), columns 4t + 16(r/2) .. +3; B word r holds column g, rows 4t + 16r .. +3.
extern "C" __global__ void fp8_gemm_e4m3_scaled(const uint8_t* A, const uint8_t* Bt,
                                                const float* scale, float* Acc, uint16_t* C8,
                                                int M, int N, int K) {
#if __CUDA_ARCH__ >= 890
    int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    int row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < K; k0 += 32) {
        uint32_t a[4], b[2];
        for (int r = 0; r < 4; r++)
            a[r] = *(const uint32_t*)&A[(row0 + g + 8 * (r % 2)) * K + k0 + 4 * t + 16 * (r / 2)];
        for (int r = 0; r < 2; r++)
            b[r] = *(const uint32_t*)&Bt[(col0 + g) * K + k0 + 4 * t + 16 * r];
        asm volatile(
            "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0, %1, %2, %3}, "
            "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    float s = *scale;
    for (int h = 0; h < 2; h++) {
        int row = row0 + g + 8 * h;
        Acc[row * N + col0 + 2 * t] = d[2 * h];
        Acc[row * N + col0 + 2 * t + 1] = d[2 * h + 1];
        uint16_t packed;
        asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;"
            : "=h"(packed)
            : "f"(d[2 * h + 1] * s), "f"(d[2 * h] * s));
        C8[row * (N / 2) + col0 / 2 + t] = packed;
    }
#endif
}
