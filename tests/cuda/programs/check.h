// Shared by the programs of tests/cuda/programs: each computes its results on the GPU and a
// reference on the host, counts mismatches with CHECK, and ends with `return report("name");`,
// which prints "name: PASS" (exit 0) or "name: FAIL (N failed)" (exit 1).
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static int g_failed = 0;
static int g_checked = 0;

#define CUDA(call)                                                                         \
  do {                                                                                     \
    cudaError_t e_ = (call);                                                               \
    if (e_ != cudaSuccess) {                                                               \
      std::printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));   \
      std::printf("FAIL\n");                                                               \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

#define CHECK(cond, ...)                                                                   \
  do {                                                                                     \
    ++g_checked;                                                                           \
    if (!(cond)) {                                                                         \
      if (g_failed < 20) {                                                                 \
        std::printf("%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);               \
        std::printf(__VA_ARGS__);                                                          \
        std::printf("\n");                                                                 \
      }                                                                                    \
      ++g_failed;                                                                          \
    }                                                                                      \
  } while (0)

// |got - want| within an absolute plus relative tolerance (NaNs equal each other).
static inline bool close_to(double got, double want, double rel, double abs_tol = 0.0) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= abs_tol + rel * std::fabs(want);
}

static inline int report(const char *name) {
  CUDA(cudaGetLastError());
  if (g_failed == 0) {
    std::printf("%s: PASS (%d checks)\n", name, g_checked);
    return 0;
  }
  std::printf("%s: FAIL (%d of %d checks failed)\n", name, g_failed, g_checked);
  return 1;
}

// A small deterministic generator for the inputs (the host's, not curand).
static inline unsigned lcg(unsigned &state) {
  state = state * 1664525u + 1013904223u;
  return state;
}
