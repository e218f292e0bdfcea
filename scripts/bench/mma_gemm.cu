// bf16 GEMM on the tensor cores with `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`
// (PTX ISA 9.7.14.5), for scripts/bench/mma-gemm-vs-native.sh: C = A B with A (N x N, row
// major) and B (N x N, column major, i.e. B^T row major) in bf16, C in f32 (row major).
// A CTA of 4 warps computes a 64 x 64 tile of C: per step of 16 along K it stages a 64 x 16
// slice of A and of B^T in shared memory (__syncthreads around it) and each warp runs 2 x 4
// mma of 16 x 8 x 16 for its 32 x 32 quarter. Fragments are read from shared memory in the
// layouts of the ISA's "Matrix Fragments for mma.m16n8k16" (groupID = lane / 4,
// threadID_in_group = lane % 4). N is a multiple of 64.
#include <cstdint>

extern "C" __global__ void __launch_bounds__(128) bf16_gemm(const uint16_t* a, const uint16_t* bt, float* c, int n) {
    __shared__ uint32_t as[64][8];   // 64 rows x 16 bf16 of A
    __shared__ uint32_t bs[64][8];   // 64 columns x 16 bf16 of B (rows of B^T)
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int group = lane / 4, tig = lane % 4;
    int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
    int wr = (warp / 2) * 32, wc = (warp % 2) * 32;
    float acc[2][4][4] = {};
    const uint32_t* a32 = reinterpret_cast<const uint32_t*>(a);
    const uint32_t* b32 = reinterpret_cast<const uint32_t*>(bt);
    for (int k0 = 0; k0 < n; k0 += 16) {
        // 128 threads stage 64 x 8 words of each operand: 4 words each.
        for (int i = threadIdx.x; i < 64 * 8; i += 128) {
            int r = i / 8, w = i % 8;
            as[r][w] = a32[((row0 + r) * n + k0) / 2 + w];
            bs[r][w] = b32[((col0 + r) * n + k0) / 2 + w];
        }
        __syncthreads();
        for (int mi = 0; mi < 2; ++mi) {
            int r = wr + mi * 16 + group;
            uint32_t a0 = as[r][tig], a1 = as[r + 8][tig], a2 = as[r][tig + 4], a3 = as[r + 8][tig + 4];
            for (int ni = 0; ni < 4; ++ni) {
                int col = wc + ni * 8 + group;
                uint32_t b0 = bs[col][tig], b1 = bs[col][tig + 4];
                float* d = acc[mi][ni];
                asm volatile(
                    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                    "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                    : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
            }
        }
        __syncthreads();
    }
    for (int mi = 0; mi < 2; ++mi)
        for (int ni = 0; ni < 4; ++ni) {
            int r = row0 + wr + mi * 16 + group, col = col0 + wc + ni * 8 + tig * 2;
            c[r * n + col] = acc[mi][ni][0];
            c[r * n + col + 1] = acc[mi][ni][1];
            c[(r + 8) * n + col] = acc[mi][ni][2];
            c[(r + 8) * n + col + 1] = acc[mi][ni][3];
        }
}
