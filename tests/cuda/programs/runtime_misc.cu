// Less common runtime calls that real programs make around their kernels: driver functions
// through cudaGetDriverEntryPointByVersion (how CUTLASS and PyTorch reach cuTensorMapEncode*
// without linking libcuda), cudaProfilerStart/Stop around a timed region, cudaStreamGetId /
// GetDevice / GetFlags / GetPriority, cudaEventRecordWithFlags and blocking-sync events, an L2
// access-policy window on a stream and cudaCtxResetPersistingL2Cache, cudaHostGetFlags,
// cudaMemcpy3DPeer and cudaMemcpyPeerAsync, cudaDeviceFlushGPUDirectRDMAWrites, and
// cudaMemGetInfo around cudaMallocHost. Each result is checked against the CUDA Runtime API's
// description or a host computation.
#include <cuda.h>
#include <cuda_profiler_api.h>
#include <cstring>
#include <vector>
#include "check.h"

__global__ void add_one(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}

int main() {
  CUDA(cudaFree(nullptr));  // the usual way to start the runtime
  // a driver function through the runtime
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  CUDA(cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn, 12000, cudaEnableDefault, &found));
  CHECK(fn != nullptr && found == cudaDriverEntryPointSuccess, "cuMemAlloc entry point (%d)", int(found));
  void *missing = nullptr;
  cudaError_t e = cudaGetDriverEntryPointByVersion("cuNoSuchCall", &missing, 12000, cudaEnableDefault, &found);
  CHECK(missing == nullptr && found == cudaDriverEntryPointSymbolNotFound, "unknown symbol: %s, %d", cudaGetErrorName(e), int(found));
  cudaGetLastError();
  if (fn) {
    auto mem_alloc = reinterpret_cast<CUresult (*)(CUdeviceptr *, size_t)>(fn);
    CUdeviceptr p = 0;
    CHECK(mem_alloc(&p, 4096) == CUDA_SUCCESS && p != 0, "cuMemAlloc through the entry point");
    CUDA(cudaMemset(reinterpret_cast<void *>(p), 0, 4096));
    CUDA(cudaFree(reinterpret_cast<void *>(p)));
  }
  void *get_version = nullptr;
  CUDA(cudaGetDriverEntryPointByVersion("cuDriverGetVersion", &get_version, 12000, cudaEnableDefault, &found));
  int driver = 0, runtime_driver = 0;
  if (get_version) reinterpret_cast<CUresult (*)(int *)>(get_version)(&driver);
  CUDA(cudaDriverGetVersion(&runtime_driver));
  CHECK(driver == runtime_driver && driver > 0, "cuDriverGetVersion %d vs %d", driver, runtime_driver);

  // streams
  cudaStream_t s1, s2;
  int least = 0, greatest = 0;
  CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  CUDA(cudaStreamCreateWithPriority(&s1, cudaStreamNonBlocking, greatest));
  CUDA(cudaStreamCreate(&s2));
  unsigned long long id1 = 0, id2 = 0;
  CUDA(cudaStreamGetId(s1, &id1));
  CUDA(cudaStreamGetId(s2, &id2));
  CHECK(id1 != id2, "stream ids %llu %llu", id1, id2);
  int device = -1, priority = 1;
  unsigned flags = 0;
  CUDA(cudaStreamGetDevice(s1, &device));
  CUDA(cudaStreamGetFlags(s1, &flags));
  CUDA(cudaStreamGetPriority(s1, &priority));
  CHECK(device == 0 && flags == cudaStreamNonBlocking && priority == greatest, "stream device %d flags %u priority %d", device,
        flags, priority);

  // an L2 persisting window: a hint, accepted
  int *buf;
  const int n = 1 << 16;
  CUDA(cudaMalloc(&buf, n * 4));
  CUDA(cudaMemset(buf, 0, n * 4));
  int max_window = 0;
  CUDA(cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, 0));
  if (max_window > 0) {
    CUDA(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 1 << 20));
    cudaStreamAttrValue attr = {};
    attr.accessPolicyWindow.base_ptr = buf;
    attr.accessPolicyWindow.num_bytes = std::min<size_t>(n * 4, max_window);
    attr.accessPolicyWindow.hitRatio = 0.6f;
    attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    CUDA(cudaStreamSetAttribute(s1, cudaStreamAttributeAccessPolicyWindow, &attr));
  }

  // a profiled, timed region with blocking-sync events
  cudaEvent_t start, stop;
  CUDA(cudaEventCreateWithFlags(&start, cudaEventBlockingSync));
  CUDA(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync));
  CUDA(cudaProfilerStart());
  CUDA(cudaEventRecordWithFlags(start, s1, cudaEventRecordDefault));
  for (int r = 0; r < 5; ++r) add_one<<<n / 256, 256, 0, s1>>>(buf, n);
  CUDA(cudaEventRecordWithFlags(stop, s1, cudaEventRecordDefault));
  CUDA(cudaEventSynchronize(stop));
  CUDA(cudaProfilerStop());
  float ms = -1;
  CUDA(cudaEventElapsedTime(&ms, start, stop));
  CHECK(ms >= 0.0f, "elapsed %g ms", ms);
  if (max_window > 0) CUDA(cudaCtxResetPersistingL2Cache());

  // peer copies within the device, a 3D peer copy of a sub-box
  int *dst;
  CUDA(cudaMalloc(&dst, n * 4));
  CUDA(cudaMemcpyPeerAsync(dst, 0, buf, 0, n * 4, s2));
  CUDA(cudaStreamSynchronize(s2));
  std::vector<int> host(n);
  CUDA(cudaMemcpy(host.data(), dst, n * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int v : host) bad += v != 5;
  CHECK(bad == 0, "peer copy: %d wrong", bad);
  // 3D: a 16 x 8 x 4 box of ints from a 64 x 32 x 32 volume at (3, 2, 1)
  std::vector<int> vol(64 * 32 * 32);
  for (size_t i = 0; i < vol.size(); ++i) vol[i] = int(i * 2654435761u);
  int *dvol, *dbox;
  CUDA(cudaMalloc(&dvol, vol.size() * 4));
  CUDA(cudaMalloc(&dbox, 16 * 8 * 4 * 4));
  CUDA(cudaMemcpy(dvol, vol.data(), vol.size() * 4, cudaMemcpyHostToDevice));
  cudaMemcpy3DPeerParms p = {};
  p.srcPtr = make_cudaPitchedPtr(dvol, 64 * 4, 64, 32);
  p.srcPos = make_cudaPos(3 * 4, 2, 1);
  p.srcDevice = 0;
  p.dstPtr = make_cudaPitchedPtr(dbox, 16 * 4, 16, 8);
  p.dstDevice = 0;
  p.extent = make_cudaExtent(16 * 4, 8, 4);
  CUDA(cudaMemcpy3DPeer(&p));
  std::vector<int> box(16 * 8 * 4);
  CUDA(cudaMemcpy(box.data(), dbox, box.size() * 4, cudaMemcpyDeviceToHost));
  bad = 0;
  for (int z = 0; z < 4; ++z)
    for (int y = 0; y < 8; ++y)
      for (int x = 0; x < 16; ++x) bad += box[(z * 8 + y) * 16 + x] != vol[((z + 1) * 32 + y + 2) * 64 + x + 3];
  CHECK(bad == 0, "cudaMemcpy3DPeer: %d wrong", bad);

  // pinned memory flags
  void *pinned = nullptr;
  CUDA(cudaHostAlloc(&pinned, 1 << 20, cudaHostAllocMapped | cudaHostAllocPortable));
  unsigned host_flags = 0;
  CUDA(cudaHostGetFlags(&host_flags, pinned));
  CHECK((host_flags & cudaHostAllocMapped) && (host_flags & cudaHostAllocPortable), "host flags %#x", host_flags);
  CUDA(cudaFreeHost(pinned));
  CUDA(cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,
                                          cudaFlushGPUDirectRDMAWritesToOwner));
  CUDA(cudaEventDestroy(start));
  CUDA(cudaEventDestroy(stop));
  CUDA(cudaStreamDestroy(s1));
  CUDA(cudaStreamDestroy(s2));
  cudaFree(buf);
  cudaFree(dst);
  cudaFree(dvol);
  cudaFree(dbox);
  return report("runtime_misc");
}
