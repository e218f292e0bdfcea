// A multi-threaded host, built with --default-stream per-thread: four std::threads share the
// device, each launching into its own per-thread default stream (cudaStreamPerThread) and into a
// stream of its own, copying through its own pinned buffer with cudaMemcpyAsync and polling
// cudaStreamQuery / cudaEventQuery until the work is done (the way a host overlaps CPU work
// with the GPU), while a device-wide counter is bumped by every thread's kernels. Then the
// legacy default stream (cudaStreamLegacy) is used explicitly, and events recorded in one host
// thread are waited on in another.
// nvcc: --default-stream per-thread
#include <atomic>
#include <thread>
#include <vector>
#include "check.h"

constexpr int THREADS = 4, N = 1 << 14, ROUNDS = 5;

__global__ void fill(int *p, int n, int base) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = base + i;
}
__global__ void square_add(int *p, int n, int add, unsigned long long *counter) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = (p[i] % 1000) * (p[i] % 1000) + add;
  if (threadIdx.x == 0) atomicAdd(counter, 1ull);
}

int main() {
  unsigned long long *counter;
  CUDA(cudaMalloc(&counter, 8));
  CUDA(cudaMemset(counter, 0, 8));
  std::vector<int> errors(THREADS, 0), polls(THREADS, 0);
  std::atomic<int> cuda_failures{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < THREADS; ++t) {
    pool.emplace_back([&, t] {
      auto ok = [&](cudaError_t e) {
        if (e != cudaSuccess) {
          std::printf("thread %d: %s\n", t, cudaGetErrorString(e));
          cuda_failures++;
        }
      };
      ok(cudaSetDevice(0));
      int *dev, *host;
      ok(cudaMalloc(&dev, N * 4));
      ok(cudaMallocHost(&host, N * 4));
      cudaStream_t own;
      ok(cudaStreamCreate(&own));
      cudaEvent_t done;
      ok(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
      for (int r = 0; r < ROUNDS; ++r) {
        int base = t * 100000 + r * 1000;
        // the per-thread default stream: <<<>>> without a stream goes there with this flag
        fill<<<16, 128>>>(dev, N, base);
        ok(cudaGetLastError());
        ok(cudaStreamSynchronize(cudaStreamPerThread));
        square_add<<<8, 256, 0, own>>>(dev, N, t + r, counter);
        ok(cudaGetLastError());
        ok(cudaMemcpyAsync(host, dev, N * 4, cudaMemcpyDeviceToHost, own));
        ok(cudaEventRecord(done, own));
        // poll, doing "host work" in between
        cudaError_t q;
        while ((q = cudaEventQuery(done)) == cudaErrorNotReady) {
          polls[t]++;
          std::this_thread::yield();
        }
        ok(q);
        while ((q = cudaStreamQuery(own)) == cudaErrorNotReady) std::this_thread::yield();
        ok(q);
        for (int i = 0; i < N; ++i) {
          int v = (base + i) % 1000;
          if (host[i] != v * v + t + r) errors[t]++;
        }
      }
      ok(cudaEventDestroy(done));
      ok(cudaStreamDestroy(own));
      ok(cudaFreeHost(host));
      ok(cudaFree(dev));
    });
  }
  for (auto &th : pool) th.join();
  CHECK(cuda_failures == 0, "%d CUDA calls failed in the host threads", cuda_failures.load());
  for (int t = 0; t < THREADS; ++t) CHECK(errors[t] == 0, "thread %d: %d wrong values", t, errors[t]);
  unsigned long long launched = 0;
  CUDA(cudaMemcpy(&launched, counter, 8, cudaMemcpyDeviceToHost));
  CHECK(launched == (unsigned long long)THREADS * ROUNDS * 8, "blocks counted %llu", launched);

  // an event recorded by one thread, waited for by a stream of another
  cudaEvent_t handoff;
  CUDA(cudaEventCreate(&handoff));
  int *shared_buf;
  CUDA(cudaMalloc(&shared_buf, N * 4));
  std::thread producer([&] {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    fill<<<32, 128, 0, s>>>(shared_buf, N, 7);
    cudaEventRecord(handoff, s);
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
  });
  producer.join();
  cudaStream_t consumer;
  CUDA(cudaStreamCreateWithFlags(&consumer, cudaStreamNonBlocking));
  CUDA(cudaStreamWaitEvent(consumer, handoff, 0));
  square_add<<<4, 256, 0, consumer>>>(shared_buf, N, 1, counter);
  CUDA(cudaStreamSynchronize(consumer));
  std::vector<int> got(N);
  // the legacy default stream, named explicitly
  CUDA(cudaMemcpyAsync(got.data(), shared_buf, N * 4, cudaMemcpyDeviceToHost, cudaStreamLegacy));
  CUDA(cudaStreamSynchronize(cudaStreamLegacy));
  int bad = 0;
  for (int i = 0; i < N; ++i) bad += got[i] != ((7 + i) % 1000) * ((7 + i) % 1000) + 1;
  CHECK(bad == 0, "handoff through an event: %d wrong", bad);
  CUDA(cudaStreamDestroy(consumer));
  CUDA(cudaEventDestroy(handoff));
  CUDA(cudaFree(shared_buf));
  CUDA(cudaFree(counter));
  return report("host_threads");
}
