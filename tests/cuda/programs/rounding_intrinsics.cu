// The directed-rounding intrinsics of the CUDA Math API ("Single/Double Precision Intrinsics",
// "Type Casting Intrinsics"): __fadd/__fmul/__fdiv/__frcp/__fsqrt/__fmaf with _rn _rz _rd _ru,
// the double ones, float<->integer and integer->float/double conversions in every rounding mode
// (float-to-integer saturates, and a NaN gives 0 or the most negative value, as the PTX
// ISA's cvt says), __saturatef and
// __frsqrt_rn. The host computes each under fesetround, which is the IEEE 754 operation in
// that mode (-frounding-math keeps the compiler from folding across the mode changes).
// nvcc: -Xcompiler -frounding-math
#include <cfenv>
#include <climits>
#include <cstdint>
#include <cstring>
#include <vector>
#include "check.h"

constexpr int FOPS = 24, DOPS = 20;

__global__ void float_ops(const float *a, const float *b, const float *c, float *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i], z = c[i];
  float *r = o + FOPS * i;
  r[0] = __fadd_rn(x, y); r[1] = __fadd_rz(x, y); r[2] = __fadd_rd(x, y); r[3] = __fadd_ru(x, y);
  r[4] = __fmul_rn(x, y); r[5] = __fmul_rz(x, y); r[6] = __fmul_rd(x, y); r[7] = __fmul_ru(x, y);
  r[8] = __fdiv_rn(x, y); r[9] = __fdiv_rz(x, y); r[10] = __fdiv_rd(x, y); r[11] = __fdiv_ru(x, y);
  r[12] = __frcp_rn(y); r[13] = __frcp_rz(y); r[14] = __frcp_rd(y); r[15] = __frcp_ru(y);
  float s = fabsf(x);
  r[16] = __fsqrt_rn(s); r[17] = __fsqrt_rz(s); r[18] = __fsqrt_rd(s); r[19] = __fsqrt_ru(s);
  r[20] = __fmaf_rn(x, y, z); r[21] = __fmaf_rz(x, y, z); r[22] = __fmaf_rd(x, y, z);
  r[23] = __fmaf_ru(x, y, z);
}

__global__ void double_ops(const double *a, const double *b, const double *c, double *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = a[i], y = b[i], z = c[i];
  double *r = o + DOPS * i;
  r[0] = __dadd_rn(x, y); r[1] = __dadd_rz(x, y); r[2] = __dadd_rd(x, y); r[3] = __dadd_ru(x, y);
  r[4] = __dmul_rn(x, y); r[5] = __dmul_rz(x, y); r[6] = __dmul_rd(x, y); r[7] = __dmul_ru(x, y);
  r[8] = __ddiv_rn(x, y); r[9] = __ddiv_rz(x, y); r[10] = __ddiv_rd(x, y); r[11] = __ddiv_ru(x, y);
  r[12] = __drcp_rn(y); r[13] = __drcp_rz(y); r[14] = __drcp_rd(y); r[15] = __drcp_ru(y);
  double s = fabs(x);
  r[16] = __dsqrt_rn(s); r[17] = __dsqrt_rz(s); r[18] = __fma_rd(x, y, z); r[19] = __fma_ru(x, y, z);
}

struct Conv {
  int i_rn, i_rz, i_rd, i_ru;
  unsigned u_rn, u_rz, u_rd, u_ru;
  long long ll_rn, ll_rz, ll_rd, ll_ru;
  unsigned long long ull_rd, ull_ru;
  float f_from_d_rn, f_from_d_rz, f_from_d_rd, f_from_d_ru;
  float f_from_i_rz, f_from_i_rd, f_from_i_ru;
  float f_from_ll_rn, f_from_ll_rz, f_from_ll_rd, f_from_ll_ru;
  double d_from_ll_rz, d_from_ll_rd, d_from_ull_ru;
  float sat, rsqrt;
  int d2i_rd, d2i_ru;
};

__global__ void conversions(const float *f, const double *d, const long long *l, Conv *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = f[i];
  double y = d[i];
  long long v = l[i];
  Conv c;
  c.i_rn = __float2int_rn(x); c.i_rz = __float2int_rz(x); c.i_rd = __float2int_rd(x); c.i_ru = __float2int_ru(x);
  c.u_rn = __float2uint_rn(x); c.u_rz = __float2uint_rz(x); c.u_rd = __float2uint_rd(x); c.u_ru = __float2uint_ru(x);
  c.ll_rn = __float2ll_rn(x); c.ll_rz = __float2ll_rz(x); c.ll_rd = __float2ll_rd(x); c.ll_ru = __float2ll_ru(x);
  c.ull_rd = __double2ull_rd(y); c.ull_ru = __double2ull_ru(y);
  c.f_from_d_rn = __double2float_rn(y); c.f_from_d_rz = __double2float_rz(y);
  c.f_from_d_rd = __double2float_rd(y); c.f_from_d_ru = __double2float_ru(y);
  int iv = int(v >> 20);
  c.f_from_i_rz = __int2float_rz(iv); c.f_from_i_rd = __int2float_rd(iv); c.f_from_i_ru = __int2float_ru(iv);
  c.f_from_ll_rn = __ll2float_rn(v); c.f_from_ll_rz = __ll2float_rz(v);
  c.f_from_ll_rd = __ll2float_rd(v); c.f_from_ll_ru = __ll2float_ru(v);
  c.d_from_ll_rz = __ll2double_rz(v * 977); c.d_from_ll_rd = __ll2double_rd(v * 977);
  c.d_from_ull_ru = __ull2double_ru((unsigned long long)v * 1021u);
  c.sat = __saturatef(x);
  c.rsqrt = __frsqrt_rn(fabsf(x) + 1e-30f);
  c.d2i_rd = __double2int_rd(y); c.d2i_ru = __double2int_ru(y);
  o[i] = c;
}

static const int MODES[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};

static bool same_f(float a, float b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, 4) == 0;
}
static bool same_d(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, 8) == 0;
}

// Float-to-integer in the PTX ISA's cvt: rounded in the mode (floor, ceil, truncation and
// ties-to-even, exact on these values), out of range clamps; NaN gives "Zero if source is not
// .f64 and destination is not .s64, .u64. Otherwise 1 << (BitWidth(dst) - 1)".
template <typename T> static T to_int(long double x, int mode, bool from_double = false) {
  if (std::isnan(x)) return (from_double || sizeof(T) == 8) ? T(1ull << (8 * sizeof(T) - 1)) : T(0);
  long double r;
  if (mode == FE_DOWNWARD) r = std::floor(x);
  else if (mode == FE_UPWARD) r = std::ceil(x);
  else if (mode == FE_TOWARDZERO) r = std::trunc(x);
  else {
    r = std::floor(x);
    long double frac = x - r;
    if (frac > 0.5L || (frac == 0.5L && std::fmod(r, 2.0L) != 0)) r += 1;
  }
  if (r <= (long double)std::numeric_limits<T>::min()) return std::numeric_limits<T>::min();
  if (r >= (long double)std::numeric_limits<T>::max()) return std::numeric_limits<T>::max();
  return (T)r;
}

int main() {
  const int n = 3000;
  unsigned seed = 7;
  std::vector<float> a(n), b(n), c(n);
  std::vector<double> da(n), db(n), dc(n);
  std::vector<long long> l(n);
  auto rnd_float = [&](int scale) {
    unsigned bits = lcg(seed);
    float v = float(int(bits >> 8) - (1 << 23)) / float(1 << 23);  // (-1, 1), 24 bits
    return std::ldexp(v, int(lcg(seed) % (2 * scale + 1)) - scale);
  };
  for (int i = 0; i < n; ++i) {
    a[i] = rnd_float(40); b[i] = rnd_float(40); c[i] = rnd_float(40);
    double hi = double(lcg(seed)) * 4294967296.0 + lcg(seed);
    da[i] = std::ldexp(hi / 18446744073709551616.0 - 0.5, int(lcg(seed) % 80) - 40);
    db[i] = std::ldexp(double(lcg(seed)) / 4294967296.0 - 0.5 + 1e-9, int(lcg(seed) % 40) - 20);
    dc[i] = std::ldexp(double(lcg(seed)) / 4294967296.0 - 0.5, int(lcg(seed) % 60) - 30);
    l[i] = (long long)(((unsigned long long)lcg(seed) << 32) | lcg(seed)) >> (lcg(seed) % 40);
  }
  // Edge values: halves (ties), NaN, infinities, out-of-range, signed zero.
  const float fe[] = {2.5f, -2.5f, 3.5f, -0.5f, 0.5f, 1e10f, -1e10f, 4294967296.0f, -0.0f,
                      NAN, INFINITY, -INFINITY, 1.5e-45f, 0.99999994f, 2147483520.0f, -2147483648.0f};
  for (int i = 0; i < 16; ++i) a[i] = fe[i];
  const double de[] = {0.5, -0.5, 1.5, -1.5, 1e300, -1e300, 1e-300, 3.4028235677973366e38,
                       1.401298464324817e-45, 7.006492321624086e-46, NAN, INFINITY, 2147483647.5,
                       -2147483648.5, 1.8446744073709552e19, -1.0};
  for (int i = 0; i < 16; ++i) da[i] = de[i];

  float *ga, *gb, *gc, *gf;
  double *gda, *gdb, *gdc, *gd;
  long long *gl;
  Conv *gconv;
  CUDA(cudaMalloc(&ga, n * 4)); CUDA(cudaMalloc(&gb, n * 4)); CUDA(cudaMalloc(&gc, n * 4));
  CUDA(cudaMalloc(&gda, n * 8)); CUDA(cudaMalloc(&gdb, n * 8)); CUDA(cudaMalloc(&gdc, n * 8));
  CUDA(cudaMalloc(&gl, n * 8));
  CUDA(cudaMalloc(&gf, n * FOPS * 4)); CUDA(cudaMalloc(&gd, n * DOPS * 8));
  CUDA(cudaMalloc(&gconv, n * sizeof(Conv)));
  CUDA(cudaMemcpy(ga, a.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(gb, b.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(gc, c.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(gda, da.data(), n * 8, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(gdb, db.data(), n * 8, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(gdc, dc.data(), n * 8, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(gl, l.data(), n * 8, cudaMemcpyHostToDevice));
  float_ops<<<(n + 127) / 128, 128>>>(ga, gb, gc, gf, n);
  double_ops<<<(n + 127) / 128, 128>>>(gda, gdb, gdc, gd, n);
  conversions<<<(n + 127) / 128, 128>>>(ga, gda, gl, gconv, n);
  CUDA(cudaGetLastError());
  CUDA(cudaDeviceSynchronize());
  std::vector<float> fo(n * FOPS);
  std::vector<double> dout(n * DOPS);
  std::vector<Conv> co(n);
  CUDA(cudaMemcpy(fo.data(), gf, fo.size() * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(dout.data(), gd, dout.size() * 8, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(co.data(), gconv, n * sizeof(Conv), cudaMemcpyDeviceToHost));

  for (int i = 0; i < n; ++i) {
    volatile float x = a[i], y = b[i], z = c[i], s = std::fabs(a[i]);
    for (int m = 0; m < 4; ++m) {
      std::fesetround(MODES[m]);
      float want[6] = {x + y, x * y, x / y, 1.0f / y, std::sqrt((float)s), std::fmaf(x, y, z)};
      std::fesetround(FE_TONEAREST);
      for (int k = 0; k < 6; ++k)
        CHECK(same_f(fo[i * FOPS + 4 * k + m], want[k]), "float op %d mode %d (%a, %a, %a): %a, want %a",
              k, m, (double)x, (double)y, (double)z, (double)fo[i * FOPS + 4 * k + m], (double)want[k]);
    }
    volatile double dx = da[i], dy = db[i], dz = dc[i], ds = std::fabs(da[i]);
    for (int m = 0; m < 4; ++m) {
      std::fesetround(MODES[m]);
      double want[4] = {dx + dy, dx * dy, dx / dy, 1.0 / dy};
      double sq = std::sqrt((double)ds), f = std::fma(dx, dy, dz);
      std::fesetround(FE_TONEAREST);
      for (int k = 0; k < 4; ++k)
        CHECK(same_d(dout[i * DOPS + 4 * k + m], want[k]), "double op %d mode %d (%a, %a): %a, want %a",
              k, m, (double)dx, (double)dy, dout[i * DOPS + 4 * k + m], want[k]);
      if (m < 2) CHECK(same_d(dout[i * DOPS + 16 + m], sq), "dsqrt mode %d (%a): %a, want %a", m, (double)ds, dout[i * DOPS + 16 + m], sq);
      if (m >= 2) CHECK(same_d(dout[i * DOPS + 18 + m - 2], f), "fma mode %d: %a, want %a", m, dout[i * DOPS + 16 + m], f);
    }
    const Conv &g = co[i];
    float xf = a[i];
    double yd = da[i];
    long long v = l[i];
    CHECK(g.i_rn == to_int<int>(xf, FE_TONEAREST) && g.i_rz == to_int<int>(xf, FE_TOWARDZERO) &&
              g.i_rd == to_int<int>(xf, FE_DOWNWARD) && g.i_ru == to_int<int>(xf, FE_UPWARD),
          "float2int %a: %d %d %d %d, want %d %d %d %d", (double)xf, g.i_rn, g.i_rz, g.i_rd, g.i_ru,
          to_int<int>(xf, FE_TONEAREST), to_int<int>(xf, FE_TOWARDZERO), to_int<int>(xf, FE_DOWNWARD),
          to_int<int>(xf, FE_UPWARD));
    CHECK(g.u_rn == to_int<unsigned>(xf, FE_TONEAREST) && g.u_rz == to_int<unsigned>(xf, FE_TOWARDZERO) &&
              g.u_rd == to_int<unsigned>(xf, FE_DOWNWARD) && g.u_ru == to_int<unsigned>(xf, FE_UPWARD),
          "float2uint %a: %u %u %u %u", (double)xf, g.u_rn, g.u_rz, g.u_rd, g.u_ru);
    CHECK(g.ll_rn == to_int<long long>(xf, FE_TONEAREST) && g.ll_rz == to_int<long long>(xf, FE_TOWARDZERO) &&
              g.ll_rd == to_int<long long>(xf, FE_DOWNWARD) && g.ll_ru == to_int<long long>(xf, FE_UPWARD),
          "float2ll %a: %lld %lld %lld %lld", (double)xf, g.ll_rn, g.ll_rz, g.ll_rd, g.ll_ru);
    CHECK(g.ull_rd == to_int<unsigned long long>(yd, FE_DOWNWARD, true) &&
              g.ull_ru == to_int<unsigned long long>(yd, FE_UPWARD, true),
          "double2ull %a: %llu %llu", yd, g.ull_rd, g.ull_ru);
    CHECK(g.d2i_rd == to_int<int>(yd, FE_DOWNWARD, true) && g.d2i_ru == to_int<int>(yd, FE_UPWARD, true),
          "double2int %a: %d %d", yd, g.d2i_rd, g.d2i_ru);
    volatile double vy = yd;
    volatile long long vv = v;
    volatile int iv = int(v >> 20);
    volatile long long v977 = v * 977;
    volatile unsigned long long u1021 = (unsigned long long)v * 1021u;
    float want_fd[4], want_fi[3], want_fl[4];
    double want_dl[3];
    for (int m = 0; m < 4; ++m) {
      std::fesetround(MODES[m]);
      want_fd[m] = (float)vy;
      if (m > 0) want_fi[m - 1] = (float)iv;
      want_fl[m] = (float)vv;
      if (m == 1) want_dl[0] = (double)v977;
      if (m == 2) want_dl[1] = (double)v977;
      if (m == 3) want_dl[2] = (double)u1021;
      std::fesetround(FE_TONEAREST);
    }
    const float got_fd[4] = {g.f_from_d_rn, g.f_from_d_rz, g.f_from_d_rd, g.f_from_d_ru};
    const float got_fi[3] = {g.f_from_i_rz, g.f_from_i_rd, g.f_from_i_ru};
    const float got_fl[4] = {g.f_from_ll_rn, g.f_from_ll_rz, g.f_from_ll_rd, g.f_from_ll_ru};
    const double got_dl[3] = {g.d_from_ll_rz, g.d_from_ll_rd, g.d_from_ull_ru};
    for (int m = 0; m < 4; ++m)
      CHECK(same_f(got_fd[m], want_fd[m]), "double2float mode %d %a: %a want %a", m, yd, (double)got_fd[m], (double)want_fd[m]);
    for (int m = 0; m < 3; ++m)
      CHECK(same_f(got_fi[m], want_fi[m]), "int2float mode %d %d: %a want %a", m + 1, (int)iv, (double)got_fi[m], (double)want_fi[m]);
    for (int m = 0; m < 4; ++m)
      CHECK(same_f(got_fl[m], want_fl[m]), "ll2float mode %d %lld: %a want %a", m, v, (double)got_fl[m], (double)want_fl[m]);
    for (int m = 0; m < 3; ++m)
      CHECK(same_d(got_dl[m], want_dl[m]), "ll2double %d: %a want %a", m, got_dl[m], want_dl[m]);
    float sat = std::isnan(xf) ? 0.0f : std::fmin(std::fmax(xf, 0.0f), 1.0f);
    CHECK(same_f(g.sat, sat), "saturatef %a: %a", (double)xf, (double)g.sat);
    if (!std::isnan(xf)) {
      long double exact = 1.0L / std::sqrt((long double)(std::fabs(xf) + 1e-30f));
      float want = (float)exact;
      CHECK(same_f(g.rsqrt, want), "frsqrt_rn %a: %a want %a", (double)xf, (double)g.rsqrt, (double)want);
    }
  }
  return report("rounding_intrinsics");
}
