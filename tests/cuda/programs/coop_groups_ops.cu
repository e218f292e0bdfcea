// Cooperative groups operations coop_groups and coop_groups_tiles do not use: cg::reduce with
// cg::greater, cg::less and cg::bit_xor on tiles of 8 and 16, cg::inclusive_scan with
// cg::bit_or, cg::reduce_update_async into a cuda::atomic_ref and cg::reduce_store_async into
// shared memory, thread_block_tile match_any/ballot/any/all/shfl, the block's dim_threads,
// thread_index and num_threads, and the grid's block_rank/num_blocks/dim_blocks (CUDA C++
// Programming Guide, "Cooperative Groups"); each against a CPU loop over the same input.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda/atomic>
#include <vector>
#include "check.h"

namespace cg = cooperative_groups;

constexpr int OUT = 12;

__global__ void ops(const unsigned *in, unsigned *out, unsigned *block_max, unsigned *block_sum) {
  cg::thread_block block = cg::this_thread_block();
  cg::grid_group grid = cg::this_grid();
  auto t8 = cg::tiled_partition<8>(block);
  auto t16 = cg::tiled_partition<16>(block);
  auto t32 = cg::tiled_partition<32>(block);
  unsigned i = grid.thread_rank();
  unsigned v = in[i];
  unsigned *o = out + OUT * i;
  o[0] = cg::reduce(t8, v, cg::greater<unsigned>());
  o[1] = cg::reduce(t16, v, cg::less<unsigned>());
  o[2] = cg::reduce(t16, v, cg::bit_xor<unsigned>());
  o[3] = cg::inclusive_scan(t8, v & 0xff, cg::bit_or<unsigned>());
  o[4] = t32.match_any(v % 5);
  o[5] = t32.ballot(v & 1);
  o[6] = unsigned(t16.any(v == 3)) | unsigned(t16.all(v < 1000)) << 1;
  o[7] = t16.shfl(v, 15 - t16.thread_rank());
  o[8] = block.dim_threads().x * 1000 + block.thread_index().x;
  o[9] = grid.block_rank() * 100 + grid.num_blocks() + grid.dim_blocks().x * 10000;
  o[10] = t8.meta_group_rank() * 100 + t8.meta_group_size();
  o[11] = block.num_threads();
  __shared__ unsigned tile_sums[8];
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> max_ref(block_max[blockIdx.x]);
  cg::reduce_update_async(t32, max_ref, v, cg::greater<unsigned>());
  cuda::atomic_ref<unsigned, cuda::thread_scope_block> sum_ref(tile_sums[0]);
  if (block.thread_rank() == 0) tile_sums[0] = 0;
  block.sync();
  cg::reduce_update_async(t32, sum_ref, v, cg::plus<unsigned>());
  __shared__ unsigned stored[8];
  cg::reduce_store_async(t32, &stored[t32.meta_group_rank()], v, cg::plus<unsigned>());
  block.sync();
  // The sum through reduce_update_async, written only where the per-warp sums that
  // reduce_store_async stored add up to it.
  if (block.thread_rank() == 0) {
    unsigned total = 0;
    for (unsigned w = 0; w < t32.meta_group_size(); ++w) total += stored[w];
    block_sum[blockIdx.x] = total == tile_sums[0] ? total : 0xffffffffu;
  }
}

int main() {
  const int blocks = 4, threads = 128, n = blocks * threads;
  unsigned seed = 53;
  std::vector<unsigned> in(n);
  for (auto &v : in) v = lcg(seed) % 1000;
  in[5] = 3;
  unsigned *din, *dout, *dmax, *dsum;
  CUDA(cudaMalloc(&din, n * 4));
  CUDA(cudaMalloc(&dout, n * OUT * 4));
  CUDA(cudaMalloc(&dmax, blocks * 4));
  CUDA(cudaMalloc(&dsum, blocks * 4));
  CUDA(cudaMemset(dmax, 0, blocks * 4));
  CUDA(cudaMemcpy(din, in.data(), n * 4, cudaMemcpyHostToDevice));
  ops<<<blocks, threads>>>(din, dout, dmax, dsum);
  CUDA(cudaGetLastError());
  std::vector<unsigned> out(n * OUT), mx(blocks), sum(blocks);
  CUDA(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(mx.data(), dmax, blocks * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(sum.data(), dsum, blocks * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    const unsigned *o = &out[OUT * i];
    int b8 = i & ~7, b16 = i & ~15, b32 = i & ~31, r16 = i & 15, r8 = i & 7;
    unsigned g8 = 0, l16 = ~0u, x16 = 0, scan = 0, match = 0, ballot = 0;
    bool any3 = false, all_small = true;
    for (int k = 0; k < 8; ++k) g8 = std::max(g8, in[b8 + k]);
    for (int k = 0; k <= r8; ++k) scan |= in[b8 + k] & 0xff;
    for (int k = 0; k < 16; ++k) {
      l16 = std::min(l16, in[b16 + k]);
      x16 ^= in[b16 + k];
      any3 |= in[b16 + k] == 3;
      all_small &= in[b16 + k] < 1000;
    }
    for (int k = 0; k < 32; ++k) {
      if (in[b32 + k] % 5 == in[i] % 5) match |= 1u << k;
      ballot |= (in[b32 + k] & 1) << k;
    }
    unsigned want[OUT] = {g8, l16, x16, scan, match, ballot, unsigned(any3) | unsigned(all_small) << 1,
                          in[b16 + 15 - r16], unsigned(threads * 1000 + i % threads),
                          unsigned((i / threads) * 100 + blocks + blocks * 10000),
                          unsigned(((i % threads) / 8) * 100 + threads / 8), unsigned(threads)};
    for (int k = 0; k < OUT; ++k)
      CHECK(o[k] == want[k], "thread %d op %d: %u want %u", i, k, o[k], want[k]);
  }
  for (int b = 0; b < blocks; ++b) {
    unsigned m = 0, s = 0;
    for (int k = 0; k < threads; ++k) { m = std::max(m, in[b * threads + k]); s += in[b * threads + k]; }
    CHECK(mx[b] == m, "reduce_update_async max of block %d: %u want %u", b, mx[b], m);
    CHECK(sum[b] == s, "reduce_update_async sum of block %d: %u want %u", b, sum[b], s);
  }
  return report("coop_groups_ops");
}
