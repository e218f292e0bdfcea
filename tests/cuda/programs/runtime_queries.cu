// Runtime queries and settings a program makes around its kernels: cluster sizes
// (cudaOccupancyMaxPotentialClusterSize, cudaOccupancyMaxActiveClusters), memory pool access
// (cudaMemPoolSetAccess/GetAccess) and the pools of a location (cudaDeviceGetDefaultMemPool,
// cudaMemGetDefaultMemPool, cudaMemGetMemPool/cudaMemSetMemPool of CUDA 13, cudaDeviceSetMemPool),
// peer attributes of a device with itself refused (cudaDeviceGetP2PAttribute), the widest
// 1D linear texture (cudaDeviceGetTexture1DLinearMaxWidth), and a kernel launched with a cluster shape from that query. The CUDA Runtime API's
// "Occupancy", "Stream Ordered Memory Allocator" and "Device Management" sections.
#include <cooperative_groups.h>
#include <vector>
#include "check.h"

namespace cg = cooperative_groups;

__global__ void cluster_ranks(int *out) {
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) out[blockIdx.x] = int(cluster.block_rank()) * 100 + int(cluster.num_blocks());
}

int main() {
  int device = 0;
  CUDA(cudaSetDevice(device));
  // The largest portable cluster is 8 CTAs (CUDA C++ Programming Guide, "Thread Block
  // Clusters"): the query answers a power of two no larger, and a launch with it runs.
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(16);
  config.blockDim = dim3(128);
  int cluster = 0;
  CUDA(cudaOccupancyMaxPotentialClusterSize(&cluster, (void *)cluster_ranks, &config));
  CHECK(cluster >= 1 && cluster <= 8 && (cluster & (cluster - 1)) == 0, "max potential cluster size %d", cluster);
  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = cluster;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  int active = 0;
  CUDA(cudaOccupancyMaxActiveClusters(&active, (void *)cluster_ranks, &config));
  CHECK(active >= 1, "active clusters %d", active);
  int *out;
  CUDA(cudaMalloc(&out, 16 * sizeof(int)));
  CUDA(cudaLaunchKernelEx(&config, cluster_ranks, out));
  CUDA(cudaDeviceSynchronize());
  std::vector<int> got(16);
  CUDA(cudaMemcpy(got.data(), out, 16 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < 16; ++b)
    CHECK(got[b] == (b % cluster) * 100 + cluster, "block %d: rank/size %d", b, got[b]);

  // Pools: the device's default pool is the location's default, and the current one until
  // another is set.
  cudaMemPool_t default_pool, by_location, current;
  CUDA(cudaDeviceGetDefaultMemPool(&default_pool, device));
  cudaMemLocation location = {};
  location.type = cudaMemLocationTypeDevice;
  location.id = device;
  CUDA(cudaMemGetDefaultMemPool(&by_location, &location, cudaMemAllocationTypePinned));
  CHECK(by_location == default_pool, "cudaMemGetDefaultMemPool is the device's default pool");
  CUDA(cudaMemGetMemPool(&current, &location, cudaMemAllocationTypePinned));
  CHECK(current == default_pool, "the current pool is the default one");
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location = location;
  cudaMemPool_t pool;
  CUDA(cudaMemPoolCreate(&pool, &props));
  CUDA(cudaMemSetMemPool(&location, cudaMemAllocationTypePinned, pool));
  CUDA(cudaMemGetMemPool(&current, &location, cudaMemAllocationTypePinned));
  CHECK(current == pool, "cudaMemSetMemPool makes the pool current");
  cudaMemPool_t device_current;
  CUDA(cudaDeviceGetMemPool(&device_current, device));
  CHECK(device_current == pool, "cudaDeviceGetMemPool agrees");
  // The owning device always has read-write access to its pool.
  cudaMemAccessFlags flags = cudaMemAccessFlagsProtNone;
  CUDA(cudaMemPoolGetAccess(&flags, pool, &location));
  CHECK(flags == cudaMemAccessFlagsProtReadWrite, "the owner's access: %d", int(flags));
  cudaMemAccessDesc access = {};
  access.location = location;
  access.flags = cudaMemAccessFlagsProtReadWrite;
  CUDA(cudaMemPoolSetAccess(pool, &access, 1));
  // An allocation from the now-current pool, used by a kernel.
  cudaStream_t s;
  CUDA(cudaStreamCreate(&s));
  int *from_pool;
  CUDA(cudaMallocAsync(&from_pool, 16 * sizeof(int), s));
  cudaLaunchConfig_t one = {};
  one.gridDim = dim3(16);
  one.blockDim = dim3(32);
  one.stream = s;
  one.attrs = &attribute;
  one.numAttrs = 1;
  CUDA(cudaLaunchKernelEx(&one, cluster_ranks, from_pool));
  CUDA(cudaMemcpyAsync(got.data(), from_pool, 16 * sizeof(int), cudaMemcpyDeviceToHost, s));
  CUDA(cudaFreeAsync(from_pool, s));
  CUDA(cudaStreamSynchronize(s));
  CHECK(got[3] == (3 % cluster) * 100 + cluster, "a kernel on pool memory: %d", got[3]);
  CUDA(cudaDeviceSetMemPool(device, default_pool));
  CUDA(cudaMemPoolDestroy(pool));

  // A device and itself: "cudaErrorInvalidDevice if srcDevice or dstDevice are not valid or
  // if they represent the same device".
  int value = -1;
  cudaError_t e = cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrAccessSupported, device, device);
  CHECK(e == cudaErrorInvalidDevice, "P2P attribute of a device with itself: %s", cudaGetErrorName(e));
  cudaGetLastError();

  size_t width = 0;
  cudaChannelFormatDesc f4 = cudaCreateChannelDesc<float4>();
  CUDA(cudaDeviceGetTexture1DLinearMaxWidth(&width, &f4, device));
  int linear = 0;
  CUDA(cudaDeviceGetAttribute(&linear, cudaDevAttrMaxTexture1DLinearWidth, device));
  CHECK(width > 0 && width <= size_t(1) << 31, "widest 1D linear float4 texture: %zu (attribute %d)", width, linear);

  CUDA(cudaStreamDestroy(s));
  return report("runtime_queries");
}
