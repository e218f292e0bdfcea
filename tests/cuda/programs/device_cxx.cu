// C++ in device code: a __device__ table of function pointers initialised at compile time
// (addresses of functions in a global initialiser), a dense switch (a jump table), CRTP static
// polymorphism, a variadic template sum, constexpr tables, unions reinterpreting bits,
// unsigned __int128 and __int128 multiply/divide/shift/compare, and deep recursion after
// cudaDeviceSetLimit(cudaLimitStackSize) (a recursive flood fill with a local array per call),
// each against the same code run on the host.
#include <cstdint>
#include <cstring>
#include <vector>
#include "check.h"

__host__ __device__ int op_add(int a, int b) { return a + b; }
__host__ __device__ int op_sub(int a, int b) { return a - b; }
__host__ __device__ int op_mul(int a, int b) { return a * b; }
__host__ __device__ int op_xor(int a, int b) { return a ^ b; }
__host__ __device__ int op_min(int a, int b) { return a < b ? a : b; }
typedef int (*BinaryOp)(int, int);
__host__ __device__ int op_max(int a, int b) { return a > b ? a : b; }
// A function pointer returned by a function.
__host__ __device__ BinaryOp op_max_or(int) { return op_max; }
__device__ BinaryOp device_ops[5] = {op_add, op_sub, op_mul, op_xor, op_min};
static BinaryOp host_ops[5] = {op_add, op_sub, op_mul, op_xor, op_min};

__host__ __device__ int dense_switch(int k, int x) {
  switch (k) {
  case 0: return x + 11;
  case 1: return x * 3;
  case 2: return x - 7;
  case 3: return x << 2;
  case 4: return x >> 1;
  case 5: return ~x;
  case 6: return x * x;
  case 7: return -x;
  case 8: return x | 0x100;
  case 9: return x & 0xff;
  case 10: return x % 13;
  case 11: return x / 3;
  default: return 0;
  }
}

template <typename Derived> struct Shape {
  __host__ __device__ float area() const { return static_cast<const Derived *>(this)->area_impl(); }
};
struct Square : Shape<Square> {
  float s;
  __host__ __device__ float area_impl() const { return s * s; }
};
struct Tri : Shape<Tri> {
  float b, h;
  __host__ __device__ float area_impl() const { return 0.5f * b * h; }
};
template <typename T> __host__ __device__ float area_of(const Shape<T> &s) { return s.area(); }

template <typename... T> __host__ __device__ long long sum_all(T... v) { return (0LL + ... + (long long)v); }

__host__ __device__ constexpr int square_at(int k) {
  constexpr int squares[8] = {0, 1, 4, 9, 16, 25, 36, 49};
  return squares[k];
}

union Bits {
  float f;
  uint32_t u;
  uint8_t bytes[4];
};

__host__ __device__ uint64_t wide_ops(uint64_t a, uint64_t b, int k) {
  unsigned __int128 p = (unsigned __int128)a * b;
  __int128 s = (__int128)(int64_t)a * (int64_t)(b | 1);
  unsigned __int128 q = p / (unsigned __int128)((b >> 3) | 1);
  unsigned __int128 r = p % ((unsigned __int128)a + 12345);
  __int128 sd = s / 977;
  uint64_t hi = (uint64_t)(p >> 64), lo = (uint64_t)p;
  uint64_t shifted = (uint64_t)(p >> (k % 100));
  return hi ^ (lo * 3) ^ (uint64_t)q ^ ((uint64_t)(q >> 64) << 7) ^ (uint64_t)r ^ (uint64_t)sd ^
         (uint64_t)(sd >> 64) ^ shifted ^ (uint64_t)(s < 0) ^ ((uint64_t)(p > (unsigned __int128)s) << 1);
}

__global__ void cxx(const int *in, const uint64_t *wa, const uint64_t *wb, int *out, uint64_t *wide, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = in[i];
  int *o = out + 8 * i;
  o[0] = device_ops[i % 5](x, i);
  o[1] = dense_switch(i % 13, x);
  Square sq;
  sq.s = float(x % 100);
  Tri tr;
  tr.b = float(i % 17);
  tr.h = float(x % 23);
  o[2] = int(area_of(sq) + area_of(tr) * 2.0f);
  o[3] = int(sum_all(x, i, 'a', short(-3), 7LL) % 1000000);
  o[4] = square_at(i % 8);
  Bits b;
  b.f = float(x) * 0.25f;
  o[5] = int(b.u >> 7) ^ b.bytes[i % 4];
  BinaryOp chosen = x & 1 ? op_max_or(0) : nullptr;
  o[6] = chosen ? chosen(x, i) : -1;
  o[7] = 0;
  wide[i] = wide_ops(wa[i], wb[i], i);
}

// Flood fill of a 2D grid from one cell, recursively, each frame holding a local buffer.
__device__ int fill(char *grid, int w, int h, int x, int y, int depth) {
  if (x < 0 || y < 0 || x >= w || y >= h || grid[y * w + x] != 0) return 0;
  volatile char frame[48];
  for (int k = 0; k < 48; ++k) frame[k] = char(depth + k);
  grid[y * w + x] = 2;
  int count = 1 + frame[depth % 48] * 0;
  count += fill(grid, w, h, x + 1, y, depth + 1);
  count += fill(grid, w, h, x, y + 1, depth + 1);
  count += fill(grid, w, h, x - 1, y, depth + 1);
  count += fill(grid, w, h, x, y - 1, depth + 1);
  return count;
}
__global__ void flood(char *grid, int w, int h, int *count) { *count = fill(grid, w, h, 0, 0, 0); }

int main() {
  const int n = 1000;
  unsigned seed = 31;
  std::vector<int> in(n);
  std::vector<uint64_t> wa(n), wb(n);
  for (int i = 0; i < n; ++i) {
    in[i] = int(lcg(seed) % 20001) - 10000;
    wa[i] = (uint64_t)lcg(seed) << 32 | lcg(seed);
    wb[i] = ((uint64_t)lcg(seed) << 32 | lcg(seed)) >> (lcg(seed) % 64);
  }
  int *din, *dout;
  uint64_t *dwa, *dwb, *dwide;
  CUDA(cudaMalloc(&din, n * 4));
  CUDA(cudaMalloc(&dout, n * 8 * 4));
  CUDA(cudaMalloc(&dwa, n * 8));
  CUDA(cudaMalloc(&dwb, n * 8));
  CUDA(cudaMalloc(&dwide, n * 8));
  CUDA(cudaMemcpy(din, in.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(dwa, wa.data(), n * 8, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(dwb, wb.data(), n * 8, cudaMemcpyHostToDevice));
  cxx<<<(n + 127) / 128, 128>>>(din, dwa, dwb, dout, dwide, n);
  CUDA(cudaGetLastError());
  std::vector<int> out(n * 8);
  std::vector<uint64_t> wide(n);
  CUDA(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(wide.data(), dwide, n * 8, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    int x = in[i];
    const int *o = &out[8 * i];
    CHECK(o[0] == host_ops[i % 5](x, i), "function table %d: %d", i, o[0]);
    CHECK(o[1] == dense_switch(i % 13, x), "switch %d: %d", i, o[1]);
    Square sq;
    sq.s = float(x % 100);
    Tri tr;
    tr.b = float(i % 17);
    tr.h = float(x % 23);
    CHECK(o[2] == int(area_of(sq) + area_of(tr) * 2.0f), "CRTP %d: %d", i, o[2]);
    CHECK(o[3] == int(sum_all(x, i, 'a', short(-3), 7LL) % 1000000), "variadic %d: %d", i, o[3]);
    CHECK(o[4] == (i % 8) * (i % 8), "constexpr table %d", i);
    Bits b;
    b.f = float(x) * 0.25f;
    CHECK(o[5] == (int(b.u >> 7) ^ b.bytes[i % 4]), "union %d: %d", i, o[5]);
    CHECK(o[6] == (x & 1 ? (x > i ? x : i) : -1), "function pointer from a function %d: %d", i, o[6]);
    CHECK(wide[i] == wide_ops(wa[i], wb[i], i), "__int128 %d: %016llx want %016llx", i,
          (unsigned long long)wide[i], (unsigned long long)wide_ops(wa[i], wb[i], i));
  }

  // Deep recursion: a 40x40 grid with a wall makes paths hundreds of calls deep.
  const int w = 40, h = 40;
  std::vector<char> grid(w * h, 0);
  for (int y = 0; y < h - 2; ++y) grid[y * w + 20] = 1;
  int open = 0;
  for (char c : grid) open += c == 0;
  CUDA(cudaDeviceSetLimit(cudaLimitStackSize, 256 * 1024));
  size_t stack = 0;
  CUDA(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
  CHECK(stack >= 256 * 1024, "stack size %zu", stack);
  char *dgrid;
  int *dcount;
  CUDA(cudaMalloc(&dgrid, w * h));
  CUDA(cudaMalloc(&dcount, 4));
  CUDA(cudaMemcpy(dgrid, grid.data(), w * h, cudaMemcpyHostToDevice));
  flood<<<1, 1>>>(dgrid, w, h, dcount);
  CUDA(cudaGetLastError());
  CUDA(cudaDeviceSynchronize());
  int count = 0;
  CUDA(cudaMemcpy(&count, dcount, 4, cudaMemcpyDeviceToHost));
  CHECK(count == open, "flood fill reached %d cells, want %d", count, open);
  return report("device_cxx");
}
