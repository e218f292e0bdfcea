// Device management as application start-up code does it: cudaGetDeviceCount, cudaSetDevice /
// cudaGetDevice, cudaInitDevice, cudaChooseDevice, cudaGetDeviceProperties against
// cudaDeviceGetAttribute field by field, cudaDriverGetVersion / cudaRuntimeGetVersion,
// cudaDeviceGetPCIBusId and back with cudaDeviceGetByPCIBusId, cudaSetDeviceFlags /
// cudaGetDeviceFlags, cudaDeviceGetStreamPriorityRange, cudaDeviceGetLimit / SetLimit (stack,
// printf FIFO), peer access queries, cudaMemcpyPeer, and large allocations (4 x 64 MiB) watched
// through cudaMemGetInfo, written, read back in part and freed.
#include <cstring>
#include <vector>
#include "check.h"

__global__ void stamp(unsigned *p, size_t n, unsigned salt) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = unsigned(i * 2654435761u) ^ salt;
}

int main() {
  int count = 0;
  CUDA(cudaGetDeviceCount(&count));
  CHECK(count >= 1, "device count %d", count);
  CUDA(cudaInitDevice(0, 0, 0));
  CUDA(cudaSetDevice(0));
  int dev = -1;
  CUDA(cudaGetDevice(&dev));
  CHECK(dev == 0, "current device %d", dev);
  int driver = 0, runtime = 0;
  CUDA(cudaDriverGetVersion(&driver));
  CUDA(cudaRuntimeGetVersion(&runtime));
  CHECK(driver >= runtime && runtime >= 12000, "driver %d, runtime %d", driver, runtime);

  cudaDeviceProp prop;
  CUDA(cudaGetDeviceProperties(&prop, 0));
  struct {
    cudaDeviceAttr attr;
    int prop;
    const char *name;
  } fields[] = {
      {cudaDevAttrMaxThreadsPerBlock, prop.maxThreadsPerBlock, "maxThreadsPerBlock"},
      {cudaDevAttrMaxBlockDimX, prop.maxThreadsDim[0], "maxThreadsDim[0]"},
      {cudaDevAttrMaxBlockDimZ, prop.maxThreadsDim[2], "maxThreadsDim[2]"},
      {cudaDevAttrMaxGridDimX, prop.maxGridSize[0], "maxGridSize[0]"},
      {cudaDevAttrMaxGridDimY, prop.maxGridSize[1], "maxGridSize[1]"},
      {cudaDevAttrMaxSharedMemoryPerBlock, int(prop.sharedMemPerBlock), "sharedMemPerBlock"},
      {cudaDevAttrMaxSharedMemoryPerBlockOptin, int(prop.sharedMemPerBlockOptin), "sharedMemPerBlockOptin"},
      {cudaDevAttrWarpSize, prop.warpSize, "warpSize"},
      {cudaDevAttrMultiProcessorCount, prop.multiProcessorCount, "multiProcessorCount"},
      {cudaDevAttrComputeCapabilityMajor, prop.major, "major"},
      {cudaDevAttrComputeCapabilityMinor, prop.minor, "minor"},
      {cudaDevAttrMaxThreadsPerMultiProcessor, prop.maxThreadsPerMultiProcessor, "maxThreadsPerMultiProcessor"},
      {cudaDevAttrL2CacheSize, prop.l2CacheSize, "l2CacheSize"},
      {cudaDevAttrManagedMemory, prop.managedMemory, "managedMemory"},
      {cudaDevAttrConcurrentManagedAccess, prop.concurrentManagedAccess, "concurrentManagedAccess"},
      {cudaDevAttrCooperativeLaunch, prop.cooperativeLaunch, "cooperativeLaunch"},
      {cudaDevAttrUnifiedAddressing, prop.unifiedAddressing, "unifiedAddressing"},
      {cudaDevAttrPciBusId, prop.pciBusID, "pciBusID"},
      {cudaDevAttrMaxRegistersPerBlock, prop.regsPerBlock, "regsPerBlock"},
      {cudaDevAttrMaxBlocksPerMultiprocessor, prop.maxBlocksPerMultiProcessor, "maxBlocksPerMultiProcessor"},
  };
  for (auto &f : fields) {
    int v = -1;
    CUDA(cudaDeviceGetAttribute(&v, f.attr, 0));
    CHECK(v == f.prop, "%s: attribute %d, property %d", f.name, v, f.prop);
  }
  CHECK(prop.maxThreadsPerBlock == 1024 && prop.warpSize == 32 && prop.major >= 7, "an ordinary GPU: %d %d %d.%d",
        prop.maxThreadsPerBlock, prop.warpSize, prop.major, prop.minor);
  CHECK(std::strlen(prop.name) > 0 && prop.totalGlobalMem > (size_t(1) << 30), "name '%s', %zu bytes", prop.name,
        prop.totalGlobalMem);
  cudaDeviceProp want;
  std::memset(&want, 0, sizeof want);
  want.major = prop.major;
  want.minor = prop.minor;
  int chosen = -1;
  CUDA(cudaChooseDevice(&chosen, &want));
  CHECK(chosen >= 0 && chosen < count, "chosen device %d", chosen);

  char bus[32] = {0};
  CUDA(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
  int back = -1;
  CUDA(cudaDeviceGetByPCIBusId(&back, bus));
  CHECK(back == 0, "bus id %s -> device %d", bus, back);

  CUDA(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost));
  unsigned flags = 0;
  CUDA(cudaGetDeviceFlags(&flags));
  // (cudaDeviceMapHost need not come back: "All contexts as of CUDA 3.2 behave as though the
  // flag is enabled", cuda.h's CU_CTX_MAP_HOST)
  CHECK((flags & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync, "device flags %#x", flags);
  int least = 0, greatest = 0;
  CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  CHECK(least == 0 && greatest < 0, "priority range %d..%d", least, greatest);

  size_t stack = 0, fifo = 0;
  CUDA(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
  CUDA(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
  CHECK(stack >= 4096, "stack limit %zu", stack);
  CUDA(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 4 << 20));
  CUDA(cudaDeviceGetLimit(&fifo, cudaLimitPrintfFifoSize));
  CHECK(fifo >= size_t(4 << 20), "printf fifo %zu", fifo);

  // peer access between every pair of devices
  int can = -1;
  for (int d = 1; d < count; ++d) {
    CUDA(cudaDeviceCanAccessPeer(&can, 0, d));
    CHECK(can == 0 || can == 1, "can access peer (0, %d): %d", d, can);
    if (can) {
      int rank = -1;
      CUDA(cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrAccessSupported, 0, d));
      CHECK(rank == 1, "P2P access supported %d", rank);
    }
  }

  // large allocations
  const size_t big = size_t(64) << 20, words = big / 4;
  size_t free0 = 0, total = 0;
  CUDA(cudaMemGetInfo(&free0, &total));
  CHECK(total == prop.totalGlobalMem && free0 <= total, "mem info %zu / %zu", free0, total);
  std::vector<unsigned *> blocks(4);
  for (auto &b : blocks) CUDA(cudaMalloc(&b, big));
  size_t free1 = 0;
  CUDA(cudaMemGetInfo(&free1, &total));
  CHECK(free0 - free1 >= 4 * big && free0 - free1 < 4 * big + (size_t(64) << 20), "free %zu -> %zu", free0, free1);
  for (int k = 0; k < 4; ++k) {
    stamp<<<256, 256>>>(blocks[k], words, 0x9e3779b9u * k);
    CUDA(cudaGetLastError());
  }
  CUDA(cudaMemcpy(blocks[3], blocks[1], big, cudaMemcpyDeviceToDevice));
  CUDA(cudaMemcpyPeer(blocks[2], 0, blocks[0], 0, big / 2));
  std::vector<unsigned> tail(4096);
  for (int k = 0; k < 4; ++k) {
    int src = k == 3 ? 1 : k;
    size_t at = k == 2 ? words / 2 - 2048 : words - 4096;  // for k == 2: across the copied half's end
    CUDA(cudaMemcpy(tail.data(), blocks[k] + at, tail.size() * 4, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (size_t i = 0; i < tail.size(); ++i) {
      size_t idx = at + i;
      int from = (k == 2 && idx < words / 2) ? 0 : src;
      bad += tail[i] != (unsigned(idx * 2654435761u) ^ (0x9e3779b9u * from));
    }
    CHECK(bad == 0, "block %d: %d wrong words", k, bad);
  }
  for (auto b : blocks) CUDA(cudaFree(b));
  size_t free2 = 0;
  CUDA(cudaMemGetInfo(&free2, &total));
  CHECK(free2 + (size_t(8) << 20) >= free0, "free after cudaFree %zu vs %zu", free2, free0);
  return report("device_management");
}
