// Runner for Bruce-Lee-LY/cuda_hgemm's HGEMM kernels (src/mma/*.cu: mma.sync m16n8k16, ldmatrix,
// cp.async, permuted shared memory, 2-4 stages; src/wmma/*.cu: the WMMA API). run.sh links it with
// all of them (not main.cu, tester.h or the cuBLAS kernel): each runs on M = N = 256 (tiles are up
// to 256 x 128), K = 256, and is checked against check.h's exact host reference instead of the
// project's cuBLAS comparison. A is M x K row-major, B is N x K row-major (the project's column-
// major K x N), C is M x N row-major, all half, .f16 accumulation.
#include "check.h"

#define HGEMM_FUNC(name) \
  void name(half *A, half *B, half *C, size_t M, size_t N, size_t K) __attribute__((weak))
HGEMM_FUNC(wmmaNaive);
HGEMM_FUNC(wmmaBase);
HGEMM_FUNC(wmmaPadding);
HGEMM_FUNC(wmmaAsync);
HGEMM_FUNC(wmmaAsyncPg2s);
HGEMM_FUNC(wmmaAsyncPg2sPs2r);
HGEMM_FUNC(wmmaAsyncStage2);
HGEMM_FUNC(wmmaAsyncStage3);
HGEMM_FUNC(mmaNaive);
HGEMM_FUNC(mmaBase);
HGEMM_FUNC(mmaPermuted);
HGEMM_FUNC(mmaAsync);
HGEMM_FUNC(mmaAsyncPg2s);
HGEMM_FUNC(mmaAsyncPg2sPs2r);
HGEMM_FUNC(mmaAsyncStage2);
HGEMM_FUNC(mmaAsyncStage3);
HGEMM_FUNC(mmaAsyncStage4);

typedef void (*Fn)(half *, half *, half *, size_t, size_t, size_t);
static const int M = 256, N = 256, K = 256;

static int run(const char *name, Fn f) {
  if (!f) return 0;
  if (getenv("TC_ONLY") && strcmp(getenv("TC_ONLY"), name)) return 0;
  char label[128];
  snprintf(label, sizeof label, "cuda_hgemm/%s", name);
  return tc_run_gemm<half>(label, M, N, K, true, K * (1.0 / 2048),
                           [&](half *a, half *b, half *c) { f(a, b, c, M, N, K); });
}

int main() {
  int failures = 0;
#define RUN(name) failures += run(#name, name);
  RUN(wmmaNaive)
  RUN(wmmaBase)
  RUN(wmmaPadding)
  RUN(wmmaAsync)
  RUN(wmmaAsyncPg2s)
  RUN(wmmaAsyncPg2sPs2r)
  RUN(wmmaAsyncStage2)
  RUN(wmmaAsyncStage3)
  RUN(mmaNaive)
  RUN(mmaBase)
  RUN(mmaPermuted)
  RUN(mmaAsync)
  RUN(mmaAsyncPg2s)
  RUN(mmaAsyncPg2sPs2r)
  RUN(mmaAsyncStage2)
  RUN(mmaAsyncStage3)
  RUN(mmaAsyncStage4)
  return failures ? 1 : 0;
}
