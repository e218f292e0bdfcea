// The error each kind of kernel fault gives, one child process per fault (a fault is sticky:
// "the process must be terminated and relaunched", CUDA Runtime API, cudaError): a failed
// device assert (cudaErrorAssert), __trap() (cudaErrorLaunchFailure, "an exception occurred on
// the device while executing a kernel"), a load from an unaligned address
// (cudaErrorMisalignedAddress), a store through a wild pointer (cudaErrorIllegalAddress), each
// reported by the synchronization after the launch and again by every later call; and, in the
// parent, that errors which are not sticky (an invalid launch configuration) leave the context
// usable.
#include <cassert>
#include <cstdint>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

__global__ void failing_assert(const int *data) {
  int v = data[threadIdx.x];
  assert(v < 40);
}
__global__ void trapping(int *data) {
  if (threadIdx.x == 7) __trap();
  data[threadIdx.x] = 1;
}
__global__ void misaligned(const char *data, int *out) {
  const int *p = reinterpret_cast<const int *>(data + 2);
  out[threadIdx.x] = p[threadIdx.x];
}
__global__ void wild_store(int *data) { reinterpret_cast<int *>(uintptr_t(data) + (1ull << 40))[threadIdx.x] = 3; }
__global__ void fine(int *data) { data[threadIdx.x] += 1; }

// Runs fault `which` in this process; exits 0 when the errors are the documented ones.
static int child(int which) {
  int *d;
  CUDA(cudaMalloc(&d, 1024));
  CUDA(cudaMemset(d, 0, 1024));
  int values[64];
  for (int i = 0; i < 64; ++i) values[i] = i;
  CUDA(cudaMemcpy(d, values, sizeof(values), cudaMemcpyHostToDevice));
  cudaError_t want = cudaSuccess;
  switch (which) {
  case 0: failing_assert<<<1, 64>>>(d); want = cudaErrorAssert; break;
  case 1: trapping<<<1, 32>>>(d); want = cudaErrorLaunchFailure; break;
  case 2: misaligned<<<1, 32>>>(reinterpret_cast<const char *>(d), d + 128); want = cudaErrorMisalignedAddress; break;
  default: wild_store<<<1, 32>>>(d); want = cudaErrorIllegalAddress; break;
  }
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  cudaError_t later = cudaMemcpy(values, d, sizeof(values), cudaMemcpyDeviceToHost);
  cudaError_t last = cudaGetLastError();
  std::printf("fault %d: launch %s, sync %s, later %s, last %s\n", which, cudaGetErrorName(launch),
              cudaGetErrorName(sync), cudaGetErrorName(later), cudaGetErrorName(last));
  bool ok = launch == cudaSuccess && sync == want && later == want && last == want;
  std::fflush(stdout);
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  for (int which = 0; which < 4; ++which) {
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) _exit(child(which));
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "fault %d: the child's errors (status %d)", which, status);
  }
  // Not sticky: a launch with too many threads per block, then a good launch.
  int *d;
  CUDA(cudaMalloc(&d, 256));
  CUDA(cudaMemset(d, 0, 256));
  fine<<<1, 2048>>>(d);
  cudaError_t e = cudaGetLastError();
  CHECK(e == cudaErrorInvalidConfiguration, "2048 threads: %s", cudaGetErrorName(e));
  CHECK(cudaGetLastError() == cudaSuccess, "cudaGetLastError resets a non-sticky error");
  fine<<<1, 64>>>(d);
  CUDA(cudaDeviceSynchronize());
  int h[64];
  CUDA(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; ++i) CHECK(h[i] == 1, "after the failed launch [%d] = %d", i, h[i]);
  return report("kernel_faults");
}
