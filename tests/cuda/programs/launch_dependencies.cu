// Launch attributes that order or group kernels (CUDA C++ Programming Guide, "Programmatic
// Dependent Launch and Synchronization"; CUDA Runtime API, cudaLaunchAttributeID):
// programmatic stream serialization (the secondary kernel calls cudaGridDependencySynchronize,
// the primary cudaTriggerProgrammaticLaunchCompletion), a programmatic event, a cooperative
// launch through cudaLaunchKernelEx's attribute with grid.sync() five times, a launch-completion
// event, and the priority and memory-sync-domain attributes; each kernel's result against a CPU
// computation.
#include <cooperative_groups.h>
#include <vector>
#include "check.h"

namespace cg = cooperative_groups;

__global__ void primary(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = float(i) * 0.5f;
  cudaTriggerProgrammaticLaunchCompletion();
}
__global__ void secondary(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float bias = 1.0f;  // work that does not depend on the primary
  cudaGridDependencySynchronize();
  if (i < n) b[i] = a[n - 1 - i] + bias;
}
// Every block adds its id into slot r of the round's sum, and after grid.sync() reads the
// total the whole grid made in that round.
__global__ void rounds(int *sums, int *seen, int rounds) {
  cg::grid_group grid = cg::this_grid();
  for (int r = 0; r < rounds; ++r) {
    if (threadIdx.x == 0) atomicAdd(&sums[r], int(blockIdx.x) + r);
    grid.sync();
    if (threadIdx.x == 0) seen[r * gridDim.x + blockIdx.x] = sums[r];
    grid.sync();
  }
}

int main() {
  const int n = 4096;
  float *a, *b;
  CUDA(cudaMalloc(&a, n * 4));
  CUDA(cudaMalloc(&b, n * 4));
  cudaStream_t s;
  CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaLaunchAttribute pdl[1];
  pdl[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  pdl[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(n / 256);
  cfg.blockDim = dim3(256);
  cfg.stream = s;
  for (int round = 0; round < 3; ++round) {
    CUDA(cudaMemsetAsync(b, 0, n * 4, s));
    primary<<<n / 256, 256, 0, s>>>(a, n);
    cfg.attrs = pdl;
    cfg.numAttrs = 1;
    CUDA(cudaLaunchKernelEx(&cfg, secondary, (const float *)a, b, n));
  }
  std::vector<float> got(n);
  CUDA(cudaMemcpyAsync(got.data(), b, n * 4, cudaMemcpyDeviceToHost, s));
  CUDA(cudaStreamSynchronize(s));
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += got[i] != float(n - 1 - i) * 0.5f + 1.0f;
  CHECK(bad == 0, "programmatic stream serialization: %d wrong", bad);

  // A programmatic event: the secondary in another stream waits on it.
  cudaEvent_t trigger;
  CUDA(cudaEventCreateWithFlags(&trigger, cudaEventDisableTiming));
  cudaLaunchAttribute event_attr;
  event_attr.id = cudaLaunchAttributeProgrammaticEvent;
  event_attr.val.programmaticEvent.event = trigger;
  event_attr.val.programmaticEvent.triggerAtBlockStart = 0;
  event_attr.val.programmaticEvent.flags = 0;
  cudaLaunchConfig_t pcfg = cfg;
  pcfg.attrs = &event_attr;
  pcfg.numAttrs = 1;
  CUDA(cudaMemset(b, 0, n * 4));
  CUDA(cudaLaunchKernelEx(&pcfg, primary, a, n));
  cudaStream_t other;
  CUDA(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  CUDA(cudaStreamWaitEvent(other, trigger, 0));
  secondary<<<n / 256, 256, 0, other>>>(a, b, n);
  CUDA(cudaStreamSynchronize(other));
  CUDA(cudaMemcpy(got.data(), b, n * 4, cudaMemcpyDeviceToHost));
  bad = 0;
  for (int i = 0; i < n; ++i) bad += got[i] != float(n - 1 - i) * 0.5f + 1.0f;
  CHECK(bad == 0, "programmatic event: %d wrong", bad);

  // Cooperative launch through the attribute, as many blocks as can be resident.
  int per_sm = 0, sms = 0, cooperative = 0;
  CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rounds, 128, 0));
  CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CUDA(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, 0));
  CHECK(cooperative == 1, "cooperative launch supported");
  int blocks = std::min(per_sm * sms, 48);
  const int R = 5;
  int *sums, *seen;
  CUDA(cudaMalloc(&sums, R * 4));
  CUDA(cudaMalloc(&seen, R * blocks * 4));
  CUDA(cudaMemset(sums, 0, R * 4));
  cudaLaunchAttribute coop[3];
  coop[0].id = cudaLaunchAttributeCooperative;
  coop[0].val.cooperative = 1;
  coop[1].id = cudaLaunchAttributePriority;
  coop[1].val.priority = 0;
  coop[2].id = cudaLaunchAttributeMemSyncDomain;
  coop[2].val.memSyncDomain = cudaLaunchMemSyncDomainRemote;
  cudaLaunchConfig_t ccfg = {};
  ccfg.gridDim = dim3(blocks);
  ccfg.blockDim = dim3(128);
  ccfg.stream = s;
  ccfg.attrs = coop;
  ccfg.numAttrs = 3;
  // A launch-completion event recorded when the kernel's blocks have all started or finished.
  cudaEvent_t done;
  CUDA(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  CUDA(cudaLaunchKernelEx(&ccfg, rounds, sums, seen, R));
  CUDA(cudaEventRecord(done, s));
  CUDA(cudaEventSynchronize(done));
  std::vector<int> seen_h(R * blocks);
  CUDA(cudaMemcpy(seen_h.data(), seen, seen_h.size() * 4, cudaMemcpyDeviceToHost));
  for (int r = 0; r < R; ++r) {
    int want = blocks * (blocks - 1) / 2 + r * blocks;
    for (int blk = 0; blk < blocks; ++blk)
      CHECK(seen_h[r * blocks + blk] == want, "round %d block %d saw %d, want %d", r, blk, seen_h[r * blocks + blk], want);
  }
  CUDA(cudaStreamDestroy(s));
  CUDA(cudaStreamDestroy(other));
  return report("launch_dependencies");
}
