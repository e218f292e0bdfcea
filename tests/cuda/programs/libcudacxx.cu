// libcu++: cuda::std::atomic and cuda::atomic_ref (fetch_add, CAS loops, min/max), a
// cuda::barrier in shared memory, cuda::memcpy_async with a cuda::pipeline (double buffering),
// cuda::std::complex arithmetic, cuda::std::array/tuple/optional and numeric_limits.
#include <cuda/atomic>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda/std/array>
#include <cuda/std/complex>
#include <cuda/std/limits>
#include <cuda/std/optional>
#include <cuda/std/tuple>
#include <complex>
#include <cooperative_groups.h>
#include <vector>
#include "check.h"

namespace cg = cooperative_groups;

__global__ void atomics(cuda::std::atomic<int> *counter, int *plain, unsigned long long *big,
                        float *fsum, int *order) {
  int slot = counter->fetch_add(1, cuda::std::memory_order_relaxed);
  order[slot] = 1;
  cuda::atomic_ref<int, cuda::thread_scope_device> ref(plain[0]);
  ref.fetch_add(2);
  cuda::atomic_ref<int, cuda::thread_scope_device> mx(plain[1]);
  mx.fetch_max(int(threadIdx.x + blockIdx.x * blockDim.x));
  cuda::atomic_ref<int, cuda::thread_scope_device> mn(plain[2]);
  mn.fetch_min(-int(threadIdx.x));
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> b(*big);
  unsigned long long expected = b.load();
  while (!b.compare_exchange_weak(expected, expected + (1ull << 33))) {
  }
  cuda::atomic_ref<float, cuda::thread_scope_device> f(*fsum);
  f.fetch_add(0.5f);
}

__global__ void barrier_kernel(int *out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ int stage[256];
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  stage[threadIdx.x] = threadIdx.x * 3;
  bar.arrive_and_wait();
  int v = stage[(threadIdx.x + 1) % blockDim.x];
  bar.arrive_and_wait();
  stage[threadIdx.x] = v + 1;
  auto token = bar.arrive();
  bar.wait(cuda::std::move(token));
  out[threadIdx.x] = stage[(threadIdx.x + 2) % blockDim.x];
}

// Sums chunks of `in` staged through shared memory with memcpy_async, two stages in flight.
__global__ void pipeline_kernel(const float *in, float *out, int chunks) {
  constexpr int CHUNK = 128, STAGES = 2;
  __shared__ float buffer[STAGES][CHUNK];
  auto block = cg::this_thread_block();
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
  auto pipe = cuda::make_pipeline(block, &state);
  float acc = 0;
  int fetch = 0;
  for (int c = 0; c < chunks; ++c) {
    for (; fetch < chunks && fetch < c + STAGES; ++fetch) {
      pipe.producer_acquire();
      cuda::memcpy_async(block, buffer[fetch % STAGES], in + fetch * CHUNK, sizeof(float) * CHUNK, pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    acc += buffer[c % STAGES][threadIdx.x] * float(c + 1);
    pipe.consumer_release();
  }
  out[threadIdx.x] = acc;
}

// memcpy_async with a cuda::barrier as the completion mechanism.
__global__ void barrier_copy(const int *in, int *out, int n) {
  extern __shared__ int smem[];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, smem, in, sizeof(int) * n, bar);
  bar.arrive_and_wait();
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = smem[n - 1 - i] * 2;
}

__global__ void complex_kernel(const cuda::std::complex<double> *a, const cuda::std::complex<double> *b,
                               cuda::std::complex<double> *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  auto x = a[i], y = b[i];
  out[4 * i + 0] = x * y + x;
  out[4 * i + 1] = x / y;
  out[4 * i + 2] = cuda::std::complex<double>(cuda::std::abs(x), cuda::std::arg(y));
  out[4 * i + 3] = cuda::std::conj(x) * cuda::std::polar(1.0, 0.25);
}

__global__ void misc_kernel(int *out) {
  cuda::std::array<int, 4> arr{1, 2, 3, 4};
  int s = 0;
  for (int v : arr) s += v;
  auto t = cuda::std::make_tuple(7, 2.5f, 'c');
  cuda::std::optional<int> none, some(42);
  out[0] = s;
  out[1] = cuda::std::get<0>(t) + int(cuda::std::get<1>(t) * 2) + cuda::std::get<2>(t);
  out[2] = none.value_or(-1) + some.value_or(-1);
  out[3] = cuda::std::numeric_limits<int>::max();
  out[4] = cuda::std::numeric_limits<float>::digits;
}

int main() {
  {
    const int blocks = 8, threads = 128, n = blocks * threads;
    cuda::std::atomic<int> *counter;
    int *plain, *order;
    unsigned long long *big;
    float *fsum;
    CUDA(cudaMalloc(&counter, sizeof(*counter)));
    CUDA(cudaMemset(counter, 0, sizeof(*counter)));
    CUDA(cudaMalloc(&plain, 3 * 4));
    int init_plain[3] = {0, -1, 0};
    CUDA(cudaMemcpy(plain, init_plain, 12, cudaMemcpyHostToDevice));
    CUDA(cudaMalloc(&order, n * 4));
    CUDA(cudaMemset(order, 0, n * 4));
    CUDA(cudaMalloc(&big, 8));
    CUDA(cudaMemset(big, 0, 8));
    CUDA(cudaMalloc(&fsum, 4));
    CUDA(cudaMemset(fsum, 0, 4));
    atomics<<<blocks, threads>>>(counter, plain, big, fsum, order);
    CUDA(cudaDeviceSynchronize());
    int c, p[3];
    unsigned long long bg;
    float fs;
    std::vector<int> ord(n);
    CUDA(cudaMemcpy(&c, counter, 4, cudaMemcpyDeviceToHost));
    CUDA(cudaMemcpy(p, plain, 12, cudaMemcpyDeviceToHost));
    CUDA(cudaMemcpy(&bg, big, 8, cudaMemcpyDeviceToHost));
    CUDA(cudaMemcpy(&fs, fsum, 4, cudaMemcpyDeviceToHost));
    CUDA(cudaMemcpy(ord.data(), order, n * 4, cudaMemcpyDeviceToHost));
    CHECK(c == n, "atomic counter %d", c);
    CHECK(p[0] == 2 * n, "atomic_ref add %d", p[0]);
    CHECK(p[1] == n - 1, "fetch_max %d", p[1]);
    CHECK(p[2] == -(threads - 1), "fetch_min %d", p[2]);
    CHECK(bg == (unsigned long long)n << 33, "CAS loop %llu", bg);
    CHECK(fs == 0.5f * n, "float fetch_add %g", fs);
    int slots = 0;
    for (int v : ord) slots += v;
    CHECK(slots == n, "every slot taken once: %d", slots);
  }
  {
    const int threads = 256;
    int *out;
    CUDA(cudaMalloc(&out, threads * 4));
    barrier_kernel<<<1, threads>>>(out);
    CUDA(cudaDeviceSynchronize());
    std::vector<int> got(threads);
    CUDA(cudaMemcpy(got.data(), out, threads * 4, cudaMemcpyDeviceToHost));
    for (int t = 0; t < threads; ++t) {
      int j = (t + 2) % threads;  // stage[j] = (stage_old[(j+1)%n]) + 1
      int want = ((j + 1) % threads) * 3 + 1;
      CHECK(got[t] == want, "barrier[%d] %d vs %d", t, got[t], want);
    }
  }
  {
    const int chunks = 6, chunk = 128;
    std::vector<float> h(chunks * chunk);
    for (size_t i = 0; i < h.size(); ++i) h[i] = float(i % 17) * 0.25f;
    float *in, *out;
    CUDA(cudaMalloc(&in, h.size() * 4));
    CUDA(cudaMalloc(&out, chunk * 4));
    CUDA(cudaMemcpy(in, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
    pipeline_kernel<<<1, chunk>>>(in, out, chunks);
    CUDA(cudaDeviceSynchronize());
    std::vector<float> got(chunk);
    CUDA(cudaMemcpy(got.data(), out, chunk * 4, cudaMemcpyDeviceToHost));
    for (int t = 0; t < chunk; ++t) {
      float want = 0;
      for (int c = 0; c < chunks; ++c) want += h[c * chunk + t] * float(c + 1);
      CHECK(got[t] == want, "pipeline[%d] %g vs %g", t, got[t], want);
    }
  }
  {
    const int n = 1000;
    std::vector<int> h(n);
    for (int i = 0; i < n; ++i) h[i] = i * 7 - 3;
    int *in, *out;
    CUDA(cudaMalloc(&in, n * 4));
    CUDA(cudaMalloc(&out, n * 4));
    CUDA(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
    barrier_copy<<<1, 96, n * 4>>>(in, out, n);
    CUDA(cudaDeviceSynchronize());
    std::vector<int> got(n);
    CUDA(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) CHECK(got[i] == h[n - 1 - i] * 2, "barrier copy[%d]", i);
  }
  {
    const int n = 64;
    std::vector<cuda::std::complex<double>> a(n), b(n);
    for (int i = 0; i < n; ++i) {
      a[i] = {0.5 * i - 7, 1.25 + i % 5};
      b[i] = {1.0 + i % 3, -0.75 * i + 2};
    }
    cuda::std::complex<double> *da, *db, *dout;
    CUDA(cudaMalloc(&da, n * 16));
    CUDA(cudaMalloc(&db, n * 16));
    CUDA(cudaMalloc(&dout, 4 * n * 16));
    CUDA(cudaMemcpy(da, a.data(), n * 16, cudaMemcpyHostToDevice));
    CUDA(cudaMemcpy(db, b.data(), n * 16, cudaMemcpyHostToDevice));
    complex_kernel<<<2, 32>>>(da, db, dout, n);
    CUDA(cudaDeviceSynchronize());
    std::vector<cuda::std::complex<double>> got(4 * n);
    CUDA(cudaMemcpy(got.data(), dout, 4 * n * 16, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
      std::complex<double> x(a[i].real(), a[i].imag()), y(b[i].real(), b[i].imag());
      std::complex<double> want[4] = {x * y + x, x / y, {std::abs(x), std::arg(y)},
                                      std::conj(x) * std::polar(1.0, 0.25)};
      for (int k = 0; k < 4; ++k)
        CHECK(close_to(got[4 * i + k].real(), want[k].real(), 1e-13, 1e-13) &&
                  close_to(got[4 * i + k].imag(), want[k].imag(), 1e-13, 1e-13),
              "complex op %d of %d: (%g,%g) vs (%g,%g)", k, i, got[4 * i + k].real(),
              got[4 * i + k].imag(), want[k].real(), want[k].imag());
    }
  }
  {
    int *out;
    CUDA(cudaMalloc(&out, 5 * 4));
    misc_kernel<<<1, 1>>>(out);
    CUDA(cudaDeviceSynchronize());
    int got[5];
    CUDA(cudaMemcpy(got, out, 20, cudaMemcpyDeviceToHost));
    CHECK(got[0] == 10 && got[1] == 7 + 5 + 'c' && got[2] == 41 && got[3] == 2147483647 && got[4] == 24,
          "misc %d %d %d %d %d", got[0], got[1], got[2], got[3], got[4]);
  }
  return report("libcudacxx");
}
