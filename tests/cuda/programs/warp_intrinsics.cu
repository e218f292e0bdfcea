// Warp intrinsics: __shfl_sync/_up/_down/_xor (full and partial widths), __ballot_sync,
// __any_sync/__all_sync, __match_any_sync/__match_all_sync, __reduce_add/min/max/and/or/xor_sync,
// __activemask in divergent code, __popc/__ffs/__clz/__brev, and __syncwarp.
#include <algorithm>
#include <vector>
#include "check.h"

constexpr int FIELDS = 20;

__global__ void warp_kernel(const int *in, int *out) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = in[tid];
  int *o = out + tid * FIELDS;
  const unsigned full = 0xffffffffu;
  o[0] = __shfl_sync(full, v, 5);
  o[1] = __shfl_up_sync(full, v, 3);
  o[2] = __shfl_down_sync(full, v, 7);
  o[3] = __shfl_xor_sync(full, v, 13);
  o[4] = __shfl_sync(full, v, lane + 1, 8);  // width 8: wraps inside each group of 8
  o[5] = __shfl_down_sync(full, v, 2, 16);
  o[6] = __ballot_sync(full, v > 0);
  o[7] = __any_sync(full, v == 1234) + 2 * __all_sync(full, v > -1000);
  o[8] = __match_any_sync(full, v & 7);
  int pred;
  o[9] = __match_all_sync(full, lane < 32, &pred);
  o[10] = pred;
  o[11] = __reduce_add_sync(full, v);
  o[12] = __reduce_min_sync(full, v);
  o[13] = __reduce_max_sync(full, (unsigned)v);
  o[14] = __reduce_and_sync(full, (unsigned)v) ^ __reduce_or_sync(full, (unsigned)v) ^
          __reduce_xor_sync(full, (unsigned)v);
  if (lane % 3 == 0) {
    o[15] = __activemask();
    o[16] = __popc(__activemask());
  } else {
    o[15] = 0;
    o[16] = 0;
  }
  o[17] = __popc(v) + 64 * __ffs(v);
  o[18] = __clz(v) * 1000 + (__brev(v) & 0xff);
  // a warp-synchronous shared-memory reduction with __syncwarp between steps
  __shared__ int s[128];
  s[threadIdx.x] = v;
  __syncwarp();
  for (int off = 16; off > 0; off /= 2) {
    int t = lane < off ? s[threadIdx.x + off] : 0;
    __syncwarp();
    s[threadIdx.x] += t;
    __syncwarp();
  }
  o[19] = s[threadIdx.x & ~31];
}

static int host_popc(unsigned x) { return __builtin_popcount(x); }
static unsigned host_brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}

int main() {
  const int blocks = 2, threads = 128, n = blocks * threads;
  unsigned seed = 21;
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = int(lcg(seed) % 2000) - 900;
  h[17] = 1234;
  int *in, *out;
  CUDA(cudaMalloc(&in, n * 4));
  CUDA(cudaMalloc(&out, n * FIELDS * 4));
  CUDA(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  warp_kernel<<<blocks, threads>>>(in, out);
  CUDA(cudaDeviceSynchronize());
  std::vector<int> g(n * FIELDS);
  CUDA(cudaMemcpy(g.data(), out, g.size() * 4, cudaMemcpyDeviceToHost));
  for (int w = 0; w < n / 32; ++w) {
    const int *x = h.data() + w * 32;
    unsigned ballot = 0;
    bool any = false, all = true;
    int sum = 0, mn = x[0];
    unsigned umax = 0, band = ~0u, bor = 0, bxor = 0;
    for (int l = 0; l < 32; ++l) {
      ballot |= unsigned(x[l] > 0) << l;
      any |= x[l] == 1234;
      all &= x[l] > -1000;
      sum += x[l];
      mn = std::min(mn, x[l]);
      umax = std::max(umax, unsigned(x[l]));
      band &= x[l];
      bor |= x[l];
      bxor ^= x[l];
    }
    unsigned active = 0;
    for (int l = 0; l < 32; l += 3) active |= 1u << l;
    for (int l = 0; l < 32; ++l) {
      const int *o = g.data() + (w * 32 + l) * FIELDS;
      unsigned v = x[l];
      unsigned match = 0;
      for (int k = 0; k < 32; ++k) match |= unsigned((x[k] & 7) == (x[l] & 7)) << k;
      int want[FIELDS] = {
          x[5],
          l >= 3 ? x[l - 3] : x[l],
          l + 7 < 32 ? x[l + 7] : x[l],
          x[l ^ 13],
          x[(l & ~7) + ((l + 1) & 7)],
          (l % 16) + 2 < 16 ? x[l + 2] : x[l],
          int(ballot),
          int(any) + 2 * int(all),
          int(match),
          -1,
          1,
          sum,
          mn,
          int(umax),
          int(band ^ bor ^ bxor),
          l % 3 == 0 ? int(active) : 0,
          l % 3 == 0 ? host_popc(active) : 0,
          host_popc(v) + 64 * (v ? __builtin_ctz(v) + 1 : 0),
          (v ? __builtin_clz(v) : 32) * 1000 + int(host_brev(v) & 0xff),
          sum,
      };
      for (int f = 0; f < FIELDS; ++f)
        CHECK(o[f] == want[f], "warp %d lane %d field %d: %d vs %d", w, l, f, o[f], want[f]);
    }
  }
  return report("warp_intrinsics");
}
