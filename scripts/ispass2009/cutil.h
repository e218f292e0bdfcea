/* The part of the CUDA SDK's cutil library (removed from the SDK in CUDA 5) that the ISPASS-2009
 * benchmarks call, written for scripts/ispass2009/ispass2009.py from how the benchmarks use it:
 * error-checking macros that print the failing call and exit, wall-clock timers by handle, and
 * the command-line helpers (`--name=value`). Not NVIDIA's code. */
#ifndef PTXSIM_CUTIL_H
#define PTXSIM_CUTIL_H
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

enum CUTBoolean { CUTFalse = 0, CUTTrue = 1 };

#define CUDA_SAFE_CALL_NO_SYNC(call)                                                        \
  do {                                                                                      \
    cudaError_t cutil_err_ = (call);                                                        \
    if (cutil_err_ != cudaSuccess) {                                                        \
      fprintf(stderr, "Cuda error in file '%s' in line %i : %s.\n", __FILE__, __LINE__,     \
              cudaGetErrorString(cutil_err_));                                              \
      exit(EXIT_FAILURE);                                                                   \
    }                                                                                       \
  } while (0)
#define CUDA_SAFE_CALL(call)                                                                \
  do {                                                                                      \
    CUDA_SAFE_CALL_NO_SYNC(call);                                                           \
    CUDA_SAFE_CALL_NO_SYNC(cudaDeviceSynchronize());                                        \
  } while (0)
#define CUT_SAFE_CALL(call)                                                                 \
  do {                                                                                      \
    if ((call) != CUTTrue) {                                                                \
      fprintf(stderr, "Cut error in file '%s' in line %i.\n", __FILE__, __LINE__);          \
      exit(EXIT_FAILURE);                                                                   \
    }                                                                                       \
  } while (0)
#define CUT_CHECK_ERROR(msg)                                                                \
  do {                                                                                      \
    cudaError_t cutil_err_ = cudaGetLastError();                                            \
    if (cutil_err_ == cudaSuccess) cutil_err_ = cudaDeviceSynchronize();                    \
    if (cutil_err_ != cudaSuccess) {                                                        \
      fprintf(stderr, "Cuda error: %s in file '%s' in line %i : %s.\n", msg, __FILE__,      \
              __LINE__, cudaGetErrorString(cutil_err_));                                    \
      exit(EXIT_FAILURE);                                                                   \
    }                                                                                       \
  } while (0)
#define CUT_DEVICE_INIT(...) CUDA_SAFE_CALL(cudaSetDevice(0))
#define CUT_EXIT(argc, argv) exit(EXIT_SUCCESS)
#define CUT_BANK_CHECKER(array, index) (array[index])

/* Timers: wall-clock milliseconds, accumulated between start and stop. */
struct cutil_timer_ {
  int used, running, sessions;
  double total_ms, started_ms;
};
static cutil_timer_ cutil_timers_[64];
static inline double cutil_now_ms_() {
  struct timeval tv;
  gettimeofday(&tv, 0);
  return tv.tv_sec * 1e3 + tv.tv_usec * 1e-3;
}
static inline CUTBoolean cutCreateTimer(unsigned int *name) {
  for (unsigned int i = 0; i < 64; i++)
    if (!cutil_timers_[i].used) {
      memset(&cutil_timers_[i], 0, sizeof cutil_timers_[i]);
      cutil_timers_[i].used = 1;
      *name = i;
      return CUTTrue;
    }
  return CUTFalse;
}
static inline CUTBoolean cutDeleteTimer(unsigned int name) {
  if (name >= 64 || !cutil_timers_[name].used) return CUTFalse;
  cutil_timers_[name].used = 0;
  return CUTTrue;
}
static inline CUTBoolean cutStartTimer(unsigned int name) {
  if (name >= 64 || !cutil_timers_[name].used) return CUTFalse;
  cutil_timers_[name].running = 1;
  cutil_timers_[name].started_ms = cutil_now_ms_();
  return CUTTrue;
}
static inline CUTBoolean cutStopTimer(unsigned int name) {
  if (name >= 64 || !cutil_timers_[name].used) return CUTFalse;
  if (cutil_timers_[name].running) {
    cutil_timers_[name].total_ms += cutil_now_ms_() - cutil_timers_[name].started_ms;
    cutil_timers_[name].sessions++;
  }
  cutil_timers_[name].running = 0;
  return CUTTrue;
}
static inline CUTBoolean cutResetTimer(unsigned int name) {
  if (name >= 64 || !cutil_timers_[name].used) return CUTFalse;
  cutil_timers_[name].total_ms = 0;
  cutil_timers_[name].sessions = 0;
  if (cutil_timers_[name].running) cutil_timers_[name].started_ms = cutil_now_ms_();
  return CUTTrue;
}
static inline float cutGetTimerValue(unsigned int name) {
  if (name >= 64) return 0;
  double ms = cutil_timers_[name].total_ms;
  if (cutil_timers_[name].running) ms += cutil_now_ms_() - cutil_timers_[name].started_ms;
  return (float)ms;
}
static inline float cutGetAverageTimerValue(unsigned int name) {
  if (name >= 64 || cutil_timers_[name].sessions == 0) return cutGetTimerValue(name);
  return (float)(cutil_timers_[name].total_ms / cutil_timers_[name].sessions);
}

/* Command-line flags: `-name`, `--name`, `--name=value`. */
static inline const char *cutil_find_flag_(int argc, const char **argv, const char *name) {
  size_t n = strlen(name);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    while (*a == '-') a++;
    if (strncmp(a, name, n) == 0 && (a[n] == '\0' || a[n] == '=')) return a + n;
  }
  return 0;
}
static inline CUTBoolean cutCheckCmdLineFlag(int argc, const char **argv, const char *name) {
  return cutil_find_flag_(argc, argv, name) ? CUTTrue : CUTFalse;
}
static inline CUTBoolean cutGetCmdLineArgumenti(int argc, const char **argv, const char *name,
                                                int *value) {
  const char *a = cutil_find_flag_(argc, argv, name);
  if (!a || *a != '=') return CUTFalse;
  *value = atoi(a + 1);
  return CUTTrue;
}
static inline CUTBoolean cutCompareub(const unsigned char *reference, const unsigned char *data,
                                      unsigned int len) {
  for (unsigned int i = 0; i < len; i++)
    if (reference[i] != data[i]) return CUTFalse;
  return CUTTrue;
}
#endif
