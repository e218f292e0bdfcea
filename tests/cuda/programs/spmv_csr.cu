// Sparse matrix-vector products in CSR as iterative solvers write them: a scalar kernel (a thread
// per row) and a vector kernel (a warp per row, __shfl_down_sync reduction), double precision,
// read-only loads through const __restrict__ and __ldg, the 5-point Laplacian of a 2D grid with
// its stencil weights in a __constant__ table, and 20 Jacobi iterations swapping device buffers,
// each compared with the same arithmetic on the host (products and sums in the same order where
// the kernel fixes it, otherwise within 1e-12).
#include <cmath>
#include <vector>
#include "check.h"

__constant__ double weights[5];  // centre, west, east, south, north

__global__ void spmv_scalar(int rows, const int *__restrict__ ptr, const int *__restrict__ col,
                            const double *__restrict__ val, const double *__restrict__ x, double *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  double sum = 0;
  for (int k = __ldg(&ptr[r]); k < __ldg(&ptr[r + 1]); ++k) sum += val[k] * __ldg(&x[col[k]]);
  y[r] = sum;
}

__global__ void spmv_vector(int rows, const int *__restrict__ ptr, const int *__restrict__ col,
                            const double *__restrict__ val, const double *__restrict__ x, double *y) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
  if (warp >= rows) return;
  double sum = 0;
  for (int k = ptr[warp] + lane; k < ptr[warp + 1]; k += 32) sum += val[k] * x[col[k]];
  for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
  if (lane == 0) y[warp] = sum;
}

// Jacobi for (4I - neighbours) u = f on an n x n grid with zero boundary, weights from __constant__
__global__ void jacobi(int n, const double *u, const double *f, double *out) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || j >= n) return;
  double w = j > 0 ? u[i * n + j - 1] : 0.0, e = j + 1 < n ? u[i * n + j + 1] : 0.0;
  double s = i > 0 ? u[(i - 1) * n + j] : 0.0, no = i + 1 < n ? u[(i + 1) * n + j] : 0.0;
  out[i * n + j] = (f[i * n + j] + weights[1] * w + weights[2] * e + weights[3] * s + weights[4] * no) / weights[0];
}

int main() {
  const int G = 48, ROWS = G * G;
  // the Laplacian in CSR, plus a few long rows to give the vector kernel work
  std::vector<int> ptr(1, 0), col;
  std::vector<double> val;
  unsigned s = 3;
  for (int i = 0; i < G; ++i)
    for (int j = 0; j < G; ++j) {
      int r = i * G + j;
      if (i > 0) col.push_back(r - G), val.push_back(-1.0);
      if (j > 0) col.push_back(r - 1), val.push_back(-1.0);
      col.push_back(r), val.push_back(4.0);
      if (j + 1 < G) col.push_back(r + 1), val.push_back(-1.0);
      if (i + 1 < G) col.push_back(r + G), val.push_back(-1.0);
      if (r % 97 == 0)
        for (int k = 0; k < 70; ++k) col.push_back(int(lcg(s) % ROWS)), val.push_back(double(int(lcg(s) % 9) - 4) / 8.0);
      ptr.push_back(int(col.size()));
    }
  std::vector<double> x(ROWS);
  for (auto &v : x) v = double(int(lcg(s) % 2001) - 1000) / 1024.0;
  int *dptr, *dcol;
  double *dval, *dx, *dy;
  CUDA(cudaMalloc(&dptr, ptr.size() * 4));
  CUDA(cudaMalloc(&dcol, col.size() * 4));
  CUDA(cudaMalloc(&dval, val.size() * 8));
  CUDA(cudaMalloc(&dx, ROWS * 8));
  CUDA(cudaMalloc(&dy, 2 * ROWS * 8));
  CUDA(cudaMemcpy(dptr, ptr.data(), ptr.size() * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(dcol, col.data(), col.size() * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(dval, val.data(), val.size() * 8, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(dx, x.data(), ROWS * 8, cudaMemcpyHostToDevice));
  spmv_scalar<<<(ROWS + 127) / 128, 128>>>(ROWS, dptr, dcol, dval, dx, dy);
  CUDA(cudaGetLastError());
  spmv_vector<<<(ROWS * 32 + 255) / 256, 256>>>(ROWS, dptr, dcol, dval, dx, dy + ROWS);
  CUDA(cudaGetLastError());
  std::vector<double> y(2 * ROWS);
  CUDA(cudaMemcpy(y.data(), dy, y.size() * 8, cudaMemcpyDeviceToHost));
  int bad_s = 0, bad_v = 0;
  for (int r = 0; r < ROWS; ++r) {
    double sum = 0;
    for (int k = ptr[r]; k < ptr[r + 1]; ++k) sum = std::fma(val[k], x[col[k]], sum);  // the kernel's order; nvcc fuses
    bad_s += y[r] != sum;
    bad_v += std::fabs(y[ROWS + r] - sum) > 1e-12 * (1 + std::fabs(sum));
  }
  CHECK(bad_s == 0, "scalar CSR: %d rows differ", bad_s);
  CHECK(bad_v == 0, "vector CSR: %d rows differ", bad_v);

  // Jacobi
  const double wts[5] = {4.0, 1.0, 1.0, 1.0, 1.0};
  CUDA(cudaMemcpyToSymbol(weights, wts, sizeof wts));
  std::vector<double> f(ROWS), u(ROWS, 0.0), un(ROWS);
  for (int r = 0; r < ROWS; ++r) f[r] = std::sin(0.01 * r);
  double *du, *dun, *df;
  CUDA(cudaMalloc(&du, ROWS * 8));
  CUDA(cudaMalloc(&dun, ROWS * 8));
  CUDA(cudaMalloc(&df, ROWS * 8));
  CUDA(cudaMemset(du, 0, ROWS * 8));
  CUDA(cudaMemcpy(df, f.data(), ROWS * 8, cudaMemcpyHostToDevice));
  dim3 block(16, 16), grid((G + 15) / 16, (G + 15) / 16);
  for (int it = 0; it < 20; ++it) {
    jacobi<<<grid, block>>>(G, du, df, dun);
    CUDA(cudaGetLastError());
    std::swap(du, dun);
    for (int i = 0; i < G; ++i)
      for (int j = 0; j < G; ++j) {
        double w = j > 0 ? u[i * G + j - 1] : 0.0, e = j + 1 < G ? u[i * G + j + 1] : 0.0;
        double so = i > 0 ? u[(i - 1) * G + j] : 0.0, no = i + 1 < G ? u[(i + 1) * G + j] : 0.0;
        un[i * G + j] = (f[i * G + j] + w + e + so + no) / 4.0;
      }
    u.swap(un);
  }
  std::vector<double> got(ROWS);
  CUDA(cudaMemcpy(got.data(), du, ROWS * 8, cudaMemcpyDeviceToHost));
  int bad_j = 0;
  for (int r = 0; r < ROWS; ++r) bad_j += std::fabs(got[r] - u[r]) > 1e-12 * (1 + std::fabs(u[r]));
  CHECK(bad_j == 0, "jacobi: %d points differ (u[100] %.17g vs %.17g)", bad_j, got[100], u[100]);
  return report("spmv_csr");
}
