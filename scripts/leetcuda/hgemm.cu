// Checks LeetCUDA's HGEMM kernels (kernels/hgemm: CUDA-core naive and cp.async ones, WMMA
// m16n16k16 / m32n8k16, mma.sync m16n8k16 with 2-5 stages, NN and TN, block swizzle), built as
// its tools/utils.py builds them less cuBLAS and CuTe, against the host: c = a * b with a
// M x K, b K x N (TN: b given as N x K), half inputs in [-1, 1], the sum of products in double
// precision; the kernels accumulate in half (the mma ones in f16 accumulators), so the result
// may be off by the roundings of K additions.
#include <torch/extension.h>
#include "common.h"
#include <functional>

using T = torch::Tensor;
void hgemm_naive_f16(T, T, T);
void hgemm_sliced_k_f16(T, T, T);
void hgemm_t_8x8_sliced_k_f16x4(T, T, T);
void hgemm_t_8x8_sliced_k_f16x4_pack(T, T, T);
void hgemm_t_8x8_sliced_k_f16x4_bcf(T, T, T);
void hgemm_t_8x8_sliced_k_f16x4_pack_bcf(T, T, T);
void hgemm_t_8x8_sliced_k_f16x8_pack_bcf(T, T, T);
void hgemm_t_8x8_sliced_k_f16x8_pack_bcf_dbuf(T, T, T);
void hgemm_t_8x8_sliced_k16_f16x8_pack_dbuf(T, T, T);
void hgemm_t_8x8_sliced_k16_f16x8_pack_dbuf_async(T, T, T);
void hgemm_t_8x8_sliced_k32_f16x8_pack_dbuf(T, T, T);
void hgemm_t_8x8_sliced_k32_f16x8_pack_dbuf_async(T, T, T);
void hgemm_t_16x8_sliced_k32_f16x8_pack_dbuf(T, T, T);
void hgemm_t_16x8_sliced_k32_f16x8_pack_dbuf_async(T, T, T);
void hgemm_wmma_m16n16k16_naive(T, T, T);
void hgemm_wmma_m16n16k16_mma4x2(T, T, T);
void hgemm_wmma_m16n16k16_mma4x2_warp2x4(T, T, T);
void hgemm_wmma_m16n16k16_mma4x2_warp2x4_dbuf_async(T, T, T);
void hgemm_wmma_m32n8k16_mma2x4_warp2x4_dbuf_async(T, T, T);
void hgemm_wmma_m16n16k16_mma4x2_warp2x4_stages(T, T, T, int, bool, int);
void hgemm_wmma_m16n16k16_mma4x2_warp2x4_stages_dsmem(T, T, T, int, bool, int);
void hgemm_wmma_m16n16k16_mma4x2_warp4x4_stages_dsmem(T, T, T, int, bool, int);
void hgemm_wmma_m16n16k16_mma4x4_warp4x4_stages_dsmem(T, T, T, int, bool, int);
void hgemm_mma_m16n8k16_naive(T, T, T);
void hgemm_mma_m16n8k16_mma2x4_warp4x4(T, T, T);
void hgemm_mma_m16n8k16_mma2x4_warp4x4_stages(T, T, T, int, bool, int);
void hgemm_mma_m16n8k16_mma2x4_warp4x4_stages_dsmem(T, T, T, int, bool, int);
void hgemm_mma_m16n8k16_mma2x4_warp4x4x2_stages_dsmem(T, T, T, int, bool, int);
void hgemm_mma_m16n8k16_mma2x4_warp4x4x2_stages_dsmem_x4(T, T, T, int, bool, int);
void hgemm_mma_m16n8k16_mma2x4_warp4x4x2_stages_dsmem_rr(T, T, T, int, bool, int);
void hgemm_mma_m16n8k16_mma2x4_warp4x4_stages_dsmem_tn(T, T, T, int, bool, int);
void hgemm_mma_m16n8k16_mma2x4_warp4x4x2_stages_dsmem_swizzle(T, T, T, int, bool, int);
void hgemm_mma_m16n8k16_mma2x4_warp4x4x2_stages_dsmem_tn_swizzle_x4(T, T, T, int, bool, int);

static void gemm(const std::string &name, std::function<void(T, T, T)> fn, bool tn) {
  const int64_t m = 256, n = 256, k = 256;
  try {
    std::vector<float> a = uniform(m * k, -1, 1), b = uniform(k * n, -1, 1);
    T ta = make({m, k}, torch::kHalf, a);
    T tb;
    if (tn) {  // b^T, N x K
      std::vector<float> bt(n * k);
      for (int64_t l = 0; l < k; l++)
        for (int64_t j = 0; j < n; j++) bt[j * k + l] = b[l * n + j];
      tb = make({n, k}, torch::kHalf, bt);
      for (int64_t l = 0; l < k; l++)
        for (int64_t j = 0; j < n; j++) b[l * n + j] = bt[j * k + l];
    } else {
      tb = make({k, n}, torch::kHalf, b);
    }
    T tc = zeros_like({m, n}, torch::kHalf);
    std::vector<double> want(m * n, 0);
    for (int64_t i = 0; i < m; i++)
      for (int64_t l = 0; l < k; l++)
        for (int64_t j = 0; j < n; j++) want[i * n + j] += (double)a[i * k + l] * b[l * n + j];
    fn(ta, tb, tc);
    compare(name, fetch(tc), want, 0.1, 0.02);
  } catch (const std::exception &e) {
    printf("%s: refused by its binding (%s)\n", name.c_str(), e.what());
  }
}

int main() {
#define G(f) gemm(#f, f, false)
  G(hgemm_naive_f16);
  G(hgemm_sliced_k_f16);
  G(hgemm_t_8x8_sliced_k_f16x4);
  G(hgemm_t_8x8_sliced_k_f16x4_pack);
  G(hgemm_t_8x8_sliced_k_f16x4_bcf);
  G(hgemm_t_8x8_sliced_k_f16x4_pack_bcf);
  G(hgemm_t_8x8_sliced_k_f16x8_pack_bcf);
  G(hgemm_t_8x8_sliced_k_f16x8_pack_bcf_dbuf);
  G(hgemm_t_8x8_sliced_k16_f16x8_pack_dbuf);
  G(hgemm_t_8x8_sliced_k16_f16x8_pack_dbuf_async);
  G(hgemm_t_8x8_sliced_k32_f16x8_pack_dbuf);
  G(hgemm_t_8x8_sliced_k32_f16x8_pack_dbuf_async);
  G(hgemm_t_16x8_sliced_k32_f16x8_pack_dbuf);
  G(hgemm_t_16x8_sliced_k32_f16x8_pack_dbuf_async);
  G(hgemm_wmma_m16n16k16_naive);
  G(hgemm_wmma_m16n16k16_mma4x2);
  G(hgemm_wmma_m16n16k16_mma4x2_warp2x4);
  G(hgemm_wmma_m16n16k16_mma4x2_warp2x4_dbuf_async);
  G(hgemm_wmma_m32n8k16_mma2x4_warp2x4_dbuf_async);
  G(hgemm_mma_m16n8k16_naive);
  G(hgemm_mma_m16n8k16_mma2x4_warp4x4);
#define S(f, tn)                                                                            \
  for (int stages : {2, 3, 4})                                                              \
    for (bool swizzle : {false, true})                                                      \
      gemm(std::string(#f) + "(stages " + std::to_string(stages) +                          \
               (swizzle ? ", swizzle 256)" : ")"),                                          \
           [&](T a, T b, T c) { f(a, b, c, stages, swizzle, 256); }, tn);
  S(hgemm_wmma_m16n16k16_mma4x2_warp2x4_stages, false);
  S(hgemm_wmma_m16n16k16_mma4x2_warp2x4_stages_dsmem, false);
  S(hgemm_wmma_m16n16k16_mma4x2_warp4x4_stages_dsmem, false);
  S(hgemm_wmma_m16n16k16_mma4x4_warp4x4_stages_dsmem, false);
  S(hgemm_mma_m16n8k16_mma2x4_warp4x4_stages, false);
  S(hgemm_mma_m16n8k16_mma2x4_warp4x4_stages_dsmem, false);
  S(hgemm_mma_m16n8k16_mma2x4_warp4x4x2_stages_dsmem, false);
  S(hgemm_mma_m16n8k16_mma2x4_warp4x4x2_stages_dsmem_x4, false);
  S(hgemm_mma_m16n8k16_mma2x4_warp4x4x2_stages_dsmem_rr, false);
  S(hgemm_mma_m16n8k16_mma2x4_warp4x4x2_stages_dsmem_swizzle, false);
  S(hgemm_mma_m16n8k16_mma2x4_warp4x4_stages_dsmem_tn, true);
  S(hgemm_mma_m16n8k16_mma2x4_warp4x4x2_stages_dsmem_tn_swizzle_x4, true);
  return finish();
}
