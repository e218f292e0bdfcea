// Thread-block clusters (sm_90) as Hopper code writes them: a kernel with a compile-time
// __cluster_dims__(2, 1, 1), and one launched through cudaLaunchKernelEx with
// cudaLaunchAttributeClusterDimension (4 CTAs), each using cooperative_groups::this_cluster():
// block_rank, num_blocks, dim_blocks, cluster.sync(), and distributed shared memory
// (map_shared_rank: each CTA reads its neighbour's shared array); a histogram whose bins are
// spread over the cluster's shared memories with atomicAdd on remote shared memory; and
// cudaOccupancyMaxActiveClusters. Checked against the host.
#include <cooperative_groups.h>
#include <vector>
#include "check.h"
namespace cg = cooperative_groups;

constexpr int THREADS = 128;

__global__ void __cluster_dims__(2, 1, 1) neighbours(const int *in, int *out) {
  __shared__ int tile[THREADS];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  tile[threadIdx.x] = in[blockIdx.x * THREADS + threadIdx.x];
  cluster.sync();
  int *other = cluster.map_shared_rank(tile, (rank + 1) % cluster.num_blocks());
  out[blockIdx.x * THREADS + threadIdx.x] = tile[threadIdx.x] * 10 + other[THREADS - 1 - threadIdx.x];
  if (threadIdx.x == 0) out[gridDim.x * THREADS + blockIdx.x] = int(rank) | (int(cluster.num_blocks()) << 8) | (int(cluster.dim_blocks().x) << 16);
  cluster.sync();  // no CTA leaves while another may still read its shared memory
}

constexpr int BINS = 256;
__global__ void cluster_histogram(const unsigned char *in, int n, unsigned *bins) {
  extern __shared__ unsigned part[];  // BINS / cluster size bins per CTA
  cg::cluster_group cluster = cg::this_cluster();
  int per_block = BINS / int(cluster.num_blocks());
  for (int i = threadIdx.x; i < per_block; i += blockDim.x) part[i] = 0;
  cluster.sync();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int bin = in[i];
    unsigned *owner = cluster.map_shared_rank(part, bin / per_block);
    atomicAdd(owner + bin % per_block, 1u);
  }
  cluster.sync();
  for (int i = threadIdx.x; i < per_block; i += blockDim.x) atomicAdd(&bins[cluster.block_rank() * per_block + i], part[i]);
}

int main() {
  const int blocks = 8;
  std::vector<int> in(blocks * THREADS);
  unsigned s = 11;
  for (auto &v : in) v = int(lcg(s) % 1000);
  int *din, *dout;
  CUDA(cudaMalloc(&din, in.size() * 4));
  CUDA(cudaMalloc(&dout, (in.size() + blocks) * 4));
  CUDA(cudaMemcpy(din, in.data(), in.size() * 4, cudaMemcpyHostToDevice));
  neighbours<<<blocks, THREADS>>>(din, dout);
  CUDA(cudaGetLastError());
  std::vector<int> out(in.size() + blocks);
  CUDA(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int b = 0; b < blocks; ++b) {
    int partner = (b / 2) * 2 + (b % 2 + 1) % 2;
    for (int t = 0; t < THREADS; ++t) bad += out[b * THREADS + t] != in[b * THREADS + t] * 10 + in[partner * THREADS + THREADS - 1 - t];
    int info = out[blocks * THREADS + b];
    CHECK(info == ((b % 2) | (2 << 8) | (2 << 16)), "block %d: rank/size %#x", b, info);
  }
  CHECK(bad == 0, "neighbours: %d wrong", bad);

  // a cluster of 4 given at launch
  const int n = 100000;
  std::vector<unsigned char> bytes(n);
  for (auto &b : bytes) b = (unsigned char)(lcg(s) >> 13);
  unsigned char *dbytes;
  unsigned *dbins;
  CUDA(cudaMalloc(&dbytes, n));
  CUDA(cudaMalloc(&dbins, BINS * 4));
  CUDA(cudaMemcpy(dbytes, bytes.data(), n, cudaMemcpyHostToDevice));
  CUDA(cudaMemset(dbins, 0, BINS * 4));
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(16);
  config.blockDim = dim3(256);
  config.dynamicSmemBytes = BINS / 4 * sizeof(unsigned);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = 4;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = 1;
  int clusters = 0;
  CUDA(cudaOccupancyMaxActiveClusters(&clusters, cluster_histogram, &config));
  CHECK(clusters >= 1, "active clusters %d", clusters);
  CUDA(cudaLaunchKernelEx(&config, cluster_histogram, (const unsigned char *)dbytes, n, dbins));
  CUDA(cudaDeviceSynchronize());
  std::vector<unsigned> bins(BINS), want(BINS, 0);
  CUDA(cudaMemcpy(bins.data(), dbins, BINS * 4, cudaMemcpyDeviceToHost));
  for (auto b : bytes) want[b]++;
  bad = 0;
  for (int b = 0; b < BINS; ++b) bad += bins[b] != want[b];
  CHECK(bad == 0, "cluster histogram: %d bins wrong", bad);
  return report("clusters");
}
