// Cooperative groups: thread_block, tiled_partition (dynamic and static sizes), cg::reduce with
// plus/greater, cg::inclusive_scan, coalesced_threads in divergent code, labeled_partition, and
// a grid-wide sync in a kernel launched with cudaLaunchCooperativeKernel.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <vector>
#include "check.h"

namespace cg = cooperative_groups;

__global__ void tiles(const int *in, int *tile_sums, int *tile_max, int *scan, int *coalesced,
                      int *labeled) {
  cg::thread_block block = cg::this_thread_block();
  int v = in[block.group_index().x * block.size() + block.thread_rank()];
  auto tile16 = cg::tiled_partition<16>(block);
  int s = cg::reduce(tile16, v, cg::plus<int>());
  int m = cg::reduce(tile16, v, cg::greater<int>());
  int global_tile = (blockIdx.x * blockDim.x + threadIdx.x) / 16;
  if (tile16.thread_rank() == 0) {
    tile_sums[global_tile] = s;
    tile_max[global_tile] = m;
  }
  // a dynamically sized tile through the generic thread_group API
  cg::thread_group tile8 = cg::tiled_partition(block, 8);
  tile8.sync();
  if (tile8.thread_rank() == 0 && tile8.size() != 8) tile_sums[0] = -999999;
  auto warp = cg::tiled_partition<32>(block);
  scan[blockIdx.x * blockDim.x + threadIdx.x] = cg::inclusive_scan(warp, v);
  if (v % 3 == 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    // each active thread gets its rank among the active threads of its warp and their count
    coalesced[blockIdx.x * blockDim.x + threadIdx.x] = active.thread_rank() * 100 + active.size();
  } else {
    coalesced[blockIdx.x * blockDim.x + threadIdx.x] = -1;
  }
  auto part = cg::labeled_partition(warp, v & 3);
  labeled[blockIdx.x * blockDim.x + threadIdx.x] = cg::reduce(part, 1, cg::plus<int>());
}

__global__ void grid_sum(const int *in, int *partial, int *out, int n) {
  cg::grid_group grid = cg::this_grid();
  int acc = 0;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) acc += in[i];
  partial[grid.thread_rank()] = acc;
  grid.sync();
  // after the barrier, every thread sees every partial sum: thread 0 of each block adds them
  if (threadIdx.x == 0) {
    int total = 0;
    for (unsigned i = 0; i < grid.size(); ++i) total += partial[i];
    out[blockIdx.x] = total;
  }
  grid.sync();
  if (grid.thread_rank() == 0) out[gridDim.x] = grid.num_blocks();
}

int main() {
  const int blocks = 4, threads = 128, n = blocks * threads;
  unsigned seed = 9;
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = int(lcg(seed) % 1000) - 300;
  int *in, *sums, *maxs, *scan, *co, *lab;
  CUDA(cudaMalloc(&in, n * 4));
  CUDA(cudaMalloc(&sums, n / 16 * 4));
  CUDA(cudaMalloc(&maxs, n / 16 * 4));
  CUDA(cudaMalloc(&scan, n * 4));
  CUDA(cudaMalloc(&co, n * 4));
  CUDA(cudaMalloc(&lab, n * 4));
  CUDA(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  tiles<<<blocks, threads>>>(in, sums, maxs, scan, co, lab);
  CUDA(cudaDeviceSynchronize());
  std::vector<int> gs(n / 16), gm(n / 16), gscan(n), gco(n), glab(n);
  CUDA(cudaMemcpy(gs.data(), sums, n / 16 * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(gm.data(), maxs, n / 16 * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(gscan.data(), scan, n * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(gco.data(), co, n * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(glab.data(), lab, n * 4, cudaMemcpyDeviceToHost));
  for (int t = 0; t < n / 16; ++t) {
    int s = 0, m = -1000000;
    for (int i = 0; i < 16; ++i) {
      s += h[t * 16 + i];
      m = std::max(m, h[t * 16 + i]);
    }
    CHECK(gs[t] == s, "tile %d sum %d vs %d", t, gs[t], s);
    CHECK(gm[t] == m, "tile %d max %d vs %d", t, gm[t], m);
  }
  for (int w = 0; w < n / 32; ++w) {
    int acc = 0, count = 0, rank = 0;
    for (int l = 0; l < 32; ++l) count += h[w * 32 + l] % 3 == 0;
    for (int l = 0; l < 32; ++l) {
      int i = w * 32 + l;
      acc += h[i];
      CHECK(gscan[i] == acc, "inclusive_scan[%d] %d vs %d", i, gscan[i], acc);
      if (h[i] % 3 == 0) {
        CHECK(gco[i] == rank * 100 + count, "coalesced[%d] %d vs %d", i, gco[i], rank * 100 + count);
        ++rank;
      } else {
        CHECK(gco[i] == -1, "coalesced[%d]", i);
      }
      int same = 0;
      for (int k = 0; k < 32; ++k) same += (h[w * 32 + k] & 3) == (h[i] & 3);
      CHECK(glab[i] == same, "labeled_partition[%d] %d vs %d", i, glab[i], same);
    }
  }

  // grid sync: as many blocks as fit at once
  int dev = 0, supports = 0, per_sm = 0, sms = 0;
  CUDA(cudaDeviceGetAttribute(&supports, cudaDevAttrCooperativeLaunch, dev));
  CHECK(supports == 1, "cooperative launch attribute %d", supports);
  CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_sum, 64, 0));
  CHECK(per_sm >= 1, "occupancy %d", per_sm);
  int gblocks = std::min(8, per_sm * sms);
  const int m = 10000;
  std::vector<int> hin(m);
  long long want = 0;
  for (int i = 0; i < m; ++i) {
    hin[i] = int(lcg(seed) % 100);
    want += hin[i];
  }
  int *d_in, *partial, *out;
  CUDA(cudaMalloc(&d_in, m * 4));
  CUDA(cudaMalloc(&partial, gblocks * 64 * 4));
  CUDA(cudaMalloc(&out, (gblocks + 1) * 4));
  CUDA(cudaMemcpy(d_in, hin.data(), m * 4, cudaMemcpyHostToDevice));
  int mm = m;
  void *args[] = {&d_in, &partial, &out, &mm};
  CUDA(cudaLaunchCooperativeKernel((void *)grid_sum, gblocks, 64, args, 0, 0));
  CUDA(cudaDeviceSynchronize());
  std::vector<int> gout(gblocks + 1);
  CUDA(cudaMemcpy(gout.data(), out, (gblocks + 1) * 4, cudaMemcpyDeviceToHost));
  for (int b = 0; b < gblocks; ++b) CHECK(gout[b] == want, "grid sum seen by block %d: %d vs %lld", b, gout[b], want);
  CHECK(gout[gblocks] == gblocks, "num_blocks %d", gout[gblocks]);
  return report("coop_groups");
}
