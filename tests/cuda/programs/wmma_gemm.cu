// Tensor cores through nvcuda::wmma (mma.h): a 64x64x64 half GEMM with float accumulation, one
// warp per 16x16 output tile (load_matrix_sync of row- and column-major operands, mma_sync,
// store_matrix_sync), a half accumulator variant, a bf16 one, an 8-bit integer one
// (s8 x s8 -> s32) and tf32 (m16n16k8). The inputs are small integers, so every product and sum
// is exact and the results equal the CPU's integer matrix product.
#include <mma.h>
#include <type_traits>
#include <cuda_bf16.h>
#include <vector>
#include "check.h"
using namespace nvcuda;

constexpr int M = 64, N = 64, K = 64;

template <typename In, typename Acc, typename LayoutB>
__global__ void gemm(const In *a, const In *b, const Acc *c, Acc *d) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int tile_m = warp / (N / 16), tile_n = warp % (N / 16);
  wmma::fragment<wmma::matrix_a, 16, 16, 16, In, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, In, LayoutB> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, Acc> acc;
  wmma::load_matrix_sync(acc, c + tile_m * 16 * N + tile_n * 16, N, wmma::mem_row_major);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(fa, a + tile_m * 16 * K + k, K);
    if (std::is_same<LayoutB, wmma::row_major>::value)
      wmma::load_matrix_sync(fb, b + k * N + tile_n * 16, N);
    else
      wmma::load_matrix_sync(fb, b + tile_n * 16 * K + k, K);  // B stored column-major: B[k][n] at n*K+k
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(d + tile_m * 16 * N + tile_n * 16, acc, N, wmma::mem_row_major);
}

__global__ void gemm_s8(const signed char *a, const signed char *b, int *d) {
  int warp = threadIdx.x / 32 + blockIdx.x * (blockDim.x / 32);
  int tile_m = warp / (N / 16), tile_n = warp % (N / 16);
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
  wmma::fill_fragment(acc, 0);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(fa, a + tile_m * 16 * K + k, K);
    wmma::load_matrix_sync(fb, b + k * N + tile_n * 16, N);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(d + tile_m * 16 * N + tile_n * 16, acc, N, wmma::mem_row_major);
}

__global__ void gemm_tf32(const float *a, const float *b, float *d) {
  int warp = threadIdx.x / 32 + blockIdx.x * (blockDim.x / 32);
  int tile_m = warp / (N / 16), tile_n = warp % (N / 16);
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 8) {
    wmma::load_matrix_sync(fa, a + tile_m * 16 * K + k, K);
    wmma::load_matrix_sync(fb, b + k * N + tile_n * 16, N);
    for (int t = 0; t < fa.num_elements; ++t) fa.x[t] = wmma::__float_to_tf32(fa.x[t]);
    for (int t = 0; t < fb.num_elements; ++t) fb.x[t] = wmma::__float_to_tf32(fb.x[t]);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(d + tile_m * 16 * N + tile_n * 16, acc, N, wmma::mem_row_major);
}

template <typename T>
T *upload(const std::vector<T> &v) {
  T *p;
  CUDA(cudaMalloc(&p, v.size() * sizeof(T)));
  CUDA(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return p;
}
template <typename T>
std::vector<T> download(const T *p, size_t n) {
  std::vector<T> v(n);
  CUDA(cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

int main() {
  unsigned s = 2024;
  std::vector<int> ai(M * K), bi(K * N), ci(M * N);
  for (auto &v : ai) v = int(lcg(s) % 9) - 4;
  for (auto &v : bi) v = int(lcg(s) % 9) - 4;
  for (auto &v : ci) v = int(lcg(s) % 21) - 10;
  std::vector<int> ref(M * N), ref0(M * N);  // A*B + C, and A*B
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      int sum = 0;
      for (int k = 0; k < K; ++k) sum += ai[i * K + k] * bi[k * N + j];
      ref0[i * N + j] = sum;
      ref[i * N + j] = sum + ci[i * N + j];
    }
  const int warps = (M / 16) * (N / 16), threads = 128, grid = warps * 32 / threads;

  std::vector<__half> ah(M * K), bh(K * N), bh_col(K * N);
  std::vector<float> cf(M * N);
  std::vector<__half> ch(M * N);
  for (int i = 0; i < M * K; ++i) ah[i] = __int2half_rn(ai[i]);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) bh[k * N + j] = __int2half_rn(bi[k * N + j]), bh_col[j * K + k] = bh[k * N + j];
  for (int i = 0; i < M * N; ++i) cf[i] = float(ci[i]), ch[i] = __int2half_rn(ci[i]);
  __half *da = upload(ah), *db = upload(bh), *db_col = upload(bh_col), *dch = upload(ch);
  float *dcf = upload(cf), *dd;
  __half *ddh;
  CUDA(cudaMalloc(&dd, M * N * 4));
  CUDA(cudaMalloc(&ddh, M * N * 2));

  gemm<__half, float, wmma::row_major><<<grid, threads>>>(da, db, dcf, dd);
  CUDA(cudaGetLastError());
  auto d1 = download(dd, M * N);
  gemm<__half, float, wmma::col_major><<<grid, threads>>>(da, db_col, dcf, dd);
  CUDA(cudaGetLastError());
  auto d2 = download(dd, M * N);
  gemm<__half, __half, wmma::row_major><<<grid, threads>>>(da, db, dch, ddh);
  CUDA(cudaGetLastError());
  auto d3 = download(ddh, M * N);
  int bad1 = 0, bad2 = 0, bad3 = 0;
  for (int i = 0; i < M * N; ++i) {
    bad1 += d1[i] != float(ref[i]);
    bad2 += d2[i] != float(ref[i]);
    bad3 += __half2float(d3[i]) != float(ref[i]);  // |ref| < 2048: exact in half
  }
  CHECK(bad1 == 0, "f16 -> f32, B row-major: %d wrong (d[0] %g vs %d)", bad1, d1[0], ref[0]);
  CHECK(bad2 == 0, "f16 -> f32, B column-major: %d wrong", bad2);
  CHECK(bad3 == 0, "f16 -> f16: %d wrong (d[0] %g vs %d)", bad3, __half2float(d3[0]), ref[0]);

  std::vector<__nv_bfloat16> ab(M * K), bb(K * N);
  for (int i = 0; i < M * K; ++i) ab[i] = __float2bfloat16(float(ai[i]));
  for (int i = 0; i < K * N; ++i) bb[i] = __float2bfloat16(float(bi[i]));
  __nv_bfloat16 *dab = upload(ab), *dbb = upload(bb);
  gemm<__nv_bfloat16, float, wmma::row_major><<<grid, threads>>>(dab, dbb, dcf, dd);
  CUDA(cudaGetLastError());
  auto d4 = download(dd, M * N);
  int bad4 = 0;
  for (int i = 0; i < M * N; ++i) bad4 += d4[i] != float(ref[i]);
  CHECK(bad4 == 0, "bf16 -> f32: %d wrong", bad4);

  std::vector<signed char> as(M * K), bs(K * N);
  for (int i = 0; i < M * K; ++i) as[i] = (signed char)(ai[i] * 25);  // -100..100
  for (int i = 0; i < K * N; ++i) bs[i] = (signed char)(bi[i] * 31);
  signed char *das = upload(as), *dbs = upload(bs);
  int *di;
  CUDA(cudaMalloc(&di, M * N * 4));
  gemm_s8<<<grid, threads>>>(das, dbs, di);
  CUDA(cudaGetLastError());
  auto d5 = download(di, M * N);
  int bad5 = 0;
  for (int i = 0; i < M * N; ++i) bad5 += d5[i] != ref0[i] * 25 * 31;
  CHECK(bad5 == 0, "s8 -> s32: %d wrong (d[0] %d vs %d)", bad5, d5[0], ref0[0] * 775);

  std::vector<float> at(M * K), bt(K * N);
  for (int i = 0; i < M * K; ++i) at[i] = float(ai[i]) * 0.5f;
  for (int i = 0; i < K * N; ++i) bt[i] = float(bi[i]) * 0.25f;
  float *dat = upload(at), *dbt = upload(bt);
  gemm_tf32<<<grid, threads>>>(dat, dbt, dd);
  CUDA(cudaGetLastError());
  auto d6 = download(dd, M * N);
  int bad6 = 0;
  for (int i = 0; i < M * N; ++i) bad6 += d6[i] != float(ref0[i]) * 0.125f;
  CHECK(bad6 == 0, "tf32 -> f32: %d wrong (d[0] %g vs %g)", bad6, d6[0], ref0[0] * 0.125f);
  return report("wmma_gemm");
}
