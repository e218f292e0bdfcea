// wgmma.mma_async on an sm_90a GPU: golden data for a later bit-accurate model (issue 21).
// One warpgroup (128 threads) per tile runs one wgmma.mma_async with both operands in shared
// memory through descriptors (no swizzle), between wgmma.fence and commit_group/wait_group 0.
// What is recorded is layout-independent: the raw shared-memory bytes of the A region (2048
// bytes) and the B region (512 bytes), the descriptors, each thread's accumulator registers
// before (C) and after (D). The descriptors describe the canonical K-major layout of "8 rows x
// 16 bytes" core matrices with core matrix (row block r, K block k) at r*256 + k*128 bytes of its
// region: leading byte offset 128 (K direction), stride byte offset 256 (M/N direction). Which
// element is where is to be confirmed from the small-integer tiles (all sums exact), so a wrong
// reading of the descriptor fields still leaves usable data (every byte either reading could
// touch is inside the recorded regions).
//
//   nvcc -O2 -std=c++17 -arch=sm_90a wgmma.cu -o wgmma && ./wgmma OUT.bin
//
// OUT.bin: "WGMMA-GOLDEN-1\0\0" (16 bytes), u32 form count, then per form: name (48 bytes,
// NUL-padded), u32 tiles, u32 nd (accumulator registers per thread), u64 a-desc low 14 bits
// cleared (offsets only), u64 b-desc likewise, then per tile: A region (2048 bytes), B region
// (512 bytes), C (128 threads x nd u32), D (128 x nd u32). Tiles: 0-3 small integers in
// [-3, 3] (C too: exact sums), 4-19 random values of wide exponent range, 20-23 the same with
// specials (NaN, infinities, subnormals, zeros of both signs) sprinkled, 24-27 zero C.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

typedef uint32_t u32;
typedef uint64_t u64;

constexpr int A_BYTES = 2048, B_BYTES = 512, TILES = 28;

__device__ inline u64 desc(const void* smem) {
    u64 addr = (u64)__cvta_generic_to_shared(smem);
    return ((addr >> 4) & 0x3fff) | ((u64)(128 >> 4) << 16) | ((u64)(256 >> 4) << 32);
}

#define WG_FENCE asm volatile("wgmma.fence.sync.aligned;" ::: "memory")
#define WG_COMMIT asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory")
#define WG_WAIT asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory")

// The instruction of each form, on registers r[0..nd) (read as C, written as D).
#define FORM4(NAME, PTX, TAIL)                                                              \
    __device__ void NAME(u32* r, u64 da, u64 db) {                                         \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n" PTX                           \
                     " {%0, %1, %2, %3}, %4, %5, p" TAIL ";\n}\n"                              \
                     : "+r"(r[0]), "+r"(r[1]), "+r"(r[2]), "+r"(r[3])                          \
                     : "l"(da), "l"(db));                                                     \
    }
#define FORM2(NAME, PTX, TAIL)                                                              \
    __device__ void NAME(u32* r, u64 da, u64 db) {                                         \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n" PTX                           \
                     " {%0, %1}, %2, %3, p" TAIL ";\n}\n"                                      \
                     : "+r"(r[0]), "+r"(r[1])                                                  \
                     : "l"(da), "l"(db));                                                     \
    }
#define FORM8(NAME, PTX, TAIL)                                                              \
    __device__ void NAME(u32* r, u64 da, u64 db) {                                         \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n" PTX                           \
                     " {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p" TAIL ";\n}\n"            \
                     : "+r"(r[0]), "+r"(r[1]), "+r"(r[2]), "+r"(r[3]), "+r"(r[4]), "+r"(r[5]), \
                       "+r"(r[6]), "+r"(r[7])                                                  \
                     : "l"(da), "l"(db));                                                     \
    }

FORM4(f0, "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", ", 1, 1, 0, 0")
FORM2(f1, "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16", ", 1, 1, 0, 0")
FORM4(f2, "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16", ", 1, 1, 0, 0")
FORM4(f3, "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32", ", 1, 1")
FORM4(f4, "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3", ", 1, 1")
FORM4(f5, "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e4m3", ", 1, 1")
FORM2(f6, "wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e4m3", ", 1, 1")
FORM4(f7, "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8", "")
FORM8(f8, "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16", ", 1, 1, 0, 0")
FORM4(f9, "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", ", -1, 1, 0, 0")
FORM4(f10, "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", ", 1, 1, 1, 1")

typedef void (*Op)(u32*, u64, u64);

template <int ND, int FORM>
__global__ void run(const uint8_t* a, const uint8_t* b, const u32* c, u32* d, u64* descs) {
    __shared__ __align__(1024) uint8_t sa[A_BYTES];
    __shared__ __align__(1024) uint8_t sb[B_BYTES];
    int tile = blockIdx.x, t = threadIdx.x;
    for (int i = t; i < A_BYTES; i += 128) sa[i] = a[tile * A_BYTES + i];
    for (int i = t; i < B_BYTES; i += 128) sb[i] = b[tile * B_BYTES + i];
    u32 r[8];
    for (int i = 0; i < ND; i++) r[i] = c[(tile * 128 + t) * ND + i];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    u64 da = desc(sa), db = desc(sb);
    if (tile == 0 && t == 0) {
        descs[0] = da & ~0x3fffull;
        descs[1] = db & ~0x3fffull;
    }
    WG_FENCE;
    if constexpr (FORM == 0) f0(r, da, db);
    if constexpr (FORM == 1) f1(r, da, db);
    if constexpr (FORM == 2) f2(r, da, db);
    if constexpr (FORM == 3) f3(r, da, db);
    if constexpr (FORM == 4) f4(r, da, db);
    if constexpr (FORM == 5) f5(r, da, db);
    if constexpr (FORM == 6) f6(r, da, db);
    if constexpr (FORM == 7) f7(r, da, db);
    if constexpr (FORM == 8) f8(r, da, db);
    if constexpr (FORM == 9) f9(r, da, db);
    if constexpr (FORM == 10) f10(r, da, db);
    WG_COMMIT;
    WG_WAIT;
    for (int i = 0; i < ND; i++) d[(tile * 128 + t) * ND + i] = r[i];
}

static u64 state = 0x243F6A8885A308D3ull;
static u32 next32() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (u32)(state >> 32);
}

// Element kinds: 1 f16, 2 bf16, 3 tf32 (f32 storage), 4 e4m3, 5 e5m2, 6 s8, 7 f32 acc, 8 f16x2
// acc, 9 s32 acc.
static u32 small_int(int kind) {
    int v = (int)(next32() % 7) - 3;
    float f = (float)v;
    u32 fb;
    std::memcpy(&fb, &f, 4);
    switch (kind) {
        case 1: case 8: {  // f16 of a small integer
            static const uint16_t h[7] = {0xc200, 0xc000, 0xbc00, 0x0000, 0x3c00, 0x4000, 0x4200};
            return h[v + 3];
        }
        case 2: return fb >> 16;
        case 3: case 7: return fb;
        case 4: {
            static const uint8_t e[7] = {0xc4, 0xc0, 0xb8, 0x00, 0x38, 0x40, 0x44};
            return e[v + 3];
        }
        case 5: {
            static const uint8_t e[7] = {0xc2, 0xc0, 0xbc, 0x00, 0x3c, 0x40, 0x42};
            return e[v + 3];
        }
        case 6: return (uint8_t)(int8_t)v;
        default: return (u32)v;
    }
}

static u32 random_value(int kind, bool specials) {
    u32 r = next32(), s = next32();
    if (specials && s % 8 == 0) {
        switch (kind) {
            case 1: case 8: { static const uint16_t x[6] = {0x7c00, 0xfc00, 0x7e00, 0x0001, 0x8000, 0x03ff}; return x[r % 6]; }
            case 2: { static const uint16_t x[6] = {0x7f80, 0xff80, 0x7fc0, 0x0001, 0x8000, 0x007f}; return x[r % 6]; }
            case 3: case 7: { static const u32 x[6] = {0x7f800000, 0xff800000, 0x7fc00000, 0x00002000, 0x80000000, 0x007fe000}; return x[r % 6]; }
            case 4: { static const uint8_t x[6] = {0x7f, 0xff, 0x7e, 0x01, 0x80, 0x07}; return x[r % 6]; }
            case 5: { static const uint8_t x[6] = {0x7c, 0xfc, 0x7e, 0x01, 0x80, 0x03}; return x[r % 6]; }
            default: break;
        }
    }
    switch (kind) {
        case 1: case 8: return (r & 0x83ff) | ((1 + s % 30) << 10);
        case 2: return (r & 0x807f) | ((90 + s % 76) << 7);
        case 3: return (r & 0x807fe000) | ((90 + s % 76) << 23);
        case 7: return (r & 0x807fffff) | ((90 + s % 76) << 23);
        case 4: { u32 v = r & 0xff; return (v & 0x7f) == 0x7f ? v ^ 1 : v; }
        case 5: { u32 v = r & 0xff; return (v & 0x7c) == 0x7c ? v ^ 0x40 : v; }
        case 6: return r & 0xff;
        default: return r % 200001 - 100000;
    }
}

static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

struct Form {
    const char* name;
    int nd, elem_kind, elem_bytes, acc_kind;
    void (*launch)(const uint8_t*, const uint8_t*, const u32*, u32*, u64*);
};

template <int ND, int F>
static void launch(const uint8_t* a, const uint8_t* b, const u32* c, u32* d, u64* descs) {
    run<ND, F><<<TILES, 128>>>(a, b, c, d, descs);
}

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: wgmma OUT.bin\n");
        return 2;
    }
    Form forms[] = {
        {"m64n8k16.f32.f16.f16", 4, 1, 2, 7, launch<4, 0>},
        {"m64n8k16.f16.f16.f16", 2, 1, 2, 8, launch<2, 1>},
        {"m64n8k16.f32.bf16.bf16", 4, 2, 2, 7, launch<4, 2>},
        {"m64n8k8.f32.tf32.tf32", 4, 3, 4, 7, launch<4, 3>},
        {"m64n8k32.f32.e4m3.e4m3", 4, 4, 1, 7, launch<4, 4>},
        {"m64n8k32.f32.e5m2.e4m3", 4, 5, 1, 7, launch<4, 5>},
        {"m64n8k32.f16.e4m3.e4m3", 2, 4, 1, 8, launch<2, 6>},
        {"m64n8k32.s32.s8.s8", 4, 6, 1, 9, launch<4, 7>},
        {"m64n16k16.f32.f16.f16", 8, 1, 2, 7, launch<8, 8>},
        {"m64n8k16.f32.f16.f16 scale-a -1", 4, 1, 2, 7, launch<4, 9>},
        {"m64n8k16.f32.f16.f16 trans-a 1 trans-b 1", 4, 1, 2, 7, launch<4, 10>},
    };
    int nforms = sizeof(forms) / sizeof(forms[0]);
    FILE* out = std::fopen(argv[1], "wb");
    if (!out) return 1;
    std::fwrite("WGMMA-GOLDEN-1\0\0", 1, 16, out);
    u32 n = nforms;
    std::fwrite(&n, 4, 1, out);
    uint8_t *da, *db;
    u32 *dc, *dd;
    u64* ddesc;
    check(cudaMalloc(&da, TILES * A_BYTES), "malloc");
    check(cudaMalloc(&db, TILES * B_BYTES), "malloc");
    check(cudaMalloc(&dc, TILES * 128 * 8 * 4), "malloc");
    check(cudaMalloc(&dd, TILES * 128 * 8 * 4), "malloc");
    check(cudaMalloc(&ddesc, 16), "malloc");
    for (int f = 0; f < nforms; f++) {
        Form& F = forms[f];
        std::vector<uint8_t> a(TILES * A_BYTES), b(TILES * B_BYTES);
        std::vector<u32> c(TILES * 128 * F.nd), d(TILES * 128 * F.nd, 0xA5A5A5A5u);
        for (int t = 0; t < TILES; t++) {
            bool small = t < 4, specials = t >= 20 && t < 24, zero_c = t >= 24;
            auto fill = [&](uint8_t* p, int bytes) {
                for (int i = 0; i < bytes; i += F.elem_bytes) {
                    u32 v = small ? small_int(F.elem_kind) : random_value(F.elem_kind, specials);
                    std::memcpy(p + i, &v, F.elem_bytes);
                }
            };
            fill(&a[t * A_BYTES], A_BYTES);
            fill(&b[t * B_BYTES], B_BYTES);
            for (int i = 0; i < 128 * F.nd; i++) {
                u32 v;
                if (zero_c) v = 0;
                else if (F.acc_kind == 8) {
                    u32 lo = small ? small_int(8) : random_value(8, specials);
                    u32 hi = small ? small_int(8) : random_value(8, specials);
                    v = lo | hi << 16;
                } else v = small ? small_int(F.acc_kind) : random_value(F.acc_kind, specials);
                c[t * 128 * F.nd + i] = v;
            }
        }
        check(cudaMemcpy(da, a.data(), a.size(), cudaMemcpyHostToDevice), "copy");
        check(cudaMemcpy(db, b.data(), b.size(), cudaMemcpyHostToDevice), "copy");
        check(cudaMemcpy(dc, c.data(), c.size() * 4, cudaMemcpyHostToDevice), "copy");
        check(cudaMemcpy(dd, d.data(), d.size() * 4, cudaMemcpyHostToDevice), "copy");
        F.launch(da, db, dc, dd, ddesc);
        check(cudaDeviceSynchronize(), F.name);
        check(cudaMemcpy(d.data(), dd, d.size() * 4, cudaMemcpyDeviceToHost), "copy back");
        u64 descs[2];
        check(cudaMemcpy(descs, ddesc, 16, cudaMemcpyDeviceToHost), "copy back");
        char name[48] = {0};
        std::strncpy(name, F.name, 47);
        std::fwrite(name, 1, 48, out);
        u32 tiles = TILES, nd = F.nd;
        std::fwrite(&tiles, 4, 1, out);
        std::fwrite(&nd, 4, 1, out);
        std::fwrite(descs, 8, 2, out);
        for (int t = 0; t < TILES; t++) {
            std::fwrite(&a[t * A_BYTES], 1, A_BYTES, out);
            std::fwrite(&b[t * B_BYTES], 1, B_BYTES, out);
            std::fwrite(&c[t * 128 * F.nd], 4, 128 * F.nd, out);
            std::fwrite(&d[t * 128 * F.nd], 4, 128 * F.nd, out);
        }
        int poisoned = 0;
        for (u32 v : d) poisoned += v == 0xA5A5A5A5u;
        std::printf("%s: %d tiles, descriptors %016llx %016llx, poison words left %d\n", F.name,
                    TILES, (unsigned long long)descs[0], (unsigned long long)descs[1], poisoned);
    }
    std::fclose(out);
    return 0;
}
