// Stream-ordered allocation: cudaMallocAsync/cudaFreeAsync on the default pool and on streams,
// a pool of one's own (cudaMemPoolCreate, cudaMallocFromPoolAsync), pool attributes (release
// threshold, used/reserved memory), cudaMemPoolTrimTo, cudaDeviceGetDefaultMemPool, and memory
// reused across streams ordered by an event.
#include <vector>
#include "check.h"

__global__ void fill(int *p, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v + i;
}
__global__ void sum_into(const int *p, int n, unsigned long long *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, (unsigned long long)p[i]);
}

int main() {
  int dev = 0, supported = 0;
  CUDA(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, dev));
  CHECK(supported == 1, "memory pools supported %d", supported);
  cudaStream_t s1, s2;
  CUDA(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CUDA(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  unsigned long long *total;
  CUDA(cudaMalloc(&total, 8));
  CUDA(cudaMemset(total, 0, 8));
  const int n = 4096;
  unsigned long long want = 0;
  for (int round = 0; round < 10; ++round) {
    int *p;
    CUDA(cudaMallocAsync(&p, n * sizeof(int), s1));
    fill<<<n / 256, 256, 0, s1>>>(p, n, round * 1000);
    sum_into<<<n / 256, 256, 0, s1>>>(p, n, total);
    CUDA(cudaFreeAsync(p, s1));
    for (int i = 0; i < n; ++i) want += round * 1000 + i;
  }
  CUDA(cudaStreamSynchronize(s1));
  unsigned long long got = 0;
  CUDA(cudaMemcpy(&got, total, 8, cudaMemcpyDeviceToHost));
  CHECK(got == want, "default pool sums %llu vs %llu", got, want);

  cudaMemPool_t def;
  CUDA(cudaDeviceGetDefaultMemPool(&def, dev));
  unsigned long long threshold = 1 << 20;
  CUDA(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &threshold));
  unsigned long long back = 0;
  CUDA(cudaMemPoolGetAttribute(def, cudaMemPoolAttrReleaseThreshold, &back));
  CHECK(back == threshold, "release threshold %llu", back);

  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = dev;
  cudaMemPool_t pool;
  CUDA(cudaMemPoolCreate(&pool, &props));
  int *q;
  CUDA(cudaMallocFromPoolAsync(&q, n * sizeof(int), pool, s1));
  fill<<<n / 256, 256, 0, s1>>>(q, n, 7);
  unsigned long long used = 0;
  CUDA(cudaStreamSynchronize(s1));
  CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  CHECK(used >= n * sizeof(int), "used memory %llu", used);
  // hand q to stream s2 through an event, read it there, free it there
  cudaEvent_t ready;
  CUDA(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
  CUDA(cudaEventRecord(ready, s1));
  CUDA(cudaStreamWaitEvent(s2, ready, 0));
  CUDA(cudaMemsetAsync(total, 0, 8, s2));
  sum_into<<<n / 256, 256, 0, s2>>>(q, n, total);
  CUDA(cudaFreeAsync(q, s2));
  CUDA(cudaStreamSynchronize(s2));
  CUDA(cudaMemcpy(&got, total, 8, cudaMemcpyDeviceToHost));
  CHECK(got == 7ull * n + (unsigned long long)n * (n - 1) / 2, "own pool sum %llu", got);
  CUDA(cudaMemPoolTrimTo(pool, 0));
  CUDA(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  CHECK(used == 0, "used after free %llu", used);
  CUDA(cudaMemPoolDestroy(pool));
  // cudaMallocAsync on the legacy default stream
  int *r;
  CUDA(cudaMallocAsync(&r, 64, 0));
  CUDA(cudaMemsetAsync(r, 0, 64, 0));
  CUDA(cudaFreeAsync(r, 0));
  CUDA(cudaDeviceSynchronize());
  return report("memory_pools");
}
