// Inline PTX as libraries and hand-tuned kernels write it (asm volatile with "r", "l", "f", "d"
// and "h" constraints, "+r" read-write operands, %% registers and predicates declared inside
// braces): %laneid and %warpid-free lane math, prmt byte permutes, bfind, bfe/bfi bit fields,
// lop3 with computed immediates, 128-bit addition with add.cc/addc, mul.hi and mad.wide,
// shf.l/shf.r funnel shifts, popc/brev/clz, setp/selp with a predicate, ld.global.nc and
// st.global.cs cache hints, red.global.add, vote.sync.ballot, and cvt with rounding modes.
// Each result is compared with the operation as the PTX ISA defines it, computed on the host.
#include <cstdint>
#include <cstring>
#include <vector>
#include <cuda_fp16.h>
#include "check.h"

constexpr int F = 20;  // results per thread

__device__ unsigned lop3_xor3(unsigned a, unsigned b, unsigned c) {
  unsigned d;
  asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(d) : "r"(a), "r"(b), "r"(c));  // a ^ b ^ c
  return d;
}
__device__ unsigned lop3_select(unsigned a, unsigned b, unsigned c) {
  unsigned d;
  asm("lop3.b32 %0, %1, %2, %3, 0xCA;" : "=r"(d) : "r"(a), "r"(b), "r"(c));  // a ? b : c, bitwise
  return d;
}

__global__ void ptx_ops(const unsigned *in, unsigned *out, unsigned *counter) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned a = in[3 * t], b = in[3 * t + 1], c = in[3 * t + 2];
  unsigned *o = out + F * t;
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  o[0] = lane;
  asm("prmt.b32 %0, %1, %2, 0x5140;" : "=r"(o[1]) : "r"(a), "r"(b));
  asm("bfind.u32 %0, %1;" : "=r"(o[2]) : "r"(c));
  int sc = int(c);
  asm("bfind.s32 %0, %1;" : "=r"(o[3]) : "r"(sc));
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(o[4]) : "r"(a), "r"(b & 31), "r"(c & 15));
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(o[5]) : "r"(a), "r"(b), "r"(c & 31), "r"(8));
  o[6] = lop3_xor3(a, b, c);
  o[7] = lop3_select(a, b, c);
  // 128-bit add: (a,b,c,a) + (c,b,a,~0)
  unsigned r0, r1, r2, r3;
  asm("{\n\t"
      "add.cc.u32 %0, %4, %8;\n\t"
      "addc.cc.u32 %1, %5, %9;\n\t"
      "addc.cc.u32 %2, %6, %10;\n\t"
      "addc.u32 %3, %7, %11;\n\t"
      "}"
      : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
      : "r"(a), "r"(b), "r"(c), "r"(a), "r"(c), "r"(b), "r"(a), "r"(0xffffffffu));
  o[8] = r0, o[9] = r1, o[10] = r2, o[11] = r3;
  asm("mul.hi.u32 %0, %1, %2;" : "=r"(o[12]) : "r"(a), "r"(b));
  unsigned long long wide;
  asm("mad.wide.u32 %0, %1, %2, %3;" : "=l"(wide) : "r"(a), "r"(b), "l"((unsigned long long)c << 20));
  o[13] = unsigned(wide), o[14] = unsigned(wide >> 32);
  asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(o[15]) : "r"(a), "r"(b), "r"(c));
  asm("shf.r.clamp.b32 %0, %1, %2, %3;" : "=r"(o[16]) : "r"(a), "r"(b), "r"(c & 63));
  unsigned pc, br;
  asm("popc.b32 %0, %1;" : "=r"(pc) : "r"(a));
  asm("brev.b32 %0, %1;" : "=r"(br) : "r"(b));
  o[17] = pc ^ (br << 6);
  unsigned sel;
  asm("{\n\t"
      ".reg .pred p;\n\t"
      "setp.lt.s32 p, %1, %2;\n\t"
      "selp.u32 %0, %3, %4, p;\n\t"
      "}"
      : "=r"(sel) : "r"(a), "r"(b), "r"(c), "r"(~c));
  o[18] = sel;
  unsigned ballot;
  asm volatile("{\n\t"
               ".reg .pred q;\n\t"
               "setp.ne.u32 q, %1, 0;\n\t"
               "vote.sync.ballot.b32 %0, q, 0xffffffff;\n\t"
               "}"
               : "=r"(ballot) : "r"(a & 1));
  o[19] = ballot;
  // a cache-hinted load, a streaming store and a reduction
  unsigned nc;
  asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(nc) : "l"(in + 3 * t));
  asm volatile("st.global.cs.u32 [%0], %1;" ::"l"(out + F * blockDim.x * gridDim.x + t), "r"(nc + 1));
  asm volatile("red.global.add.u32 [%0], %1;" ::"l"(counter), "r"(a & 0xff) : "memory");
}

__global__ void float_ops(const float *x, int *out_i, float *out_f, double *out_d, unsigned short *out_h) {
  int t = threadIdx.x;
  float v = x[t];
  int rni, rzi, rmi, rpi;
  asm("cvt.rni.s32.f32 %0, %1;" : "=r"(rni) : "f"(v));
  asm("cvt.rzi.s32.f32 %0, %1;" : "=r"(rzi) : "f"(v));
  asm("cvt.rmi.s32.f32 %0, %1;" : "=r"(rmi) : "f"(v));
  asm("cvt.rpi.s32.f32 %0, %1;" : "=r"(rpi) : "f"(v));
  out_i[4 * t] = rni, out_i[4 * t + 1] = rzi, out_i[4 * t + 2] = rmi, out_i[4 * t + 3] = rpi;
  float fma_r;
  asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(fma_r) : "f"(v), "f"(v), "f"(-1.0f));
  out_f[t] = fma_r;
  double dd;
  asm("cvt.f64.f32 %0, %1;" : "=d"(dd) : "f"(v));
  asm("mul.rn.f64 %0, %0, %1;" : "+d"(dd) : "d"(3.0));
  out_d[t] = dd;
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
  out_h[t] = h;
}

// host versions, from the PTX ISA's descriptions
static unsigned prmt(unsigned a, unsigned b, unsigned sel) {
  uint64_t x = (uint64_t(b) << 32) | a;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) {
    unsigned s = (sel >> (4 * i)) & 7;
    r |= unsigned((x >> (8 * s)) & 0xff) << (8 * i);
  }
  return r;
}
static unsigned bfind_u(unsigned x) {
  for (int i = 31; i >= 0; --i)
    if (x >> i & 1) return i;
  return 0xffffffffu;
}
static unsigned bfind_s(int x) { return bfind_u(x < 0 ? ~unsigned(x) : unsigned(x)); }
static unsigned bfe_u(unsigned a, unsigned pos, unsigned len) {
  if (len == 0 || pos > 31) return 0;
  unsigned long long v = a >> pos;
  return len >= 32 ? unsigned(v) : unsigned(v & ((1ull << len) - 1));
}
static unsigned bfi(unsigned a, unsigned b, unsigned pos, unsigned len) {
  unsigned r = b;
  for (unsigned i = 0; i < len && pos + i < 32; ++i) r = (r & ~(1u << (pos + i))) | (((a >> i) & 1) << (pos + i));
  return r;
}
static unsigned brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1) << (31 - i);
  return r;
}

int main() {
  const int blocks = 2, threads = 64, T = blocks * threads;
  std::vector<unsigned> in(3 * T);
  unsigned s = 31337;
  for (auto &v : in) v = lcg(s);
  in[0] = 0, in[2] = 0, in[5] = 0x80000000u, in[8] = 0xffffffffu;
  unsigned *din, *dout, *dcounter;
  CUDA(cudaMalloc(&din, in.size() * 4));
  CUDA(cudaMalloc(&dout, (F + 1) * T * 4));
  CUDA(cudaMalloc(&dcounter, 4));
  CUDA(cudaMemcpy(din, in.data(), in.size() * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemset(dcounter, 0, 4));
  ptx_ops<<<blocks, threads>>>(din, dout, dcounter);
  CUDA(cudaGetLastError());
  std::vector<unsigned> out((F + 1) * T);
  unsigned counter;
  CUDA(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(&counter, dcounter, 4, cudaMemcpyDeviceToHost));
  unsigned want_counter = 0;
  for (int t = 0; t < T; ++t) {
    unsigned a = in[3 * t], b = in[3 * t + 1], c = in[3 * t + 2];
    want_counter += a & 0xff;
    unsigned w[F];
    w[0] = t % 32;
    w[1] = prmt(a, b, 0x5140);
    w[2] = bfind_u(c);
    w[3] = bfind_s(int(c));
    w[4] = bfe_u(a, b & 31, c & 15);
    w[5] = bfi(a, b, c & 31, 8);
    w[6] = a ^ b ^ c;
    w[7] = (a & b) | (~a & c);
    unsigned __int128 x = (unsigned __int128)a | (unsigned __int128)b << 32 | (unsigned __int128)c << 64 | (unsigned __int128)a << 96;
    unsigned __int128 y = (unsigned __int128)c | (unsigned __int128)b << 32 | (unsigned __int128)a << 64 | (unsigned __int128)0xffffffffu << 96;
    unsigned __int128 z = x + y;
    w[8] = unsigned(z), w[9] = unsigned(z >> 32), w[10] = unsigned(z >> 64), w[11] = unsigned(z >> 96);
    w[12] = unsigned((uint64_t(a) * b) >> 32);
    uint64_t wide = uint64_t(a) * b + (uint64_t(c) << 20);
    w[13] = unsigned(wide), w[14] = unsigned(wide >> 32);
    unsigned n = c & 31;  // shf.l.wrap: the shift is taken modulo 32; b is the upper word
    w[15] = n ? (b << n) | (a >> (32 - n)) : b;
    unsigned m = std::min(c & 63, 32u);  // shf.r.clamp: shift clamped to 32; result low word
    w[16] = m == 32 ? b : m ? (a >> m) | (b << (32 - m)) : a;
    w[17] = unsigned(__builtin_popcount(a)) ^ (brev(b) << 6);
    w[18] = int(a) < int(b) ? c : ~c;
    unsigned ballot = 0;
    int warp0 = t / 32 * 32;
    for (int l = 0; l < 32; ++l) ballot |= (in[3 * (warp0 + l)] & 1) << l;
    w[19] = ballot;
    for (int f = 0; f < F; ++f) CHECK(out[F * t + f] == w[f], "thread %d field %d: %08x vs %08x (a %08x b %08x c %08x)", t, f, out[F * t + f], w[f], a, b, c);
    CHECK(out[F * T + t] == a + 1, "st.global.cs %d", t);
  }
  CHECK(counter == want_counter, "red.global.add %u vs %u", counter, want_counter);

  std::vector<float> xs = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.7f, 3.2f, 1e9f, -7.49999f, 65504.0f, 1.0f / 3.0f, 0.0f};
  int nf = int(xs.size());
  float *dx, *dfo;
  int *dio;
  double *ddo;
  unsigned short *dho;
  CUDA(cudaMalloc(&dx, nf * 4));
  CUDA(cudaMalloc(&dio, nf * 16));
  CUDA(cudaMalloc(&dfo, nf * 4));
  CUDA(cudaMalloc(&ddo, nf * 8));
  CUDA(cudaMalloc(&dho, nf * 2));
  CUDA(cudaMemcpy(dx, xs.data(), nf * 4, cudaMemcpyHostToDevice));
  float_ops<<<1, nf>>>(dx, dio, dfo, ddo, dho);
  CUDA(cudaGetLastError());
  std::vector<int> io(4 * nf);
  std::vector<float> fo(nf);
  std::vector<double> dout_d(nf);
  std::vector<unsigned short> ho(nf);
  CUDA(cudaMemcpy(io.data(), dio, nf * 16, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(fo.data(), dfo, nf * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(dout_d.data(), ddo, nf * 8, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(ho.data(), dho, nf * 2, cudaMemcpyDeviceToHost));
  for (int i = 0; i < nf; ++i) {
    float v = xs[i];
    CHECK(io[4 * i] == int(std::nearbyint(v)) && io[4 * i + 1] == int(std::trunc(v)) &&
              io[4 * i + 2] == int(std::floor(v)) && io[4 * i + 3] == int(std::ceil(v)),
          "cvt of %g: %d %d %d %d", v, io[4 * i], io[4 * i + 1], io[4 * i + 2], io[4 * i + 3]);
    CHECK(fo[i] == std::fma(v, v, -1.0f), "fma %g: %g vs %g", v, fo[i], std::fma(v, v, -1.0f));
    CHECK(dout_d[i] == double(v) * 3.0, "f64 %g", v);
    __half want_h = __float2half_rn(v);
    unsigned short want_bits;
    std::memcpy(&want_bits, &want_h, 2);
    CHECK(ho[i] == want_bits, "cvt.rn.f16 of %g: %04x vs %04x", v, ho[i], want_bits);
  }
  return report("inline_ptx");
}
