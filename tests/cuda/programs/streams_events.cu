// Streams, events and host callbacks: several non-blocking streams with pinned memory and
// cudaMemcpyAsync, cudaStreamWaitEvent across streams, cudaEventElapsedTime, cudaStreamQuery,
// cudaLaunchHostFunc and cudaStreamAddCallback ordering, stream priorities, the legacy default
// stream's synchronisation with blocking streams, and cudaEventSynchronize/Query.
#include <atomic>
#include <vector>
#include "check.h"

__global__ void scale(float *x, int n, float f) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] = x[i] * f + 1.0f;
}
__global__ void add_into(float *dst, const float *src, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) dst[i] += src[i];
}

static std::vector<int> g_order;
static void CUDART_CB host_fn(void *data) { g_order.push_back(int(reinterpret_cast<intptr_t>(data))); }
static void CUDART_CB callback(cudaStream_t, cudaError_t status, void *data) {
  g_order.push_back(status == cudaSuccess ? int(reinterpret_cast<intptr_t>(data)) : -1);
}

int main() {
  const int streams = 4, n = 4096;
  cudaStream_t s[streams];
  float *host, *dev[streams];
  CUDA(cudaMallocHost(&host, streams * n * sizeof(float)));
  for (int i = 0; i < streams * n; ++i) host[i] = float(i % 100);
  int lo, hi;
  CUDA(cudaDeviceGetStreamPriorityRange(&lo, &hi));
  CHECK(hi <= lo, "priority range %d %d", lo, hi);
  for (int k = 0; k < streams; ++k) {
    if (k == 0)
      CUDA(cudaStreamCreateWithPriority(&s[k], cudaStreamNonBlocking, hi));
    else
      CUDA(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
    CUDA(cudaMalloc(&dev[k], n * sizeof(float)));
  }
  int prio;
  CUDA(cudaStreamGetPriority(s[0], &prio));
  CHECK(prio == hi, "stream priority %d vs %d", prio, hi);
  cudaEvent_t start, stop, done[streams];
  CUDA(cudaEventCreate(&start));
  CUDA(cudaEventCreate(&stop));
  for (int k = 0; k < streams; ++k) CUDA(cudaEventCreateWithFlags(&done[k], cudaEventDisableTiming));
  CUDA(cudaEventRecord(start, s[0]));
  for (int k = 0; k < streams; ++k) {
    CUDA(cudaMemcpyAsync(dev[k], host + k * n, n * sizeof(float), cudaMemcpyHostToDevice, s[k]));
    scale<<<8, 128, 0, s[k]>>>(dev[k], n, float(k + 2));
    CUDA(cudaEventRecord(done[k], s[k]));
  }
  // stream 0 adds every other stream's result once that stream's event has happened
  for (int k = 1; k < streams; ++k) {
    CUDA(cudaStreamWaitEvent(s[0], done[k], 0));
    add_into<<<8, 128, 0, s[0]>>>(dev[0], dev[k], n);
  }
  CUDA(cudaLaunchHostFunc(s[0], host_fn, reinterpret_cast<void *>(1)));
  CUDA(cudaStreamAddCallback(s[0], callback, reinterpret_cast<void *>(2), 0));
  CUDA(cudaLaunchHostFunc(s[0], host_fn, reinterpret_cast<void *>(3)));
  CUDA(cudaMemcpyAsync(host, dev[0], n * sizeof(float), cudaMemcpyDeviceToHost, s[0]));
  CUDA(cudaEventRecord(stop, s[0]));
  CUDA(cudaEventSynchronize(stop));
  CHECK(cudaEventQuery(stop) == cudaSuccess, "event query after synchronize");
  CHECK(cudaStreamQuery(s[0]) == cudaSuccess, "stream query after its last event");
  float ms = -1;
  CUDA(cudaEventElapsedTime(&ms, start, stop));
  CHECK(ms >= 0.0f, "elapsed %g ms", ms);
  CHECK(g_order.size() == 3 && g_order[0] == 1 && g_order[1] == 2 && g_order[2] == 3,
        "host functions in stream order (%zu ran)", g_order.size());
  for (int i = 0; i < n; ++i) {
    float want = 0;
    for (int k = 0; k < streams; ++k) want += float((k * n + i) % 100) * float(k + 2) + 1.0f;
    CHECK(host[i] == want, "result[%d] %g vs %g", i, host[i], want);
  }
  // a blocking stream and the legacy default stream: work on the default stream waits for it
  cudaStream_t blocking;
  CUDA(cudaStreamCreate(&blocking));
  float *x;
  CUDA(cudaMalloc(&x, n * sizeof(float)));
  CUDA(cudaMemsetAsync(x, 0, n * sizeof(float), blocking));
  scale<<<4, 256, 0, blocking>>>(x, n, 1.0f);  // x = 1
  scale<<<4, 256>>>(x, n, 3.0f);               // default stream: x = 4
  CUDA(cudaMemcpy(host, x, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(host[i] == 4.0f, "legacy stream order [%d] %g", i, host[i]);
  // per-thread work submitted, then cudaStreamSynchronize on each
  for (int k = 0; k < streams; ++k) {
    scale<<<2, 64, 0, s[k]>>>(dev[k], n, 0.0f);
    CUDA(cudaStreamSynchronize(s[k]));
    CUDA(cudaMemcpy(host, dev[k], sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(host[0] == 1.0f, "stream %d synchronised", k);
    CUDA(cudaStreamDestroy(s[k]));
    CUDA(cudaFree(dev[k]));
  }
  CUDA(cudaStreamDestroy(blocking));
  CUDA(cudaFreeHost(host));
  return report("streams_events");
}
