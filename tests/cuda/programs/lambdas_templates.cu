// Modern C++ in kernels: extended __device__ lambdas passed to a templated launcher (--extended-lambda),
// generic lambdas, capture by value of host data, constexpr and if constexpr, variadic templates,
// a kernel template over types and block sizes, dynamic shared memory typed through a template
// (extern __shared__ with alignment), static shared memory sized by a template parameter, and
// structured bindings.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>
#include "check.h"

template <typename F>
__global__ void for_each_index(int n, F f) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) f(i);
}
template <typename F>
void parallel_for(int n, F f) {
  for_each_index<<<(n + 255) / 256, 256>>>(n, f);
}

template <typename T>
struct SharedMemory {
  __device__ T *get() {
    extern __shared__ __align__(16) unsigned char raw[];
    return reinterpret_cast<T *>(raw);
  }
};

// block-wide sum of T through dynamic shared memory; BLOCK also sizes a static array
template <typename T, int BLOCK>
__global__ void block_sum(const T *in, T *out, int n) {
  static_assert((BLOCK & (BLOCK - 1)) == 0, "power of two");
  __shared__ int visits[BLOCK];
  T *s = SharedMemory<T>().get();
  int i = blockIdx.x * BLOCK + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : T(0);
  visits[threadIdx.x] = 1;
  __syncthreads();
  for (int step = BLOCK / 2; step > 0; step /= 2) {
    if (threadIdx.x < step) {
      s[threadIdx.x] += s[threadIdx.x + step];
      visits[threadIdx.x] += visits[threadIdx.x + step];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    if constexpr (std::is_floating_point_v<T>)
      out[blockIdx.x] = s[0] * T(1);
    else
      out[blockIdx.x] = s[0] + T(visits[0] - BLOCK);  // visits[0] == BLOCK
  }
}

template <typename... Ts>
__device__ constexpr auto sum_all(Ts... xs) {
  return (xs + ... + 0);
}
__host__ __device__ constexpr int cube(int x) { return x * x * x; }

struct Pair {
  int a;
  float b;
};

template <typename T, int BLOCK>
std::vector<T> run_block_sum(const std::vector<T> &h) {
  int n = int(h.size()), blocks = (n + BLOCK - 1) / BLOCK;
  T *in, *out;
  CUDA(cudaMalloc(&in, n * sizeof(T)));
  CUDA(cudaMalloc(&out, blocks * sizeof(T)));
  CUDA(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  block_sum<T, BLOCK><<<blocks, BLOCK, BLOCK * sizeof(T)>>>(in, out, n);
  std::vector<T> got(blocks);
  CUDA(cudaMemcpy(got.data(), out, blocks * sizeof(T), cudaMemcpyDeviceToHost));
  cudaFree(in);
  cudaFree(out);
  return got;
}

int main() {
  const int n = 5000;
  float *x, *y;
  CUDA(cudaMalloc(&x, n * 4));
  CUDA(cudaMalloc(&y, n * 4));
  float a = 2.5f;
  parallel_for(n, [=] __device__(int i) {
    x[i] = float(i);
    y[i] = 1.0f;
  });
  parallel_for(n, [=] __device__(int i) { y[i] = a * x[i] + y[i]; });
  int *z;
  CUDA(cudaMalloc(&z, n * 4));
  auto generic = [=] __device__(auto v) { return v * 2 + sum_all(1, 2, 3); };
  parallel_for(n, [=] __device__(int i) {
    Pair p{i, 0.5f};
    auto [pa, pb] = p;
    z[i] = generic(pa) + int(pb * 2) + cube(3);
  });
  std::vector<float> gy(n);
  std::vector<int> gz(n);
  CUDA(cudaMemcpy(gy.data(), y, n * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(gz.data(), z, n * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    CHECK(gy[i] == a * float(i) + 1.0f, "saxpy lambda [%d]", i);
    CHECK(gz[i] == 2 * i + 6 + 1 + 27, "generic lambda [%d] %d", i, gz[i]);
  }
  std::vector<int> hi(n);
  std::vector<double> hd(n);
  for (int i = 0; i < n; ++i) {
    hi[i] = (i * 37) % 101 - 50;
    hd[i] = i * 0.25;
  }
  auto si = run_block_sum<int, 128>(hi);
  auto sd = run_block_sum<double, 256>(hd);
  for (size_t b = 0; b < si.size(); ++b) {
    int want = 0;
    for (int i = int(b) * 128; i < std::min(n, int(b + 1) * 128); ++i) want += hi[i];
    CHECK(si[b] == want, "int block %zu: %d vs %d", b, si[b], want);
  }
  for (size_t b = 0; b < sd.size(); ++b) {
    double want = 0;
    for (int i = int(b) * 256; i < std::min(n, int(b + 1) * 256); ++i) want += hd[i];
    CHECK(sd[b] == want, "double block %zu: %g vs %g", b, sd[b], want);
  }
  return report("lambdas_templates");
}
