// The kernels of a first CUDA course: vector add with a grid-stride loop, a shared-memory tiled
// matrix multiply (float, compared with a host triple loop within a tolerance), a transpose through
// padded shared memory, a 1D stencil with halos, a shared-memory histogram of bytes, a two-pass
// reduction with warp shuffles, and device properties read with cudaGetDeviceProperties.
// variant: classic_kernels_shared_cudart -cudart shared
#include <vector>
#include "check.h"

constexpr int TILE = 16;

__global__ void vec_add(const float *a, const float *b, float *c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) c[i] = a[i] + b[i];
}
__global__ void matmul(const float *A, const float *B, float *C, int M, int N, int K) {
  __shared__ float As[TILE][TILE], Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0;
  for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
    int ka = t * TILE + threadIdx.x, kb = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = row < M && ka < K ? A[row * K + ka] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = kb < K && col < N ? B[kb * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
__global__ void transpose(const int *in, int *out, int rows, int cols) {
  __shared__ int tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  if (x < rows && y < cols) out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}
constexpr int RADIUS = 3, BLOCK = 128;
__global__ void stencil(const int *in, int *out, int n) {
  __shared__ int temp[BLOCK + 2 * RADIUS];
  int g = blockIdx.x * blockDim.x + threadIdx.x, l = threadIdx.x + RADIUS;
  temp[l] = g < n ? in[g] : 0;
  if (threadIdx.x < RADIUS) {
    temp[l - RADIUS] = g - RADIUS >= 0 ? in[g - RADIUS] : 0;
    temp[l + BLOCK] = g + BLOCK < n ? in[g + BLOCK] : 0;
  }
  __syncthreads();
  int r = 0;
  for (int o = -RADIUS; o <= RADIUS; ++o) r += temp[l + o];
  if (g < n) out[g] = r;
}
__global__ void histogram(const unsigned char *data, int n, unsigned *bins) {
  __shared__ unsigned local[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&local[data[i]], 1);
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&bins[i], local[i]);
}
__global__ void reduce(const double *in, double *out, int n) {
  double v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  __shared__ double warp_sums[32];
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0;
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
  }
}

template <typename T>
T *to_device(const std::vector<T> &h) {
  T *d;
  CUDA(cudaMalloc(&d, h.size() * sizeof(T)));
  CUDA(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <typename T>
std::vector<T> to_host(const T *d, size_t n) {
  std::vector<T> h(n);
  CUDA(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

int main() {
  int count = 0;
  CUDA(cudaGetDeviceCount(&count));
  CHECK(count >= 1, "device count %d", count);
  cudaDeviceProp prop;
  CUDA(cudaGetDeviceProperties(&prop, 0));
  CHECK(prop.major >= 7 && prop.warpSize == 32 && prop.maxThreadsPerBlock >= 1024 &&
            prop.sharedMemPerBlock >= 48 * 1024 && prop.totalGlobalMem > 0 && prop.multiProcessorCount > 0,
        "properties: %s sm_%d%d", prop.name, prop.major, prop.minor);
  std::printf("device: %s, compute capability %d.%d, %d SMs\n", prop.name, prop.major, prop.minor,
              prop.multiProcessorCount);
  unsigned seed = 8;
  {
    const int n = 100000;
    std::vector<float> a(n), b(n);
    for (int i = 0; i < n; ++i) {
      a[i] = float(lcg(seed) % 1000) * 0.01f;
      b[i] = float(lcg(seed) % 1000) * 0.02f;
    }
    float *da = to_device(a), *db = to_device(b), *dc;
    CUDA(cudaMalloc(&dc, n * 4));
    vec_add<<<64, 256>>>(da, db, dc, n);
    auto c = to_host(dc, n);
    for (int i = 0; i < n; ++i) CHECK(c[i] == a[i] + b[i], "vec_add[%d]", i);
  }
  {
    const int M = 70, N = 50, K = 90;
    std::vector<float> A(M * K), B(K * N);
    for (auto &v : A) v = float(int(lcg(seed) % 200) - 100) / 64.0f;
    for (auto &v : B) v = float(int(lcg(seed) % 200) - 100) / 32.0f;
    float *dA = to_device(A), *dB = to_device(B), *dC;
    CUDA(cudaMalloc(&dC, M * N * 4));
    matmul<<<dim3((N + TILE - 1) / TILE, (M + TILE - 1) / TILE), dim3(TILE, TILE)>>>(dA, dB, dC, M, N, K);
    auto C = to_host(dC, M * N);
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double want = 0;
        for (int k = 0; k < K; ++k) want += double(A[i * K + k]) * B[k * N + j];
        CHECK(close_to(C[i * N + j], want, 1e-5, 1e-4), "matmul[%d,%d] %g vs %g", i, j, C[i * N + j], want);
      }
  }
  {
    const int R = 45, Cc = 77;
    std::vector<int> in(R * Cc);
    for (int i = 0; i < R * Cc; ++i) in[i] = i;
    int *din = to_device(in), *dout;
    CUDA(cudaMalloc(&dout, R * Cc * 4));
    transpose<<<dim3((Cc + TILE - 1) / TILE, (R + TILE - 1) / TILE), dim3(TILE, TILE)>>>(din, dout, R, Cc);
    auto out = to_host(dout, R * Cc);
    for (int y = 0; y < R; ++y)
      for (int x = 0; x < Cc; ++x) CHECK(out[x * R + y] == in[y * Cc + x], "transpose[%d,%d]", y, x);
  }
  {
    const int n = 1000;
    std::vector<int> in(n);
    for (auto &v : in) v = int(lcg(seed) % 100);
    int *din = to_device(in), *dout;
    CUDA(cudaMalloc(&dout, n * 4));
    stencil<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(din, dout, n);
    auto out = to_host(dout, n);
    for (int i = 0; i < n; ++i) {
      int want = 0;
      for (int o = -RADIUS; o <= RADIUS; ++o) want += i + o >= 0 && i + o < n ? in[i + o] : 0;
      CHECK(out[i] == want, "stencil[%d] %d vs %d", i, out[i], want);
    }
  }
  {
    const int n = 50000;
    std::vector<unsigned char> data(n);
    for (auto &v : data) v = (unsigned char)(lcg(seed) >> 24);
    unsigned char *dd = to_device(data);
    unsigned *dbins;
    CUDA(cudaMalloc(&dbins, 256 * 4));
    CUDA(cudaMemset(dbins, 0, 256 * 4));
    histogram<<<16, 256>>>(dd, n, dbins);
    auto bins = to_host(dbins, 256);
    std::vector<unsigned> want(256, 0);
    for (auto v : data) want[v]++;
    for (int i = 0; i < 256; ++i) CHECK(bins[i] == want[i], "histogram[%d] %u vs %u", i, bins[i], want[i]);
  }
  {
    const int n = 77777, blocks = 24;
    std::vector<double> in(n);
    for (int i = 0; i < n; ++i) in[i] = 1.0 / (1 + i % 97);
    double *din = to_device(in), *dpart, *dtotal;
    CUDA(cudaMalloc(&dpart, blocks * 8));
    CUDA(cudaMalloc(&dtotal, 8));
    reduce<<<blocks, 256>>>(din, dpart, n);
    reduce<<<1, 32>>>(dpart, dtotal, blocks);
    double total = to_host(dtotal, 1)[0], want = 0;
    for (double v : in) want += v;
    CHECK(close_to(total, want, 1e-12), "reduce %.17g vs %.17g", total, want);
  }
  return report("classic_kernels");
}
