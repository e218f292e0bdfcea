// What CUDA programs check: launch-configuration errors (too many threads per block, too much
// shared memory) reported by cudaGetLastError without poisoning the context, cudaErrorInvalidValue
// from bad arguments, cudaGetErrorName/String, cudaPeekAtLastError, an out-of-range cudaSetDevice,
// cudaFuncGetAttributes and cudaFuncSetAttribute (a kernel asking for more than 48 KiB of
// dynamic shared memory), cudaMemGetInfo, and a device-side assert that fails a launch with
// cudaErrorAssert (sticky: the program ends there, as on a GPU).
#include <cassert>
#include <cstring>
#include <vector>
#include "check.h"

__global__ void noop(int *p) {
  if (p) p[threadIdx.x] = threadIdx.x;
}
__global__ void big_shared(int *p) {
  extern __shared__ int s[];
  s[threadIdx.x * 1000] = threadIdx.x;
  __syncthreads();
  p[threadIdx.x] = s[threadIdx.x * 1000] + 1;
}
__global__ void asserting(int limit) { assert(threadIdx.x < limit); }

int main() {
  int *p;
  CUDA(cudaMalloc(&p, 2048 * 4));
  noop<<<1, 2048>>>(p);
  cudaError_t e = cudaGetLastError();
  CHECK(e == cudaErrorInvalidConfiguration, "2048 threads: %s", cudaGetErrorName(e));
  CHECK(cudaGetLastError() == cudaSuccess, "error cleared");
  noop<<<1, 32, 1 << 20>>>(p);  // 1 MiB of shared memory
  e = cudaGetLastError();
  CHECK(e != cudaSuccess, "1 MiB shared: %s", cudaGetErrorName(e));
  noop<<<dim3(1, 1, 70000), 1>>>(p);  // grid z above 65535
  e = cudaPeekAtLastError();
  CHECK(e == cudaErrorInvalidConfiguration, "grid z 70000: %s", cudaGetErrorName(e));
  CHECK(cudaPeekAtLastError() == e, "peek keeps it");
  cudaGetLastError();
  // the context still works
  noop<<<1, 64>>>(p);
  CUDA(cudaDeviceSynchronize());
  int got[64];
  CUDA(cudaMemcpy(got, p, sizeof got, cudaMemcpyDeviceToHost));
  CHECK(got[63] == 63, "after errors %d", got[63]);
  CHECK(std::strcmp(cudaGetErrorName(cudaErrorMemoryAllocation), "cudaErrorMemoryAllocation") == 0, "error name");
  CHECK(std::strlen(cudaGetErrorString(cudaErrorInvalidValue)) > 0, "error string");
  int count = 0;
  CUDA(cudaGetDeviceCount(&count));
  CHECK(cudaSetDevice(count + 3) == cudaErrorInvalidDevice, "cudaSetDevice out of range");
  cudaGetLastError();
  CHECK(cudaMemcpy(nullptr, p, 4, cudaMemcpyDeviceToHost) != cudaSuccess, "memcpy to NULL fails");
  cudaGetLastError();
  void *huge = nullptr;
  CHECK(cudaMalloc(&huge, size_t(1) << 50) == cudaErrorMemoryAllocation, "1 PiB cudaMalloc");
  cudaGetLastError();
  size_t free_b = 0, total_b = 0;
  CUDA(cudaMemGetInfo(&free_b, &total_b));
  CHECK(total_b > 0 && free_b <= total_b, "mem info %zu/%zu", free_b, total_b);
  cudaFuncAttributes attr;
  CUDA(cudaFuncGetAttributes(&attr, noop));
  CHECK(attr.maxThreadsPerBlock >= 1024 && attr.numRegs >= 0, "func attributes %d", attr.maxThreadsPerBlock);
  const int dyn = 64 * 1024;
  CUDA(cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn));
  big_shared<<<1, 16, dyn>>>(p);
  CUDA(cudaGetLastError());
  CUDA(cudaDeviceSynchronize());
  CUDA(cudaMemcpy(got, p, 16 * 4, cudaMemcpyDeviceToHost));
  CHECK(got[15] == 16, "64 KiB dynamic shared %d", got[15]);
  // the assert: its message goes to stderr; the launch fails with cudaErrorAssert
  asserting<<<1, 8>>>(4);
  e = cudaDeviceSynchronize();
  CHECK(e == cudaErrorAssert, "assert: %s", cudaGetErrorName(e));
  int failed = g_failed;
  std::printf("error_handling: %s (%d checks)\n", failed ? "FAIL" : "PASS", g_checked);
  return failed ? 1 : 0;
}
