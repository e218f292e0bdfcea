// CUB's block- and warp-level collectives inside user kernels: BlockLoad/BlockStore (transpose),
// BlockReduce, BlockScan (exclusive sum with a block aggregate), WarpReduce, WarpScan,
// BlockRadixSort and BlockDiscontinuity.
#include <algorithm>
#include <cub/cub.cuh>
#include <cuda/std/functional>
#include <numeric>
#include <vector>
#include "check.h"

constexpr int THREADS = 128, ITEMS = 4, TILE = THREADS * ITEMS;

__global__ void block_kernel(const int *in, int *scanned, int *sums, int *sorted, int *warp_sums,
                             int *warp_scan, int *heads) {
  using Load = cub::BlockLoad<int, THREADS, ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
  using Store = cub::BlockStore<int, THREADS, ITEMS, cub::BLOCK_STORE_TRANSPOSE>;
  using Reduce = cub::BlockReduce<int, THREADS>;
  using Scan = cub::BlockScan<int, THREADS>;
  using Sort = cub::BlockRadixSort<int, THREADS, ITEMS>;
  using WReduce = cub::WarpReduce<int>;
  using WScan = cub::WarpScan<int>;
  using Disc = cub::BlockDiscontinuity<int, THREADS>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    typename Reduce::TempStorage reduce;
    typename Scan::TempStorage scan;
    typename Sort::TempStorage sort;
    typename Disc::TempStorage disc;
  } temp;
  __shared__ typename WReduce::TempStorage wreduce[THREADS / 32];
  __shared__ typename WScan::TempStorage wscan[THREADS / 32];

  const int base = blockIdx.x * TILE;
  int items[ITEMS];
  Load(temp.load).Load(in + base, items);
  __syncthreads();
  int total = Reduce(temp.reduce).Sum(items);
  if (threadIdx.x == 0) sums[blockIdx.x] = total;
  __syncthreads();
  int aggregate;
  int scan_items[ITEMS];
  Scan(temp.scan).ExclusiveSum(items, scan_items, aggregate);
  __syncthreads();
  if (threadIdx.x == 0) sums[gridDim.x + blockIdx.x] = aggregate;
  Store(temp.store).Store(scanned + base, scan_items);
  __syncthreads();
  int flags[ITEMS];
  Disc(temp.disc).FlagHeads(flags, items, cuda::std::not_equal_to<int>{});
  __syncthreads();
  for (int i = 0; i < ITEMS; ++i) heads[base + threadIdx.x * ITEMS + i] = flags[i];
  Sort(temp.sort).Sort(items);
  __syncthreads();
  // blocked arrangement after the sort: thread t holds ranks t*ITEMS .. t*ITEMS+ITEMS-1
  for (int i = 0; i < ITEMS; ++i) sorted[base + threadIdx.x * ITEMS + i] = items[i];

  int warp = threadIdx.x / 32;
  int v = in[base + threadIdx.x];
  int ws = WReduce(wreduce[warp]).Sum(v);
  if (threadIdx.x % 32 == 0) warp_sums[blockIdx.x * (THREADS / 32) + warp] = ws;
  int incl;
  WScan(wscan[warp]).InclusiveSum(v, incl);
  warp_scan[blockIdx.x * THREADS + threadIdx.x] = incl;
}

int main() {
  const int blocks = 6, n = blocks * TILE;
  unsigned seed = 5;
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = int(lcg(seed) % 64) - 20;
  for (int i = 0; i < n; i += 3) h[i + 1] = h[i];  // some equal neighbours
  int *in, *scanned, *sums, *sorted, *warp_sums, *warp_scan, *heads;
  CUDA(cudaMalloc(&in, n * 4));
  CUDA(cudaMalloc(&scanned, n * 4));
  CUDA(cudaMalloc(&sums, 2 * blocks * 4));
  CUDA(cudaMalloc(&sorted, n * 4));
  CUDA(cudaMalloc(&warp_sums, blocks * THREADS / 32 * 4));
  CUDA(cudaMalloc(&warp_scan, blocks * THREADS * 4));
  CUDA(cudaMalloc(&heads, n * 4));
  CUDA(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  block_kernel<<<blocks, THREADS>>>(in, scanned, sums, sorted, warp_sums, warp_scan, heads);
  CUDA(cudaGetLastError());
  CUDA(cudaDeviceSynchronize());
  std::vector<int> g_scanned(n), g_sums(2 * blocks), g_sorted(n), g_ws(blocks * THREADS / 32),
      g_wscan(blocks * THREADS), g_heads(n);
  CUDA(cudaMemcpy(g_scanned.data(), scanned, n * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(g_sums.data(), sums, 2 * blocks * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(g_sorted.data(), sorted, n * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(g_ws.data(), warp_sums, g_ws.size() * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(g_wscan.data(), warp_scan, g_wscan.size() * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(g_heads.data(), heads, n * 4, cudaMemcpyDeviceToHost));
  for (int b = 0; b < blocks; ++b) {
    const int *tile = h.data() + b * TILE;
    int total = std::accumulate(tile, tile + TILE, 0);
    CHECK(g_sums[b] == total, "BlockReduce block %d: %d vs %d", b, g_sums[b], total);
    CHECK(g_sums[blocks + b] == total, "BlockScan aggregate block %d", b);
    int acc = 0;
    for (int i = 0; i < TILE; ++i) {
      CHECK(g_scanned[b * TILE + i] == acc, "ExclusiveSum block %d item %d", b, i);
      acc += tile[i];
    }
    std::vector<int> s(tile, tile + TILE);
    std::sort(s.begin(), s.end());
    for (int i = 0; i < TILE; ++i) CHECK(g_sorted[b * TILE + i] == s[i], "BlockRadixSort block %d item %d", b, i);
    for (int i = 0; i < TILE; ++i) {
      int want = i == 0 ? 1 : tile[i] != tile[i - 1];
      CHECK(g_heads[b * TILE + i] == want, "FlagHeads block %d item %d", b, i);
    }
    for (int w = 0; w < THREADS / 32; ++w) {
      int ws = 0;
      for (int l = 0; l < 32; ++l) {
        ws += tile[w * 32 + l];
        CHECK(g_wscan[b * THREADS + w * 32 + l] == ws, "WarpScan block %d lane %d", b, w * 32 + l);
      }
      CHECK(g_ws[b * THREADS / 32 + w] == ws, "WarpReduce block %d warp %d", b, w);
    }
  }
  return report("cub_block");
}
