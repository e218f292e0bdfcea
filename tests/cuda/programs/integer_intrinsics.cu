// Integer intrinsics of the CUDA Math API ("Integer Intrinsics", "SIMD Intrinsics") and sm_90's
// DPX functions: __dp4a/__dp2a_lo/__dp2a_hi, __byte_perm, __funnelshift_l/_r/_lc/_rc, __sad,
// __usad, __mul24, __umulhi, __mul64hi, __umul64hi, __hadd/__rhadd/__uhadd, the 64-bit bit
// intrinsics, SIMD byte and halfword operations (__vadd4, __vaddss4, __vabsdiffu4, __vcmpgtu4,
// __vavgu4, __vmaxs2, __vsetgeu2, __vsub2), __vimax3_s32, __viaddmax_s32, __vibmax_s32, and
// __int128 multiply/divide/modulo in device code. The host computes each from its definition in
// the CUDA Math API documentation.
#include <cstdint>
#include <vector>
#include "check.h"

constexpr int F = 36;

__global__ void int_ops(const unsigned *in, unsigned long long *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  unsigned a = in[3 * t], b = in[3 * t + 1], c = in[3 * t + 2];
  int sa = int(a), sb = int(b), sc = int(c);
  unsigned long long la = (unsigned long long)a << 32 | b, lb = (unsigned long long)c << 32 | a;
  unsigned long long *o = out + F * t;
  o[0] = unsigned(__dp4a(sa, sb, sc));
  o[1] = __dp4a(a, b, c);
  o[2] = unsigned(__dp2a_lo(sa, sb, sc));
  o[3] = unsigned(__dp2a_hi(sa, sb, sc));
  o[4] = __byte_perm(a, b, c & 0x7777);
  o[5] = __funnelshift_l(a, b, c);
  o[6] = __funnelshift_r(a, b, c);
  o[7] = __funnelshift_lc(a, b, c & 63);
  o[8] = __funnelshift_rc(a, b, c & 63);
  o[9] = __sad(sa, sb, c & 0xffff);
  o[10] = __usad(a, b, c & 0xffff);
  o[11] = unsigned(__mul24(sa, sb));
  o[12] = __umulhi(a, b);
  o[13] = (unsigned long long)__mul64hi((long long)la, (long long)lb);
  o[14] = __umul64hi(la, lb);
  o[15] = unsigned(__hadd(sa, sb));
  o[16] = unsigned(__rhadd(sa, sb));
  o[17] = __uhadd(a, b);
  o[18] = __clzll((long long)(la >> (c & 63)));
  o[19] = __ffsll((long long)(lb << (a & 63)));
  o[20] = __popcll(la);
  o[21] = __brevll(lb);
  o[22] = __vadd4(a, b);
  o[23] = __vaddss4(a, b);
  o[24] = __vabsdiffu4(a, b);
  o[25] = __vcmpgtu4(a, b);
  o[26] = __vavgu4(a, b);
  o[27] = __vmaxs2(a, b);
  o[28] = __vsetgeu2(a, b);
  o[29] = __vsub2(a, b);
  o[30] = unsigned(__vimax3_s32(sa, sb, sc));
  o[31] = unsigned(__viaddmax_s32(sa >> 1, sb >> 1, sc));
  bool pred = false;
  o[32] = unsigned(__vibmax_s32(sa, sb, &pred)) | (unsigned long long)pred << 32;
  __int128 x = (__int128)(long long)la * (__int128)(long long)lb;
  __int128 d = (__int128)(long long)(lb | 1);
  o[33] = (unsigned long long)(x / d);
  o[34] = (unsigned long long)(x % d);
  unsigned __int128 ux = (unsigned __int128)la * lb + c;
  o[35] = (unsigned long long)(ux / (a | 1)) ^ (unsigned long long)(ux >> 64);
}

static int sbyte(unsigned x, int i) { return int(int8_t(x >> (8 * i))); }
static unsigned ubyte(unsigned x, int i) { return (x >> (8 * i)) & 0xff; }
static int shalf(unsigned x, int i) { return int(int16_t(x >> (16 * i))); }
static unsigned uhalf(unsigned x, int i) { return (x >> (16 * i)) & 0xffff; }

int main() {
  const int n = 256;
  std::vector<unsigned> in(3 * n);
  unsigned s = 4242;
  for (auto &v : in) v = lcg(s);
  in[0] = 0x7fffffff, in[1] = 0x7fffffff, in[2] = 0x80000000u;  // extremes
  in[3] = 0, in[4] = 0xffffffffu, in[5] = 32;
  unsigned *din;
  unsigned long long *dout;
  CUDA(cudaMalloc(&din, in.size() * 4));
  CUDA(cudaMalloc(&dout, F * n * 8));
  CUDA(cudaMemcpy(din, in.data(), in.size() * 4, cudaMemcpyHostToDevice));
  int_ops<<<(n + 63) / 64, 64>>>(din, dout, n);
  CUDA(cudaGetLastError());
  std::vector<unsigned long long> out(F * n);
  CUDA(cudaMemcpy(out.data(), dout, out.size() * 8, cudaMemcpyDeviceToHost));
  for (int t = 0; t < n; ++t) {
    unsigned a = in[3 * t], b = in[3 * t + 1], c = in[3 * t + 2];
    int sa = int(a), sb = int(b), sc = int(c);
    uint64_t la = uint64_t(a) << 32 | b, lb = uint64_t(c) << 32 | a;
    uint64_t w[F];
    int dp = sc;
    unsigned udp = c;
    for (int i = 0; i < 4; ++i) dp += sbyte(a, i) * sbyte(b, i), udp += ubyte(a, i) * ubyte(b, i);
    w[0] = unsigned(dp);
    w[1] = udp;
    w[2] = unsigned(shalf(a, 0) * sbyte(b, 0) + shalf(a, 1) * sbyte(b, 1) + sc);
    w[3] = unsigned(shalf(a, 0) * sbyte(b, 2) + shalf(a, 1) * sbyte(b, 3) + sc);
    uint64_t yx = uint64_t(b) << 32 | a;
    unsigned perm = 0;
    for (int i = 0; i < 4; ++i) perm |= unsigned((yx >> (8 * ((c >> (4 * i)) & 7))) & 0xff) << (8 * i);
    w[4] = perm;
    uint64_t hilo = uint64_t(b) << 32 | a;  // __funnelshift_*(lo, hi, shift)
    w[5] = unsigned((hilo << (c & 31)) >> 32);
    w[6] = unsigned(hilo >> (c & 31));
    unsigned cl = std::min(c & 63, 32u);
    w[7] = cl == 32 ? a : unsigned((hilo << cl) >> 32);
    w[8] = cl == 32 ? b : unsigned(hilo >> cl);
    w[9] = unsigned(uint64_t(std::llabs((long long)sa - sb)) + (c & 0xffff));
    w[10] = unsigned((a > b ? a - b : b - a) + (c & 0xffff));
    auto low24 = [](int x) { return int64_t(int32_t(uint32_t(x) << 8) >> 8); };
    w[11] = unsigned(uint64_t(low24(sa) * low24(sb)));
    w[12] = unsigned((uint64_t(a) * b) >> 32);
    w[13] = uint64_t((__int128)(int64_t)la * (__int128)(int64_t)lb >> 64);
    w[14] = uint64_t((unsigned __int128)la * lb >> 64);
    w[15] = unsigned(int((int64_t(sa) + sb) >> 1));
    w[16] = unsigned(int((int64_t(sa) + sb + 1) >> 1));
    w[17] = unsigned((uint64_t(a) + b) >> 1);
    uint64_t sh = la >> (c & 63);
    w[18] = sh ? __builtin_clzll(sh) : 64;
    uint64_t sl = lb << (a & 63);
    w[19] = sl ? __builtin_ctzll(sl) + 1 : 0;
    w[20] = __builtin_popcountll(la);
    uint64_t rev = 0;
    for (int i = 0; i < 64; ++i) rev |= ((lb >> i) & 1) << (63 - i);
    w[21] = rev;
    unsigned v[8] = {0};
    for (int i = 0; i < 4; ++i) {
      unsigned x = ubyte(a, i), y = ubyte(b, i);
      int sum = sbyte(a, i) + sbyte(b, i);
      sum = sum > 127 ? 127 : sum < -128 ? -128 : sum;
      v[0] |= ((x + y) & 0xff) << (8 * i);
      v[1] |= (unsigned(sum) & 0xff) << (8 * i);
      v[2] |= (x > y ? x - y : y - x) << (8 * i);
      v[3] |= (x > y ? 0xffu : 0u) << (8 * i);
      v[4] |= ((x + y + 1) >> 1) << (8 * i);
    }
    for (int i = 0; i < 2; ++i) {
      v[5] |= (unsigned(std::max(shalf(a, i), shalf(b, i))) & 0xffff) << (16 * i);
      v[6] |= (uhalf(a, i) >= uhalf(b, i) ? 1u : 0u) << (16 * i);
      v[7] |= ((uhalf(a, i) - uhalf(b, i)) & 0xffff) << (16 * i);
    }
    for (int i = 0; i < 8; ++i) w[22 + i] = v[i];
    w[30] = unsigned(std::max(sa, std::max(sb, sc)));
    w[31] = unsigned(std::max((sa >> 1) + (sb >> 1), sc));
    w[32] = unsigned(std::max(sa, sb)) | uint64_t(sa >= sb) << 32;
    __int128 x = (__int128)(int64_t)la * (__int128)(int64_t)lb;
    __int128 d = (__int128)(int64_t)(lb | 1);
    w[33] = uint64_t(x / d);
    w[34] = uint64_t(x % d);
    unsigned __int128 ux = (unsigned __int128)la * lb + c;
    w[35] = uint64_t(ux / (a | 1)) ^ uint64_t(ux >> 64);
    for (int f = 0; f < F; ++f)
      CHECK(out[F * t + f] == w[f], "thread %d op %d: %llx vs %llx (a %08x b %08x c %08x)", t, f, out[F * t + f],
            (unsigned long long)w[f], a, b, c);
  }
  return report("integer_intrinsics");
}
