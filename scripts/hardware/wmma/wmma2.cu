// wmma on an sm_90 GPU, second probe (what scripts/hardware/wmma/wmma.cu did not measure):
// mixed f16/f32 accumulators (C of one type, D of the other), .u8, .satfinite for .s8/.u8,
// .f64 m8n8k4, and crafted tiles for the accumulator's lowest kept bit with .bf16 and .tf32
// inputs (tiny products around 2^-134 plus negative products from 2^-152 down to 2^-171:
// which of the latter still lower the result shows where the sum stops keeping bits).
// Output on stdout in wmma.cu's `mma` format: `mma NAME tile T (...)` then rows `A` (M x K),
// `B` (N x K: B column-major), `C`, `D` (M x N), raw hex bits (64-bit for f64).
//   nvcc -O2 -std=c++17 -arch=sm_90 wmma2.cu -o wmma2 && ./wmma2 > wmma2.txt
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

using namespace nvcuda;

template <int M, int N, int K, typename TA, typename SA, typename TC, typename SC, typename TD,
          typename SD, bool SATF>
__global__ void run(const SA* a, const SA* b, const SC* c, SD* d) {
    wmma::fragment<wmma::matrix_a, M, N, K, TA, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, TA, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, M, N, K, TC> fc;
    wmma::fragment<wmma::accumulator, M, N, K, TD> fd;
    wmma::load_matrix_sync(fa, a, K);
    wmma::load_matrix_sync(fb, b, K);
    wmma::load_matrix_sync(fc, c, N, wmma::mem_row_major);
    if constexpr (SATF)
        wmma::mma_sync(fd, fa, fb, fc, true);
    else
        wmma::mma_sync(fd, fa, fb, fc);
    wmma::store_matrix_sync(d, fd, N, wmma::mem_row_major);
}

static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

static uint64_t state = 0x13198A2E03707344ull;
static uint32_t next32() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(state >> 32);
}

template <typename T>
static void rows(const char* tag, const std::vector<T>& v, int r, int c) {
    for (int i = 0; i < r; i++) {
        std::printf("%s", tag);
        for (int j = 0; j < c; j++) {
            uint64_t bits = 0;
            std::memcpy(&bits, &v[i * c + j], sizeof(T));
            std::printf(" %llx", (unsigned long long)bits);
        }
        std::printf("\n");
    }
}

template <int M, int N, int K, typename TA, typename SA, typename TC, typename SC, typename TD,
          typename SD, bool SATF = false>
static void tile(const char* name, int t, const std::vector<SA>& a, const std::vector<SA>& b,
                 const std::vector<SC>& c) {
    SA *da, *db;
    SC* dc;
    SD* dd;
    check(cudaMalloc(&da, a.size() * sizeof(SA)), "malloc");
    check(cudaMalloc(&db, b.size() * sizeof(SA)), "malloc");
    check(cudaMalloc(&dc, c.size() * sizeof(SC)), "malloc");
    check(cudaMalloc(&dd, M * N * sizeof(SD)), "malloc");
    check(cudaMemcpy(da, a.data(), a.size() * sizeof(SA), cudaMemcpyHostToDevice), "copy");
    check(cudaMemcpy(db, b.data(), b.size() * sizeof(SA), cudaMemcpyHostToDevice), "copy");
    check(cudaMemcpy(dc, c.data(), c.size() * sizeof(SC), cudaMemcpyHostToDevice), "copy");
    check(cudaMemset(dd, 0xA5, M * N * sizeof(SD)), "memset");
    run<M, N, K, TA, SA, TC, SC, TD, SD, SATF><<<1, 32>>>(da, db, dc, dd);
    check(cudaDeviceSynchronize(), name);
    std::vector<SD> d(M * N);
    check(cudaMemcpy(d.data(), dd, d.size() * sizeof(SD), cudaMemcpyDeviceToHost), "copy back");
    std::printf("mma %s tile %d (A row-major %dx%d, B col-major %dx%d as [n][k], C, D row-major %dx%d)\n",
                name, t, M, K, N, K, M, N);
    rows("A", a, M, K);
    rows("B", b, N, K);
    rows("C", c, M, N);
    rows("D", d, M, N);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    cudaFree(dd);
}

static half rand_half() {  // exponent field 8..21, any sign and mantissa
    uint32_t r = next32();
    uint16_t bits = (r & 0x83ff) | ((8 + (r >> 16) % 14) << 10);
    half h;
    std::memcpy(&h, &bits, 2);
    return h;
}
static float rand_float() {
    uint32_t r = next32();
    uint32_t bits = (r & 0x807fffff) | ((112 + (r >> 8) % 30) << 23);
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

int main() {
    // 1. Mixed accumulators.
    for (int t = 0; t < 4; t++) {
        std::vector<half> a(256), b(256), ch(256);
        std::vector<float> cf(256);
        for (auto& x : a) x = rand_half();
        for (auto& x : b) x = rand_half();
        for (auto& x : ch) x = t == 0 ? __float2half(0.0f) : rand_half();
        for (auto& x : cf) x = t == 0 ? 0.0f : rand_float();
        tile<16, 16, 16, half, half, half, half, float, float>("m16n16k16.f32.f16.f16.f16", t, a, b, ch);
        tile<16, 16, 16, half, half, float, float, half, half>("m16n16k16.f16.f16.f16.f32", t, a, b, cf);
    }
    // 2. .u8, and .satfinite with accumulators near the s32 limits.
    for (int t = 0; t < 4; t++) {
        std::vector<unsigned char> a(256), b(256);
        std::vector<signed char> sa(256), sb(256);
        std::vector<int> c(256);
        for (int i = 0; i < 256; i++) {
            a[i] = next32() & 0xff;
            b[i] = next32() & 0xff;
            sa[i] = (signed char)(next32() & 0xff);
            sb[i] = (signed char)(next32() & 0xff);
            uint32_t r = next32();
            c[i] = t < 2 ? (int)(r % 2000001) - 1000000
                         : (r & 1 ? 2147483647 - (int)(r % 600000) : -2147483647 - 1 + (int)(r % 600000));
        }
        tile<16, 16, 16, unsigned char, unsigned char, int, int, int, int>("m16n16k16.s32.u8.u8.s32", t, a, b, c);
        tile<16, 16, 16, unsigned char, unsigned char, int, int, int, int, true>("m16n16k16.s32.u8.u8.s32.satfinite", t, a, b, c);
        tile<16, 16, 16, signed char, signed char, int, int, int, int, true>("m16n16k16.s32.s8.s8.s32.satfinite", t, sa, sb, c);
    }
    // 3. .f64 m8n8k4.
    for (int t = 0; t < 4; t++) {
        std::vector<double> a(32), b(32), c(64);
        for (auto& x : a) x = std::ldexp((double)(int)(next32() % 2000001 - 1000000), (int)(next32() % 40) - 20);
        for (auto& x : b) x = std::ldexp((double)(int)(next32() % 2000001 - 1000000), (int)(next32() % 40) - 20);
        for (auto& x : c) x = t == 0 ? 0.0 : std::ldexp((double)next32(), (int)(next32() % 60) - 30);
        tile<8, 8, 4, double, double, double, double, double, double>("m8n8k4.f64.f64.f64.f64", t, a, b, c);
    }
    // 4. The lowest kept bit: D(i, j) = A(i,0) B(0,j) + A(i,1) B(1,j) with A(i,0) = B(0,j) = 2^-67
    //    (2^-134, or 2^-120 in the control tile) and A(i,1) = -(1 + i/16) 2^-80,
    //    B(1,j) = 2^-(72 + j): the second product is -(1 + i/16) 2^-(152 + j).
    for (int t = 0; t < 2; t++) {
        int e0 = t == 0 ? -67 : -60;
        std::vector<__nv_bfloat16> a(256, __float2bfloat16(0.0f)), b(256, __float2bfloat16(0.0f));
        std::vector<float> ta(128, 0.0f), tb(128, 0.0f), c(256, 0.0f);
        for (int i = 0; i < 16; i++) {
            float p = std::ldexp(1.0f, e0), q = -(1.0f + i / 16.0f) * std::ldexp(1.0f, -80);
            a[i * 16 + 0] = __float2bfloat16(p);
            a[i * 16 + 1] = __float2bfloat16(q);
            ta[i * 8 + 0] = p;
            ta[i * 8 + 1] = q;
        }
        for (int j = 0; j < 16; j++) {
            float p = std::ldexp(1.0f, e0), q = std::ldexp(1.0f, -72 - j);
            b[j * 16 + 0] = __float2bfloat16(p);
            b[j * 16 + 1] = __float2bfloat16(q);
            tb[j * 8 + 0] = p;
            tb[j * 8 + 1] = q;
        }
        tile<16, 16, 16, __nv_bfloat16, __nv_bfloat16, float, float, float, float>("m16n16k16.f32.bf16.bf16.f32 lowest-bit", t, a, b, c);
        tile<16, 16, 8, wmma::precision::tf32, float, float, float, float, float>("m16n16k8.f32.tf32.tf32.f32 lowest-bit", t, ta, tb, c);
    }
    return 0;
}
