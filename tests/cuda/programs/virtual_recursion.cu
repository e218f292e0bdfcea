// C++ in device code: classes with virtual functions created in a kernel (placement new into
// device memory) and called through base pointers in a later kernel, an abstract base, virtual
// destructors, recursion (Fibonacci, Ackermann-like depth, a recursive quicksort on a small
// array, mutual recursion), function pointers, and templates with static dispatch.
#include <algorithm>
#include <new>
#include <vector>
#include "check.h"

struct Shape {
  __device__ virtual ~Shape() {}
  __device__ virtual float area() const = 0;
  __device__ virtual int sides() const { return 0; }
};
struct Rect : Shape {
  float w, h;
  __device__ Rect(float w_, float h_) : w(w_), h(h_) {}
  __device__ float area() const override { return w * h; }
  __device__ int sides() const override { return 4; }
};
struct Tri : Shape {
  float b, h;
  __device__ Tri(float b_, float h_) : b(b_), h(h_) {}
  __device__ float area() const override { return 0.5f * b * h; }
  __device__ int sides() const override { return 3; }
};
struct Square : Rect {
  __device__ explicit Square(float s) : Rect(s, s) {}
  __device__ int sides() const override { return 40; }  // overridden again
};

constexpr int SLOT = 32;
__global__ void build(char *storage, Shape **shapes, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  void *at = storage + i * SLOT;
  Shape *s;
  switch (i % 3) {
    case 0: s = new (at) Rect(float(i), 2.0f); break;
    case 1: s = new (at) Tri(float(i), 4.0f); break;
    default: s = new (at) Square(float(i % 7)); break;
  }
  shapes[i] = s;
}
__global__ void use(Shape **shapes, float *area, int *sides, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  area[i] = shapes[i]->area();
  sides[i] = shapes[i]->sides();
  shapes[i]->~Shape();
}

__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ bool is_odd(int n);
__device__ bool is_even(int n) { return n == 0 ? true : is_odd(n - 1); }
__device__ bool is_odd(int n) { return n == 0 ? false : is_even(n - 1); }
__device__ void quicksort(int *a, int lo, int hi) {
  if (lo >= hi) return;
  int p = a[(lo + hi) / 2], i = lo, j = hi;
  while (i <= j) {
    while (a[i] < p) ++i;
    while (a[j] > p) --j;
    if (i <= j) {
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
      ++i;
      --j;
    }
  }
  quicksort(a, lo, j);
  quicksort(a, i, hi);
}
__device__ int twice(int x) { return 2 * x; }
__device__ int square(int x) { return x * x; }
typedef int (*unary)(int);
__device__ unary g_ops[2] = {twice, square};

template <int N>
__device__ int unrolled_sum(const int *a) {
  return a[N - 1] + unrolled_sum<N - 1>(a);
}
template <>
__device__ int unrolled_sum<0>(const int *) {
  return 0;
}

__global__ void recursion(int *out, int *arrays, int len) {
  int t = threadIdx.x;
  out[4 * t + 0] = fib(t % 16);
  out[4 * t + 1] = is_even(t * 3);
  quicksort(arrays + t * len, 0, len - 1);
  out[4 * t + 2] = g_ops[t & 1](t);
  out[4 * t + 3] = unrolled_sum<8>(arrays + t * len);
}

int main() {
  const int n = 300;
  char *storage;
  Shape **shapes;
  float *area;
  int *sides;
  CUDA(cudaMalloc(&storage, n * SLOT));
  CUDA(cudaMalloc(&shapes, n * sizeof(Shape *)));
  CUDA(cudaMalloc(&area, n * 4));
  CUDA(cudaMalloc(&sides, n * 4));
  build<<<(n + 63) / 64, 64>>>(storage, shapes, n);
  use<<<(n + 63) / 64, 64>>>(shapes, area, sides, n);
  CUDA(cudaDeviceSynchronize());
  std::vector<float> ga(n);
  std::vector<int> gs(n);
  CUDA(cudaMemcpy(ga.data(), area, n * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(gs.data(), sides, n * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    float a = i % 3 == 0 ? float(i) * 2.0f : i % 3 == 1 ? 0.5f * float(i) * 4.0f : float(i % 7) * float(i % 7);
    int s = i % 3 == 0 ? 4 : i % 3 == 1 ? 3 : 40;
    CHECK(ga[i] == a && gs[i] == s, "shape %d: %g %d vs %g %d", i, ga[i], gs[i], a, s);
  }
  const int threads = 64, len = 40;
  std::vector<int> arrays(threads * len);
  unsigned seed = 4;
  for (auto &x : arrays) x = int(lcg(seed) % 1000);
  int *darr, *out;
  CUDA(cudaMalloc(&darr, arrays.size() * 4));
  CUDA(cudaMalloc(&out, 4 * threads * 4));
  CUDA(cudaMemcpy(darr, arrays.data(), arrays.size() * 4, cudaMemcpyHostToDevice));
  CUDA(cudaDeviceSetLimit(cudaLimitStackSize, 8192));
  recursion<<<1, threads>>>(out, darr, len);
  CUDA(cudaDeviceSynchronize());
  std::vector<int> go(4 * threads), garr(arrays.size());
  CUDA(cudaMemcpy(go.data(), out, go.size() * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(garr.data(), darr, garr.size() * 4, cudaMemcpyDeviceToHost));
  int f[16] = {0, 1};
  for (int k = 2; k < 16; ++k) f[k] = f[k - 1] + f[k - 2];
  for (int t = 0; t < threads; ++t) {
    std::vector<int> sorted(arrays.begin() + t * len, arrays.begin() + (t + 1) * len);
    std::sort(sorted.begin(), sorted.end());
    int s8 = 0;
    for (int k = 0; k < 8; ++k) s8 += sorted[k];
    CHECK(go[4 * t] == f[t % 16], "fib %d", t);
    CHECK(go[4 * t + 1] == ((t * 3) % 2 == 0), "mutual recursion %d", t);
    CHECK(go[4 * t + 2] == ((t & 1) ? t * t : 2 * t), "function pointer %d", t);
    CHECK(go[4 * t + 3] == s8, "template recursion %d", t);
    CHECK(std::equal(sorted.begin(), sorted.end(), garr.begin() + t * len), "quicksort %d", t);
  }
  return report("virtual_recursion");
}
