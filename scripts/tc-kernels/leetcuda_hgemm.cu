// Runner for LeetCUDA's HGEMM kernels (kernels/hgemm/{mma,wmma}/**.cu, built with
// -DNO_MMA_HGEMM_BIN: their PyTorch entry points, on the torch stand-in in shim/). run.sh links
// this file with one of the project's files at a time; the entry points are weak, and those the
// file does not define are skipped. Each runs on M = N = K = 256 (K = 512 with -DTC_BIG_K) and is
// checked against check.h's exact host reference.
#include "check.h"
#include <torch/extension.h>

#define NN(name) void name(torch::Tensor, torch::Tensor, torch::Tensor) __attribute__((weak));
#define STAGED(name)                                                           \
  void name(torch::Tensor, torch::Tensor, torch::Tensor, int, bool, int)       \
      __attribute__((weak));
NN(hgemm_mma_m16n8k16_naive)
NN(hgemm_mma_m16n8k16_mma2x4_warp4x4)
NN(hgemm_wmma_m16n16k16_naive)
NN(hgemm_wmma_m16n16k16_mma4x2)
NN(hgemm_wmma_m16n16k16_mma4x2_warp2x4)
NN(hgemm_wmma_m16n16k16_mma4x2_warp2x4_dbuf_async)
NN(hgemm_wmma_m32n8k16_mma2x4_warp2x4_dbuf_async)
STAGED(hgemm_wmma_m16n16k16_mma4x2_warp2x4_stages)
STAGED(hgemm_wmma_m16n16k16_mma4x2_warp2x4_stages_dsmem)
STAGED(hgemm_wmma_m16n16k16_mma4x2_warp4x4_stages_dsmem)
STAGED(hgemm_wmma_m16n16k16_mma4x4_warp4x4_stages_dsmem)
STAGED(hgemm_mma_m16n8k16_mma2x4_warp4x4_stages)
STAGED(hgemm_mma_m16n8k16_mma2x4_warp4x4_stages_dsmem)
STAGED(hgemm_mma_m16n8k16_mma2x4_warp4x4x2_stages_dsmem)
STAGED(hgemm_mma_m16n8k16_mma2x4_warp4x4x2_stages_dsmem_x4)
STAGED(hgemm_mma_m16n8k16_mma2x4_warp4x4x2_stages_dsmem_rr)
STAGED(hgemm_mma_m16n8k16_mma2x4_warp4x4x2_stages_dsmem_swizzle)
// TN: B is N x K in memory (the tensor is its K x N transposed view).
STAGED(hgemm_mma_m16n8k16_mma2x4_warp4x4_stages_dsmem_tn)
STAGED(hgemm_mma_m16n8k16_mma2x4_warp4x4_stages_dsmem_tn_swizzle)
STAGED(hgemm_mma_m16n8k16_mma2x4_warp4x4x2_stages_dsmem_tn_swizzle_x4)

typedef void (*NnFn)(torch::Tensor, torch::Tensor, torch::Tensor);
typedef void (*StagedFn)(torch::Tensor, torch::Tensor, torch::Tensor, int, bool, int);

static const int M = 256, N = 256;
#ifdef TC_BIG_K
static const int K = 512;
#else
static const int K = 256;
#endif
// .f16 accumulation: each of K additions may round by half an ulp of the running sum.
static const double TOL = K * (1.0 / 2048);

static torch::Tensor tensor(half *p, int rows, int cols) {
  torch::Tensor t;
  t.ptr = p;
  t.rows = rows;
  t.cols = cols;
  t.type = torch::kHalf;
  return t;
}

static int run_nn(const char *name, NnFn f) {
  if (!f) return 0;
  return tc_run_gemm<half>(name, M, N, K, false, TOL, [&](half *a, half *b, half *c) {
    f(tensor(a, M, K), tensor(b, K, N), tensor(c, M, N));
  });
}

static int run_staged(const char *name, StagedFn f, bool b_nk) {
  if (!f) return 0;
  int failures = 0;
  // stages 2..4 without block swizzle; 3 with swizzle (stride 256, as hgemm.py picks for N=256).
  const int stages[] = {2, 3, 4, 3};
  for (int i = 0; i < 4; i++) {
    bool swz = i == 3;
    char label[256];
    snprintf(label, sizeof label, "%s/stages%d%s", name, stages[i], swz ? "/swizzle256" : "");
    failures += tc_run_gemm<half>(label, M, N, K, b_nk, TOL, [&](half *a, half *b, half *c) {
      f(tensor(a, M, K), tensor(b, K, N), tensor(c, M, N), stages[i], swz, swz ? 256 : 1);
    });
  }
  return failures;
}

int main() {
  int failures = 0;
  try {
#define RUN_NN(name) failures += run_nn(#name, name);
#define RUN_STAGED(name, b_nk) failures += run_staged(#name, name, b_nk);
    RUN_NN(hgemm_mma_m16n8k16_naive)
    RUN_NN(hgemm_mma_m16n8k16_mma2x4_warp4x4)
    RUN_NN(hgemm_wmma_m16n16k16_naive)
    RUN_NN(hgemm_wmma_m16n16k16_mma4x2)
    RUN_NN(hgemm_wmma_m16n16k16_mma4x2_warp2x4)
    RUN_NN(hgemm_wmma_m16n16k16_mma4x2_warp2x4_dbuf_async)
    RUN_NN(hgemm_wmma_m32n8k16_mma2x4_warp2x4_dbuf_async)
    RUN_STAGED(hgemm_wmma_m16n16k16_mma4x2_warp2x4_stages, false)
    RUN_STAGED(hgemm_wmma_m16n16k16_mma4x2_warp2x4_stages_dsmem, false)
    RUN_STAGED(hgemm_wmma_m16n16k16_mma4x2_warp4x4_stages_dsmem, false)
    RUN_STAGED(hgemm_wmma_m16n16k16_mma4x4_warp4x4_stages_dsmem, false)
    RUN_STAGED(hgemm_mma_m16n8k16_mma2x4_warp4x4_stages, false)
    RUN_STAGED(hgemm_mma_m16n8k16_mma2x4_warp4x4_stages_dsmem, false)
    RUN_STAGED(hgemm_mma_m16n8k16_mma2x4_warp4x4x2_stages_dsmem, false)
    RUN_STAGED(hgemm_mma_m16n8k16_mma2x4_warp4x4x2_stages_dsmem_x4, false)
    RUN_STAGED(hgemm_mma_m16n8k16_mma2x4_warp4x4x2_stages_dsmem_rr, false)
    RUN_STAGED(hgemm_mma_m16n8k16_mma2x4_warp4x4x2_stages_dsmem_swizzle, false)
    RUN_STAGED(hgemm_mma_m16n8k16_mma2x4_warp4x4_stages_dsmem_tn, true)
    RUN_STAGED(hgemm_mma_m16n8k16_mma2x4_warp4x4_stages_dsmem_tn_swizzle, true)
    RUN_STAGED(hgemm_mma_m16n8k16_mma2x4_warp4x4x2_stages_dsmem_tn_swizzle_x4, true)
  } catch (const std::exception &e) {
    printf("RESULT leetcuda-hgemm host FAIL %s\n", e.what());
    return 1;
  }
  return failures ? 1 : 0;
}
