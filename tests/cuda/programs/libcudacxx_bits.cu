// libcu++ in device code beyond the atomics and pipelines of libcudacxx: cuda::std::bit
// functions (popcount, countl_zero/one, countr_zero, bit_width, bit_ceil, bit_floor,
// has_single_bit, rotl/rotr, bit_cast), cuda::std::span, cuda::std::numeric_limits of eight types,
// cuda::std::counting_semaphore limiting a critical section, cuda::std::latch (count_down,
// wait), cuda::std::variant with visit, cuda::std::pair/minmax/clamp, cuda::atomic_ref with
// block scope on shared memory and cuda::atomic_thread_fence; each compared with the host's
// <bit>-free reference loops or the values the C++ standard defines.
#include <cuda/atomic>
#include <cuda/std/bit>
#include <cuda/std/latch>
#include <cuda/std/limits>
#include <cuda/std/semaphore>
#include <cuda/std/span>
#include <cuda/std/utility>
#include <cuda/std/variant>
#include <cuda/std/algorithm>
#include <cfloat>
#include <climits>
#include <cstdint>
#include <cstring>
#include <vector>
#include "check.h"

constexpr int BITS = 12;

__global__ void bits(const unsigned *in, const unsigned long long *in64, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = in[i];
  unsigned long long y = in64[i];
  unsigned *o = out + BITS * i;
  o[0] = cuda::std::popcount(x);
  o[1] = cuda::std::countl_zero(x);
  o[2] = cuda::std::countl_one(x);
  o[3] = cuda::std::countr_zero(x);
  o[4] = cuda::std::bit_width(x);
  o[5] = cuda::std::bit_floor(x);
  o[6] = x <= 0x80000000u ? cuda::std::bit_ceil(x) : 0;
  o[7] = cuda::std::has_single_bit(x);
  o[8] = cuda::std::rotl(x, i % 37 - 5);
  o[9] = cuda::std::rotr(x, i % 11);
  o[10] = unsigned(cuda::std::popcount(y) + 100 * cuda::std::countr_zero(y));
  o[11] = cuda::std::bit_cast<unsigned>(float(int(x & 0xffff)) * 0.5f);
}

struct Limits {
  int i_max, i_min;
  long long ll_min;
  unsigned u_max;
  float f_max, f_min, f_lowest, f_eps, f_inf, f_denorm;
  double d_max, d_eps, d_min;
  short s_min;
  signed char c_min;
  int f_digits, d_digits10;
  bool f_has_nan, i_signed;
};

__global__ void limits(Limits *out) {
  using namespace cuda::std;
  Limits l;
  l.i_max = numeric_limits<int>::max();
  l.i_min = numeric_limits<int>::min();
  l.ll_min = numeric_limits<long long>::min();
  l.u_max = numeric_limits<unsigned>::max();
  l.f_max = numeric_limits<float>::max();
  l.f_min = numeric_limits<float>::min();
  l.f_lowest = numeric_limits<float>::lowest();
  l.f_eps = numeric_limits<float>::epsilon();
  l.f_inf = numeric_limits<float>::infinity();
  l.f_denorm = numeric_limits<float>::denorm_min();
  l.d_max = numeric_limits<double>::max();
  l.d_eps = numeric_limits<double>::epsilon();
  l.d_min = numeric_limits<double>::min();
  l.s_min = numeric_limits<short>::min();
  l.c_min = numeric_limits<signed char>::min();
  l.f_digits = numeric_limits<float>::digits;
  l.d_digits10 = numeric_limits<double>::digits10;
  l.f_has_nan = numeric_limits<float>::has_quiet_NaN;
  l.i_signed = numeric_limits<int>::is_signed;
  *out = l;
}

// At most 3 threads of the block inside at once, counted with a block-scope atomic_ref.
__global__ void semaphore(int *max_inside, int *total) {
  __shared__ cuda::std::counting_semaphore<3> *sem_ptr;
  __shared__ alignas(cuda::std::counting_semaphore<3>) unsigned char sem_storage[sizeof(cuda::std::counting_semaphore<3>)];
  __shared__ int inside, peak, sum;
  if (threadIdx.x == 0) {
    sem_ptr = new (sem_storage) cuda::std::counting_semaphore<3>(3);
    inside = peak = sum = 0;
  }
  __syncthreads();
  cuda::atomic_ref<int, cuda::thread_scope_block> in(inside), pk(peak), sm(sum);
  for (int round = 0; round < 2; ++round) {
    sem_ptr->acquire();
    int now = in.fetch_add(1) + 1;
    pk.fetch_max(now);
    sm.fetch_add(int(threadIdx.x));
    cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_block);
    in.fetch_sub(1);
    sem_ptr->release();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    *max_inside = peak;
    *total = sum;
  }
}

// Every thread counts down a latch, waits for it, then reads what all threads wrote before.
__global__ void latch(int *out) {
  __shared__ alignas(cuda::std::latch) unsigned char storage[sizeof(cuda::std::latch)];
  __shared__ int values[128];
  auto *l = reinterpret_cast<cuda::std::latch *>(storage);
  if (threadIdx.x == 0) new (l) cuda::std::latch(blockDim.x);
  __syncthreads();
  values[threadIdx.x] = int(threadIdx.x) * 3;
  l->arrive_and_wait();
  out[threadIdx.x] = values[(threadIdx.x + 1) % blockDim.x];
}

using Shape = cuda::std::variant<int, float, cuda::std::pair<int, int>>;
struct Area {
  __device__ float operator()(int side) const { return float(side * side); }
  __device__ float operator()(float radius) const { return 3.0f * radius * radius; }
  __device__ float operator()(cuda::std::pair<int, int> r) const { return float(r.first * r.second); }
};

__global__ void variants_spans(const int *data, int n, float *areas, int *span_out) {
  int i = threadIdx.x;
  Shape s;
  if (i % 3 == 0) s = i;
  else if (i % 3 == 1) s = float(i) * 0.5f;
  else s = cuda::std::make_pair(i, i + 1);
  areas[i] = cuda::std::visit(Area{}, s) + float(s.index()) * 1000.0f;
  cuda::std::span<const int> all(data, n);
  auto window = all.subspan(i, 4);
  int sum = 0;
  for (int v : window) sum += v;
  auto mm = cuda::std::minmax(window[0], window[3]);
  span_out[i] = sum * 1000 + cuda::std::clamp(mm.second - mm.first, 0, 999);
}

int main() {
  const int n = 1000;
  unsigned seed = 11;
  std::vector<unsigned> in(n);
  std::vector<unsigned long long> in64(n);
  for (int i = 0; i < n; ++i) {
    in[i] = lcg(seed) >> (lcg(seed) % 32);
    in64[i] = ((unsigned long long)lcg(seed) << 32 | lcg(seed)) << (lcg(seed) % 40);
  }
  in[0] = 0; in[1] = 1; in[2] = 0x80000000u; in[3] = 0xffffffffu; in[4] = 64; in64[0] = 0;
  unsigned *din, *dout;
  unsigned long long *din64;
  CUDA(cudaMalloc(&din, n * 4));
  CUDA(cudaMalloc(&din64, n * 8));
  CUDA(cudaMalloc(&dout, n * BITS * 4));
  CUDA(cudaMemcpy(din, in.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(din64, in64.data(), n * 8, cudaMemcpyHostToDevice));
  bits<<<(n + 127) / 128, 128>>>(din, din64, dout, n);
  CUDA(cudaGetLastError());
  std::vector<unsigned> out(n * BITS);
  CUDA(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    unsigned x = in[i];
    unsigned pop = 0, clz = 0, clo = 0, ctz = 0;
    for (int b = 0; b < 32; ++b) pop += (x >> b) & 1;
    while (clz < 32 && !((x >> (31 - clz)) & 1)) ++clz;
    while (clo < 32 && ((x >> (31 - clo)) & 1)) ++clo;
    while (ctz < 32 && !((x >> ctz) & 1)) ++ctz;
    unsigned width = 32 - clz;
    unsigned floor = x ? 1u << (width - 1) : 0;
    unsigned ceil = x <= 1 ? 1 : (x <= 0x80000000u ? (floor == x ? x : floor << 1) : 0);
    int l = (i % 37 - 5) % 32;
    unsigned sl = unsigned((l + 32) % 32);
    unsigned rotl = sl ? (x << sl | x >> (32 - sl)) : x;
    unsigned sr = unsigned(i % 11);
    unsigned rotr = sr ? (x >> sr | x << (32 - sr)) : x;
    unsigned long long y = in64[i];
    unsigned pop64 = 0, ctz64 = 0;
    for (int b = 0; b < 64; ++b) pop64 += (y >> b) & 1;
    while (ctz64 < 64 && !((y >> ctz64) & 1)) ++ctz64;
    float f = float(int(x & 0xffff)) * 0.5f;
    unsigned fbits;
    std::memcpy(&fbits, &f, 4);
    unsigned want[BITS] = {pop, clz, clo, ctz, width, floor, ceil, unsigned(pop == 1), rotl, rotr,
                           pop64 + 100 * ctz64, fbits};
    for (int k = 0; k < BITS; ++k)
      CHECK(out[i * BITS + k] == want[k], "bit function %d of %08x: %u, want %u", k, x, out[i * BITS + k], want[k]);
  }

  Limits *dl;
  CUDA(cudaMalloc(&dl, sizeof(Limits)));
  limits<<<1, 1>>>(dl);
  Limits l;
  CUDA(cudaMemcpy(&l, dl, sizeof l, cudaMemcpyDeviceToHost));
  CHECK(l.i_max == INT_MAX && l.i_min == INT_MIN && l.ll_min == LLONG_MIN && l.u_max == UINT_MAX, "integer limits");
  CHECK(l.f_max == FLT_MAX && l.f_min == FLT_MIN && l.f_lowest == -FLT_MAX && l.f_eps == FLT_EPSILON, "float limits");
  CHECK(std::isinf(l.f_inf) && l.f_denorm == std::ldexp(1.0f, -149), "float infinity and denorm_min");
  CHECK(l.d_max == DBL_MAX && l.d_eps == DBL_EPSILON && l.d_min == DBL_MIN, "double limits");
  CHECK(l.s_min == SHRT_MIN && l.c_min == SCHAR_MIN && l.f_digits == FLT_MANT_DIG && l.d_digits10 == DBL_DIG,
        "short/char limits and digits");
  CHECK(l.f_has_nan && l.i_signed, "traits");

  int *dmax, *dtotal;
  CUDA(cudaMalloc(&dmax, 4));
  CUDA(cudaMalloc(&dtotal, 4));
  semaphore<<<1, 64>>>(dmax, dtotal);
  CUDA(cudaGetLastError());
  int peak = 0, total = 0;
  CUDA(cudaMemcpy(&peak, dmax, 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(&total, dtotal, 4, cudaMemcpyDeviceToHost));
  CHECK(peak >= 1 && peak <= 3, "at most 3 inside the semaphore: %d", peak);
  CHECK(total == 2 * (63 * 64 / 2), "every thread entered twice: %d", total);

  int *dlatch;
  CUDA(cudaMalloc(&dlatch, 128 * 4));
  latch<<<1, 128>>>(dlatch);
  CUDA(cudaGetLastError());
  std::vector<int> lat(128);
  CUDA(cudaMemcpy(lat.data(), dlatch, 128 * 4, cudaMemcpyDeviceToHost));
  for (int t = 0; t < 128; ++t) CHECK(lat[t] == ((t + 1) % 128) * 3, "latch %d: %d", t, lat[t]);

  const int m = 64;
  std::vector<int> data(m + 4);
  for (auto &v : data) v = int(lcg(seed) % 500);
  int *ddata, *dspan;
  float *dareas;
  CUDA(cudaMalloc(&ddata, data.size() * 4));
  CUDA(cudaMalloc(&dspan, m * 4));
  CUDA(cudaMalloc(&dareas, m * 4));
  CUDA(cudaMemcpy(ddata, data.data(), data.size() * 4, cudaMemcpyHostToDevice));
  variants_spans<<<1, m>>>(ddata, int(data.size()), dareas, dspan);
  CUDA(cudaGetLastError());
  std::vector<float> areas(m);
  std::vector<int> spans(m);
  CUDA(cudaMemcpy(areas.data(), dareas, m * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(spans.data(), dspan, m * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < m; ++i) {
    float want = i % 3 == 0 ? float(i * i) : i % 3 == 1 ? 3.0f * (i * 0.5f) * (i * 0.5f) + 1000.0f
                                                        : float(i * (i + 1)) + 2000.0f;
    CHECK(areas[i] == want, "variant %d: %g want %g", i, areas[i], want);
    int sum = data[i] + data[i + 1] + data[i + 2] + data[i + 3];
    int diff = std::abs(data[i + 3] - data[i]);
    CHECK(spans[i] == sum * 1000 + std::min(diff, 999), "span %d: %d", i, spans[i]);
  }
  return report("libcudacxx_bits");
}
