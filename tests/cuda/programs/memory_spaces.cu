// Memory-space and cache-hint intrinsics: __ldg/__ldcg/__ldca/__ldcs/__ldlu/__ldcv and
// __stwb/__stcg/__stcs/__stwt on scalars and vector types (float4, double2, int4, longlong2,
// char4, short2, __half2), alignas(16)/alignas(32) structs copied whole, __isGlobal/__isShared/
// __isLocal/__isConstant, __cvta_generic_to_shared and back, __builtin_assume_aligned, a
// struct-of-arrays update through __restrict__ pointers, and 64-bit and 8-bit bitfields (CUDA C++
// Programming Guide, "Load Functions Using Cache Hints", "Store Functions Using Cache Hints",
// "Address Space Predicate Functions", "Address Space Conversion Functions").
#include <cstdint>
#include <cuda_fp16.h>
#include <vector>
#include "check.h"

struct alignas(16) Particle {
  float x, y, z;
  int id;
};
struct alignas(32) Wide {
  double a, b;
  long long c;
  int d, e;
};
struct Packed {
  unsigned kind : 3;
  unsigned flag : 1;
  unsigned count : 12;
  int offset : 16;
  unsigned long long big : 40;
  unsigned long long small : 24;
};

__constant__ int table[4] = {10, 20, 30, 40};

__global__ void cache_hints(const float4 *f4, const double2 *d2, const int4 *i4, const longlong2 *l2,
                            const char4 *c4, const short2 *s2, const __half2 *h2, float4 *of4,
                            double2 *od2, int4 *oi4, longlong2 *ol2, char4 *oc4, short2 *os2,
                            __half2 *oh2, float *scalars, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 a = __ldg(f4 + i), b = __ldcs(f4 + (i + 1) % n);
  __stcs(of4 + i, make_float4(a.x + b.w, a.y + b.z, a.z + b.y, a.w + b.x));
  double2 d = __ldcg(d2 + i);
  __stcg(od2 + i, make_double2(d.y * 2.0, d.x - 1.0));
  int4 v = __ldca(i4 + i);
  __stwt(oi4 + i, make_int4(v.w, v.z ^ 5, v.y + 1, v.x));
  longlong2 l = __ldlu(l2 + i);
  __stwb(ol2 + i, make_longlong2(l.x + l.y, l.x - l.y));
  char4 c = __ldcv(c4 + i);
  oc4[i] = make_char4(c.w, c.z, c.y, c.x);
  short2 s = __ldg(s2 + i);
  os2[i] = make_short2(s.y, short(s.x * 3));
  __half2 h = __ldg(h2 + i);
  __stcs(oh2 + i, __hadd2(h, h));
  float f = __ldg(&a.x) + __ldcs(&scalars[i]);
  __stcg(&scalars[n + i], f);
}

__global__ void spaces(int *global, unsigned *flags, Particle *particles, Wide *wide, Packed *packed) {
  __shared__ int shared[64];
  int local[4];
  int i = threadIdx.x;
  shared[i] = i;
  local[i % 4] = i;
  __syncthreads();
  const int *pointers[4] = {global, shared, local, table};
  unsigned bits = 0;
  for (int k = 0; k < 4; ++k) {
    const void *p = pointers[(k + i) % 4];
    bits |= (__isGlobal(p) ? 1u : 0u) << (4 * k);
    bits |= (__isShared(p) ? 1u : 0u) << (4 * k + 1);
    bits |= (__isLocal(p) ? 1u : 0u) << (4 * k + 2);
    bits |= (__isConstant(p) ? 1u : 0u) << (4 * k + 3);
  }
  size_t s = __cvta_generic_to_shared(&shared[(i + 1) % 64]);
  int *back = static_cast<int *>(__cvta_shared_to_generic(s));
  flags[i] = bits;
  global[i] = *back + local[i % 4] * 100 + table[i % 4] * 10000;
  // alignas structs copied whole, through an aligned hint
  Particle *aligned = static_cast<Particle *>(__builtin_assume_aligned(particles, 16));
  Particle p = aligned[i];
  p.x += p.y * p.z;
  p.id = -p.id;
  aligned[i] = p;
  Wide w = wide[i];
  w.a = w.a * w.b;
  w.c += w.d * w.e;
  wide[i] = w;
  Packed q = packed[i];
  q.kind = (q.kind + 1) & 7;
  q.count = q.count * 3;
  q.offset = q.offset - 100;
  q.big = q.big + q.small;
  q.flag = !q.flag;
  packed[i] = q;
}

__global__ void soa_update(float *__restrict__ x, float *__restrict__ y, const float *__restrict__ vx,
                           const float *__restrict__ vy, float dt, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    x[i] += __ldg(vx + i) * dt;
    y[i] += __ldg(vy + i) * dt;
  }
}

template <typename T> T *upload(const std::vector<T> &v) {
  T *d;
  CUDA(cudaMalloc(&d, v.size() * sizeof(T)));
  CUDA(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <typename T> std::vector<T> download(const T *d, size_t n) {
  std::vector<T> v(n);
  CUDA(cudaMemcpy(v.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

int main() {
  const int n = 500;
  unsigned seed = 5;
  auto r = [&](int m) { return int(lcg(seed) % (2 * m + 1)) - m; };
  std::vector<float4> f4(n);
  std::vector<double2> d2(n);
  std::vector<int4> i4(n);
  std::vector<longlong2> l2(n);
  std::vector<char4> c4(n);
  std::vector<short2> s2(n);
  std::vector<__half2> h2(n);
  std::vector<float> scalars(2 * n);
  for (int i = 0; i < n; ++i) {
    f4[i] = make_float4(r(100) * 0.5f, r(100) * 0.25f, r(100), r(1000) * 0.125f);
    d2[i] = make_double2(r(100000) * 0.001, r(100000) * 0.01);
    i4[i] = make_int4(r(1 << 30), r(1 << 30), r(1 << 30), r(1 << 30));
    l2[i] = make_longlong2((long long)r(1 << 30) << 20, r(1 << 30));
    c4[i] = make_char4(r(127), r(127), r(127), r(127));
    s2[i] = make_short2(r(10000), r(10000));
    h2[i] = __floats2half2_rn(r(1000) * 0.5f, r(1000) * 0.25f);
    scalars[i] = r(1000) * 0.5f;
  }
  float4 *gf4 = upload(f4), *of4 = upload(f4);
  double2 *gd2 = upload(d2), *od2 = upload(d2);
  int4 *gi4 = upload(i4), *oi4 = upload(i4);
  longlong2 *gl2 = upload(l2), *ol2 = upload(l2);
  char4 *gc4 = upload(c4), *oc4 = upload(c4);
  short2 *gs2 = upload(s2), *os2 = upload(s2);
  __half2 *gh2 = upload(h2), *oh2 = upload(h2);
  float *gs = upload(scalars);
  cache_hints<<<(n + 127) / 128, 128>>>(gf4, gd2, gi4, gl2, gc4, gs2, gh2, of4, od2, oi4, ol2, oc4, os2, oh2, gs, n);
  CUDA(cudaGetLastError());
  auto rf4 = download(of4, n);
  auto rd2 = download(od2, n);
  auto ri4 = download(oi4, n);
  auto rl2 = download(ol2, n);
  auto rc4 = download(oc4, n);
  auto rs2 = download(os2, n);
  auto rh2 = download(oh2, n);
  auto rs = download(gs, 2 * n);
  for (int i = 0; i < n; ++i) {
    float4 a = f4[i], b = f4[(i + 1) % n];
    CHECK(rf4[i].x == a.x + b.w && rf4[i].y == a.y + b.z && rf4[i].z == a.z + b.y && rf4[i].w == a.w + b.x, "float4 %d", i);
    CHECK(rd2[i].x == d2[i].y * 2.0 && rd2[i].y == d2[i].x - 1.0, "double2 %d", i);
    CHECK(ri4[i].x == i4[i].w && ri4[i].y == (i4[i].z ^ 5) && ri4[i].z == i4[i].y + 1 && ri4[i].w == i4[i].x, "int4 %d", i);
    CHECK(rl2[i].x == l2[i].x + l2[i].y && rl2[i].y == l2[i].x - l2[i].y, "longlong2 %d", i);
    CHECK(rc4[i].x == c4[i].w && rc4[i].y == c4[i].z && rc4[i].z == c4[i].y && rc4[i].w == c4[i].x, "char4 %d", i);
    CHECK(rs2[i].x == s2[i].y && rs2[i].y == short(s2[i].x * 3), "short2 %d", i);
    CHECK(__low2float(rh2[i]) == 2 * __low2float(h2[i]) && __high2float(rh2[i]) == 2 * __high2float(h2[i]), "half2 %d", i);
    CHECK(rs[n + i] == f4[i].x + scalars[i], "scalar %d: %g", i, rs[n + i]);
  }

  const int m = 64;
  std::vector<Particle> ps(m);
  std::vector<Wide> ws(m);
  std::vector<Packed> qs(m);
  for (int i = 0; i < m; ++i) {
    ps[i] = {r(100) * 0.5f, r(100) * 0.25f, float(r(10)), i};
    ws[i] = {r(1000) * 0.5, r(1000) * 0.125, (long long)r(1 << 30) << 10, r(1000), r(1000)};
    Packed q{};
    q.kind = i & 7; q.flag = i & 1; q.count = unsigned(r(1000) + 1000); q.offset = r(30000);
    q.big = ((unsigned long long)lcg(seed) << 8) & ((1ull << 40) - 1); q.small = lcg(seed) & 0xffffff;
    qs[i] = q;
  }
  int *gglobal = upload(std::vector<int>(m));
  unsigned *gflags = upload(std::vector<unsigned>(m));
  Particle *gp = upload(ps);
  Wide *gw = upload(ws);
  Packed *gq = upload(qs);
  spaces<<<1, m>>>(gglobal, gflags, gp, gw, gq);
  CUDA(cudaGetLastError());
  auto rglobal = download(gglobal, m);
  auto rflags = download(gflags, m);
  auto rp = download(gp, m);
  auto rw = download(gw, m);
  auto rq = download(gq, m);
  const int table_h[4] = {10, 20, 30, 40};
  for (int i = 0; i < m; ++i) {
    unsigned want = 0;
    for (int k = 0; k < 4; ++k) want |= 1u << (4 * k + (k + i) % 4);  // global, shared, local, constant
    CHECK(rflags[i] == want, "address spaces of thread %d: %04x, want %04x", i, rflags[i], want);
    CHECK(rglobal[i] == (i + 1) % 64 + i * 100 + table_h[i % 4] * 10000, "cvta round trip %d: %d", i, rglobal[i]);
    Particle p = ps[i];
    CHECK(rp[i].x == p.x + p.y * p.z && rp[i].id == -p.id && rp[i].y == p.y, "alignas(16) struct %d", i);
    Wide w = ws[i];
    CHECK(rw[i].a == w.a * w.b && rw[i].c == w.c + w.d * w.e && rw[i].b == w.b, "alignas(32) struct %d", i);
    Packed q = qs[i], g = rq[i];
    CHECK(g.kind == ((q.kind + 1) & 7) && g.count == ((q.count * 3) & 0xfff) && g.offset == int(short(q.offset - 100)) &&
              g.big == ((q.big + q.small) & ((1ull << 40) - 1)) && g.small == q.small && g.flag == !q.flag,
          "bitfields %d", i);
  }

  const int big = 100000;
  std::vector<float> x(big), y(big), vx(big), vy(big);
  for (int i = 0; i < big; ++i) { x[i] = r(1000); y[i] = r(1000); vx[i] = r(64) * 0.5f; vy[i] = r(64) * 0.25f; }
  float *gx = upload(x), *gy = upload(y), *gvx = upload(vx), *gvy = upload(vy);
  soa_update<<<64, 256>>>(gx, gy, gvx, gvy, 0.5f, big);
  CUDA(cudaGetLastError());
  auto rx = download(gx, big), ry = download(gy, big);
  for (int i = 0; i < big; ++i)
    CHECK(rx[i] == x[i] + vx[i] * 0.5f && ry[i] == y[i] + vy[i] * 0.5f, "SoA update %d", i);
  return report("memory_spaces");
}
