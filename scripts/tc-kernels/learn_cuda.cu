// Runner for gau-nernst/learn-cuda's tensor-core kernels: 02b_matmul_sm80 (mma.sync, ldmatrix,
// cp.async), 02e_matmul_sm100 (tcgen05.mma, tensor memory, TMA, 2-CTA clusters) and 07_attention
// (flash attention with mma.sync). run.sh links it with one directory's .cu files (their
// PyTorch bindings, matmul.cpp and attention.cpp, are left out); the entry points are weak and
// those not linked in are skipped. GEMMs: A is M x K row-major, B is N x K row-major (the
// project's `B.T`), C is M x N row-major, bf16, checked against check.h's exact reference.
// Attention: softmax(Q K^T / sqrt(128)) V on [bs, len, 128] bf16, against a double-precision
// host reference.
#include "check.h"
#include <vector>

typedef void MatmulFn(const nv_bfloat16 *A, const nv_bfloat16 *B, nv_bfloat16 *C, int M, int N,
                      int K);
typedef void AttentionFn(const nv_bfloat16 *Q, const nv_bfloat16 *K, const nv_bfloat16 *V,
                         nv_bfloat16 *O, int bs, int len_q, int len_kv, int dim);

#define MATMUL(name) MatmulFn name __attribute__((weak));
MATMUL(matmul_v0)
MATMUL(matmul_v1)
MATMUL(matmul_v1a)
MATMUL(matmul_v1b)
MATMUL(matmul_v2)
MATMUL(matmul_v2a)
MATMUL(matmul_v2b)
MATMUL(matmul_v3)
MATMUL(matmul_v4)
MATMUL(matmul_v5)
MATMUL(matmul_v6)
MATMUL(matmul_v6b)
MATMUL(matmul_v7a)
MATMUL(matmul_v7b)
MATMUL(matmul_v7c)
AttentionFn attention_v1 __attribute__((weak));
AttentionFn attention_v2 __attribute__((weak));
AttentionFn attention_v3 __attribute__((weak));
AttentionFn attention_v4 __attribute__((weak));
AttentionFn attention_v5 __attribute__((weak));

#ifndef TC_M
#define TC_M 256
#endif
static const int M = TC_M, N = 256, K = 256;

static int run_matmul(const char *name, MatmulFn *f) {
  if (!f) return 0;
  if (getenv("TC_ONLY") && strcmp(getenv("TC_ONLY"), name)) return 0;
  char label[128];
  snprintf(label, sizeof label, "learn-cuda/%s", name);
  return tc_run_gemm<nv_bfloat16>(label, M, N, K, true, K * 1.2e-7,
                                  [&](nv_bfloat16 *a, nv_bfloat16 *b, nv_bfloat16 *c) {
                                    f(a, b, c, M, N, K);
                                  });
}

// Attention on bs = 2, len_q = len_kv = 128, dim 128: inputs uniform in [-1, 1) + 0.5 (as the
// project's main.py offsets its inputs) rounded to bf16; the reference is exact softmax in double.
// Allowed: 2^-7 relative to max |O| of the row plus 2^-8 |ref| (bf16 P before P V, bf16 output).
static int run_attention(const char *name, AttentionFn *f) {
  if (!f) return 0;
  if (getenv("TC_ONLY") && strcmp(getenv("TC_ONLY"), name)) return 0;
  const int bs = 2, lq = 128, lkv = 128, dim = 128;
  std::vector<nv_bfloat16> q(size_t(bs) * lq * dim), k(size_t(bs) * lkv * dim),
      v(size_t(bs) * lkv * dim);
  TcRng rng(11);
  for (auto *t : {&q, &k, &v})
    for (auto &x : *t) x = __float2bfloat16_rn(rng.uniform() + 0.5f);
  nv_bfloat16 *dq, *dk, *dv, *dout;
  TC_CHECK_CUDA(cudaMalloc(&dq, q.size() * 2));
  TC_CHECK_CUDA(cudaMalloc(&dk, k.size() * 2));
  TC_CHECK_CUDA(cudaMalloc(&dv, v.size() * 2));
  TC_CHECK_CUDA(cudaMalloc(&dout, q.size() * 2));
  TC_CHECK_CUDA(cudaMemcpy(dq, q.data(), q.size() * 2, cudaMemcpyHostToDevice));
  TC_CHECK_CUDA(cudaMemcpy(dk, k.data(), k.size() * 2, cudaMemcpyHostToDevice));
  TC_CHECK_CUDA(cudaMemcpy(dv, v.data(), v.size() * 2, cudaMemcpyHostToDevice));
  std::vector<nv_bfloat16> poison(q.size(), __float2bfloat16_rn(NAN));
  TC_CHECK_CUDA(cudaMemcpy(dout, poison.data(), q.size() * 2, cudaMemcpyHostToDevice));
  auto t0 = std::chrono::steady_clock::now();
  f(dq, dk, dv, dout, bs, lq, lkv, dim);
  cudaError_t e = cudaDeviceSynchronize();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (e != cudaSuccess) {
    printf("RESULT learn-cuda/%s attn FAIL launch: %s (%.1f s)\n", name, cudaGetErrorString(e),
           secs);
    exit(1);
  }
  std::vector<nv_bfloat16> o(q.size());
  TC_CHECK_CUDA(cudaMemcpy(o.data(), dout, o.size() * 2, cudaMemcpyDeviceToHost));
  long bad = 0;
  double worst = 0;
  int bi = -1, bj = -1;
  float bgot = 0;
  double bwant = 0;
  for (int b = 0; b < bs; b++)
    for (int i = 0; i < lq; i++) {
      std::vector<double> s(lkv);
      double mx = -1e300;
      for (int j = 0; j < lkv; j++) {
        double acc = 0;
        for (int d = 0; d < dim; d++)
          acc += double(__bfloat162float(q[(size_t(b) * lq + i) * dim + d])) *
                 double(__bfloat162float(k[(size_t(b) * lkv + j) * dim + d]));
        s[j] = acc / std::sqrt(double(dim));
        mx = std::max(mx, s[j]);
      }
      double sum = 0;
      for (int j = 0; j < lkv; j++) sum += (s[j] = std::exp(s[j] - mx));
      std::vector<double> ref(dim, 0.0);
      double rowmax = 0;
      for (int d = 0; d < dim; d++) {
        for (int j = 0; j < lkv; j++)
          ref[d] += s[j] / sum * double(__bfloat162float(v[(size_t(b) * lkv + j) * dim + d]));
        rowmax = std::max(rowmax, std::fabs(ref[d]));
      }
      for (int d = 0; d < dim; d++) {
        float got = __bfloat162float(o[(size_t(b) * lq + i) * dim + d]);
        double err = std::fabs(got - ref[d]);
        if (!(err <= rowmax / 128 + std::fabs(ref[d]) / 256)) {
          if (!bad) {
            bi = b * lq + i;
            bj = d;
            bgot = got;
            bwant = ref[d];
          }
          bad++;
        }
        if (err > worst || std::isnan(err)) worst = err;
      }
    }
  if (bad)
    printf("RESULT learn-cuda/%s attn FAIL %ld of %zu wrong; first (%d,%d): got %.6g want "
           "%.6g (%.1f s)\n",
           name, bad, o.size(), bi, bj, bgot, bwant, secs);
  else
    printf("RESULT learn-cuda/%s attn PASS %dx%dx%d max |err| %.3g (%.1f s)\n", name, bs, lq,
           dim, worst, secs);
  fflush(stdout);
  cudaFree(dq);
  cudaFree(dk);
  cudaFree(dv);
  cudaFree(dout);
  return bad != 0;
}

int main() {
  int failures = 0;
#define RUN_MATMUL(name) failures += run_matmul(#name, name);
  RUN_MATMUL(matmul_v0)
  RUN_MATMUL(matmul_v1)
  RUN_MATMUL(matmul_v1a)
  RUN_MATMUL(matmul_v1b)
  RUN_MATMUL(matmul_v2)
  RUN_MATMUL(matmul_v2a)
  RUN_MATMUL(matmul_v2b)
  RUN_MATMUL(matmul_v3)
  RUN_MATMUL(matmul_v4)
  RUN_MATMUL(matmul_v5)
  RUN_MATMUL(matmul_v6)
  RUN_MATMUL(matmul_v6b)
  RUN_MATMUL(matmul_v7a)
  RUN_MATMUL(matmul_v7b)
  RUN_MATMUL(matmul_v7c)
#define RUN_ATTN(name) failures += run_attention(#name, name);
  RUN_ATTN(attention_v1)
  RUN_ATTN(attention_v2)
  RUN_ATTN(attention_v3)
  RUN_ATTN(attention_v4)
  RUN_ATTN(attention_v5)
  return failures ? 1 : 0;
}
