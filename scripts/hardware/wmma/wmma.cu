// wmma on an sm_90 GPU: (1) which matrix element each lane's fragment element holds, for every
// common shape, type, matrix and layout (the ISA leaves the fragment layout unspecified, so it
// is measured); (2) wmma.mma results on pseudo-random inputs, to check the arithmetic.
// Driver for scripts/hardware/wmma/run.sh; the CUDA C++ wmma API (nvcuda::wmma) emits the
// wmma.load / wmma.mma / wmma.store PTX. Output, as text on stdout:
//   layout NAME ELEMENTS WORDS   then 32 lines (lane 0..31) of WORDS hex words (x[i] raw bits,
//                                 f64 elements as two words, low first)
//   mma NAME                     then the A, B, C, D matrices as hex rows (raw bits, row-major)
// Source matrices for the layouts hold raw bit patterns that encode the element's row-major
// index (16-bit: BASE + index, 32-bit: BASE + index << 13, 8-bit: two runs, low and high
// byte of the index, 64-bit: index).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <vector>

using namespace nvcuda;

__device__ inline void put(uint32_t* out, int& w, half v) { out[w++] = __half_as_ushort(v); }
__device__ inline void put(uint32_t* out, int& w, __nv_bfloat16 v) {
    out[w++] = __bfloat16_as_ushort(v);
}
__device__ inline void put(uint32_t* out, int& w, float v) { out[w++] = __float_as_uint(v); }
__device__ inline void put(uint32_t* out, int& w, int v) { out[w++] = (uint32_t)v; }
__device__ inline void put(uint32_t* out, int& w, signed char v) { out[w++] = (uint8_t)v; }
__device__ inline void put(uint32_t* out, int& w, unsigned char v) { out[w++] = v; }
__device__ inline void put(uint32_t* out, int& w, double v) {
    unsigned long long b = __double_as_longlong(v);
    out[w++] = (uint32_t)b;
    out[w++] = (uint32_t)(b >> 32);
}

template <typename Frag, typename S>
__global__ void dump_ab(const S* src, unsigned ld, uint32_t* out, int words) {
    Frag f;
    wmma::load_matrix_sync(f, src, ld);
    int w = 0;
    uint32_t* mine = out + threadIdx.x * words;
    for (int i = 0; i < f.num_elements; i++) put(mine, w, f.x[i]);
}

template <typename Frag, typename S>
__global__ void dump_c(const S* src, unsigned ld, uint32_t* out, int words, int col_major) {
    Frag f;
    wmma::load_matrix_sync(f, src, ld, col_major ? wmma::mem_col_major : wmma::mem_row_major);
    int w = 0;
    uint32_t* mine = out + threadIdx.x * words;
    for (int i = 0; i < f.num_elements; i++) put(mine, w, f.x[i]);
}

template <int M, int N, int K, typename TA, typename SA, typename TC, typename SC>
__global__ void run_mma(const SA* a, const SA* b, const SC* c, SC* d) {
    wmma::fragment<wmma::matrix_a, M, N, K, TA, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, TA, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, M, N, K, TC> fc;
    wmma::load_matrix_sync(fa, a, K);
    wmma::load_matrix_sync(fb, b, K);
    wmma::load_matrix_sync(fc, c, N, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, N, wmma::mem_row_major);
}

static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

// Fills `bytes` bytes of raw patterns: element e of size `size` encodes index e (plane: for
// 8-bit elements, 0 = low byte of the index, 1 = high byte).
static std::vector<uint8_t> pattern(int elements, int size, int plane) {
    std::vector<uint8_t> v(elements * size);
    for (int e = 0; e < elements; e++) {
        uint64_t bits = size == 2   ? 0x3c00u + e
                        : size == 4 ? 0x3f800000u + ((uint32_t)e << 13)
                        : size == 1 ? (plane ? e >> 8 : e & 0xff)
                                    : (uint64_t)e;
        std::memcpy(&v[e * size], &bits, size);
    }
    return v;
}

template <typename Frag, typename S, bool acc = false>
static void layout(const char* name, int rows, int cols, bool col_major_mem, int plane = 0,
                   bool acc_col = false) {
    int elements = rows * cols, size = sizeof(S);
    auto host = pattern(elements, size, plane);
    void* src;
    uint32_t* out;
    int per = Frag::num_elements * (size == 8 ? 2 : 1);
    check(cudaMalloc(&src, host.size()), "malloc");
    check(cudaMalloc(&out, 32 * per * 4), "malloc");
    check(cudaMemcpy(src, host.data(), host.size(), cudaMemcpyHostToDevice), "copy");
    unsigned ld = col_major_mem ? rows : cols;
    if constexpr (acc)
        dump_c<Frag, S><<<1, 32>>>((const S*)src, ld, out, per, acc_col);
    else
        dump_ab<Frag, S><<<1, 32>>>((const S*)src, ld, out, per);
    check(cudaDeviceSynchronize(), name);
    std::vector<uint32_t> got(32 * per);
    check(cudaMemcpy(got.data(), out, got.size() * 4, cudaMemcpyDeviceToHost), "copy back");
    std::printf("layout %s %d %d\n", name, Frag::num_elements, per);
    for (int l = 0; l < 32; l++) {
        for (int i = 0; i < per; i++) std::printf("%s%x", i ? " " : "", got[l * per + i]);
        std::printf("\n");
    }
    cudaFree(src);
    cudaFree(out);
}

#define AB(NAME, USE, M, N, K, T, S, LAYOUT, R, C, COLMEM)                                   \
    layout<wmma::fragment<wmma::USE, M, N, K, T, wmma::LAYOUT>, S>(NAME, R, C, COLMEM)
#define AB8(NAME, USE, M, N, K, T, S, LAYOUT, R, C, COLMEM)                                  \
    layout<wmma::fragment<wmma::USE, M, N, K, T, wmma::LAYOUT>, S>(NAME ".lo", R, C, COLMEM, 0); \
    layout<wmma::fragment<wmma::USE, M, N, K, T, wmma::LAYOUT>, S>(NAME ".hi", R, C, COLMEM, 1)
#define ACC(NAME, M, N, K, T, S, COL)                                                         \
    layout<wmma::fragment<wmma::accumulator, M, N, K, T>, S, true>(NAME, M, N, COL, 0, COL)

static uint64_t state = 0x9E3779B97F4A7C15ull;
static uint32_t next32() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(state >> 32);
}

// Random inputs: 16-bit floats with exponent fields in a band (no NaN/Inf), f32 likewise, s8
// any byte.
template <int M, int N, int K, typename TA, typename SA, typename TC, typename SC>
static void mma(const char* name, int tiles) {
    for (int t = 0; t < tiles; t++) {
        std::vector<SA> a(M * K), b(K * N);
        std::vector<SC> c(M * N), d(M * N);
        auto fill = [&](void* p, int n, int size, bool acc) {
            for (int i = 0; i < n; i++) {
                uint32_t r = next32();
                uint32_t bits;
                if (size == 2 && !acc && std::is_same<TA, half>::value)
                    bits = (r & 0x83ff) | ((8 + (r >> 16) % 14) << 10);  // f16 exp 8..21
                else if (size == 2 && !acc)
                    bits = (r & 0x807f) | ((112 + (r >> 16) % 30) << 7);  // bf16 exp 112..141
                else if (size == 2)
                    bits = (r & 0x83ff) | ((8 + (r >> 16) % 14) << 10);  // f16 accumulator
                else if (size == 4 && (acc ? !std::is_same<SC, int>::value : true))
                    bits = (r & 0x807fffff) | ((112 + (r >> 8) % 30) << 23);
                else
                    bits = size == 1 ? r & 0xff : r % 20001 - 10000;
                if (t == 0 && acc) bits = 0;  // tile 0: zero accumulator
                std::memcpy((uint8_t*)p + i * size, &bits, size);
            }
        };
        fill(a.data(), M * K, sizeof(SA), false);
        fill(b.data(), K * N, sizeof(SA), false);
        fill(c.data(), M * N, sizeof(SC), true);
        SA *da, *db;
        SC *dc, *dd;
        check(cudaMalloc(&da, a.size() * sizeof(SA)), "malloc");
        check(cudaMalloc(&db, b.size() * sizeof(SA)), "malloc");
        check(cudaMalloc(&dc, c.size() * sizeof(SC)), "malloc");
        check(cudaMalloc(&dd, d.size() * sizeof(SC)), "malloc");
        cudaMemcpy(da, a.data(), a.size() * sizeof(SA), cudaMemcpyHostToDevice);
        cudaMemcpy(db, b.data(), b.size() * sizeof(SA), cudaMemcpyHostToDevice);
        cudaMemcpy(dc, c.data(), c.size() * sizeof(SC), cudaMemcpyHostToDevice);
        run_mma<M, N, K, TA, SA, TC, SC><<<1, 32>>>(da, db, dc, dd);
        check(cudaDeviceSynchronize(), name);
        cudaMemcpy(d.data(), dd, d.size() * sizeof(SC), cudaMemcpyDeviceToHost);
        std::printf("mma %s tile %d (A row-major %dx%d, B col-major %dx%d as [n][k], C, D row-major %dx%d)\n",
                    name, t, M, K, N, K, M, N);
        auto dumprows = [](const char* tag, const void* p, int rows, int cols, int size) {
            for (int r = 0; r < rows; r++) {
                std::printf("%s", tag);
                for (int c = 0; c < cols; c++) {
                    uint32_t v = 0;
                    std::memcpy(&v, (const uint8_t*)p + (r * cols + c) * size, size);
                    std::printf(" %x", v);
                }
                std::printf("\n");
            }
        };
        dumprows("A", a.data(), M, K, sizeof(SA));
        dumprows("B", b.data(), N, K, sizeof(SA));
        dumprows("C", c.data(), M, N, sizeof(SC));
        dumprows("D", d.data(), M, N, sizeof(SC));
        cudaFree(da);
        cudaFree(db);
        cudaFree(dc);
        cudaFree(dd);
    }
}

int main() {
    // f16 (m16n16k16, m32n8k16, m8n32k16), bf16, tf32, s8/u8, f64.
    AB("a.row.m16n16k16.f16", matrix_a, 16, 16, 16, half, half, row_major, 16, 16, false);
    AB("a.col.m16n16k16.f16", matrix_a, 16, 16, 16, half, half, col_major, 16, 16, true);
    AB("b.row.m16n16k16.f16", matrix_b, 16, 16, 16, half, half, row_major, 16, 16, false);
    AB("b.col.m16n16k16.f16", matrix_b, 16, 16, 16, half, half, col_major, 16, 16, true);
    AB("a.row.m32n8k16.f16", matrix_a, 32, 8, 16, half, half, row_major, 32, 16, false);
    AB("a.col.m32n8k16.f16", matrix_a, 32, 8, 16, half, half, col_major, 32, 16, true);
    AB("b.row.m32n8k16.f16", matrix_b, 32, 8, 16, half, half, row_major, 16, 8, false);
    AB("b.col.m32n8k16.f16", matrix_b, 32, 8, 16, half, half, col_major, 16, 8, true);
    AB("a.row.m8n32k16.f16", matrix_a, 8, 32, 16, half, half, row_major, 8, 16, false);
    AB("a.col.m8n32k16.f16", matrix_a, 8, 32, 16, half, half, col_major, 8, 16, true);
    AB("b.row.m8n32k16.f16", matrix_b, 8, 32, 16, half, half, row_major, 16, 32, false);
    AB("b.col.m8n32k16.f16", matrix_b, 8, 32, 16, half, half, col_major, 16, 32, true);
    AB("a.row.m16n16k16.bf16", matrix_a, 16, 16, 16, __nv_bfloat16, __nv_bfloat16, row_major, 16, 16, false);
    AB("b.col.m16n16k16.bf16", matrix_b, 16, 16, 16, __nv_bfloat16, __nv_bfloat16, col_major, 16, 16, true);
    AB("a.row.m16n16k8.tf32", matrix_a, 16, 16, 8, wmma::precision::tf32, float, row_major, 16, 8, false);
    AB("b.col.m16n16k8.tf32", matrix_b, 16, 16, 8, wmma::precision::tf32, float, col_major, 8, 16, true);
    AB8("a.row.m16n16k16.s8", matrix_a, 16, 16, 16, signed char, signed char, row_major, 16, 16, false);
    AB8("b.col.m16n16k16.s8", matrix_b, 16, 16, 16, signed char, signed char, col_major, 16, 16, true);
    AB("a.row.m8n8k4.f64", matrix_a, 8, 8, 4, double, double, row_major, 8, 4, false);
    AB("b.col.m8n8k4.f64", matrix_b, 8, 8, 4, double, double, col_major, 4, 8, true);
    ACC("c.row.m16n16k16.f32", 16, 16, 16, float, float, false);
    ACC("c.col.m16n16k16.f32", 16, 16, 16, float, float, true);
    ACC("c.row.m16n16k16.f16", 16, 16, 16, half, half, false);
    ACC("c.row.m32n8k16.f32", 32, 8, 16, float, float, false);
    ACC("c.row.m8n32k16.f32", 8, 32, 16, float, float, false);
    ACC("c.row.m32n8k16.f16", 32, 8, 16, half, half, false);
    ACC("c.row.m16n16k16.s32", 16, 16, 16, int, int, false);
    ACC("c.row.m8n8k4.f64", 8, 8, 4, double, double, false);
    mma<16, 16, 16, half, half, float, float>("m16n16k16.f32.f16", 4);
    mma<16, 16, 16, half, half, half, half>("m16n16k16.f16.f16", 4);
    mma<32, 8, 16, half, half, float, float>("m32n8k16.f32.f16", 2);
    mma<8, 32, 16, half, half, float, float>("m8n32k16.f32.f16", 2);
    mma<16, 16, 16, __nv_bfloat16, __nv_bfloat16, float, float>("m16n16k16.f32.bf16", 4);
    mma<16, 16, 8, wmma::precision::tf32, float, float, float>("m16n16k8.f32.tf32", 4);
    mma<16, 16, 16, signed char, signed char, int, int>("m16n16k16.s32.s8", 4);
    return 0;
}
