// Golden-data generator for the nvcc sample kernels in ptx-samples/cuda/*.cu.
//
// Build: g++ -std=c++17 -O1 -frounding-math -fno-fast-math -I $NV/include -I $NV/include/cccl
// Run:   gen <repo-root>   (writes <repo>/tests/kernels/**)
//
// Reference sources (recorded per output in manifest.json):
//  * "header:<fn>"      the __host__ __device__ conversion functions of cuda_fp16/bf16/fp8/fp6/fp4.h,
//                       executed here on the host.
//  * "host FPU fesetround: ..." device-only intrinsics (__float2int_*, __double2float_*, ...)
//                       recomputed with the host FPU under fesetround + PTX cvt "Integer Notes"
//                       clamping / NaN rules (spec-derived, not header-derived).
//  * "spec-derived: ..." inline-asm kernels, from the PTX ISA text (cvt.md, cvt-pack.md, mov.md),
//                       using header functions for the rounding where an equivalent exists.
//  * "double: ..."      kernels with approximate instructions (math.cu): a double-precision
//                       reference rounded once, plus a per-element tolerance (cases_math).
// Everything is deterministic (fixed seeds, std::mt19937 whose output sequence is fixed by the
// C++ standard; no std:: distributions are used).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_fp6.h>
#include <cuda_fp4.h>

#include <cfenv>
#include <cfloat>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <sys/stat.h>
#include <vector>

#pragma STDC FENV_ACCESS ON

using u8 = uint8_t;
using u16 = uint16_t;
using u32 = uint32_t;
using u64 = uint64_t;
using s32 = int32_t;
using s64 = int64_t;

static std::string g_root;    // repo root
static const char* kDir = "tests/kernels";

// ---------------------------------------------------------------- bit helpers
static inline u32 fbits(float f) { u32 u; memcpy(&u, &f, 4); return u; }
static inline float bitsf(u32 u) { float f; memcpy(&f, &u, 4); return f; }
static inline u64 dbits(double d) { u64 u; memcpy(&u, &d, 8); return u; }
static inline double bitsd(u64 u) { double d; memcpy(&d, &u, 8); return d; }
static inline u16 hbits(__half h) { __half_raw r = h; return r.x; }
static inline __half bitsh(u16 u) { __half_raw r; r.x = u; return __half(r); }
static inline u16 bbits(__nv_bfloat16 h) { __nv_bfloat16_raw r = h; return r.x; }
static inline __nv_bfloat16 bitsb(u16 u) { __nv_bfloat16_raw r; r.x = u; return __nv_bfloat16(r); }
static inline __half2_raw h2raw(u32 w) { __half2_raw r; r.x = (u16)w; r.y = (u16)(w >> 16); return r; }
static inline __nv_bfloat162_raw b2raw(u32 w) { __nv_bfloat162_raw r; r.x = (u16)w; r.y = (u16)(w >> 16); return r; }
static inline u32 h2bits(__half2_raw r) { return (u32)r.x | ((u32)r.y << 16); }
static inline u32 b2bits(__nv_bfloat162_raw r) { return (u32)r.x | ((u32)r.y << 16); }

static const u32 kF32CanonNaN = 0x7fffffffu;

// ---------------------------------------------------------------- output plumbing
struct Bytes {
    std::vector<u8> v;
    template <class T> void put(T x) { u8 b[sizeof(T)]; memcpy(b, &x, sizeof(T)); v.insert(v.end(), b, b + sizeof(T)); }
    size_t size() const { return v.size(); }
};
// A mask has one byte per output byte: 0xff = compare, 0x00 = no reference (don't care).
struct Mask {
    std::vector<u8> v;
    bool any_dontcare = false;
    void put(size_t nbytes, bool compare) { v.insert(v.end(), nbytes, compare ? 0xff : 0x00); if (!compare) any_dontcare = true; }
};

static void mkdirs(const std::string& p) {
    std::string cur;
    for (size_t i = 0; i <= p.size(); i++) {
        if (i == p.size() || p[i] == '/') { if (!cur.empty()) mkdir(cur.c_str(), 0755); }
        if (i < p.size()) cur += p[i];
    }
}
static void writefile(const std::string& rel, const std::vector<u8>& d) {
    std::string full = g_root + "/" + rel;
    mkdirs(full.substr(0, full.rfind('/')));
    FILE* f = fopen(full.c_str(), "wb");
    if (!f) { perror(full.c_str()); exit(1); }
    if (!d.empty()) fwrite(d.data(), 1, d.size(), f);
    fclose(f);
}
static bool exists(const std::string& rel) { struct stat st; return stat((g_root + "/" + rel).c_str(), &st) == 0; }

static std::string jstr(const std::string& s) {
    std::string o = "\"";
    for (char c : s) { if (c == '"' || c == '\\') o += '\\'; o += c; }
    return o + "\"";
}

struct OutInfo {
    int arg;
    std::string file, mask, ref, elem, note;
    bool nan_any;
    size_t bytes;
    // Optional tolerance against the host reference (approximate instructions): element k of
    // format tol_type passes when |actual - expected| <= bound[k] + tol_ulp * ulp(max(|actual|,
    // |expected|)) (tests/kernels/README.md, "Tolerances").
    std::string tol_type, tol_bound;
    int tol_ulp = 0;
};
struct Case {
    std::string name, src, entry;
    long n = 0;
    int block = 256, grid = 0;
    long dynamic_shared = 0;   // bytes of dynamic shared memory per CTA (`.extern .shared`)
    std::vector<std::string> args;
    std::vector<OutInfo> outs;
    std::vector<std::string> notes;
    std::vector<std::string> no_ref;   // output slots / forms with no independent reference
    std::string dir() const { return std::string(kDir) + "/" + name; }
};
static std::vector<Case> g_cases;

static void arg_in(Case& c, const std::string& fname, const Bytes& b) {
    std::string rel = c.dir() + "/" + fname + ".bin";
    writefile(rel, b.v);
    c.args.push_back("buf:" + rel);
}
static std::set<std::string> g_shared_written;
static void arg_shared(Case& c, const std::string& name, const Bytes& b) {
    std::string rel = std::string(kDir) + "/common/" + name + ".bin";
    if (g_shared_written.insert(rel).second) writefile(rel, b.v);
    c.args.push_back("buf:" + rel);
}
static void arg_out(Case& c, const std::string& fname, const Bytes& b, const std::string& ref,
                    const std::string& elem, bool nan_any = false, const Mask* m = nullptr,
                    const std::string& note = "") {
    OutInfo o;
    o.arg = (int)c.args.size();
    o.file = c.dir() + "/" + fname + ".bin";
    writefile(o.file, b.v);
    if (m) {
        if (m->v.size() != b.v.size()) { fprintf(stderr, "mask size mismatch %s\n", o.file.c_str()); exit(1); }
        if (m->any_dontcare) {
            // bit-packed: bit (k % 8) of byte k / 8 (LSB first) = 1 if output byte k is compared
            std::vector<u8> packed((m->v.size() + 7) / 8, 0);
            for (size_t k = 0; k < m->v.size(); k++) if (m->v[k]) packed[k / 8] |= (u8)(1u << (k % 8));
            o.mask = c.dir() + "/" + fname + ".mask.bin"; writefile(o.mask, packed);
        }
    }
    o.ref = ref; o.elem = elem; o.nan_any = nan_any; o.note = note; o.bytes = b.size();
    c.outs.push_back(o);
    c.args.push_back("zeros:" + std::to_string(b.size()));
}
// A tolerance for the last output of `c`: `bound` has one absolute bound per element of `type`.
static void tolerance(Case& c, const std::string& type, int ulp, const std::vector<double>& bound) {
    OutInfo& o = c.outs.back();
    size_t elem_bytes = type == "f16" || type == "bf16" ? 2 : type == "f32" ? 4 : 8;
    if (bound.size() * elem_bytes != o.bytes) { fprintf(stderr, "bound size mismatch %s\n", o.file.c_str()); exit(1); }
    Bytes b;
    for (double x : bound) b.put(x);
    o.tol_type = type; o.tol_ulp = ulp;
    o.tol_bound = o.file.substr(0, o.file.size() - 4) + ".bound.bin";
    writefile(o.tol_bound, b.v);
}
static void arg_s32(Case& c, long v) { c.args.push_back("s32:" + std::to_string(v)); }
static void launch1d(Case& c, long n, int block = 256) { c.n = n; c.block = block; c.grid = (int)((n + block - 1) / block); }

// ---------------------------------------------------------------- deterministic RNG
struct Rng {
    std::mt19937 g;
    explicit Rng(u32 seed) : g(seed) {}
    u32 u32_() { return (u32)g(); }
    u64 u64_() { u64 hi = u32_(); return (hi << 32) | u32_(); }
    u32 below(u32 n) { return (u32)(u64_() % n); }
};

// ---------------------------------------------------------------- input vectors
// Boundary values of a binary floating-point destination format with m explicit mantissa
// bits, minimum normal exponent emin and largest finite value maxv (subnormals assumed).
template <class T>
static void add_near(std::vector<T>& out, T v) {
    out.push_back(v);
    out.push_back(std::nextafter(v, (T)INFINITY));
    if (v > 0) out.push_back(std::nextafter(v, (T)0));
}
template <class T>
static void add_format_boundaries(std::vector<T>& out, int m, int emin, double maxv, bool all_values, int pow2_step) {
    auto ulp_at = [&](double v) {
        int e = (v == 0) ? emin : std::max((int)std::floor(std::log2(v)), emin);
        return std::ldexp(1.0, e - m);
    };
    std::vector<double> seeds;
    double sub = std::ldexp(1.0, emin - m);
    if (all_values) {
        for (double v = 0; v <= maxv; v += ulp_at(v)) seeds.push_back(v);
    } else {
        for (int k = 0; k < 12; k++) seeds.push_back(k * sub);                        // smallest subnormals
        for (int k = -6; k < 6; k++) seeds.push_back(std::ldexp(1.0, emin) + k * sub); // around min normal
        for (int k = 0; k < 8; k++) seeds.push_back(maxv - k * ulp_at(maxv));           // near max normal
        int emax = (int)std::floor(std::log2(maxv));
        for (int e = emin; e <= emax; e += pow2_step) {
            double p = std::ldexp(1.0, e);
            seeds.push_back(p);
            seeds.push_back(p - std::ldexp(1.0, std::max(e - 1, emin) - m));
            seeds.push_back(p + ulp_at(p));
        }
        for (int k = 0; k < 8; k++) seeds.push_back(1.0 + k * ulp_at(1.0));
    }
    seeds.push_back(maxv);
    for (double s : seeds) {
        double nx = s + ulp_at(s);                 // next value (beyond maxv: the virtual next)
        double mid = (s + nx) / 2;
        for (int sg = 0; sg < 2; sg++) {
            double k = sg ? -1.0 : 1.0;
            add_near(out, (T)(k * s) * 1);
            T tm = (T)(k * mid);
            out.push_back(tm);
            out.push_back(std::nextafter(tm, (T)INFINITY));
            out.push_back(std::nextafter(tm, -(T)INFINITY));
        }
    }
    (void)add_near<T>;
}

static std::vector<float> dedupe_f(const std::vector<float>& in) {
    std::set<u32> seen; std::vector<float> o;
    for (float f : in) if (seen.insert(fbits(f)).second) o.push_back(f);
    return o;
}
static std::vector<double> dedupe_d(const std::vector<double>& in) {
    std::set<u64> seen; std::vector<double> o;
    for (double f : in) if (seen.insert(dbits(f)).second) o.push_back(f);
    return o;
}

static const u32 kF32Specials[] = {
    0x00000000, 0x80000000, 0x7f800000, 0xff800000,                 // zeros, infinities
    0x7fc00000, 0xffc00000, 0x7fffffff, 0xffffffff, 0x7fc00001,     // quiet NaNs (payloads, signs)
    0x7f800001, 0xff800001, 0x7fbfffff, 0x7fa00000,                 // signalling NaNs
    0x00000001, 0x80000001, 0x00000002, 0x007fffff, 0x807fffff, 0x00400000, 0x00400001, 0x003fffff,  // subnormals
    0x00800000, 0x80800000, 0x00800001, 0x7f7fffff, 0xff7fffff, 0x7f7ffffe, // min/max normal
    0x3f800000, 0xbf800000, 0x3f000000, 0xbf000000, 0x3fc00000, 0x40000000, 0x3effffff, 0x3f000001,
};

static std::vector<float> make_f32_vector(size_t N, u32 seed) {
    std::vector<float> v;
    for (u32 s : kF32Specials) v.push_back(bitsf(s));
    add_format_boundaries<float>(v, 10, -14, 65504.0, false, 1);                   // f16
    add_format_boundaries<float>(v, 7, -126, (double)bitsf(0x7f7f0000), false, 9);   // bf16
    add_format_boundaries<float>(v, 10, -126, (double)bitsf(0x7f7fe000), false, 11); // tf32
    add_format_boundaries<float>(v, 3, -6, 448.0, true, 1);                         // e4m3
    add_format_boundaries<float>(v, 2, -14, 57344.0, true, 1);                      // e5m2
    add_format_boundaries<float>(v, 3, 0, 7.5, true, 1);                            // e2m3
    add_format_boundaries<float>(v, 2, -2, 28.0, true, 1);                          // e3m2
    add_format_boundaries<float>(v, 1, 0, 6.0, true, 1);                            // e2m1
    for (int e = -127; e <= 127; e++) {                                             // ue8m0 (2^e)
        float p = std::ldexp(1.0f, e);
        v.push_back(p); v.push_back(std::nextafter(p, INFINITY)); v.push_back(std::nextafter(p, 0.0f));
        v.push_back(1.5f * p);
        if (e % 16 == 0) { v.push_back(-p); v.push_back(-std::nextafter(p, INFINITY)); }
    }
    v.push_back(std::ldexp(1.0f, -128)); v.push_back(std::ldexp(1.0f, -130)); v.push_back(std::ldexp(1.5f, -128));
    for (int e : {7, 8, 15, 16, 24, 25, 31, 32, 63, 64}) {                          // integer boundaries
        float p = std::ldexp(1.0f, e);
        for (float k : {1.0f, -1.0f}) { v.push_back(k * p); v.push_back(k * std::nextafter(p, INFINITY)); v.push_back(k * std::nextafter(p, 0.0f)); }
        if (e <= 24) for (float k : {1.0f, -1.0f}) { v.push_back(k * (p - 0.5f)); v.push_back(k * (p + 0.5f)); v.push_back(k * (p - 1.5f)); }
    }
    for (int k = -8; k <= 8; k++) { v.push_back(k + 0.5f); v.push_back(k + 0.25f); v.push_back(k + 0.75f); v.push_back((float)k); }
    for (float x : {0.49999997f, 0.50000006f, 1.4999999f, 1.5000001f, 2.4999998f, 2.5000002f, 4194304.5f, 8388607.5f, 0.99999994f, 1.0000001f})
        { v.push_back(x); v.push_back(-x); }
    v = dedupe_f(v);
    if (N == 0) return v;
    Rng r(seed);
    size_t i = 0;
    while (v.size() < N) {
        u32 kind = i++ % 4;
        if (kind == 0) v.push_back(bitsf(r.u32_()));                                  // raw pattern
        else if (kind == 1) {                                                          // |x| in [2^-30, 2^40)
            u32 e = 127 - 30 + r.below(70);
            v.push_back(bitsf((r.u32_() & 0x807fffffu) | (e << 23)));
        } else if (kind == 2) {                                                        // |x| in [2^-16, 2^17)
            u32 e = 127 - 16 + r.below(33);
            v.push_back(bitsf((r.u32_() & 0x807fffffu) | (e << 23)));
        } else {                                                                       // small multiples of 1/8
            int k = (int)r.below(4001) - 2000;
            v.push_back(k / 8.0f);
        }
    }
    v.resize(N);
    return v;
}

static std::vector<double> make_f64_vector(size_t N, u32 seed) {
    std::vector<double> v;
    for (u64 s : {0x0ull, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
                  0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7fffffffffffffffull, 0x7ff0000000000001ull,
                  0xfff0000000000001ull, 0x7ff4000000000000ull, 0x7ff8000000000001ull, 0x0000000000000001ull,
                  0x8000000000000001ull, 0x000fffffffffffffull, 0x0010000000000000ull, 0x7fefffffffffffffull,
                  0xffefffffffffffffull, 0x3ff0000000000000ull, 0xbff0000000000000ull})
        v.push_back(bitsd(s));
    add_format_boundaries<double>(v, 23, -126, (double)FLT_MAX, false, 7);           // f32
    add_format_boundaries<double>(v, 10, -14, 65504.0, false, 1);                  // f16
    add_format_boundaries<double>(v, 7, -126, (double)bitsf(0x7f7f0000), false, 13); // bf16
    for (int e : {15, 16, 31, 32, 52, 53, 63, 64}) {
        double p = std::ldexp(1.0, e);
        for (double k : {1.0, -1.0}) {
            v.push_back(k * p); v.push_back(k * std::nextafter(p, INFINITY)); v.push_back(k * std::nextafter(p, 0.0));
            if (e <= 52) { v.push_back(k * (p - 0.5)); v.push_back(k * (p + 0.5)); v.push_back(k * (p - 1.5)); v.push_back(k * (p - 1)); }
        }
    }
    for (int k = -8; k <= 8; k++) { v.push_back(k + 0.5); v.push_back(k + 0.25); v.push_back(k + 0.75); v.push_back((double)k); }
    for (double x : {0.49999999999999994, 0.5000000000000001, 1.4999999999999998, 2.5000000000000004, 2147483647.5, 2147483646.5,
                     -2147483648.5, -2147483647.5, 4294967295.5, 4294967296.5})
        { v.push_back(x); v.push_back(-x); }
    v = dedupe_d(v);
    if (N == 0) return v;
    Rng r(seed);
    size_t i = 0;
    while (v.size() < N) {
        u32 kind = i++ % 4;
        if (kind == 0) v.push_back(bitsd(r.u64_()));
        else if (kind == 1) { u64 e = 1023 - 150 + r.below(300); v.push_back(bitsd((r.u64_() & 0x800fffffffffffffull) | (e << 52))); }
        else if (kind == 2) { u64 e = 1023 - 20 + r.below(90); v.push_back(bitsd((r.u64_() & 0x800fffffffffffffull) | (e << 52))); }
        else { u64 e = 1023 - 130 + r.below(260); v.push_back(bitsd((r.u64_() & 0x800000001fffffffull) | (e << 52) | ((u64)r.u32_() << 29 & 0x000fffffe0000000ull))); }
    }
    v.resize(N);
    return v;
}

// Integers around every power of two where float (24-bit) / double (53-bit) rounding happens.
static std::vector<s64> make_int_vector(bool is64, size_t N, u32 seed) {
    std::vector<s64> v;
    std::set<s64> seen;
    auto add = [&](s64 x) { if (!is64) x = (s64)(s32)x; if (seen.insert(x).second) v.push_back(x); };
    for (s64 x : {0ll, 1ll, -1ll, 2ll, -2ll, 0x7fffffffll, -0x80000000ll, 0x80000000ll, 0xffffffffll}) add(x);
    if (is64) { add(INT64_MAX); add(INT64_MIN); add(INT64_MAX - 1); add(INT64_MIN + 1); }
    int maxe = is64 ? 63 : 31;
    for (int p : {24, 53}) {
        for (int e = p; e <= maxe; e++) {
            u64 base = 1ull << e;
            u64 ulp = 1ull << (e - p + 1 > 0 ? e - p + 1 : 0);  // ulp of [2^e, 2^(e+1)) at precision p
            // values just above 2^e (ulp = 2^(e-p+1)) and just below (ulp half as big)
            for (int j = 0; j < 3; j++) {
                for (s64 off : {(s64)0, (s64)(ulp / 2), (s64)(ulp / 2) - 1, (s64)(ulp / 2) + 1, (s64)1, (s64)(ulp - 1)}) {
                    u64 x = base + j * ulp + off;
                    add((s64)x); add(-(s64)x);
                    u64 y = base - j * (ulp / 2) - off;
                    add((s64)y); add(-(s64)y);
                }
            }
        }
    }
    if (N == 0) return v;
    Rng r(seed);
    size_t i = 0;
    while (v.size() < N) {
        u32 kind = i++ % 3;
        u64 x = r.u64_();
        if (kind == 1) x >>= r.below(is64 ? 64 : 32);
        if (kind == 2) { x = (s64)(x >> r.below(is64 ? 64 : 32)) ; x = (r.u32_() & 1) ? x : (u64)(-(s64)x); }
        add((s64)x);
    }
    v.resize(N);
    return v;
}

// ---------------------------------------------------------------- host-FPU (spec-derived) helpers
static const int kModes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};

template <class F>
static F round_integral(F x, int mode) {
    volatile F vx = x;
    fesetround(mode);
    F r = std::nearbyint((F)vx);
    volatile F vr = r;
    fesetround(FE_TONEAREST);
    return vr;
}
// PTX cvt float -> integer (Integer Notes): clamp to the destination range; NaN -> 0, or
// 1 << (width-1) when the source is f64 or the destination is 64-bit.
template <class F>
static u64 cvt_f2i(F x, int mode, int width, bool is_signed, bool src_f64) {
    if (std::isnan(x)) {
        if (src_f64 || width == 64) return 1ull << (width - 1);
        return 0;
    }
    F r = round_integral(x, mode);
    long double lr = (long double)r;
    if (is_signed) {
        long double lo = -std::ldexp(1.0L, width - 1), hi = std::ldexp(1.0L, width - 1);
        if (lr < lo) return (u64)1 << (width - 1) | (width == 64 ? 0 : 0) ;
        if (lr >= hi) return width == 64 ? (u64)INT64_MAX : (u64)((1ull << (width - 1)) - 1);
        s64 s = (s64)lr;
        return width == 64 ? (u64)s : (u64)(u32)(s32)s;
    } else {
        long double hi = std::ldexp(1.0L, width);
        if (lr <= 0) return 0;
        if (lr >= hi) return width == 64 ? UINT64_MAX : (u64)((1ull << width) - 1);
        return (u64)lr;
    }
}
// integer -> float/double with rounding mode: exact conversion to long double (64-bit
// significand), then one rounding by the x87 unit under fesetround.
template <class F>
static F cvt_i2f(long double exact, int mode) {
    volatile long double ve = exact;
    fesetround(mode);
    F r = (F)ve;
    volatile F vr = r;
    fesetround(FE_TONEAREST);
    return vr;
}
// NaN: the FPU's narrowing keeps sign and top payload bits and sets the quiet bit, which is what
// an sm_90 GPU does for cvt.{rn,rz,rm,rp}.f32.f64 (docs/hardware.md).
static float cvt_d2f(double x, int mode) {
    volatile double vx = x;
    fesetround(mode);
    float r = (float)vx;
    volatile float vr = r;
    fesetround(FE_TONEAREST);
    return vr;
}

// ---------------------------------------------------------------- convenience wrappers
static u16 f2h_rn(float x) { return hbits(__float2half_rn(x)); }
static u16 f2b_rn(float x) { return bbits(__float2bfloat16_rn(x)); }
static bool h_isnan(u16 h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }
static bool b_isnan(u16 b) { return (b & 0x7f80) == 0x7f80 && (b & 0x7f); }

static std::vector<u16> all16() { std::vector<u16> v(65536); for (u32 i = 0; i < 65536; i++) v[i] = (u16)i; return v; }
// a permutation of 0..65535 (odd multiplier): used for the second lane so that every pattern
// appears in both lanes but paired differently.
static u16 perm16(u32 i) { return (u16)(i * 40503u + 12345u); }
// for i < 32768: lo = every even pattern, hi = every odd pattern (permuted), so that the two lanes
// of 32768 packed pairs together cover all 65536 16-bit patterns.
static u32 pair16(u32 i) { u32 lo = (2 * i) & 0xffff; u32 hi = ((((i * 40503u + 12345u) & 0x7fff) << 1) | 1); return lo | hi << 16; }

// ================================================================ the cases
static std::vector<float> F;   // shared f32 test vector
static std::vector<double> D;  // shared f64 test vector

static Bytes f32buf(const std::vector<float>& v) { Bytes b; for (float x : v) b.put(x); return b; }
static std::vector<float> rotate_f(const std::vector<float>& v, size_t k) {
    std::vector<float> o(v.size());
    for (size_t i = 0; i < v.size(); i++) o[i] = v[(i * 7919 + k) % v.size()];
    return o;
}

static void cases_fp16() {
    { Case c{"f32_to_f16_rmodes", "fp16_convert", "f32_to_f16_rmodes"};
      Bytes out; for (float x : F) { out.put(hbits(__float2half_rn(x))); out.put(hbits(__float2half_rz(x))); out.put(hbits(__float2half_rd(x))); out.put(hbits(__float2half_ru(x))); }
      arg_shared(c, "f32", f32buf(F)); arg_out(c, "out", out, "header:__float2half_{rn,rz,rd,ru}", "f16", true); arg_s32(c, F.size());
      launch1d(c, F.size()); g_cases.push_back(c); }
    { Case c{"f16_to_f32", "fp16_convert", "f16_to_f32"};
      Bytes in, out; for (u16 h : all16()) { in.put(h); out.put(__half2float(bitsh(h))); }
      arg_in(c, "in", in); arg_out(c, "out", out, "header:__half2float", "f32", true); arg_s32(c, 65536);
      launch1d(c, 65536); g_cases.push_back(c); }
    { Case c{"f32x2_to_half2_rn", "fp16_convert", "f32x2_to_half2_rn"};
      auto B = rotate_f(F, 1); Bytes out;
      for (size_t i = 0; i < F.size(); i++) { __half2_raw r = __floats2half2_rn(F[i], B[i]); out.put(h2bits(r)); }
      arg_shared(c, "f32", f32buf(F)); arg_shared(c, "f32_rot", f32buf(B)); arg_out(c, "out", out, "header:__floats2half2_rn", "f16", true); arg_s32(c, F.size());
      launch1d(c, F.size()); g_cases.push_back(c); }
    { Case c{"half2_mul_add", "fp16_convert", "half2_mul_add"};
      const long N = 32768; Rng r(101); Bytes a, b, out, wid;
      for (long i = 0; i < N; i++) {
          u16 a0 = (u16)pair16(i), a1 = (u16)(pair16(i) >> 16);
          u16 b0 = (i % 3 == 0) ? (u16)r.u32_() : (u16)((r.u32_() & 0x83ff) | ((0x3c00 + ((int)r.below(9) - 4) * 0x400) & 0x7c00)); // random, or |b| in [2^-4, 2^5)
          u16 b1 = (u16)r.u32_();
          u32 wa = a0 | (u32)a1 << 16, wb = b0 | (u32)b1 << 16;
          __half2 ha = __half2(h2raw(wa)), hb = __half2(h2raw(wb));
          __half2 p = __hmul2(ha, hb); __half2 s = __hadd2(p, ha);
          a.put(wa); b.put(wb); out.put(h2bits(__half2_raw(s)));
          float2 f = __half22float2(s); wid.put(f.x); wid.put(f.y);
      }
      arg_in(c, "a", a); arg_in(c, "b", b);
      arg_out(c, "out", out, "header:__hmul2,__hadd2 (host path: f32 arithmetic + __float2half_rn; exact for f16 by the double-rounding bound 24 >= 2*11+2)", "f16", true);
      arg_out(c, "widened", wid, "header:__half22float2", "f32", true); arg_s32(c, N);
      c.notes.push_back("a lanes: a.lo = even patterns, a.hi = odd patterns (all 65536 f16 patterns across the two lanes); b random (1/3 raw, 2/3 moderate magnitude)");
      c.notes.push_back("NaN results: device mul/add.f16x2 give canonical NaN 0x7fff; host header path gives __float2half_rn(NaN)=0x7fff as well (nan_any set anyway)");
      launch1d(c, N); g_cases.push_back(c); }
}

static void cases_bf16() {
    { Case c{"f32_to_bf16_rmodes", "bf16_convert", "f32_to_bf16_rmodes"};
      Bytes out; for (float x : F) { out.put(bbits(__float2bfloat16_rn(x))); out.put(bbits(__float2bfloat16_rz(x))); out.put(bbits(__float2bfloat16_rd(x))); out.put(bbits(__float2bfloat16_ru(x))); }
      arg_shared(c, "f32", f32buf(F)); arg_out(c, "out", out, "header:__float2bfloat16_{rn,rz,rd,ru}", "bf16", true); arg_s32(c, F.size());
      launch1d(c, F.size()); g_cases.push_back(c); }
    { Case c{"bf16_to_f32", "bf16_convert", "bf16_to_f32"};
      Bytes in, out; for (u16 h : all16()) { in.put(h); out.put(__bfloat162float(bitsb(h))); }
      arg_in(c, "in", in); arg_out(c, "out", out, "header:__bfloat162float", "f32", true, nullptr, "PTX: cvt.f32.bf16 of NaN yields unspecified NaN"); arg_s32(c, 65536);
      launch1d(c, 65536); g_cases.push_back(c); }
    { Case c{"f32x2_to_bf162_rn", "bf16_convert", "f32x2_to_bf162_rn"};
      auto B = rotate_f(F, 1); Bytes out;
      for (size_t i = 0; i < F.size(); i++) { __nv_bfloat162_raw r = __floats2bfloat162_rn(F[i], B[i]); out.put(b2bits(r)); }
      arg_shared(c, "f32", f32buf(F)); arg_shared(c, "f32_rot", f32buf(B)); arg_out(c, "out", out, "header:__floats2bfloat162_rn", "bf16", true); arg_s32(c, F.size());
      launch1d(c, F.size()); g_cases.push_back(c); }
    { Case c{"bf162_add", "bf16_convert", "bf162_add"};
      const long N = 32768; Rng r(202); Bytes a, b, sum, back;
      for (long i = 0; i < N; i++) {
          u16 a0 = (u16)pair16(i), a1 = (u16)(pair16(i) >> 16);
          u16 b0, b1 = (u16)r.u32_();
          if (i % 2 == 0) b0 = (u16)r.u32_();
          else { // same binade region as a0 (+-3 binades) so that the addition actually rounds
              int e = (int)((a0 >> 7) & 0xff) + (int)r.below(7) - 3; if (e < 0) e = 0; if (e > 0xff) e = 0xff;
              b0 = (u16)((r.u32_() & 0x807f) | (e << 7));
          }
          u32 wa = a0 | (u32)a1 << 16, wb = b0 | (u32)b1 << 16;
          __nv_bfloat162 ha = __nv_bfloat162(b2raw(wa)), hb = __nv_bfloat162(b2raw(wb));
          __nv_bfloat162 s = __hadd2(ha, hb);
          a.put(wa); b.put(wb); sum.put(b2bits(__nv_bfloat162_raw(s)));
          float2 f = __bfloat1622float2(s); back.put(f.x); back.put(f.y);
      }
      arg_in(c, "a", a); arg_in(c, "b", b);
      arg_out(c, "sum", sum, "header:__hadd2 (bf16x2; host path: f32 add + __float2bfloat16_rn, exact by 24 >= 2*8+2)", "bf16", true);
      arg_out(c, "back", back, "header:__bfloat1622float2", "f32", true); arg_s32(c, N);
      c.notes.push_back("sm_80 PTX computes fma.rn.bf16x2 a, 1.0, b: same value as a+b (incl. -0 + +0 = +0)");
      launch1d(c, N); g_cases.push_back(c); }
    { Case c{"f16_bf16_roundtrip", "bf16_convert", "f16_bf16_roundtrip"};
      Bytes h, hb, b, bh;
      for (u32 i = 0; i < 65536; i++) {
          h.put((u16)i); hb.put(f2b_rn(__half2float(bitsh((u16)i))));
          u16 bi = perm16(i); b.put(bi); bh.put(f2h_rn(__bfloat162float(bitsb(bi))));
      }
      arg_in(c, "h", h); arg_out(c, "h_as_bf16", hb, "header:__float2bfloat16_rn(__half2float)", "bf16", true);
      arg_in(c, "b", b); arg_out(c, "b_as_f16", bh, "header:__float2half_rn(__bfloat162float)", "f16", true); arg_s32(c, 65536);
      launch1d(c, 65536); g_cases.push_back(c); }
}

static void cases_fp8() {
    { Case c{"f32_to_e4m3", "fp8_convert", "f32_to_e4m3"};
      Bytes out; for (float x : F) out.put((u8)__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3));
      arg_shared(c, "f32", f32buf(F)); arg_out(c, "out", out, "header:__nv_cvt_float_to_fp8(SATFINITE,E4M3)", "e4m3", true); arg_s32(c, F.size());
      launch1d(c, F.size()); g_cases.push_back(c); }
    { Case c{"f32_to_fp8_variants", "fp8_convert", "f32_to_fp8_variants"};
      Bytes out; for (float x : F) {
          out.put((u8)__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3)); out.put((u8)__nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E4M3));
          out.put((u8)__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2)); out.put((u8)__nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E5M2)); }
      arg_shared(c, "f32", f32buf(F)); arg_out(c, "out", out, "header:__nv_cvt_float_to_fp8 {E4M3,E5M2}x{SATFINITE,NOSAT}", "e4m3,e4m3,e5m2,e5m2", true); arg_s32(c, F.size());
      launch1d(c, F.size()); g_cases.push_back(c); }
    { Case c{"f32x2_to_fp8x2", "fp8_convert", "f32x2_to_fp8x2"};
      auto B = rotate_f(F, 1); Bytes in, out;
      for (size_t i = 0; i < F.size(); i++) {
          float2 v; v.x = F[i]; v.y = B[i]; in.put(v.x); in.put(v.y);
          out.put((u16)__nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E4M3)); out.put((u16)__nv_cvt_float2_to_fp8x2(v, __NV_NOSAT, __NV_E5M2)); }
      arg_in(c, "in", in); arg_out(c, "out", out, "header:__nv_cvt_float2_to_fp8x2", "e4m3x2,e5m2x2", true); arg_s32(c, F.size());
      launch1d(c, F.size()); g_cases.push_back(c); }
    { Case c{"half2_to_fp8x2", "fp8_convert", "half2_to_fp8x2"};
      Bytes in, out;
      for (u32 i = 0; i < 32768; i++) { u32 w = pair16(i); in.put(w);
          out.put((u16)__nv_cvt_halfraw2_to_fp8x2(h2raw(w), __NV_NOSAT, __NV_E4M3)); out.put((u16)__nv_cvt_halfraw2_to_fp8x2(h2raw(w), __NV_SATFINITE, __NV_E5M2)); }
      arg_in(c, "in", in); arg_out(c, "out", out, "header:__nv_cvt_halfraw2_to_fp8x2", "e4m3x2,e5m2x2", true); arg_s32(c, 32768);
      c.notes.push_back("lo16 = even f16 patterns, hi16 = odd patterns: all 65536 across the two lanes");
      launch1d(c, 32768); g_cases.push_back(c); }
    { Case c{"fp8x2_to_half2", "fp8_convert", "fp8x2_to_half2"};
      Bytes in, out;
      for (u32 i = 0; i < 65536; i++) { in.put((u16)i);
          out.put(h2bits(__nv_cvt_fp8x2_to_halfraw2((__nv_fp8x2_storage_t)i, __NV_E4M3))); out.put(h2bits(__nv_cvt_fp8x2_to_halfraw2((__nv_fp8x2_storage_t)i, __NV_E5M2))); }
      arg_in(c, "in", in); arg_out(c, "out", out, "header:__nv_cvt_fp8x2_to_halfraw2", "f16", true); arg_s32(c, 65536);
      launch1d(c, 65536); g_cases.push_back(c); }
    { Case c{"fp8_to_f32", "fp8_convert", "fp8_to_f32"};
      Bytes in, out;
      for (u32 i = 0; i < 256; i++) { in.put((u8)i); __nv_fp8_e4m3 a; __nv_fp8_e5m2 b; a.__x = (u8)i; b.__x = (u8)i; out.put(float(a)); out.put(float(b)); }
      arg_in(c, "in", in); arg_out(c, "out", out, "header:__nv_fp8_e4m3/__nv_fp8_e5m2::operator float", "f32", true); arg_s32(c, 256);
      launch1d(c, 256); g_cases.push_back(c); }
    { Case c{"bf162_to_fp8", "fp8_convert", "bf162_to_fp8"};
      Bytes in, out;
      for (u32 i = 0; i < 65536; i++) { u32 w = i | (u32)perm16(i) << 16; in.put(w);
          __nv_bfloat16_raw lo; lo.x = (u16)w;
          out.put((u16)__nv_cvt_bfloat16raw2_to_fp8x2(b2raw(w), __NV_SATFINITE, __NV_E4M3)); out.put((u16)(u8)__nv_cvt_bfloat16raw_to_fp8(lo, __NV_NOSAT, __NV_E5M2)); }
      arg_in(c, "in", in); arg_out(c, "out", out, "header:__nv_cvt_bfloat16raw2_to_fp8x2, __nv_cvt_bfloat16raw_to_fp8 (high byte of slot 1 = 0)", "e4m3x2,e5m2", true); arg_s32(c, 65536);
      launch1d(c, 65536); g_cases.push_back(c); }
}

static void cases_fp6_fp4_e8m0() {
    { Case c{"f32_to_fp6", "fp6_convert", "f32_to_fp6"};
      Bytes out; for (float x : F) { out.put((u8)__nv_cvt_float_to_fp6(x, __NV_E2M3, cudaRoundNearest)); out.put((u8)__nv_cvt_float_to_fp6(x, __NV_E3M2, cudaRoundNearest)); }
      arg_shared(c, "f32", f32buf(F)); arg_out(c, "out", out, "header:__nv_cvt_float_to_fp6", "e2m3,e3m2"); arg_s32(c, F.size());
      launch1d(c, F.size()); g_cases.push_back(c); }
    { Case c{"f32x2_to_fp6x2", "fp6_convert", "f32x2_to_fp6x2"};
      auto B = rotate_f(F, 1); Bytes in, out;
      for (size_t i = 0; i < F.size(); i++) { float2 v; v.x = F[i]; v.y = B[i]; in.put(v.x); in.put(v.y);
          out.put((u16)__nv_cvt_float2_to_fp6x2(v, __NV_E2M3, cudaRoundNearest)); out.put((u16)__nv_cvt_float2_to_fp6x2(v, __NV_E3M2, cudaRoundNearest)); }
      arg_in(c, "in", in); arg_out(c, "out", out, "header:__nv_cvt_float2_to_fp6x2", "e2m3x2,e3m2x2"); arg_s32(c, F.size());
      launch1d(c, F.size()); g_cases.push_back(c); }
    { Case c{"fp6x2_to_half2", "fp6_convert", "fp6x2_to_half2"};
      Bytes in, out;
      for (u32 i = 0; i < 65536; i++) { in.put((u16)i);
          out.put(h2bits(__nv_cvt_fp6x2_to_halfraw2((__nv_fp6x2_storage_t)i, __NV_E2M3))); out.put(h2bits(__nv_cvt_fp6x2_to_halfraw2((__nv_fp6x2_storage_t)i, __NV_E3M2))); }
      arg_in(c, "in", in); arg_out(c, "out", out, "header:__nv_cvt_fp6x2_to_halfraw2", "f16"); arg_s32(c, 65536);
      c.notes.push_back("all 65536 input patterns, including fp6 bytes whose top 2 bits are set (the header ignores them)");
      launch1d(c, 65536); g_cases.push_back(c); }
    { Case c{"fp6_to_half", "fp6_convert", "fp6_to_half"};
      Bytes in, out;
      for (u32 i = 0; i < 256; i++) { in.put((u8)i); out.put(__half_raw(__nv_cvt_fp6_to_halfraw((u8)i, __NV_E2M3)).x); out.put(__half_raw(__nv_cvt_fp6_to_halfraw((u8)i, __NV_E3M2)).x); }
      arg_in(c, "in", in); arg_out(c, "out", out, "header:__nv_cvt_fp6_to_halfraw", "f16"); arg_s32(c, 256);
      launch1d(c, 256); g_cases.push_back(c); }
    { Case c{"f32_to_e2m1", "fp4_convert", "f32_to_e2m1"};
      Bytes out; for (float x : F) out.put((u8)__nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest));
      arg_shared(c, "f32", f32buf(F)); arg_out(c, "out", out, "header:__nv_cvt_float_to_fp4", "e2m1"); arg_s32(c, F.size());
      launch1d(c, F.size()); g_cases.push_back(c); }
    { Case c{"f32x2_to_e2m1x2", "fp4_convert", "f32x2_to_e2m1x2"};
      auto B = rotate_f(F, 1); Bytes in, out;
      for (size_t i = 0; i < F.size(); i++) { float2 v; v.x = F[i]; v.y = B[i]; in.put(v.x); in.put(v.y); out.put((u8)__nv_cvt_float2_to_fp4x2(v, __NV_E2M1, cudaRoundNearest)); }
      arg_in(c, "in", in); arg_out(c, "out", out, "header:__nv_cvt_float2_to_fp4x2", "e2m1x2"); arg_s32(c, F.size());
      launch1d(c, F.size()); g_cases.push_back(c); }
    { Case c{"half2_bf162_to_e2m1x2", "fp4_convert", "half2_bf162_to_e2m1x2"};
      Bytes h, b, out;
      for (u32 i = 0; i < 32768; i++) { u32 wh = pair16(i), wb = pair16(i ^ 0x5555); h.put(wh); b.put(wb);
          out.put((u8)__nv_cvt_halfraw2_to_fp4x2(h2raw(wh), __NV_E2M1, cudaRoundNearest)); out.put((u8)__nv_cvt_bfloat16raw2_to_fp4x2(b2raw(wb), __NV_E2M1, cudaRoundNearest)); }
      arg_in(c, "h", h); arg_in(c, "b", b); arg_out(c, "out", out, "header:__nv_cvt_halfraw2_to_fp4x2, __nv_cvt_bfloat16raw2_to_fp4x2", "e2m1x2"); arg_s32(c, 32768);
      c.notes.push_back("lo16 = even patterns, hi16 = odd patterns: all 65536 across the two lanes (h and b)");
      launch1d(c, 32768); g_cases.push_back(c); }
    { Case c{"e2m1x2_to_half2", "fp4_convert", "e2m1x2_to_half2"};
      Bytes in, ho, bo;
      for (u32 i = 0; i < 256; i++) { in.put((u8)i); ho.put(h2bits(__nv_cvt_fp4x2_to_halfraw2((u8)i, __NV_E2M1))); bo.put(__nv_bfloat16_raw(__nv_cvt_fp4_to_bf16raw((u8)i, __NV_E2M1)).x); }
      arg_in(c, "in", in); arg_out(c, "half_out", ho, "header:__nv_cvt_fp4x2_to_halfraw2", "f16");
      arg_out(c, "bf_out", bo, "header:__nv_cvt_fp4_to_bf16raw (low nibble)", "bf16"); arg_s32(c, 256);
      launch1d(c, 256); g_cases.push_back(c); }
    { Case c{"f32_to_e8m0", "e8m0_convert", "f32_to_e8m0"};
      Bytes out; for (float x : F) {
          out.put((u8)__nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundZero)); out.put((u8)__nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundPosInf));
          out.put((u8)__nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundZero)); out.put((u8)__nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundPosInf)); }
      arg_shared(c, "f32", f32buf(F)); arg_out(c, "out", out, "header:__nv_cvt_float_to_e8m0", "ue8m0"); arg_s32(c, F.size());
      launch1d(c, F.size()); g_cases.push_back(c); }
    { Case c{"f32x2_to_e8m0x2", "e8m0_convert", "f32x2_to_e8m0x2"};
      auto B = rotate_f(F, 1); Bytes in, out;
      for (size_t i = 0; i < F.size(); i++) { float2 v; v.x = F[i]; v.y = B[i]; in.put(v.x); in.put(v.y);
          out.put((u16)__nv_cvt_float2_to_e8m0x2(v, __NV_SATFINITE, cudaRoundZero)); out.put((u16)__nv_cvt_float2_to_e8m0x2(v, __NV_NOSAT, cudaRoundPosInf)); }
      arg_in(c, "in", in); arg_out(c, "out", out, "header:__nv_cvt_float2_to_e8m0x2", "ue8m0x2"); arg_s32(c, F.size());
      launch1d(c, F.size()); g_cases.push_back(c); }
    { Case c{"bf162_to_e8m0x2", "e8m0_convert", "bf162_to_e8m0x2"};
      Bytes in, out;
      for (u32 i = 0; i < 32768; i++) { u32 w = pair16(i); in.put(w);
          out.put((u16)__nv_cvt_bfloat162raw_to_e8m0x2(b2raw(w), __NV_NOSAT, cudaRoundZero)); out.put((u16)__nv_cvt_bfloat162raw_to_e8m0x2(b2raw(w), __NV_SATFINITE, cudaRoundPosInf)); }
      arg_in(c, "in", in); arg_out(c, "out", out, "header:__nv_cvt_bfloat162raw_to_e8m0x2", "ue8m0x2"); arg_s32(c, 32768);
      c.notes.push_back("lo16 = even bf16 patterns, hi16 = odd patterns: all 65536 across the two lanes");
      launch1d(c, 32768); g_cases.push_back(c); }
    { Case c{"e8m0_to_bf16", "e8m0_convert", "e8m0_to_bf16"};
      Bytes in, one, two;
      for (u32 i = 0; i < 65536; i++) { in.put((u16)i); one.put(__nv_cvt_e8m0_to_bf16raw((u8)(i & 0xff)).x); two.put(b2bits(__nv_cvt_e8m0x2_to_bf162raw((u16)i))); }
      arg_in(c, "in", in); arg_out(c, "one", one, "header:__nv_cvt_e8m0_to_bf16raw", "bf16", true);
      arg_out(c, "two", two, "header:__nv_cvt_e8m0x2_to_bf162raw", "bf16", true); arg_s32(c, 65536);
      launch1d(c, 65536); g_cases.push_back(c); }
}

static const char* kFpuRef = "host FPU fesetround (spec-derived: cvt.md Integer Notes / Floating Point Notes)";

static void cases_float_int() {
    { Case c{"f32_to_s32_rmodes", "float_int_convert", "f32_to_s32_rmodes"};
      Bytes out; for (float x : F) for (int m : kModes) out.put((u32)cvt_f2i<float>(x, m, 32, true, false));
      arg_shared(c, "f32", f32buf(F)); arg_out(c, "out", out, std::string(kFpuRef) + "; __float2int_{rn,rz,rd,ru}: clamp, NaN -> 0", "s32"); arg_s32(c, F.size());
      launch1d(c, F.size()); g_cases.push_back(c); }
    { Case c{"f32_to_u32_rmodes", "float_int_convert", "f32_to_u32_rmodes"};
      Bytes out; for (float x : F) for (int m : kModes) out.put((u32)cvt_f2i<float>(x, m, 32, false, false));
      arg_shared(c, "f32", f32buf(F)); arg_out(c, "out", out, std::string(kFpuRef) + "; __float2uint_*: clamp to [0, 2^32-1], NaN -> 0", "u32"); arg_s32(c, F.size());
      launch1d(c, F.size()); g_cases.push_back(c); }
    { Case c{"f32_to_s64_rmodes", "float_int_convert", "f32_to_s64_rmodes"};
      Bytes out; for (float x : F) for (int m : kModes) out.put((u64)cvt_f2i<float>(x, m, 64, true, false));
      arg_shared(c, "f32", f32buf(F)); arg_out(c, "out", out, std::string(kFpuRef) + "; __float2ll_*: clamp, NaN -> 1<<63", "s64"); arg_s32(c, F.size());
      launch1d(c, F.size()); g_cases.push_back(c); }
    { Case c{"s32_u32_to_f32_rmodes", "float_int_convert", "s32_u32_to_f32_rmodes"};
      auto I = make_int_vector(false, 4096, 303); Bytes in, fs, fu;
      for (s64 x : I) { s32 v = (s32)x; u32 u = (u32)v; in.put(v);
          for (int m : kModes) fs.put(cvt_i2f<float>((long double)v, m));
          for (int m : kModes) fu.put(cvt_i2f<float>((long double)u, m)); }
      arg_in(c, "in", in); arg_out(c, "fs", fs, std::string(kFpuRef) + "; __int2float_*", "f32");
      arg_out(c, "fu", fu, std::string(kFpuRef) + "; __uint2float_*", "f32"); arg_s32(c, I.size());
      launch1d(c, I.size()); g_cases.push_back(c); }
    { Case c{"s64_u64_to_f32_rmodes", "float_int_convert", "s64_u64_to_f32_rmodes"};
      auto I = make_int_vector(true, 4096, 304); Bytes in, fs, fu;
      for (s64 v : I) { u64 u = (u64)v; in.put(v);
          for (int m : kModes) fs.put(cvt_i2f<float>((long double)v, m));
          for (int m : kModes) fu.put(cvt_i2f<float>((long double)u, m)); }
      arg_in(c, "in", in); arg_out(c, "fs", fs, std::string(kFpuRef) + "; __ll2float_*", "f32");
      arg_out(c, "fu", fu, std::string(kFpuRef) + "; __ull2float_*", "f32"); arg_s32(c, I.size());
      launch1d(c, I.size()); g_cases.push_back(c); }
    { Case c{"c_casts", "float_int_convert", "c_casts"};
      Bytes ai, au16, all, fi, ad;
      for (float x : F) {
          s32 v = (s32)(u32)cvt_f2i<float>(x, FE_TOWARDZERO, 32, true, false);          // cvt.rzi.s32.f32
          ai.put(v);
          au16.put((u16)cvt_f2i<float>(x, FE_TOWARDZERO, 32, false, false));          // cvt.rzi.u32.f32 + st.u16 (truncate)
          all.put((u64)cvt_f2i<float>(x, FE_TOWARDZERO, 64, true, false));            // cvt.rzi.s64.f32
          fi.put(cvt_i2f<float>((long double)v, FE_TONEAREST));                       // cvt.rn.f32.s32
          ad.put((double)x);  // cvt.f64.f32; NaN: quieted, sign and payload kept, as on sm_90
      }
      std::string pre = "spec-derived (PTX the sm_80/90/100a code uses; C++ casts are UB out of range on host): ";
      arg_shared(c, "f32", f32buf(F));
      arg_out(c, "as_int", ai, pre + "cvt.rzi.s32.f32 clamp, NaN->0", "s32");
      arg_out(c, "as_u16", au16, pre + "cvt.rzi.u32.f32 (clamp [0,2^32-1], NaN->0) stored with st.u16 = low 16 bits", "u16");
      arg_out(c, "as_ll", all, pre + "cvt.rzi.s64.f32 clamp, NaN->1<<63", "s64");
      arg_out(c, "from_int", fi, pre + "cvt.rn.f32.s32 of as_int (host FPU)", "f32");
      arg_out(c, "as_double", ad, pre + "cvt.f64.f32 (exact; NaN -> canonical 0x7fffffffffffffff, payload unspecified)", "f64", true);
      arg_s32(c, F.size());
      c.notes.push_back("The whole f32 vector (incl. NaN/inf/out-of-range) is used: the PTX semantics are defined even where the C++ casts are not.");
      c.notes.push_back("as_u16: nvcc emits cvt.rzi.u32.f32 then st.global.u16, so e.g. 65536.0 -> 0 and 1e10 -> 0xffff (low half of 0xffffffff), -1.0 -> 0");
      launch1d(c, F.size()); g_cases.push_back(c); }
    { Case c{"f32_saturate_and_round", "float_int_convert", "f32_saturate_and_round"};
      Bytes out; Mask mk;
      for (float x : F) {
          float sat;
          if (std::isnan(x)) sat = 0.0f; else if (x < 0.0f) sat = 0.0f; else if (x > 1.0f) sat = 1.0f; else sat = x;
          bool negzero = (fbits(x) == 0x80000000u);
          out.put(sat); mk.put(4, !negzero);
          float r[4] = {round_integral(x, FE_TONEAREST), round_integral(x, FE_TOWARDZERO), round_integral(x, FE_DOWNWARD), round_integral(x, FE_UPWARD)};
          for (float y : r) { out.put(std::isnan(y) ? bitsf(kF32CanonNaN) : y); mk.put(4, true); }
      }
      arg_shared(c, "f32", f32buf(F));
      arg_out(c, "out", out, std::string(kFpuRef) + "; slot0 cvt.sat.f32.f32 (clamp [0,1], NaN -> +0), slots1-4 nearbyint under rn/rz/rd/ru (cvt.r{n,z,m,p}i.f32.f32); NaN -> canonical 0x7fffffff", "f32", true, &mk);
      arg_s32(c, F.size());
      c.no_ref.push_back("slot 0 (__saturatef) for input -0.0: -0 or +0 is not stated by the spec; masked");
      launch1d(c, F.size()); g_cases.push_back(c); }
}

static void cases_f64() {
    Bytes din; for (double x : D) din.put(x);
    { Case c{"f64_to_f32_rmodes", "f64_convert", "f64_to_f32_rmodes"};
      Bytes out; for (double x : D) for (int m : kModes) out.put(cvt_d2f(x, m));
      arg_shared(c, "f64", din); arg_out(c, "out", out, std::string(kFpuRef) + "; __double2float_*: IEEE directed rounding incl. overflow (rz/rd of +huge -> FLT_MAX); NaN: quieted, sign and payload kept (FPU, as on sm_90)", "f32", true);
      arg_s32(c, D.size()); launch1d(c, D.size()); g_cases.push_back(c); }
    { Case c{"f64_to_int_rmodes", "f64_convert", "f64_to_int_rmodes"};
      Bytes s32o, u64o, s64o;
      for (double x : D) {
          for (int m : kModes) s32o.put((u32)cvt_f2i<double>(x, m, 32, true, true));
          for (int m : kModes) u64o.put((u64)cvt_f2i<double>(x, m, 64, false, true));
          for (int m : kModes) s64o.put((u64)cvt_f2i<double>(x, m, 64, true, true));
      }
      arg_shared(c, "f64", din);
      arg_out(c, "s32", s32o, std::string(kFpuRef) + "; __double2int_*: clamp, NaN -> 0x80000000 (f64 source)", "s32");
      arg_out(c, "u64", u64o, std::string(kFpuRef) + "; __double2ull_*: clamp [0,2^64-1], NaN -> 1<<63", "u64");
      arg_out(c, "s64", s64o, std::string(kFpuRef) + "; __double2ll_*: clamp, NaN -> 1<<63", "s64");
      arg_s32(c, D.size()); launch1d(c, D.size()); g_cases.push_back(c); }
    { Case c{"s64_u64_to_f64_rmodes", "f64_convert", "s64_u64_to_f64_rmodes"};
      auto I = make_int_vector(true, 4096, 305); Bytes in, d, du;
      for (s64 v : I) { in.put(v);
          for (int m : kModes) d.put(cvt_i2f<double>((long double)v, m));
          for (int m : kModes) du.put(cvt_i2f<double>((long double)(u64)v, m)); }
      arg_in(c, "in", in); arg_out(c, "d", d, std::string(kFpuRef) + "; __ll2double_*", "f64");
      arg_out(c, "du", du, std::string(kFpuRef) + "; __ull2double_*", "f64"); arg_s32(c, I.size());
      launch1d(c, I.size()); g_cases.push_back(c); }
    { Case c{"f64_to_f16_bf16", "f64_convert", "f64_to_f16_bf16"};
      Bytes h, b;
      // NaN: the headers' host paths give the canonical NaN; an sm_90 GPU keeps sign and top
      // payload bits and sets the quiet bit (docs/hardware.md), which these columns follow.
      auto nan16 = [](double x, int mb) -> u16 {
          u64 u; std::memcpy(&u, &x, 8);
          return (u16)(((u >> 63) << 15) | (((1u << (15 - mb)) - 1) << mb) |
                       ((u & 0x000fffffffffffffull) >> (52 - mb)) | (1u << (mb - 1)));
      };
      for (double x : D) {
          h.put(std::isnan(x) ? nan16(x, 10) : hbits(__double2half(x)));
          b.put(std::isnan(x) ? nan16(x, 7) : bbits(__double2bfloat16(x)));
      }
      arg_shared(c, "f64", din); arg_out(c, "h", h, "header:__double2half; NaN as measured on sm_90", "f16", true); arg_out(c, "b", b, "header:__double2bfloat16; NaN as measured on sm_90", "bf16", true);
      arg_s32(c, D.size()); launch1d(c, D.size()); g_cases.push_back(c); }
}

static void cases_control() {
    { Case c{"grid_stride_f32_to_bf16", "grid_stride_bf16", "grid_stride_f32_to_bf16"};
      const float scale = -1.5f; Bytes out; u32 count = 0;
      for (float x : F) { volatile float p = x * scale; u16 r = f2b_rn(p); out.put(r); if (__bfloat162float(bitsb(r)) < 0.0f) count++; }
      Bytes cnt; cnt.put(count);
      arg_shared(c, "f32", f32buf(F)); arg_out(c, "out", out, "header:__float2bfloat16_rn of the f32 product in*scale (IEEE f32 multiply)", "bf16", true);
      c.args.push_back("f32:-1.5");
      arg_out(c, "count", cnt, "count of out[i] with __bfloat162float(out[i]) < 0 (NaN, -0 not counted)", "u32");
      arg_s32(c, F.size());
      c.n = F.size(); c.block = 256; c.grid = 8;   // deliberately fewer threads than elements: each thread loops
      c.notes.push_back("grid 8 x block 256 = 2048 threads for n elements: every thread runs several grid-stride iterations");
      g_cases.push_back(c); }
    { Case c{"mx_quant_e4m3", "mx_block_quant", "mx_quant_e4m3"};
      // blocks of 32 inputs with a per-block magnitude; the last block is partial (n % 32 = 17)
      Rng r(404); std::vector<float> in;
      const int nblocks = 640;
      for (int blk = 0; blk < nblocks; blk++) {
          int kind = blk % 10;
          int e = (int)r.below(280) - 150;     // block exponent, some blocks subnormal/huge
          for (int t = 0; t < 32; t++) {
              float x = std::ldexp(1.0f + (r.u32_() & 0xffffff) / 16777216.0f, e - (int)r.below(12));
              if (r.u32_() & 1) x = -x;
              if (kind == 1 && t == 5) x = bitsf(0x7fc00000);            // one NaN in the block
              if (kind == 2 && t == 9) x = -INFINITY;                    // one infinity
              if (kind == 3) x = 0.0f;                                   // all-zero block
              if (kind == 4 && t == 0) x = 448.0f * std::ldexp(1.0f, e); // amax exactly 448*2^e
              if (kind == 5) x = bitsf(0x7fc00000 | t);                  // all-NaN block
              if (kind == 6) x = bitsf(r.u32_());                        // raw bit patterns
              if (kind == 7 && t == 3) x = FLT_MAX;
              in.push_back(x);
          }
      }
      in.resize(in.size() - 15);   // n = 32*640 - 15, last block partial
      const long n = in.size();
      Bytes out, scales;
      for (long b0 = 0; b0 < n; b0 += 32) {
          float am[32];
          for (int t = 0; t < 32; t++) { float x = (b0 + t < n) ? in[b0 + t] : 0.0f; am[t] = std::fabs(x); }
          for (int s = 16; s > 0; s >>= 1) for (int t = 0; t < s; t++) am[t] = std::fmax(am[t], am[t + s]);
          volatile float q = am[0] / 448.0f;
          __nv_fp8_storage_t e = __nv_cvt_float_to_e8m0(q, __NV_SATFINITE, cudaRoundPosInf);
          scales.put((u8)e);
          __nv_bfloat16_raw sb = __nv_cvt_e8m0_to_bf16raw(e);
          float bs = __bfloat162float(__nv_bfloat16(sb));
          for (int t = 0; t < 32 && b0 + t < n; t++) { volatile float y = in[b0 + t] / bs; out.put((u8)__nv_cvt_float_to_fp8(y, __NV_SATFINITE, __NV_E4M3)); }
      }
      arg_in(c, "in", f32buf(in));
      arg_out(c, "out", out, "header:__nv_cvt_float_to_fp8(SATFINITE,E4M3) of in/2^(scale-127) (IEEE f32 division)", "e4m3", true);
      arg_out(c, "scales", scales, "header:__nv_cvt_float_to_e8m0(amax/448, SATFINITE, PosInf); fmaxf tree reduction", "ue8m0");
      arg_s32(c, n);
      c.n = n; c.block = 32; c.grid = (int)((n + 31) / 32);
      c.notes.push_back("blockDim.x must be 32 (the kernel indexes with MX_BLOCK=32); grid = ceil(n/32)");
      g_cases.push_back(c); }
}

// ---------------------------------------------------------------- asm kernels (spec-derived)
static std::vector<s32> pack_boundaries() {
    return {INT32_MIN, INT32_MIN + 1, -65537, -65536, -32769, -32768, -32767, -256, -255, -129, -128, -127, -17, -16, -9, -8, -7,
            -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 126, 127, 128, 254, 255, 256, 32766, 32767, 32768,
            65534, 65535, 65536, 65537, INT32_MAX - 1, INT32_MAX};
}
static u32 sat_conv(s32 x, int bits, bool sgn) {
    s64 lo = sgn ? -(1ll << (bits - 1)) : 0, hi = sgn ? (1ll << (bits - 1)) - 1 : (1ll << bits) - 1;
    s64 v = x < lo ? lo : (x > hi ? hi : x);
    return (u32)v & (u32)((1ull << bits) - 1);
}
// cvt.pack.sat.<T>.s32{.b32}: d = sat(b) | sat(a) << size | c << 2*size (c only for 8/4/2-bit types)
static u32 cvt_pack(s32 a, s32 b, u32 c, int bits, bool sgn) {
    u32 td = sat_conv(b, bits, sgn) | (sat_conv(a, bits, sgn) << bits);
    if (bits == 16) return td;
    return td | (c << (2 * bits));
}

static void cases_asm_pack_mov() {
    { Case c{"cvt_pack_all", "asm_cvt_pack", "cvt_pack_all"};
      auto bd = pack_boundaries(); Rng r(505);
      std::vector<s32> A, B; std::vector<u32> C;
      for (s32 a : bd) for (s32 b : bd) { A.push_back(a); B.push_back(b); C.push_back(r.u32_()); }
      while (A.size() < 4096) { A.push_back((s32)(r.u32_() >> r.below(32)) * ((r.u32_() & 1) ? 1 : -1)); B.push_back((s32)(r.u32_() >> r.below(32)) * ((r.u32_() & 1) ? 1 : -1)); C.push_back(r.u32_()); }
      Bytes a, b, cc, out;
      for (size_t i = 0; i < A.size(); i++) {
          a.put(A[i]); b.put(B[i]); cc.put(C[i]);
          out.put(cvt_pack(A[i], B[i], 0, 16, true)); out.put(cvt_pack(A[i], B[i], 0, 16, false));
          out.put(cvt_pack(A[i], B[i], C[i], 8, true)); out.put(cvt_pack(A[i], B[i], C[i], 8, false));
          out.put(cvt_pack(A[i], B[i], C[i], 4, true)); out.put(cvt_pack(A[i], B[i], C[i], 4, false));
          out.put(cvt_pack(A[i], B[i], C[i], 2, true)); out.put(cvt_pack(A[i], B[i], C[i], 2, false));
      }
      arg_in(c, "a", a); arg_in(c, "b", b); arg_in(c, "c", cc);
      arg_out(c, "out", out, "spec-derived: cvt-pack.md Semantics (ta=sat(a), tb=sat(b); d = tb | ta<<size | c<<2*size)", "u32");
      arg_s32(c, A.size()); launch1d(c, A.size()); g_cases.push_back(c); }
    { Case c{"pack4_s8", "asm_cvt_pack", "pack4_s8"};
      auto bd = pack_boundaries(); Rng r(506); Bytes in, out;
      const int N = 4096;
      for (int i = 0; i < N; i++) {
          s32 v[4];
          for (int k = 0; k < 4; k++) v[k] = (i % 2 == 0) ? bd[r.below(bd.size())] : (s32)(r.u32_() >> r.below(32)) * ((r.u32_() & 1) ? 1 : -1);
          for (int k = 0; k < 4; k++) in.put(v[k]);
          u32 lo = cvt_pack(v[2], v[3], 0, 8, true);
          out.put(cvt_pack(v[0], v[1], lo, 8, true));
      }
      arg_in(c, "in", in); arg_out(c, "out", out, "spec-derived: cvt-pack.md (chained cvt.pack.sat.s8.s32.b32)", "u32");
      c.notes.push_back("DOUBT: the .cu comment says bytes (msb..lsb) = sat8(x0), sat8(x1), sat8(x2), sat8(x3). The cvt-pack.md Semantics (d = tb | ta<<8 | c<<16) and the manual's own example (%r7 = {%r5, %r6, %r8, %r9}) give msb..lsb = sat8(x2), sat8(x3), sat8(x0), sat8(x1) for this code; the expected data follows the spec, not the comment.");
      arg_s32(c, N); launch1d(c, N); g_cases.push_back(c); }
    { Case c{"mov_pack_unpack", "asm_mov_pack", "mov_pack_unpack"};
      Rng r(507); Bytes in, out; const int N = 4096;
      for (int i = 0; i < N; i++) {
          u32 w[4]; for (auto& x : w) x = r.u32_();
          for (auto x : w) in.put(x);
          u32 r0 = (w[0] & 0xffff) | (w[1] << 16);
          u32 r1 = __builtin_bswap32(w[2]);
          u64 p = (u64)w[0] | ((u64)w[3] << 32);
          u32 r3 = (u32)p, r2 = (u32)(p >> 32);
          out.put(r0); out.put(r1); out.put(r2); out.put(r3);
      }
      arg_in(c, "in", in); arg_out(c, "out", out, "spec-derived: mov.md pack/unpack semantics", "u32");
      arg_s32(c, N); launch1d(c, N); g_cases.push_back(c); }
    { Case c{"unpack_double", "asm_mov_pack", "unpack_double"};
      Rng r(508); Bytes in, lo, hi, t16; const int N = 4096;
      for (int i = 0; i < N; i++) {
          u64 d = (i < (int)D.size() && i % 2) ? dbits(D[i]) : r.u64_();
          in.put(d); lo.put((u32)d); hi.put((u32)(d >> 32)); t16.put((u16)(d >> 16));
      }
      arg_in(c, "in", in);
      arg_out(c, "lo", lo, "spec-derived: mov.md (mov.b64 {lo,hi})", "u32");
      arg_out(c, "hi", hi, "spec-derived: mov.md", "u32");
      arg_out(c, "top16", t16, "spec-derived: mov.md (mov.b32 {_, x})", "u16");
      c.notes.push_back("inputs are raw bit patterns (incl. NaN payloads): a bit move must not canonicalise them");
      arg_s32(c, N); launch1d(c, N); g_cases.push_back(c); }
    { Case c{"mov_b128_roundtrip", "asm_mov_pack", "mov_b128_roundtrip"};
      Rng r(509); Bytes in, out, words; const int N = 4096;
      for (int i = 0; i < N; i++) {
          u64 a = r.u64_(), b = r.u64_();
          in.put(a); in.put(b);
          out.put(b); out.put(a);
          u32 w0 = (u32)a, w1 = (u32)(a >> 32), w2 = (u32)b, w3 = (u32)(b >> 32);
          words.put(w3); words.put(w2); words.put(w1); words.put(w0);
      }
      arg_in(c, "in", in); arg_out(c, "out", out, "spec-derived: mov.md (.b128 pack/unpack)", "u64");
      arg_out(c, "words", words, "spec-derived: mov.md", "u32");
      c.notes.push_back("in has 2*n u64 values");
      arg_s32(c, N); launch1d(c, N); g_cases.push_back(c); }
}

// relu for a 16-bit IEEE-like result (f16/bf16): NaN -> canonical 0x7fff, negative -> +0.
// Returns false (don't care) when the unclamped result is -0 (sign of a zero result not stated).
static u16 relu16(u16 h, bool is_nan_in, bool& known) {
    known = true;
    if (is_nan_in) return 0x7fff;
    if (h == 0x8000) { known = false; return 0; }
    if (h & 0x8000) return 0;
    return h;
}

static u32 tf32_rna_satfinite(float x) {
    u32 u = fbits(x);
    // NaN as an sm_90 GPU returns it (docs/hardware.md): low 13 bits cleared, then one unit in
    // the last place off the all-ones exponent.
    if (std::isnan(x)) return (u & 0xffffe000u) - 0x2000u;
    u32 s = u & 0x80000000u, m = u & 0x7fffffffu;
    m = (m + 0x1000u) & ~0x1fffu;               // round half away from zero at bit 13 (magnitude)
    if (m > 0x7f7fe000u) m = 0x7f7fe000u;       // satfinite: |x| > MAX_NORM (incl. inf) -> MAX_NORM
    return s | m;
}

static void cases_asm_f16() {
    { Case c{"f32_to_f16_bf16_tf32_asm", "asm_f16_bf16_tf32", "f32_to_f16_bf16_tf32_asm"};
      auto B = rotate_f(F, 1); Bytes out; Mask mk;
      for (size_t i = 0; i < F.size(); i++) {
          float a = F[i], b = B[i]; bool k1, k2;
          bool na = std::isnan(a), nb = std::isnan(b);
          // 0: cvt.rn.relu.f16x2.f32 (a -> high, b -> low)
          u16 hh = relu16(f2h_rn(a), na, k1), hl = relu16(f2h_rn(b), nb, k2);
          out.put((u32)hl | (u32)hh << 16); mk.put(2, k2); mk.put(2, k1);
          // 1: cvt.rz.f16x2.f32
          out.put((u32)hbits(__float2half_rz(b)) | (u32)hbits(__float2half_rz(a)) << 16); mk.put(4, true);
          // 2: cvt.rn.relu.bf16x2.f32
          hh = relu16(f2b_rn(a), na, k1); hl = relu16(f2b_rn(b), nb, k2);
          out.put((u32)hl | (u32)hh << 16); mk.put(2, k2); mk.put(2, k1);
          // 3: cvt.rz.satfinite.bf16x2.f32
          auto bsat = [](float x) -> u16 { if (std::isnan(x)) return 0x7fff; u16 r = bbits(__float2bfloat16_rz(x)); if ((r & 0x7fff) == 0x7f80) r = (r & 0x8000) | 0x7f7f; return r; };
          out.put((u32)bsat(b) | (u32)bsat(a) << 16); mk.put(4, true);
          // 4: cvt.rna.satfinite.tf32.f32 of a
          out.put(tf32_rna_satfinite(a)); mk.put(4, true);
          // 5: cvt.rn.satfinite.f16.f32 of a | cvt.rz.relu.bf16.f32 of b << 16
          u16 hs; if (na) hs = 0x7fff; else { hs = f2h_rn(a); if ((hs & 0x7fff) == 0x7c00) hs = (hs & 0x8000) | 0x7bff; }
          u16 br = relu16(bbits(__float2bfloat16_rz(b)), nb, k2);
          out.put((u32)hs | (u32)br << 16); mk.put(2, true); mk.put(2, k2);
      }
      arg_shared(c, "f32", f32buf(F)); arg_shared(c, "f32_rot", f32buf(B));
      arg_out(c, "out", out, "spec-derived: cvt.md (.relu: negative->0, NaN->canonical 0x7fff; .satfinite: |x|>MAX_NORM -> +-MAX_NORM, NaN->NaN; f16x2/bf16x2 a->upper half) with header rounding __float2half_rn/_rz, __float2bfloat16_rn/_rz; tf32 .rna: add 0x1000 to |bits| and clear low 13 bits", "u32", true, &mk);
      arg_s32(c, F.size());
      c.no_ref.push_back(".relu lanes whose unclamped result is -0 (e.g. input -0.0 or a tiny negative rounding to -0): +0 vs -0 not stated by the spec; masked");
      c.notes.push_back("slot 4 (tf32): low 13 bits of the result are assumed zero; NaN -> (bits & 0xffffe000) - 0x2000, as measured on sm_90 (docs/hardware.md)");
      launch1d(c, F.size()); g_cases.push_back(c); }
    { Case c{"f16_bf16_widen_asm", "asm_f16_bf16_tf32", "f16_bf16_widen_asm"};
      Bytes in, out;
      for (u32 i = 0; i < 65536; i++) {
          u16 lo = (u16)i, hi = perm16(i); u32 w = lo | (u32)hi << 16; in.put(w);
          float fl = __half2float(bitsh(lo));
          out.put(fbits(fl));
          out.put(fbits(__bfloat162float(bitsb(hi))));
          u16 r0 = h_isnan(lo) ? 0x7fff : f2h_rn(round_integral(fl, FE_TONEAREST));
          float fh = __half2float(bitsh(hi));
          u16 r1 = h_isnan(hi) ? 0x7fff : f2h_rn(round_integral(fh, FE_TOWARDZERO));
          out.put((u32)r0 | (u32)r1 << 16);
          out.put((u32)cvt_f2i<float>(fl, FE_TOWARDZERO, 32, true, false));
      }
      arg_in(c, "in", in);
      arg_out(c, "out", out, "slot0 header:__half2float; slot1 header:__bfloat162float; slot2 host FPU nearbyint (rni on lo / rzi on hi, f16 integers are exact in f32), NaN -> 0x7fff; slot3 spec-derived cvt.rzi.s32.f16 (NaN->0, clamp). cvt.md: \"For cvt.f32.bf16, NaN input yields unspecified NaN\"", "f32,f32,f16,f16,s32", true);
      c.notes.push_back("lo16 = i (all 65536 f16 patterns), hi16 = permutation of all 65536 bf16/f16 patterns");
      arg_s32(c, 65536); launch1d(c, 65536); g_cases.push_back(c); }
}

// fp8 relu (e4m3 / e5m2 byte): NaN input -> canonical NaN 0x7f, negative -> 0, -0 -> unknown
static u8 relu8(u8 v, bool nan_in, u8 canon, bool& known) {
    known = true;
    if (nan_in) return canon;
    if (v == 0x80) { known = false; return 0; }
    if (v & 0x80) return 0;
    return v;
}

static void cases_asm_fp8() {
    Case c{"fp8_cvt_asm", "asm_fp8_sm89", "fp8_cvt_asm"};
    const long N = 32768;
    Bytes a, b, h2, o16, o32; Mask m16, m32;
    for (long i = 0; i < N; i++) {
        float fa = F[i % F.size()], fb = F[(i * 7919 + 11) % F.size()];
        u32 w = pair16(i);
        a.put(fa); b.put(fb); h2.put(w);
        float2 v; v.x = fb; v.y = fa;                        // asm: a -> high byte, b -> low byte
        o16.put((u16)__nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E4M3)); m16.put(2, true);
        bool k1, k2;
        u8 lo = relu8((u8)__nv_cvt_float_to_fp8(fb, __NV_SATFINITE, __NV_E5M2), std::isnan(fb), 0x7f, k1);
        u8 hi = relu8((u8)__nv_cvt_float_to_fp8(fa, __NV_SATFINITE, __NV_E5M2), std::isnan(fa), 0x7f, k2);
        o16.put((u16)(lo | hi << 8)); m16.put(1, k1); m16.put(1, k2);
        o16.put((u16)__nv_cvt_halfraw2_to_fp8x2(h2raw(w), __NV_SATFINITE, __NV_E4M3)); m16.put(2, true);
        u16 e = (u16)__nv_cvt_halfraw2_to_fp8x2(h2raw(w), __NV_SATFINITE, __NV_E5M2);
        lo = relu8((u8)e, h_isnan((u16)w), 0x7f, k1); hi = relu8((u8)(e >> 8), h_isnan((u16)(w >> 16)), 0x7f, k2);
        o16.put((u16)(lo | hi << 8)); m16.put(1, k1); m16.put(1, k2);
        o32.put(h2bits(__nv_cvt_fp8x2_to_halfraw2((u16)w, __NV_E4M3))); m32.put(4, true);
        __half2_raw r = __nv_cvt_fp8x2_to_halfraw2((u16)(w >> 16), __NV_E5M2);
        u16 x0 = relu16(r.x, h_isnan(r.x), k1), x1 = relu16(r.y, h_isnan(r.y), k2);
        o32.put((u32)x0 | (u32)x1 << 16); m32.put(2, k1); m32.put(2, k2);
    }
    arg_in(c, "a", a); arg_in(c, "b", b); arg_in(c, "h2", h2);
    arg_out(c, "out16", o16, "header:__nv_cvt_float2_to_fp8x2 / __nv_cvt_float_to_fp8 / __nv_cvt_halfraw2_to_fp8x2 (SATFINITE) + spec-derived .relu (negative->0, NaN->canonical 0x7f) and x2 packing (a -> high byte)", "e4m3x2,e5m2x2,e4m3x2,e5m2x2", true, &m16);
    arg_out(c, "out32", o32, "header:__nv_cvt_fp8x2_to_halfraw2 + spec-derived .relu for slot 1", "f16", true, &m32);
    arg_s32(c, N);
    c.no_ref.push_back(".relu lanes whose unclamped result is -0: sign of zero not stated; masked");
    c.notes.push_back("h2: lo16 = even patterns, hi16 = odd patterns (all 65536 across both lanes); a/b cycle through the shared f32 vector");
    launch1d(c, N); g_cases.push_back(c);
}

static bool fp6_top_bits_clean(u16 v) { return (v & 0xc0c0) == 0; }

static void cases_asm_sm100a() {
    { Case c{"f32_to_narrow_x2_sm100a", "asm_sm100a_narrow", "f32_to_narrow_x2_sm100a"};
      auto B = rotate_f(F, 1); Rng r(606); Bytes sf, out; Mask mk;
      for (size_t i = 0; i < F.size(); i++) {
          float a = F[i], b = B[i]; sf.put(r.u32_());
          float2 v; v.x = b; v.y = a;   // asm: a -> high part, b -> low part
          bool na = std::isnan(a), nb = std::isnan(b);
          // 0: e2m1x2 satfinite: header; NaN -> +MAX_NORM (0x7) per spec
          auto e2m1 = [](float x) -> u8 { if (std::isnan(x)) return 0x7; return (u8)__nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest); };
          out.put((u32)(e2m1(b) | e2m1(a) << 4)); mk.put(4, true);
          // 1: relu e2m1x2: NaN lanes unknown (relu says canonical NaN, format has none; satfinite says +MAX)
          auto relu_n = [](u8 val, u8 signbit, bool nan, bool& known) -> u8 { known = !nan; if (nan) return 0; if (val == signbit) { known = false; return 0; } if (val & signbit) return 0; return val; };
          bool k1, k2;
          u8 l = relu_n(e2m1(b), 0x8, nb, k1), h = relu_n(e2m1(a), 0x8, na, k2);
          out.put((u32)(l | h << 4)); mk.put(4, k1 && k2);
          // 2: e2m3x2 satfinite
          auto f6 = [](float x, __nv_fp6_interpretation_t t) -> u8 { if (std::isnan(x)) return 0x1f; return (u8)__nv_cvt_float_to_fp6(x, t, cudaRoundNearest); };
          out.put((u32)(f6(b, __NV_E2M3) | f6(a, __NV_E2M3) << 8)); mk.put(4, true);
          // 3: relu e3m2x2
          l = relu_n(f6(b, __NV_E3M2), 0x20, nb, k1); h = relu_n(f6(a, __NV_E3M2), 0x20, na, k2);
          out.put((u32)(l | h << 8)); mk.put(1, k1); mk.put(1, k2); mk.put(2, true);
          // 4: cvt.rz.satfinite.ue8m0x2.f32 ; 5: cvt.rp.ue8m0x2.f32
          out.put((u32)(u16)__nv_cvt_float2_to_e8m0x2(v, __NV_SATFINITE, cudaRoundZero)); mk.put(4, true);
          out.put((u32)(u16)__nv_cvt_float2_to_e8m0x2(v, __NV_NOSAT, cudaRoundPosInf)); mk.put(4, true);
          // 6, 7: s2f6x2: no independent reference
          out.put((u32)0); mk.put(4, false);
          out.put((u32)0); mk.put(4, false);
      }
      arg_shared(c, "f32", f32buf(F)); arg_shared(c, "f32_rot", f32buf(B)); arg_in(c, "sf", sf);
      arg_out(c, "out", out, "header:__nv_cvt_float_to_fp4 / __nv_cvt_float_to_fp6 / __nv_cvt_float2_to_e8m0x2 + spec-derived: x2 packing (a -> high), .satfinite NaN -> +MAX_NORM for e2m1/e2m3/e3m2, .relu negative -> 0", "u32", true, &mk);
      arg_s32(c, F.size());
      c.no_ref.push_back("slots 6,7 (cvt.rn.satfinite{.scaled::n2::ue8m0}.s2f6x2.f32): no independent reference; masked (zeros in the .bin)");
      c.no_ref.push_back("slots 1,3 lanes: .relu with a NaN input (relu says canonical NaN, but e2m1/e3m2 have no NaN; satfinite says +MAX_NORM) and -0 results; masked");
      launch1d(c, F.size()); g_cases.push_back(c); }
    { Case c{"narrow_up_and_packed_sm100a", "asm_sm100a_narrow", "narrow_up_and_packed_sm100a"};
      const long N = 32768; Rng r(607); Bytes in, sf, out; Mask mk;
      for (long i = 0; i < N; i++) {
          u32 w = pair16(i);
          if (i % 4 == 3) w = (w ^ (r.u32_() & 0x3f3f3f3f)) & 0x3f3f3f3f;   // clean fp6 bytes (top 2 bits 0)
          in.put(w); sf.put(r.u32_());
          u16 lo = (u16)w, hi = (u16)(w >> 16);
          // 0: cvt.rn.f16x2.e2m1x2 of the low byte
          out.put(h2bits(__nv_cvt_fp4x2_to_halfraw2((u8)w, __NV_E2M1))); mk.put(4, true);
          // 1: cvt.rn.relu.f16x2.e2m3x2 of lo16
          { __half2_raw hr = __nv_cvt_fp6x2_to_halfraw2(lo, __NV_E2M3); bool k1, k2;
            u16 x0 = relu16(hr.x, false, k1), x1 = relu16(hr.y, false, k2);
            bool clean0 = (lo & 0x00c0) == 0, clean1 = (lo & 0xc000) == 0;
            out.put((u32)x0 | (u32)x1 << 16); mk.put(2, k1 && clean0); mk.put(2, k2 && clean1); }
          // 2: cvt.rn.f16x2.e3m2x2 of hi16
          { out.put(h2bits(__nv_cvt_fp6x2_to_halfraw2(hi, __NV_E3M2))); mk.put(2, (hi & 0x00c0) == 0); mk.put(2, (hi & 0xc000) == 0); }
          // 3: cvt.rn.bf16x2.ue8m0x2 of lo16
          out.put(b2bits(__nv_cvt_e8m0x2_to_bf162raw(lo))); mk.put(4, true);
          // 4: s2f6 -> bf16x2: no reference
          out.put((u32)0); mk.put(4, false);
          // 5: cvt.rp.satfinite.ue8m0x2.bf16x2 of w
          out.put((u32)(u16)__nv_cvt_bfloat162raw_to_e8m0x2(b2raw(w), __NV_SATFINITE, cudaRoundPosInf)); mk.put(4, true);
          // 6: e2m3x2 from bf16x2 (satfinite; NaN -> +MAX 0x1f) | relu e4m3x2 from bf16x2 << 16
          { auto bf6 = [](u16 x) -> u8 { if (b_isnan(x)) return 0x1f; __nv_bfloat16_raw r; r.x = x; return (u8)__nv_cvt_bfloat16raw_to_fp6(r, __NV_E2M3, cudaRoundNearest); };
            u16 h0 = (u16)(bf6(lo) | bf6(hi) << 8);
            u16 e = (u16)__nv_cvt_bfloat16raw2_to_fp8x2(b2raw(w), __NV_SATFINITE, __NV_E4M3); bool k1, k2;
            u8 e0 = relu8((u8)e, b_isnan(lo), 0x7f, k1), e1 = relu8((u8)(e >> 8), b_isnan(hi), 0x7f, k2);
            out.put((u32)h0 | (u32)(e0 | e1 << 8) << 16); mk.put(2, true); mk.put(1, k1); mk.put(1, k2); }
          // 7: e2m1x2 from f16x2 (8-bit, NaN -> +MAX 0x7) | s2f6 << 16 (no reference)
          { auto hf4 = [](u16 x) -> u8 { if (h_isnan(x)) return 0x7; __half_raw r; r.x = x; return (u8)__nv_cvt_halfraw_to_fp4(r, __NV_E2M1, cudaRoundNearest); };
            out.put((u32)(hf4(lo) | hf4(hi) << 4)); mk.put(2, true); mk.put(2, false); }
      }
      arg_in(c, "in", in); arg_in(c, "sf", sf);
      arg_out(c, "out", out, "header:__nv_cvt_fp4x2_to_halfraw2, __nv_cvt_fp6x2_to_halfraw2, __nv_cvt_e8m0x2_to_bf162raw, __nv_cvt_bfloat162raw_to_e8m0x2, __nv_cvt_bfloat16raw_to_fp6, __nv_cvt_bfloat16raw2_to_fp8x2, __nv_cvt_halfraw_to_fp4 + spec-derived packing (upper source half -> upper result part), .relu, .satfinite NaN -> +MAX_NORM", "u32", true, &mk);
      arg_s32(c, N);
      c.no_ref.push_back("slot 4 and slot 7 bits 16..31 (s2f6x2 <-> bf16x2 with .scaled::n2::ue8m0): no independent reference; masked");
      c.no_ref.push_back("slots 1,2: fp6 bytes whose top 2 bits are set (the spec does not say they are ignored); masked. Every 4th element has clean fp6 bytes.");
      c.no_ref.push_back(".relu lanes whose unclamped result is -0; masked");
      launch1d(c, N); g_cases.push_back(c); }
    { Case c{"stochastic_round_sm100a", "asm_sm100a_narrow", "stochastic_round_sm100a"};
      Rng r(608); Bytes in, rb, out; Mask mk; const long N = 4096;
      for (long i = 0; i < N; i++) { for (int k = 0; k < 4; k++) in.put(F[(i * 4 + k) % F.size()]); rb.put(r.u32_()); for (int k = 0; k < 6; k++) { out.put((u32)0); mk.put(4, false); } }
      arg_in(c, "in", in); arg_in(c, "rbits", rb);
      arg_out(c, "out", out, "none: .rs stochastic rounding has no independent reference (whole output masked; .bin is zeros)", "u32", false, &mk);
      arg_s32(c, N);
      c.no_ref.push_back("all 6 slots (cvt.rs ...): no independent reference; the case only checks that the kernel runs");
      launch1d(c, N); g_cases.push_back(c); }
}

// ---------------------------------------------------------------- manifest
static void write_manifest(const std::string& nvcc_version) {
    std::string j = "{\n  \"format\": 1,\n";
    j += "  \"generator\": \"scripts/kernel-golden/gen.sh\",\n";
    j += "  \"nvcc\": " + jstr(nvcc_version) + ",\n";
    j += "  \"arg_syntax\": \"buf:<path> = input buffer from file; zeros:<N> = output buffer of N BYTES, zero-filled; s32:<v>, f32:<v> = scalars\",\n";
    j += "  \"cases\": [\n";
    for (size_t ci = 0; ci < g_cases.size(); ci++) {
        const Case& c = g_cases[ci];
        std::vector<std::string> ptx;
        // A Triton kernel (src "triton:<kernel>"): ptx-samples/triton/<kernel>.sm_80/sm_90a.ptx.
        const bool triton = c.src.rfind("triton:", 0) == 0;
        const std::string stem = triton ? "ptx-samples/triton/" + c.src.substr(7) : "ptx-samples/nvcc/" + c.src;
        for (const char* arch : {"sm_80", "sm_90", "sm_90a", "sm_100a", "sm_90.lineinfo", "sm_100a.lineinfo", "sm_90.G"}) {
            std::string p = stem + "." + arch + ".ptx";
            if (exists(p)) ptx.push_back(p);
        }
        const std::string source = triton ? "ptx-samples/triton/kernels.py" : "ptx-samples/cuda/" + c.src + ".cu";
        j += "    {\n      \"name\": " + jstr(c.name) + ",\n      \"source\": " + jstr(source) + ",\n";
        j += "      \"ptx\": [";
        for (size_t i = 0; i < ptx.size(); i++) j += (i ? ", " : "") + jstr(ptx[i]);
        j += "],\n      \"entry\": " + jstr(c.entry) + ",\n      \"n\": " + std::to_string(c.n) + ",\n";
        j += "      \"grid\": [" + std::to_string(c.grid) + ", 1, 1],\n      \"block\": [" + std::to_string(c.block) + ", 1, 1],\n";
        if (c.dynamic_shared) j += "      \"dynamic_shared\": " + std::to_string(c.dynamic_shared) + ",\n";
        j += "      \"args\": [";
        for (size_t i = 0; i < c.args.size(); i++) j += (i ? ", " : "") + jstr(c.args[i]);
        j += "],\n      \"outputs\": [\n";
        for (size_t i = 0; i < c.outs.size(); i++) {
            const OutInfo& o = c.outs[i];
            j += "        {\"arg\": " + std::to_string(o.arg) + ", \"expected\": " + jstr(o.file) + ", \"bytes\": " + std::to_string(o.bytes);
            if (!o.mask.empty()) j += ", \"mask\": " + jstr(o.mask);
            j += ", \"elem\": " + jstr(o.elem) + ", \"nan_any\": " + (o.nan_any ? "true" : "false");
            j += ", \"reference\": " + jstr(o.ref);
            if (!o.note.empty()) j += ", \"note\": " + jstr(o.note);
            if (!o.tol_type.empty())
                j += ", \"tolerance\": {\"type\": " + jstr(o.tol_type) + ", \"ulp\": " + std::to_string(o.tol_ulp) +
                     ", \"bound\": " + jstr(o.tol_bound) + "}";
            j += "}" + std::string(i + 1 < c.outs.size() ? "," : "") + "\n";
        }
        j += "      ],\n      \"no_independent_reference\": [";
        for (size_t i = 0; i < c.no_ref.size(); i++) j += (i ? ", " : "") + jstr(c.no_ref[i]);
        j += "],\n      \"notes\": [";
        for (size_t i = 0; i < c.notes.size(); i++) j += (i ? ", " : "") + jstr(c.notes[i]);
        j += "]\n    }" + std::string(ci + 1 < g_cases.size() ? "," : "") + "\n";
    }
    j += "  ]\n}\n";
    writefile(std::string(kDir) + "/manifest.json", std::vector<u8>(j.begin(), j.end()));
}

// ---------------------------------------------------------------- warp-synchronous kernels (spec-derived)
// ptx-samples/cuda/warp.cu. A warp is 32 consecutive threads (blockDim is 256); lanes past n still
// run with the kernels' default values. The reductions are recomputed here in the kernels' own
// order from the PTX ISA semantics: shfl.sync (9.7.9.6: an out-of-range source lane reads the
// lane's own value), vote.sync.ballot (9.7.13.9), match.any.sync (9.7.13.10), redux.sync
// (9.7.13.12: .add truncated to 32 bits).
static void cases_warp() {
    const long n = 4000 - 13;                  // the last warp is partly past n
    const long threads = (n + 255) / 256 * 256;
    const long warps = threads / 32;
    Rng r(505);
    std::vector<float> f(n);
    std::vector<s32> iv(n);
    std::vector<u32> uv(n);
    for (long i = 0; i < n; i++) {
        float m = 1.0f + (r.u32_() & 0xffffff) / 16777216.0f;
        float x = std::ldexp(m, (int)r.below(40) - 20);   // mixed magnitudes: the order of adds shows
        f[i] = (r.u32_() & 1) ? -x : x;
        iv[i] = (s32)r.below(41) - 20;
        uv[i] = r.u32_();
    }
    auto key = [&](long i) { return i < n ? (iv[i] & 7) : -1; };
    Bytes fin = f32buf(f), iin, uin;
    for (s32 x : iv) iin.put(x);
    for (u32 x : uv) uin.put(x);
    { Case c{"warp_sum_down", "warp", "warp_sum_down"};
      Bytes out;
      for (long w = 0; w < warps; w++) {
          float v[32];
          for (int t = 0; t < 32; t++) { long i = w * 32 + t; v[t] = i < n ? f[i] : 0.0f; }
          for (int off = 16; off > 0; off >>= 1) {
              float nv[32];
              for (int t = 0; t < 32; t++) { volatile float s = v[t] + (t + off < 32 ? v[t + off] : v[t]); nv[t] = s; }
              memcpy(v, nv, sizeof v);
          }
          out.put(v[0]);
      }
      arg_in(c, "in", fin);
      arg_out(c, "out", out, "spec-derived: shfl.sync.down tree (offsets 16..1), IEEE f32 additions in that order", "f32");
      arg_s32(c, n); launch1d(c, n); g_cases.push_back(c); }
    { Case c{"block_sum_dynamic", "warp", "block_sum_dynamic"};
      // Per warp the shfl.sync.down tree; lane 0 of each warp stores its sum in dynamic shared
      // memory; after the barrier, warp 0 runs the same tree over the 8 partials (0 for lanes 8..31).
      auto tree = [](float v[32]) {
          for (int off = 16; off > 0; off >>= 1) {
              float nv[32];
              for (int t = 0; t < 32; t++) { volatile float s = v[t] + (t + off < 32 ? v[t + off] : v[t]); nv[t] = s; }
              memcpy(v, nv, 32 * sizeof(float));
          }
          return v[0];
      };
      Bytes out;
      for (long b = 0; b < threads / 256; b++) {
          float partial[32] = {0};
          for (int w = 0; w < 8; w++) {
              float v[32];
              for (int t = 0; t < 32; t++) { long i = b * 256 + w * 32 + t; v[t] = i < n ? f[i] : 0.0f; }
              partial[w] = tree(v);
          }
          out.put(tree(partial));
      }
      arg_in(c, "in", fin);
      arg_out(c, "out", out, "spec-derived: shfl.sync.down trees per warp, then over the 8 warp sums (IEEE f32 additions in that order)", "f32");
      arg_s32(c, n); launch1d(c, n); c.dynamic_shared = 8 * 4;
      c.notes.push_back("launch with 32 bytes of dynamic shared memory (one float per warp)");
      g_cases.push_back(c); }
    { Case c{"warp_max_xor", "warp", "warp_max_xor"};
      Bytes out;
      for (long w = 0; w < warps; w++) {
          float m = -INFINITY;
          for (int t = 0; t < 32; t++) { long i = w * 32 + t; m = std::fmax(m, i < n ? f[i] : -INFINITY); }
          for (int t = 0; t < 32; t++) if (w * 32 + t < n) out.put(m);
      }
      arg_in(c, "in", fin);
      arg_out(c, "out", out, "spec-derived: shfl.sync.bfly butterfly of fmaxf: every lane holds the warp maximum", "f32");
      arg_s32(c, n); launch1d(c, n); g_cases.push_back(c); }
    { Case c{"ballot_count", "warp", "ballot_count"};
      Bytes out;
      for (long w = 0; w < warps; w++) {
          u32 count = 0;
          for (int t = 0; t < 32; t++) { long i = w * 32 + t; if (i < n && iv[i] > 0) count++; }
          out.put(count);
      }
      arg_in(c, "in", iin);
      arg_out(c, "out", out, "spec-derived: popc of vote.sync.ballot of (i < n && in[i] > 0)", "u32");
      arg_s32(c, n); launch1d(c, n); g_cases.push_back(c); }
    { Case c{"match_any_groups", "warp", "match_any_groups"};
      Bytes out;
      for (long i = 0; i < n; i++) {
          long w0 = i / 32 * 32; u32 mask = 0;
          for (int t = 0; t < 32; t++) if (key(w0 + t) == key(i)) mask |= 1u << t;
          out.put(mask);
      }
      arg_in(c, "in", iin);
      arg_out(c, "out", out, "spec-derived: match.any.sync: the lanes of the warp with the same in[i] & 7 (-1 past n)", "u32");
      arg_s32(c, n); launch1d(c, n); g_cases.push_back(c); }
    { Case c{"segment_scan", "warp", "segment_scan"};
      Bytes out;
      for (long i = 0; i < n; i++) {
          u32 s = 0;
          for (long j = i / 8 * 8; j <= i; j++) s += (u32)iv[j];
          out.put((s32)s);
      }
      arg_in(c, "in", iin);
      arg_out(c, "out", out, "spec-derived: shfl.sync.up with width 8 (c = 0x1800): inclusive scan of each segment of 8 lanes", "s32");
      arg_s32(c, n); launch1d(c, n); g_cases.push_back(c); }
    { Case c{"redux_sum_min", "warp", "redux_sum_min"};
      Bytes out;
      for (long w = 0; w < warps; w++) {
          u32 s = 0, m = UINT32_MAX;
          for (int t = 0; t < 32; t++) { long i = w * 32 + t; u32 v = i < n ? uv[i] : 0; s += v; m = std::min(m, v); }
          out.put(s); out.put(m);
      }
      arg_in(c, "in", uin);
      arg_out(c, "out", out, "spec-derived: redux.sync.add.u32 (truncated to 32 bits) and redux.sync.min.u32 per warp", "u32");
      arg_s32(c, n); launch1d(c, n); g_cases.push_back(c); }
}

// ---------------------------------------------------------------- block-level kernels
// ptx-samples/cuda/block.cu: the kernels' results recomputed here (a warp is 32 consecutive
// threads, blockDim 256). The quantizer's conversion is the header's host function; the
// rest is exact integer arithmetic or one IEEE f32 operation per element.
static void cases_block() {
    Rng r(606);
    { Case c{"absmax_quant_e4m3", "block", "absmax_quant_e4m3"};
      const int rows = 200;
      std::vector<float> in;
      for (int row = 0; row < rows; row++) {
          int kind = row % 8;
          int e = (int)r.below(60) - 30;
          for (int t = 0; t < 64; t++) {
              float x = std::ldexp(1.0f + (r.u32_() & 0xffffff) / 16777216.0f, e - (int)r.below(16));
              if (r.u32_() & 1) x = -x;
              if (kind == 1) x = 0.0f;                      // an all-zero row: scale 1
              if (kind == 2 && t == 7) x = FLT_MAX;          // a huge element
              if (kind == 3) x = std::ldexp(x, -100);        // tiny and subnormal values
              in.push_back(x);
          }
      }
      Bytes out, scales;
      for (int row = 0; row < rows; row++) {
          float amax = 0.0f;
          for (int t = 0; t < 64; t++) amax = std::fmax(amax, std::fabs(in[row * 64 + t]));
          volatile float scale = amax > 0.0f ? amax / 448.0f : 1.0f;
          for (int t = 0; t < 32; t++) {
              volatile float x = in[row * 64 + 2 * t] / scale;
              volatile float y = in[row * 64 + 2 * t + 1] / scale;
              out.put((u16)__nv_cvt_float2_to_fp8x2(make_float2(x, y), __NV_SATFINITE, __NV_E4M3));
          }
          scales.put((float)scale);
      }
      arg_in(c, "in", f32buf(in));
      arg_out(c, "out", out, "header:__nv_cvt_float2_to_fp8x2(SATFINITE,E4M3) of in/scale; scale = amax/448 (IEEE f32), amax over the row of 64", "e4m3x2");
      arg_out(c, "scales", scales, "amax/448 over each row of 64 (IEEE f32 division), 1 for an all-zero row", "f32");
      c.args.push_back("s32:" + std::to_string(rows));
      c.n = rows; c.block = 256; c.grid = (rows * 32 + 255) / 256;
      c.notes.push_back("one warp per row of 64 floats: grid = ceil(rows * 32 / 256)");
      g_cases.push_back(c); }
    { Case c{"mx_quant_e4m3_warp", "block", "mx_quant_e4m3_warp"};
      // Blocks of 32 with a per-block magnitude; a partial last block (n % 32 = 17).
      std::vector<float> in;
      for (int blk = 0; blk < 300; blk++) {
          int e = (int)r.below(200) - 100;
          for (int t = 0; t < 32; t++) {
              float x = std::ldexp(1.0f + (r.u32_() & 0xffffff) / 16777216.0f, e - (int)r.below(12));
              if (r.u32_() & 1) x = -x;
              if (blk % 7 == 3) x = 0.0f;                  // an all-zero block
              if (blk % 7 == 5 && t == 11) x = FLT_MAX;     // the largest float
              in.push_back(x);
          }
      }
      in.resize(in.size() - 15);
      const long count = in.size();
      Bytes out, scales;
      for (long b0 = 0; b0 < count; b0 += 32) {
          float amax = 0.0f;
          for (int t = 0; t < 32; t++) amax = std::fmax(amax, std::fabs(b0 + t < count ? in[b0 + t] : 0.0f));
          volatile float q = amax / 448.0f;
          __nv_fp8_storage_t e = __nv_cvt_float_to_e8m0(q, __NV_SATFINITE, cudaRoundPosInf);
          scales.put((u8)e);
          float bs = __bfloat162float(__nv_bfloat16(__nv_cvt_e8m0_to_bf16raw(e)));
          for (int t = 0; t < 32 && b0 + t < count; t++) { volatile float y = in[b0 + t] / bs; out.put((u8)__nv_cvt_float_to_fp8(y, __NV_SATFINITE, __NV_E4M3)); }
      }
      arg_in(c, "in", f32buf(in));
      arg_out(c, "out", out, "header:__nv_cvt_float_to_fp8(SATFINITE,E4M3) of in/2^(scale-127) (IEEE f32 division)", "e4m3", true);
      arg_out(c, "scales", scales, "header:__nv_cvt_float_to_e8m0(amax/448, SATFINITE, PosInf); amax by a shfl.sync.bfly butterfly of fmaxf", "ue8m0");
      arg_s32(c, count); launch1d(c, count); g_cases.push_back(c); }
    const long n = 4000;
    std::vector<s32> iv(n);
    std::vector<u32> uv(n);
    for (long i = 0; i < n; i++) { iv[i] = (s32)r.below(40) - 19; uv[i] = r.u32_(); }
    Bytes iin, uin;
    for (s32 x : iv) iin.put(x);
    for (u32 x : uv) uin.put(x);
    { Case c{"histogram256", "block", "histogram256"};
      u32 bins[256] = {0};
      for (u32 x : uv) bins[x & 255]++;
      Bytes out;
      for (u32 b : bins) out.put(b);
      arg_in(c, "in", uin);
      arg_out(c, "bins", out, "count of in[i] & 255 (shared atomicAdd per block, then global)", "u32");
      arg_s32(c, n);
      c.n = n; c.block = 256; c.grid = 4;
      c.notes.push_back("grid 4 x block 256: a grid-stride loop");
      g_cases.push_back(c); }
    const long blocks = (n + 255) / 256;
    { Case c{"block_votes", "block", "block_votes"};
      Bytes out;
      for (long b = 0; b < blocks; b++) {
          s32 count = 0, all = 1, any = 0;
          for (long i = b * 256; i < b * 256 + 256; i++) {
              count += i < n && iv[i] > 0;
              all &= i < n && iv[i] > -20;
              any |= i < n && iv[i] == 7;
          }
          out.put(count); out.put(all); out.put(any);
      }
      arg_in(c, "in", iin);
      arg_out(c, "out", out, "spec-derived: bar.red.popc / .and / .or (__syncthreads_count/_and/_or) over each block", "s32");
      arg_s32(c, n); launch1d(c, n); g_cases.push_back(c); }
    { Case c{"named_barrier_pipe", "block", "named_barrier_pipe"};
      Bytes out;
      for (long i = 0; i < n; i++) out.put(i % 256 < 128 ? iv[i] : (s32)(2u * (u32)iv[i - 128] + (u32)iv[i]));
      arg_in(c, "in", iin);
      arg_out(c, "out", out, "spec-derived: consumers after bar.sync 1, 256 read what producers stored before bar.arrive 1, 256", "s32");
      arg_s32(c, n); launch1d(c, n); g_cases.push_back(c); }
    { Case c{"cp_async_double_buffer", "block", "cp_async_double_buffer"};
      const int tiles = 64;
      std::vector<float> in(tiles * 256 * 4);
      for (float& x : in) { x = std::ldexp(1.0f + (r.u32_() & 0xffffff) / 16777216.0f, (int)r.below(40) - 20); if (r.u32_() & 1) x = -x; }
      Bytes out;
      for (float x : in) { volatile float y = 3.0f * x; out.put((float)y); }
      arg_in(c, "in", f32buf(in));
      arg_out(c, "out", out, "3 * in[i] (IEEE f32), copied through shared memory with cp.async", "f32");
      c.args.push_back("s32:" + std::to_string(tiles));
      c.n = tiles; c.block = 256; c.grid = tiles / 4;
      c.notes.push_back("four tiles of 256 float4 per block: grid = tiles / 4");
      g_cases.push_back(c); }
}

// ---------------------------------------------------------------- math kernels
// ptx-samples/cuda/math.cu. Exact instructions (integer, carry chains, dp4a/dp2a, bit
// intrinsics, fma.rn.f16x2, copysign/set/testp) get an exact reference written from the PTX ISA
// text. Kernels with approximate instructions (tanhf, erff, __tanhf, __expf, __fdividef, rsqrtf)
// get a double-precision reference, rounded once to the output format, and a per-element
// tolerance: an absolute bound on the device's pre-rounding error, propagated through the
// kernel from the documented error bounds (kMath* below), plus 1 ulp of the output format for
// the two final roundings (device and reference). Bounds carry a factor 2 for the neglected
// second-order terms.
static const double kU = std::ldexp(1.0, -24);           // f32 unit roundoff (one .rn operation)
static const double kMathLibUlp = 2;                     // tanhf, erff: max 2 ulp (CUDA Programming Guide, math functions)
static const double kTanhApprox = std::ldexp(1.0, -11);  // tanh.approx.f32: max error about 2^-11 (PTX ISA, tanh)
static const double kEx2Approx = std::ldexp(1.0, -22);   // ex2.approx.f32: max 2 ulp (PTX ISA, ex2) = rel 2^-22
static const double kDivApprox = std::ldexp(1.0, -22);   // div.approx.f32: max 2 ulp for |b| in [2^-126, 2^126] (PTX ISA, div)
static const double kRsqrtApprox = std::ldexp(1.0, -22); // rsqrt.approx.f32: max 2 ulp (rsqrtf in the Programming Guide; PTX ISA, rsqrt)
static const char* kMathTolNote = "tolerance: bound = propagated error of the documented bounds (gen.cpp kMath*), ulp 1 = the device's and the reference's final roundings";

// Exact fma.rn.f16 (IEEE 754 roundTiesToEven) on bit patterns: a*b + c is an integer multiple of
// 2^-48 below 2^81, so it is computed exactly in __int128 and rounded once.
static u16 f16_fma_exact(u16 a, u16 b, u16 c) {
    auto is_nan = [](u16 h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); };
    auto is_inf = [](u16 h) { return (h & 0x7fff) == 0x7c00; };
    auto is_zero = [](u16 h) { return (h & 0x7fff) == 0; };
    const u16 kNaN = 0x7fff;
    if (is_nan(a) || is_nan(b) || is_nan(c)) return kNaN;
    u16 sp = (a ^ b) & 0x8000;
    if (is_inf(a) || is_inf(b)) {
        if (is_zero(a) || is_zero(b)) return kNaN;
        if (is_inf(c) && (c & 0x8000) != sp) return kNaN;
        return sp | 0x7c00;
    }
    if (is_inf(c)) return c;
    auto decode = [](u16 h, s64& m, int& e) {  // |value| = m * 2^e
        int ex = (h >> 10) & 0x1f;
        m = h & 0x3ff;
        if (ex) { m |= 0x400; e = ex - 25; } else e = -24;
    };
    s64 ma, mb, mc; int ea, eb, ec;
    decode(a, ma, ea); decode(b, mb, eb); decode(c, mc, ec);
    __int128 p = (__int128)(ma * mb) << (ea + eb + 48);
    __int128 q = (__int128)mc << (ec + 48);
    if (sp) p = -p;
    if (c & 0x8000) q = -q;
    __int128 sum = p + q;
    if (sum == 0) return (p == 0 && q == 0 && sp && (c & 0x8000)) ? 0x8000 : 0x0000;
    u16 sign = sum < 0 ? 0x8000 : 0;
    unsigned __int128 v = sum < 0 ? -(unsigned __int128)sum : (unsigned __int128)sum;
    int msb = 127;
    while (!((v >> msb) & 1)) msb--;
    int E = std::max(msb - 48, -14);
    int shift = E + 38;                        // quantum 2^(E-10) in units of 2^-48
    unsigned __int128 qn = v >> shift, rem = v & (((unsigned __int128)1 << shift) - 1);
    unsigned __int128 half = (unsigned __int128)1 << (shift - 1);
    if (rem > half || (rem == half && (qn & 1))) qn++;
    if (qn == 2048) { qn = 1024; E++; }
    if (E > 15) return sign | 0x7c00;
    if (qn < 1024) return sign | (u16)qn;       // subnormal (E = -14)
    return sign | (u16)(((E + 15) << 10) | (u16)(qn - 1024));
}

static float f16f(u16 h) { return __half2float(bitsh(h)); }
static u16 d2h(double x) { return hbits(__double2half(x)); }

// Softmax of one row, exp(x - max) / sum(exp(x - max)), in double (appended to `p`), and per
// element the bound propagated from the documented errors (appended to `bound`): x - max, the
// rounded constant log2(e) and the product (3 roundings) through ex2.approx, the sum's
// `sum_depth` roundings, and the division (2 ulp); subnormal results get 2^-125 absolute.
static void softmax_reference(const float* x, int cols, int sum_depth, std::vector<double>& p,
                              std::vector<double>& bound) {
    const double log2e_rel = 3 * kU;
    double mx = -INFINITY;
    for (int j = 0; j < cols; j++) mx = std::max(mx, (double)x[j]);
    double s = 0, eta_max = 0;
    std::vector<double> e(cols), eta(cols);
    for (int j = 0; j < cols; j++) {
        double d = (double)x[j] - mx;
        e[j] = std::exp(d);
        eta[j] = std::isinf(d) ? 0 : std::log(2.0) * log2e_rel * std::fabs(d) * M_LOG2E * 1.01 + kEx2Approx;
        s += e[j];
        eta_max = std::max(eta_max, eta[j]);
    }
    const double sigma = eta_max + sum_depth * kU * 1.01;
    for (int j = 0; j < cols; j++) {
        p.push_back(e[j] / s);
        bound.push_back(2 * (p.back() * (eta[j] + sigma + kDivApprox) + std::ldexp(1.0, -125)));
    }
}

// Triton 3.9 kernels (ptx-samples/triton/kernels.py, compiled for sm_80 and sm_90a): the
// tutorial's fused softmax and layer norm (one program of 4 warps per row), and tl.math
// (libdevice tanh and erf, rsqrt, exp) in gelu_rms_softmax. Triton appends two pointer
// parameters (global and profile scratch) it does not use here: u64 0. Reductions use its
// .extern .shared buffer: 1 KiB of dynamic shared memory.
static void cases_triton() {
    Rng r(909);
    const int rows = 37, cols = 333;
    std::vector<float> x(rows * cols), w(cols), b(cols);
    for (int row = 0; row < rows; row++) {
        const int kind = row % 4;
        const double span = kind == 0 ? 10 : kind == 1 ? 1 : kind == 2 ? 60 : 3;
        const double offset = kind == 3 ? 40 : 0;
        for (int j = 0; j < cols; j++)
            x[row * cols + j] = (float)(((double)r.below(1u << 24) / (1u << 24) * 2 - 1) * span + offset);
    }
    for (int j = 0; j < cols; j++) {
        w[j] = (float)(((double)r.below(1u << 24) / (1u << 24)) * 4 - 2);
        b[j] = (float)(((double)r.below(1u << 24) / (1u << 24)) * 2 - 1);
    }
    const double eps = (double)1e-5f;
    // Sums: each thread adds its 4 elements, then a butterfly over 32 lanes and 4 warps.
    const int depth = 4 + 5 + 2 + 1;
    auto scratch = [](Case& c) { c.args.push_back("u64:0"); c.args.push_back("u64:0"); };
    auto launch_rows = [&](Case& c) {
        c.n = rows; c.block = 128; c.grid = rows; c.dynamic_shared = 1024;
        c.notes.push_back("one program (128 threads, 4 warps) per row of 333 floats; BLOCK 512");
    };
    { Case c{"triton_softmax", "triton:softmax_rows", "softmax_rows"};
      Bytes out; std::vector<double> bound;
      for (int row = 0; row < rows; row++) {
          std::vector<double> p;
          softmax_reference(&x[row * cols], cols, depth + cols / 128, p, bound);
          for (double v : p) out.put((float)v);
      }
      arg_in(c, "x", f32buf(x));
      arg_out(c, "out", out, "double: exp(x - max) / sum(exp(x - max)) per row, rounded once to f32", "f32", false, nullptr, kMathTolNote);
      tolerance(c, "f32", 1, bound);
      arg_s32(c, cols); scratch(c); launch_rows(c); g_cases.push_back(c); }
    { Case c{"triton_layer_norm", "triton:layer_norm_rows", "layer_norm_rows"};
      Bytes out; std::vector<double> bound;
      for (int row = 0; row < rows; row++) {
          const float* xr = &x[row * cols];
          double sum = 0, sum_abs = 0;
          for (int j = 0; j < cols; j++) { sum += xr[j]; sum_abs += std::fabs(xr[j]); }
          const double mean = sum / cols;
          double var = 0;
          for (int j = 0; j < cols; j++) var += (xr[j] - mean) * (xr[j] - mean);
          var /= cols;
          const double rstd = 1 / std::sqrt(var + eps);
          // mean: the sum's roundings and div.full (2 ulp); var: the same, relative.
          const double mean_err = depth * kU * sum_abs / cols + kDivApprox * std::fabs(mean);
          const double rel_var = (depth + 3) * kU + kDivApprox + kU;
          // rstd = 1 / sqrt.approx.ftz(var + eps): sqrt rel 2^-23, div.full 2 ulp.
          const double rel_rstd = 0.5 * rel_var + std::ldexp(1.0, -23) + kDivApprox + kU;
          for (int j = 0; j < cols; j++) {
              const double xc = xr[j] - mean;
              const double y = xc * rstd * w[j] + b[j];
              out.put((float)y);
              const double xc_err = kU * std::fabs(xc) + mean_err;
              bound.push_back(2 * (std::fabs(xc * rstd * w[j]) * (rel_rstd + 3 * kU) +
                                   std::fabs(rstd * w[j]) * xc_err + kU * std::fabs(y)));
          }
      }
      arg_in(c, "x", f32buf(x)); arg_in(c, "w", f32buf(w)); arg_in(c, "b", f32buf(b));
      arg_out(c, "out", out, "double: (x - mean) / sqrt(var + eps) * w + b per row, rounded once to f32", "f32", false, nullptr, kMathTolNote);
      tolerance(c, "f32", 1, bound);
      arg_s32(c, cols); c.args.push_back("f32:0f3727c5ac"); scratch(c); launch_rows(c); g_cases.push_back(c); }
    // tl.math and libdevice: gelu with libdevice tanh and tl.math.erf, x * rsqrt(mean(x^2) +
    // eps) * w, and the softmax of the row (kernels.py gelu_rms_softmax).
    { Case c{"triton_gelu_rms_softmax", "triton:gelu_rms_softmax", "gelu_rms_softmax"};
      const double k_tanh = (double)0.7978845608f, c3 = (double)0.044715f, k_erf = (double)0.7071067812f;
      Bytes gt, ge, rms, sm;
      std::vector<double> bgt, bge, brms, bsm;
      for (int row = 0; row < rows; row++) {
          const float* xr = &x[row * cols];
          double ss = 0;
          for (int j = 0; j < cols; j++) ss += (double)xr[j] * xr[j];
          const double ms = ss / cols, rs = 1 / std::sqrt(ms + eps);
          // The sum of squares (4 + 5 + 2 + 1 levels), div.full (2 ulp), + eps, rsqrt.approx.
          const double rel_rs = 0.5 * ((depth + 2) * kU + kDivApprox + kU) + kRsqrtApprox;
          for (int j = 0; j < cols; j++) {
              const double xv = xr[j];
              // gelu, tanh form: z in 5 roundings, libdevice tanhf 2 ulp.
              const double z = k_tanh * (xv + c3 * xv * xv * xv), t = std::tanh(z);
              const double dz = 10 * kU * std::fabs(z);
              const double dt = std::min(2.0, (1 - t * t) * dz) + kMathLibUlp * std::ldexp(1.0, -23) * std::fabs(t);
              const double g1 = 0.5 * xv * (1 + t);
              gt.put((float)g1);
              bgt.push_back(2 * (0.5 * std::fabs(xv) * (dt + kU * (1 + std::fabs(t))) + 2 * kU * std::fabs(g1)));
              // gelu, erf form: erff 2 ulp.
              const double wv = k_erf * xv, e = std::erf(wv);
              const double de = std::min(2.0, 2 / std::sqrt(M_PI) * std::exp(-wv * wv) * kU * std::fabs(wv)) +
                                kMathLibUlp * std::ldexp(1.0, -23) * std::fabs(e);
              const double g2 = 0.5 * xv * (1 + e);
              ge.put((float)g2);
              bge.push_back(2 * (0.5 * std::fabs(xv) * (de + kU * (1 + std::fabs(e))) + 2 * kU * std::fabs(g2)));
              const double y = xv * rs * w[j];
              rms.put((float)y);
              brms.push_back(2 * std::fabs(y) * (rel_rs + 2 * kU));
          }
          std::vector<double> p;
          softmax_reference(xr, cols, depth + cols / 128, p, bsm);
          for (double v : p) sm.put((float)v);
      }
      arg_in(c, "x", f32buf(x)); arg_in(c, "w", f32buf(w));
      arg_out(c, "gelu_tanh", gt, "double: 0.5 x (1 + tanh(k (x + c x^3))) (k, c: the kernel's f32 constants), rounded once to f32", "f32", false, nullptr, kMathTolNote);
      tolerance(c, "f32", 1, bgt);
      arg_out(c, "gelu_erf", ge, "double: 0.5 x (1 + erf(k x)), rounded once to f32", "f32", false, nullptr, kMathTolNote);
      tolerance(c, "f32", 1, bge);
      arg_out(c, "rms", rms, "double: x / sqrt(mean(x^2) + eps) * w, rounded once to f32", "f32", false, nullptr, kMathTolNote);
      tolerance(c, "f32", 1, brms);
      arg_out(c, "softmax", sm, "double: exp(x - max) / sum(exp(x - max)) per row, rounded once to f32", "f32", false, nullptr, kMathTolNote);
      tolerance(c, "f32", 1, bsm);
      arg_s32(c, cols); c.args.push_back("f32:0f3727c5ac"); scratch(c); launch_rows(c); g_cases.push_back(c); }
}

// ptx-samples/cuda/mbarrier.cu: libcu++'s cuda::barrier (mbarrier.init/arrive/test_wait or
// try_wait) and cuda::memcpy_async with a barrier (cp.async + cp.async.mbarrier.arrive).
static void cases_mbarrier() {
    Rng r(808);
    const long n = 1000;   // four blocks of 256, the last one partial
    std::vector<float> fin(n);
    for (float& x : fin) { x = std::ldexp(1.0f + (r.u32_() & 0xffffff) / 16777216.0f, (int)r.below(20) - 10); if (r.u32_() & 1) x = -x; }
    std::vector<s32> iin(n);
    for (s32& v : iin) v = (s32)r.below(101) - 50;
    { Case c{"barrier_reverse_tile", "mbarrier", "barrier_reverse_tile"};
      Bytes out;
      for (long i = 0; i < n; i++) {
          long t = i % 256, src = i - t + 255 - t;
          volatile float v = src < n ? fin[src] : 0.0f;
          volatile float twice = v * 2.0f;
          volatile float y = twice + (float)t;
          out.put((float)y);
      }
      arg_in(c, "in", f32buf(fin));
      arg_out(c, "out", out, "tile[255 - t] * 2 + t (IEEE f32), the tile staged with memcpy_async and a cuda::barrier", "f32");
      arg_s32(c, n); launch1d(c, n); g_cases.push_back(c); }
    { Case c{"barrier_two_phases", "mbarrier", "barrier_two_phases"};
      Bytes out, in;
      for (s32 v : iin) in.put(v);
      for (long b = 0; b < 4; b++) {
          s32 s0 = 0;
          for (long i = b * 256; i < b * 256 + 256; i++) s0 += i < n ? iin[i] : 0;
          s32 s1 = 0;
          for (long i = b * 256; i < b * 256 + 256; i++) s1 += s0 - (i < n ? iin[i] : 0);
          for (long i = b * 256; i < b * 256 + 256 && i < n; i++) out.put((s32)(s1 + iin[i]));
      }
      arg_in(c, "in", in);
      arg_out(c, "out", out, "per block: s0 = sum of in, s1 = sum of (s0 - in), out = s1 + in; two phases of one cuda::barrier", "s32");
      arg_s32(c, n); launch1d(c, n); g_cases.push_back(c); }
}

static void cases_math() {
    Rng r(707);
    // f16 GELU inputs: every pattern, then 100 values in [-6, 6] (n = 65636: the last block is partial)
    std::vector<u16> hx = all16();
    for (int k = 0; k < 100; k++) hx.push_back(d2h(((double)r.below(1u << 20) / (1u << 20)) * 12.0 - 6.0));
    const long nh = hx.size();
    Bytes hin;
    for (u16 h : hx) hin.put(h);
    const double k_tanh = (double)0.7978845608f, c3 = (double)0.044715f, k_erf = (double)0.7071067812f;
    // which: 0 = tanhf, 1 = __tanhf (tanh.approx.f32), 2 = erff
    auto gelu_case = [&](const char* name, int which) {
        Case c{name, "math", name};
        Bytes out; Mask m; std::vector<double> bound;
        for (u16 h : hx) {
            double x = f16f(h);
            if (std::isinf(x)) {   // 0.5 * -inf * (1 + -1): NaN or not depends on nvcc's operation order
                out.put((u16)0); m.put(2, false); bound.push_back(0); continue;
            }
            m.put(2, true);
            double g, dev;
            if (which < 2) {
                double z = k_tanh * (x + c3 * x * x * x), t = std::tanh(z);
                double dz = 8 * kU * std::fabs(z);                       // 4 roundings in z
                double dt = std::min(2.0, (1 - t * t) * dz) +
                            (which == 0 ? kMathLibUlp * std::ldexp(1.0, -23) * std::fabs(t) : kTanhApprox);
                g = 0.5 * x * (1 + t);
                dev = 0.5 * std::fabs(x) * (dt + kU * (1 + std::fabs(t))) + 2 * kU * std::fabs(g);
            } else {
                double w = k_erf * x, e = std::erf(w);
                double dw = kU * std::fabs(w);
                double de = std::min(2.0, 2 / std::sqrt(M_PI) * std::exp(-w * w) * dw) +
                            kMathLibUlp * std::ldexp(1.0, -23) * std::fabs(e);
                g = 0.5 * x * (1 + e);
                dev = 0.5 * std::fabs(x) * (de + kU * (1 + std::fabs(e))) + 2 * kU * std::fabs(g);
            }
            out.put(d2h(g));
            bound.push_back(std::isnan(x) ? 0 : 2 * dev);
        }
        arg_in(c, "in", hin);
        const char* ref = which == 0 ? "double: 0.5 x (1 + tanh(k (x + c x^3))) (k, c: the kernel's f32 constants), rounded once to f16"
                        : which == 1 ? "double: 0.5 x (1 + tanh(k (x + c x^3))) rounded once to f16; device uses tanh.approx.f32"
                                     : "double: 0.5 x (1 + erf(k x)) (k: the kernel's f32 constant), rounded once to f16";
        arg_out(c, "out", out, ref, "f16", true, &m, kMathTolNote);
        tolerance(c, "f16", 1, bound);
        arg_s32(c, nh); launch1d(c, nh);
        c.no_ref.push_back("±inf inputs (0.5 x (1 + t) with x = -inf, t = -1 is NaN or not depending on the operation order)");
        c.notes.push_back("inputs: all 65536 f16 patterns, then 100 values in [-6, 6]");
        g_cases.push_back(c);
    };
    gelu_case("gelu_tanh_f16", 0);
    gelu_case("gelu_tanh_fast_f16", 1);
    gelu_case("gelu_erf_f16", 2);

    { Case c{"softmax_row", "math", "softmax_row"};
      const int rows = 37, cols = 333;
      std::vector<float> in(rows * cols);
      for (int row = 0; row < rows; row++) {
          int kind = row % 6;
          double span = kind == 0 ? 10 : kind == 1 ? 100 : kind == 2 ? 1 : 30;
          double offset = kind == 4 ? 80 : kind == 5 ? -60 : 0;
          for (int j = 0; j < cols; j++) {
              double v = ((double)r.below(1u << 24) / (1u << 24) * 2 - 1) * span + offset;
              if (kind == 3 && row % 12 == 3) v = 2.5;                     // a constant row
              if (kind == 5 && j % 7 == 0) v = -INFINITY;                   // some -inf elements
              in[row * cols + j] = (float)v;
          }
      }
      const int depth = (cols + 31) / 32 + 5;
      Bytes out; std::vector<double> bound;
      for (int row = 0; row < rows; row++) {
          std::vector<double> p;
          softmax_reference(&in[row * cols], cols, depth, p, bound);
          for (double v : p) out.put((float)v);
      }
      arg_in(c, "in", f32buf(in));
      arg_out(c, "out", out, "double: exp(x - max) / sum(exp(x - max)) per row, rounded once to f32", "f32", false, nullptr, kMathTolNote);
      tolerance(c, "f32", 1, bound);
      arg_s32(c, rows); arg_s32(c, cols);
      c.n = rows; c.block = 128; c.grid = (rows * 32 + 127) / 128;
      c.notes.push_back("one warp per row of 333 floats: block 128 (4 rows), grid = ceil(rows * 32 / 128); the last block has one busy warp");
      g_cases.push_back(c); }

    { Case c{"rmsnorm_row", "math", "rmsnorm_row"};
      const int rows = 19, cols = 777, block = 256;
      const float eps = 1e-5f;
      std::vector<float> in(rows * cols), w(cols);
      for (int j = 0; j < cols; j++) {
          w[j] = (float)(((double)r.below(1u << 20) / (1u << 20)) * 1.5 + 0.5);
          if (r.u32_() & 1) w[j] = -w[j];
          if (j % 97 == 5) w[j] = 0.0f;
      }
      for (int row = 0; row < rows; row++) {
          int e0 = (int)r.below(40) - 20;                                   // per-row magnitude 2^-20 .. 2^19
          for (int j = 0; j < cols; j++) {
              float v = std::ldexp(1.0f + (r.u32_() & 0xffffff) / 16777216.0f, e0 - (int)r.below(8));
              if (r.u32_() & 1) v = -v;
              if (row == 4) v = 0.0f;                                      // an all-zero row: out = 0
              in[row * cols + j] = v;
          }
      }
      const int depth = (cols + block - 1) / block + 5 + block / 32;     // per thread, shuffle tree, thread 0's loop
      const double rel_scale = ((depth + 2) * kU * 1.01) / 2 + kRsqrtApprox;  // sum, / cols, + eps; rsqrt halves it
      Bytes out; std::vector<double> bound;
      for (int row = 0; row < rows; row++) {
          double ss = 0;
          for (int j = 0; j < cols; j++) ss += (double)in[row * cols + j] * in[row * cols + j];
          double scale = 1 / std::sqrt(ss / cols + (double)eps);
          for (int j = 0; j < cols; j++) {
              double y = (double)in[row * cols + j] * scale * w[j];
              out.put((float)y);
              bound.push_back(2 * std::fabs(y) * (rel_scale + 2 * kU));
          }
      }
      arg_in(c, "in", f32buf(in));
      arg_in(c, "w", f32buf(w));
      arg_out(c, "out", out, "double: x * w / sqrt(mean(x^2) + eps) per row (eps = 1e-5f), rounded once to f32", "f32", false, nullptr, kMathTolNote);
      tolerance(c, "f32", 1, bound);
      arg_s32(c, cols); c.args.push_back("f32:0f3727C5AC");
      c.n = rows; c.block = block; c.grid = rows;
      c.notes.push_back("one block of 256 per row of 777 floats (each thread strides the row): grid = rows; eps = 1e-5f (0f3727C5AC)");
      g_cases.push_back(c); }

    { Case c{"half2_fma_chain", "math", "half2_fma_chain"};
      const long n = 4000 - 13;
      const int iters = 7;
      Bytes min, cin, out;
      for (long i = 0; i < n; i++) {
          u16 lanes_m[2], lanes_c[2];
          for (int l = 0; l < 2; l++) {
              u32 kind = r.below(16);
              // m: mostly |m| < 2 (the chain stays finite), sometimes any pattern (inf, NaN, huge, subnormal)
              lanes_m[l] = kind == 0 ? (u16)r.u32_() : d2h(((double)r.below(1u << 16) / (1u << 16)) * 3.8 - 1.9);
              lanes_c[l] = kind == 1 ? (u16)r.u32_() : kind == 2 ? (u16)(r.u32_() & 0x83ff)   // subnormals
                         : d2h(std::ldexp(((double)r.below(1u << 16) / (1u << 16)) * 2 - 1, (int)r.below(30) - 15));
          }
          min.put(lanes_m[0]); min.put(lanes_m[1]);
          cin.put(lanes_c[0]); cin.put(lanes_c[1]);
          for (int l = 0; l < 2; l++) {
              u16 acc = lanes_c[l];
              for (int k = 0; k < iters; k++) acc = f16_fma_exact(acc, lanes_m[l], lanes_c[l]);
              out.put(acc);
          }
      }
      arg_in(c, "m", min); arg_in(c, "c", cin);
      arg_out(c, "out", out, "spec-derived: fma.rn.f16x2 per lane, exact a*b+c in __int128 rounded once (roundTiesToEven), 7 times", "f16", true);
      arg_s32(c, n); arg_s32(c, iters); launch1d(c, n);
      g_cases.push_back(c); }

    auto rnd32 = [&](u32 i) -> u32 {
        static const u32 edge[] = {0u, 1u, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0x80808080u, 0x7f7f7f7fu, 0x00ff00ffu, 0xff00ff00u, 0x8000ffffu};
        return i % 8 == 0 ? edge[r.below(10)] : r.u32_();
    };
    { Case c{"dp4a_int8_dot", "math", "dp4a_int8_dot"};
      const long n = 999; const int k = 13;
      std::vector<u32> a(n * k), b(k), bias(n);
      for (long i = 0; i < n * k; i++) a[i] = rnd32((u32)i);
      for (int j = 0; j < k; j++) b[j] = rnd32((u32)j + 1);
      b[0] = 0x80808080u; b[1] = 0x7f7f7f7fu;
      for (long i = 0; i < n; i++) bias[i] = i % 5 == 0 ? (i % 10 ? 0x7fffffffu : 0x80000000u) : r.u32_();
      Bytes ain, bin, cin, ds, du;
      for (u32 x : a) ain.put(x);
      for (u32 x : b) bin.put(x);
      for (u32 x : bias) cin.put(x);
      for (long i = 0; i < n; i++) {
          u32 s = bias[i], u = bias[i];
          for (int j = 0; j < k; j++)
              for (int byte = 0; byte < 4; byte++) {
                  u32 x = (a[i * k + j] >> (8 * byte)) & 0xff, y = (b[j] >> (8 * byte)) & 0xff;
                  s += (u32)((s32)(int8_t)x * (s32)(int8_t)y);
                  u += x * y;
              }
          ds.put(s); du.put(u);
      }
      arg_in(c, "a", ain); arg_in(c, "b", bin); arg_in(c, "bias", cin);
      arg_out(c, "dot_s", ds, "spec-derived: dp4a.s32.s32: c + sum of sign-extended byte products, 32-bit wrap", "s32");
      arg_out(c, "dot_u", du, "spec-derived: dp4a.u32.u32: c + sum of zero-extended byte products, 32-bit wrap", "u32");
      arg_s32(c, n); arg_s32(c, k); launch1d(c, n);
      g_cases.push_back(c); }
    { Case c{"dp2a_lo_hi", "math", "dp2a_lo_hi"};
      const long n = 997;
      Bytes ain, bin, cin, out;
      std::vector<u32> a(n), b(n), cc(n);
      for (long i = 0; i < n; i++) { a[i] = rnd32((u32)i); b[i] = rnd32((u32)i + 3); cc[i] = rnd32((u32)i + 5); }
      for (long i = 0; i < n; i++) {
          ain.put(a[i]); bin.put(b[i]); cin.put(cc[i]);
          for (int sgn = 1; sgn >= 0; sgn--)
              for (int sel = 0; sel <= 2; sel += 2) {
                  u32 d = cc[i];
                  for (int l = 0; l < 2; l++) {
                      u32 ah = (a[i] >> (16 * l)) & 0xffff, bb = (b[i] >> (8 * (sel + l))) & 0xff;
                      d += sgn ? (u32)((s32)(int16_t)ah * (s32)(int8_t)bb) : ah * bb;
                  }
                  out.put(d);
              }
      }
      arg_in(c, "a", ain); arg_in(c, "b", bin); arg_in(c, "c", cin);
      arg_out(c, "out", out, "spec-derived: dp2a.{lo,hi}.s32.s32 then .u32.u32: c + a.h0 * b.byte(0|2) + a.h1 * b.byte(1|3), 32-bit wrap", "s32");
      arg_s32(c, n); launch1d(c, n);
      g_cases.push_back(c); }

    { // 128-bit operands, shared by mul128 and mul_u128
      const long n = 999;
      std::vector<unsigned __int128> a(n), b(n);
      auto rnd128 = [&](long i) -> unsigned __int128 {
          unsigned __int128 all = ~(unsigned __int128)0;
          switch (i % 16) {
              case 0: return 0;
              case 1: return all;
              case 2: return (unsigned __int128)1 << 127;
              case 3: return ((unsigned __int128)1 << 64) - 1;
              case 4: return (unsigned __int128)r.u32_();
              default: return ((unsigned __int128)r.u64_() << 64) | r.u64_();
          }
      };
      for (long i = 0; i < n; i++) { a[i] = rnd128(i); b[i] = rnd128(i / 16 + i * 7); }
      Bytes ain, bin;
      for (long i = 0; i < n; i++) { ain.put((u64)a[i]); ain.put((u64)(a[i] >> 64)); bin.put((u64)b[i]); bin.put((u64)(b[i] >> 64)); }
      { Case c{"mul128", "math", "mul128"};
        Bytes prod, sum, diff, flags;
        for (long i = 0; i < n; i++) {
            u64 x[2] = {(u64)a[i], (u64)(a[i] >> 64)}, y[2] = {(u64)b[i], (u64)(b[i] >> 64)};
            u64 p[4] = {0, 0, 0, 0};
            for (int ii = 0; ii < 2; ii++) {       // schoolbook on 64-bit limbs with 128-bit partial products
                unsigned __int128 carry = 0;
                for (int jj = 0; jj < 2; jj++) {
                    unsigned __int128 t = (unsigned __int128)x[ii] * y[jj] + p[ii + jj] + carry;
                    p[ii + jj] = (u64)t; carry = t >> 64;
                }
                p[ii + 2] = (u64)carry;
            }
            for (u64 w : p) prod.put(w);
            unsigned __int128 s = a[i] + b[i], d = a[i] - b[i];
            sum.put((u64)s); sum.put((u64)(s >> 64));
            diff.put((u64)d); diff.put((u64)(d >> 64));
            flags.put((u32)((s < a[i]) | ((a[i] < b[i]) << 1)));
        }
        arg_in(c, "a", ain); arg_in(c, "b", bin);
        arg_out(c, "prod", prod, "exact: 256-bit product (unsigned __int128 partial products)", "u32");
        arg_out(c, "sum", sum, "exact: a + b mod 2^128", "u32");
        arg_out(c, "diff", diff, "exact: a - b mod 2^128", "u32");
        arg_out(c, "flags", flags, "exact: carry out of a + b | borrow out of a - b << 1", "u32");
        arg_s32(c, n); launch1d(c, n);
        g_cases.push_back(c); }
      { Case c{"mul_u128", "math", "mul_u128"};
        Bytes out;
        for (long i = 0; i < n; i++) { unsigned __int128 p = a[i] * b[i]; out.put((u64)p); out.put((u64)(p >> 64)); }
        arg_in(c, "a", ain); arg_in(c, "b", bin);
        arg_out(c, "out", out, "exact: a * b mod 2^128", "u64");
        arg_s32(c, n); launch1d(c, n);
        g_cases.push_back(c); }
    }

    { Case c{"bit_ops", "math", "bit_ops"};
      const long n = 2000 - 7;
      std::vector<u32> a(n), b(n), cc(n);
      for (long i = 0; i < n; i++) {
          a[i] = i % 64 < 33 && i < 64 ? (i % 64 == 32 ? 0u : 1u << (i % 64)) : rnd32((u32)i);
          if (i % 3 == 1) a[i] &= r.u32_() & r.u32_();                      // sparse masks for fns
          b[i] = rnd32((u32)i + 1);
          cc[i] = i % 4 == 0 ? r.below(70) : i % 4 == 1 ? (u32)-(s32)r.below(60) : rnd32((u32)i + 2);
      }
      Bytes ain, bin, cin, out;
      for (long i = 0; i < n; i++) {
          ain.put(a[i]); bin.put(b[i]); cin.put(cc[i]);
          u32 x = a[i], y = b[i], z = cc[i];
          u32 rev = 0;
          for (int k = 0; k < 32; k++) if (x >> k & 1) rev |= 1u << (31 - k);
          u32 ffs = 0;
          for (int k = 0; k < 32; k++) if (x >> k & 1) { ffs = k + 1; break; }
          u32 clz = 32;
          for (int k = 31; k >= 0; k--) if (x >> k & 1) { clz = 31 - k; break; }
          // fns.b32 (PTX ISA, fns): mask = x, base = y & 31, offset = (int)z % 40
          s32 base = y & 31, offset = (s32)z % 40;
          u32 fns = 0xffffffffu;
          if (offset == 0) { if (x >> base & 1) fns = base; }
          else {
              s32 pos = base, count = std::abs(offset) - 1, inc = offset > 0 ? 1 : -1;
              while (pos >= 0 && pos < 32) {
                  if (x >> pos & 1) { if (count == 0) { fns = pos; break; } count--; }
                  pos += inc;
              }
          }
          u32 sad = ((s32)x < (s32)y ? y - x : x - y) + z;                  // sad.s32
          u64 hl = ((u64)y << 32) | x;
          u32 shl = (u32)((hl << (z & 31)) >> 32);                          // shf.l.wrap
          u32 shr = (u32)(hl >> std::min<u32>(z, 32));                      // shf.r.clamp
          u64 bytes8 = hl;
          u32 perm = 0;
          for (int k = 0; k < 4; k++) perm |= (u32)((bytes8 >> (8 * ((z >> (4 * k)) & 7))) & 0xff) << (8 * k);
          for (u32 v : {rev, ffs, clz, fns, sad, shl, shr, perm}) out.put(v);
      }
      arg_in(c, "a", ain); arg_in(c, "b", bin); arg_in(c, "c", cin);
      arg_out(c, "out", out, "spec-derived: brev, __ffs (brev + bfind.shiftamt + 1), clz, fns.b32 (PTX ISA fns semantics), sad.s32, shf.l.wrap, shf.r.clamp, __byte_perm (prmt with the selector & 0x7777)", "u32");
      arg_s32(c, n); launch1d(c, n);
      g_cases.push_back(c); }

    { Case c{"float_classify", "math", "float_classify"};
      const long n = (long)F.size() - 5;
      std::vector<float> fb = rotate_f(F, 1234);
      Bytes out, cls;
      for (long i = 0; i < n; i++) {
          float x = F[i], y = fb[i];
          u32 xb = fbits(x), yb = fbits(y);
          out.put((xb & 0x7fffffffu) | (yb & 0x80000000u));                 // copysign: |a| with b's sign
          out.put((u32)(x < y ? 0xffffffffu : 0u));                          // set.lt.u32.f32 (ordered)
          out.put((float)((x > y || std::isnan(x) || std::isnan(y)) ? 1.0f : 0.0f));   // set.gtu.f32.f32
          bool nan = std::isnan(x), inf = std::isinf(x);
          // PTX ISA 9.7.3.1 (testp): "As a special case, positive and negative zero are
          // considered normal numbers."
          bool normal = std::fpclassify(x) == FP_NORMAL || std::fpclassify(x) == FP_ZERO,
               sub = std::fpclassify(x) == FP_SUBNORMAL;
          cls.put((u32)(nan | inf << 1 | (!nan && !inf) << 2 | (xb >> 31) << 3 | normal << 4 | sub << 5));
      }
      arg_shared(c, "f32", f32buf(F));
      arg_in(c, "b", f32buf(fb));
      arg_out(c, "out", out, "spec-derived: copysign.f32 (magnitude of a, sign of b; NaN payload kept), set.lt.u32.f32, set.gtu.f32.f32", "f32,u32,f32", true);
      arg_out(c, "cls", cls, "spec-derived: isnan | isinf << 1 | isfinite << 2 | sign << 3 | testp.normal << 4 | testp.subnormal << 5", "u32");
      arg_s32(c, n); launch1d(c, n);
      c.notes.push_back("a = common/f32.bin, b = the same vector rotated by 1234");
      g_cases.push_back(c); }
}

int main(int argc, char** argv) {
    if (argc < 2) { fprintf(stderr, "usage: gen <repo-root> [nvcc-version-string]\n"); return 2; }
    g_root = argv[1];
    std::string ver = argc > 2 ? argv[2] : "unknown";
    F = make_f32_vector(12288, 12345);
    D = make_f64_vector(8192, 23456);
    cases_fp16();
    cases_bf16();
    cases_fp8();
    cases_fp6_fp4_e8m0();
    cases_float_int();
    cases_f64();
    cases_control();
    cases_asm_pack_mov();
    cases_asm_f16();
    cases_asm_fp8();
    cases_asm_sm100a();
    cases_warp();
    cases_block();
    cases_math();
    cases_mbarrier();
    cases_triton();
    write_manifest(ver);
    printf("wrote %zu cases\n", g_cases.size());
    return 0;
}
