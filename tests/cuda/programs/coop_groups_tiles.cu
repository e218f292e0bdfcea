// Cooperative groups' less common tiles: binary_partition in divergent code, meta_group_rank /
// meta_group_size of tiles, cg::invoke_one_broadcast, tiles of 4 reducing with
// shfl_down, thread_block_tile<64> and <128> (tiles larger than a warp, which sm_80+ allows
// without reserved memory), their sync and cg::reduce, cg::exclusive_scan on a warp tile,
// coalesced_group::shfl and num_threads in a data-dependent branch, and block.group_index /
// thread_index. Checked against the host.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <vector>
#include "check.h"
namespace cg = cooperative_groups;

constexpr int THREADS = 256, F = 10;

__global__ void tiles(const int *in, int *out) {
  cg::thread_block block = cg::this_thread_block();
  int t = block.thread_rank();
  int v = in[blockIdx.x * THREADS + t];
  int *o = out + (blockIdx.x * THREADS + t) * F;
  auto warp = cg::tiled_partition<32>(block);
  // binary partition by parity of the value
  auto half = cg::binary_partition(warp, v & 1);
  o[0] = int(half.size()) * 100 + int(half.thread_rank());
  // tiles of 4
  auto quad = cg::tiled_partition<4>(block);
  int s = v;
  for (int off = 2; off > 0; off >>= 1) s += quad.shfl_down(s, off);
  o[1] = quad.shfl(s, 0);
  o[2] = int(quad.meta_group_rank()) * 1000 + int(quad.meta_group_size());
  // invoke_one_broadcast: one lane computes, all get the value
  int leader_value = cg::invoke_one_broadcast(warp, [&] { return v * 7 + int(warp.meta_group_rank()); });
  o[3] = leader_value;
  // a 64-thread tile and a 128-thread tile
  auto big = cg::tiled_partition<64>(block);
  o[4] = cg::reduce(big, v, cg::plus<int>());
  big.sync();
  auto bigger = cg::tiled_partition<128>(block);
  o[5] = cg::reduce(bigger, v, cg::greater<int>());
  o[6] = int(bigger.thread_rank()) + 1000 * int(bigger.meta_group_rank());
  // exclusive scan on the warp
  o[7] = cg::exclusive_scan(warp, v, cg::plus<int>());
  // coalesced group in a data-dependent branch
  o[8] = -1;
  if (v % 3 == 0) {
    auto active = cg::coalesced_threads();
    o[8] = int(active.num_threads()) * 100 + active.shfl(v, 0) % 100;
  }
  o[9] = int(block.group_index().x) * 10000 + int(block.thread_index().x);
}

int main() {
  const int blocks = 2, n = blocks * THREADS;
  std::vector<int> in(n);
  unsigned s = 19;
  for (auto &v : in) v = int(lcg(s) % 1000);
  int *din, *dout;
  CUDA(cudaMalloc(&din, n * 4));
  CUDA(cudaMalloc(&dout, n * F * 4));
  CUDA(cudaMemcpy(din, in.data(), n * 4, cudaMemcpyHostToDevice));
  tiles<<<blocks, THREADS>>>(din, dout);
  CUDA(cudaGetLastError());
  std::vector<int> out(n * F);
  CUDA(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    int b = i / THREADS, t = i % THREADS, v = in[i];
    int w0 = b * THREADS + t / 32 * 32, lane = t % 32;
    int same = 0, rank = 0;
    for (int l = 0; l < 32; ++l)
      if ((in[w0 + l] & 1) == (v & 1)) rank += l < lane, ++same;
    int q0 = b * THREADS + t / 4 * 4, qsum = 0;
    for (int l = 0; l < 4; ++l) qsum += in[q0 + l];
    int g0 = b * THREADS + t / 64 * 64, gsum = 0;
    for (int l = 0; l < 64; ++l) gsum += in[g0 + l];
    int h0 = b * THREADS + t / 128 * 128, hmax = 0;
    for (int l = 0; l < 128; ++l) hmax = std::max(hmax, in[h0 + l]);
    int excl = 0;
    for (int l = 0; l < lane; ++l) excl += in[w0 + l];
    int coalesced = -1;
    if (v % 3 == 0) {
      int count = 0, first = -1;
      for (int l = 0; l < 32; ++l)
        if (in[w0 + l] % 3 == 0) {
          if (first < 0) first = in[w0 + l];
          ++count;
        }
      coalesced = count * 100 + first % 100;
    }
    // invoke_one_broadcast: "a single arbitrary thread" computes; every lane gets its value
    int leader = out[(b * THREADS + t / 32 * 32) * F + 3], from_some_lane = 0;
    for (int l = 0; l < 32; ++l) from_some_lane |= leader == in[w0 + l] * 7 + t / 32;
    CHECK(from_some_lane, "invoke_one_broadcast in warp %d: %d", i / 32, leader);
    int want[F] = {same * 100 + rank, qsum, (t / 4) * 1000 + THREADS / 4, leader, gsum, hmax,
                   t % 128 + 1000 * (t / 128), excl, coalesced, b * 10000 + t};
    for (int f = 0; f < F; ++f) CHECK(out[i * F + f] == want[f], "thread %d field %d: %d vs %d", i, f, out[i * F + f], want[f]);
  }
  return report("coop_groups_tiles");
}
