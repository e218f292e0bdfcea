// Host side of the runners in scripts/tc-kernels: inputs, an exact host reference and the
// comparison. Not from any of the projects that the runners build.
//
// Two input sets per GEMM:
//  * `ints`: every element an integer in [-2, 2]. Every product and every partial sum (|sum| <=
//    4 K <= 2048 for K <= 512) is an integer that .f16 (11 significand bits) and .f32 hold
//    exactly, so any order of additions, with an .f16 or .f32 accumulator, gives the exact sum;
//    the output is the exact sum rounded once to the output type (round to nearest even, as
//    __float2half and __float2bfloat16 do). The check is bit for bit.
//  * `rand`: uniform values in [-1, 1) rounded to the input type; the reference is exact
//    (double) and the check allows the accumulator's rounding: |got - ref| <= tol * sum |a b|
//    + half an output ulp.
#pragma once
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <string>
#include <type_traits>
#include <vector>

#define TC_CHECK_CUDA(call)                                                    \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,            \
              cudaGetErrorString(e_));                                         \
      exit(2);                                                                 \
    }                                                                          \
  } while (0)

inline float tc_to_float(half x) { return __half2float(x); }
inline float tc_to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
inline float tc_to_float(float x) { return x; }
template <typename T> T tc_from_float(float x);
template <> inline half tc_from_float<half>(float x) { return __float2half_rn(x); }
template <> inline __nv_bfloat16 tc_from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}
template <> inline float tc_from_float<float>(float x) { return x; }

// A small deterministic generator (64-bit LCG), the same on every host.
struct TcRng {
  uint64_t s;
  explicit TcRng(uint64_t seed) : s(seed * 6364136223846793005ULL + 1442695040888963407ULL) {}
  uint32_t next() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>(s >> 33);
  }
  float uniform() { return (next() & 0xFFFFFF) / float(1 << 23) - 1.0f; }
};

template <typename T> std::vector<T> tc_fill(size_t n, bool ints, uint64_t seed) {
  TcRng rng(seed);
  std::vector<T> v(n);
  for (size_t i = 0; i < n; i++) {
    float x = ints ? float(int(rng.next() % 5) - 2) : rng.uniform();
    v[i] = tc_from_float<T>(x);
  }
  return v;
}

// C[m][n] = sum_k A[m][k] * B(k, n); B is K x N row-major (`b_nk` false) or N x K row-major
// (`b_nk` true). Also returns sum_k |A B| per element (for the tolerance).
template <typename T>
void tc_reference(const std::vector<T> &a, const std::vector<T> &b, int M, int N, int K,
                  bool b_nk, std::vector<double> &ref, std::vector<double> &mag) {
  ref.assign(size_t(M) * N, 0.0);
  mag.assign(size_t(M) * N, 0.0);
  std::vector<double> bt(size_t(N) * K);
  for (int n = 0; n < N; n++)
    for (int k = 0; k < K; k++)
      bt[size_t(n) * K + k] =
          tc_to_float(b_nk ? b[size_t(n) * K + k] : b[size_t(k) * N + n]);
  for (int m = 0; m < M; m++) {
    std::vector<double> ar(K);
    for (int k = 0; k < K; k++) ar[k] = tc_to_float(a[size_t(m) * K + k]);
    for (int n = 0; n < N; n++) {
      double s = 0, g = 0;
      const double *br = &bt[size_t(n) * K];
      for (int k = 0; k < K; k++) {
        s += ar[k] * br[k];
        g += std::fabs(ar[k] * br[k]);
      }
      ref[size_t(m) * N + n] = s;
      mag[size_t(m) * N + n] = g;
    }
  }
}

// Compares `got` (M x N row-major, or N x M when `c_nm`) with the reference; prints one line
// `RESULT <name> <ints|rand> PASS|FAIL ...`; returns whether it passed.
template <typename T>
bool tc_compare(const char *name, bool ints, const std::vector<T> &got,
                const std::vector<double> &ref, const std::vector<double> &mag, int M, int N,
                double tol, double secs, bool c_nm = false) {
  double worst = 0;
  long bad = 0;
  int bm = -1, bn = -1;
  float bgot = 0, bwant = 0;
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      float g = tc_to_float(got[c_nm ? size_t(n) * M + m : size_t(m) * N + n]);
      double r = ref[size_t(m) * N + n];
      float want = tc_to_float(tc_from_float<T>(float(r)));
      bool ok;
      double err = std::fabs(double(g) - r);
      if (ints) {
        ok = g == want;
      } else {
        double ulp = std::fabs(double(want)) * (sizeof(T) == 2 ? (std::is_same<T, half>::value
                                                                    ? 1.0 / 1024
                                                                    : 1.0 / 128)
                                                               : 1.0 / 8388608);
        ok = std::isfinite(g) && err <= tol * mag[size_t(m) * N + n] + ulp + 1e-30;
      }
      if (!ok) {
        if (bad == 0) {
          bm = m;
          bn = n;
          bgot = g;
          bwant = want;
        }
        bad++;
      }
      if (err > worst || std::isnan(err)) worst = err;
    }
  if (bad)
    printf("RESULT %s %s FAIL %ld of %d wrong; first (%d,%d): got %.6g want %.6g (%.1f s)\n",
           name, ints ? "ints" : "rand", bad, M * N, bm, bn, bgot, bwant, secs);
  else
    printf("RESULT %s %s PASS %dx%d max |err| %.3g (%.1f s)\n", name, ints ? "ints" : "rand",
           M, N, worst, secs);
  fflush(stdout);
  return bad == 0;
}

template <typename T> T *tc_upload(const std::vector<T> &v) {
  T *d = nullptr;
  TC_CHECK_CUDA(cudaMalloc(&d, v.size() * sizeof(T)));
  TC_CHECK_CUDA(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <typename T> std::vector<T> tc_download(const T *d, size_t n) {
  std::vector<T> v(n);
  TC_CHECK_CUDA(cudaMemcpy(v.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

// Runs `launch(dA, dB, dC)` on both input sets (`ints` alone unless `rand_too`) and checks the result; a failed launch or
// synchronization fails it. Both sets use the same device buffers (some kernels keep tensor maps
// of the buffers they saw first).
template <typename T, typename F>
int tc_run_gemm(const char *name, int M, int N, int K, bool b_nk, double tol, F launch,
                bool c_nm = false, bool rand_too = true) {
  int failures = 0;
  T *da = nullptr, *db = nullptr, *dc = nullptr;
  TC_CHECK_CUDA(cudaMalloc(&da, size_t(M) * K * sizeof(T)));
  TC_CHECK_CUDA(cudaMalloc(&db, size_t(K) * N * sizeof(T)));
  TC_CHECK_CUDA(cudaMalloc(&dc, size_t(M) * N * sizeof(T)));
  for (int pass = 0; pass < (rand_too ? 2 : 1); pass++) {
    bool ints = pass == 0;
    std::vector<T> a = tc_fill<T>(size_t(M) * K, ints, 1 + pass);
    std::vector<T> b = tc_fill<T>(size_t(K) * N, ints, 7 + pass);
    std::vector<double> ref, mag;
    tc_reference(a, b, M, N, K, b_nk, ref, mag);
    std::vector<T> poison(size_t(M) * N, tc_from_float<T>(NAN));
    TC_CHECK_CUDA(cudaMemcpy(da, a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice));
    TC_CHECK_CUDA(cudaMemcpy(db, b.data(), b.size() * sizeof(T), cudaMemcpyHostToDevice));
    TC_CHECK_CUDA(cudaMemcpy(dc, poison.data(), poison.size() * sizeof(T), cudaMemcpyHostToDevice));
    auto t0 = std::chrono::steady_clock::now();
    launch(da, db, dc);
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaGetLastError();
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (e != cudaSuccess) {
      printf("RESULT %s %s FAIL launch: %s (%.1f s)\n", name, ints ? "ints" : "rand",
             cudaGetErrorString(e), secs);
      fflush(stdout);
      exit(1);
    }
    std::vector<T> c(size_t(M) * N);
    TC_CHECK_CUDA(cudaMemcpy(c.data(), dc, c.size() * sizeof(T), cudaMemcpyDeviceToHost));
    failures += !tc_compare(name, ints, c, ref, mag, M, N, tol, secs, c_nm);
  }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return failures;
}
