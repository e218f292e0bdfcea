// Launching without <<<>>> and asking about kernels: cudaLaunchKernel with a void* argument
// array, cudaLaunchKernelEx (the C++ template and cudaLaunchKernelExC) with launch attributes
// (priority), a kernel taking an 8 KiB __grid_constant__ struct by value (CUDA 12.1 raised the
// parameter limit to 32,764 bytes), __launch_bounds__ seen through cudaFuncGetAttributes and a
// launch beyond it failing, cudaFuncGetName, cudaFuncGetParamInfo, cudaGetFuncBySymbol,
// cudaFuncSetCacheConfig / cudaDeviceSetCacheConfig / cudaDeviceSetSharedMemConfig, the
// shared-memory carveout attribute, and the occupancy API (active blocks limited by threads and
// by dynamic shared memory, cudaOccupancyMaxPotentialBlockSize, available dynamic shared memory).
#include <cstring>
#include <vector>
#include "check.h"

struct Big {
  int values[2048];
  int count;
};

__global__ void sum_big(const __grid_constant__ Big big, long long *out) {
  long long s = 0;
  for (int i = threadIdx.x; i < big.count; i += blockDim.x) s += big.values[i];
  atomicAdd(reinterpret_cast<unsigned long long *>(out), (unsigned long long)s);
}

__global__ void axpy(float a, const float *x, float *y, int n, double extra) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i] + float(extra);
}

__global__ void __launch_bounds__(256) bounded(int *out) { out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x; }

__global__ void shared_user(int *out) {
  extern __shared__ int dyn[];
  dyn[threadIdx.x] = threadIdx.x * 3;
  __syncthreads();
  out[threadIdx.x] = dyn[blockDim.x - 1 - threadIdx.x];
}

int main() {
  int n = 1000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = float(i), y[i] = float(2 * i);
  float *dx, *dy;
  CUDA(cudaMalloc(&dx, n * 4));
  CUDA(cudaMalloc(&dy, n * 4));
  CUDA(cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(dy, y.data(), n * 4, cudaMemcpyHostToDevice));

  // cudaLaunchKernel with an argument array
  float a = 2.0f;
  double extra = 0.5;
  void *args[] = {&a, &dx, &dy, &n, &extra};
  CUDA(cudaLaunchKernel((const void *)axpy, dim3((n + 127) / 128), dim3(128), args, 0, nullptr));
  // cudaLaunchKernelEx, the C++ form, in a stream with a priority attribute
  cudaStream_t stream;
  CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3((n + 255) / 256);
  config.blockDim = dim3(256);
  config.stream = stream;
  cudaLaunchAttribute attrs[1];
  attrs[0].id = cudaLaunchAttributePriority;
  attrs[0].val.priority = 0;
  config.attrs = attrs;
  config.numAttrs = 1;
  CUDA(cudaLaunchKernelEx(&config, axpy, 1.0f, (const float *)dx, dy, n, 0.25));
  // and the C form with its argument array
  float b = -1.0f;
  void *args2[] = {&b, &dx, &dy, &n, &extra};
  CUDA(cudaLaunchKernelExC(&config, (const void *)axpy, args2));
  CUDA(cudaStreamSynchronize(stream));
  CUDA(cudaMemcpy(y.data(), dy, n * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    float want = 2.0f * i + 2.0f * i + 0.5f;
    want = 1.0f * i + want + 0.25f;
    want = -1.0f * i + want + 0.5f;
    CHECK(y[i] == want, "axpy[%d] %g vs %g", i, y[i], want);
  }

  // an 8 KiB argument
  static Big big;
  big.count = 2048;
  long long want_sum = 0;
  for (int i = 0; i < 2048; ++i) big.values[i] = i * 7 - 3000, want_sum += big.values[i];
  long long *dsum;
  CUDA(cudaMalloc(&dsum, 8));
  CUDA(cudaMemset(dsum, 0, 8));
  sum_big<<<2, 128>>>(big, dsum);
  CUDA(cudaGetLastError());
  long long got_sum = 0;
  CUDA(cudaMemcpy(&got_sum, dsum, 8, cudaMemcpyDeviceToHost));
  CHECK(got_sum == 2 * want_sum, "8 KiB parameter: %lld vs %lld", got_sum, 2 * want_sum);

  // attributes
  cudaFuncAttributes fa;
  CUDA(cudaFuncGetAttributes(&fa, bounded));
  CHECK(fa.maxThreadsPerBlock == 256, "__launch_bounds__(256): maxThreadsPerBlock %d", fa.maxThreadsPerBlock);
  CUDA(cudaFuncGetAttributes(&fa, sum_big));
  CHECK(fa.maxThreadsPerBlock == 1024, "unbounded: maxThreadsPerBlock %d", fa.maxThreadsPerBlock);
  CHECK(fa.sharedSizeBytes == 0 && fa.ptxVersion >= 90, "sum_big: shared %zu, ptx %d", fa.sharedSizeBytes, fa.ptxVersion);
  int *dout;
  CUDA(cudaMalloc(&dout, 1024 * 4));
  bounded<<<1, 256>>>(dout);
  CUDA(cudaGetLastError());
  bounded<<<1, 512>>>(dout);  // above its bound: the launch fails, the context lives on
  cudaError_t e = cudaGetLastError();
  CHECK(e != cudaSuccess, "512 threads into __launch_bounds__(256): %s", cudaGetErrorName(e));
  const char *name = nullptr;
  CUDA(cudaFuncGetName(&name, axpy));
  CHECK(name && std::strstr(name, "axpy"), "cudaFuncGetName: %s", name ? name : "(null)");
  size_t offset = 0, size = 0;
  CUDA(cudaFuncGetParamInfo((const void *)axpy, 4, &offset, &size));
  CHECK(offset == 32 && size == 8, "axpy's 5th parameter at %zu, %zu bytes", offset, size);
  CUDA(cudaFuncGetParamInfo((const void *)sum_big, 1, &offset, &size));
  CHECK(offset == 8200 && size == 8, "sum_big's pointer at %zu, %zu bytes", offset, size);
  cudaFunction_t fn = nullptr;
  CUDA(cudaGetFuncBySymbol(&fn, (const void *)axpy));
  CHECK(fn != nullptr, "cudaGetFuncBySymbol");

  // cache and shared memory configuration: hints, accepted
  CUDA(cudaFuncSetCacheConfig(shared_user, cudaFuncCachePreferShared));
  CUDA(cudaDeviceSetCacheConfig(cudaFuncCachePreferL1));
  cudaFuncCache cache;
  CUDA(cudaDeviceGetCacheConfig(&cache));
  CHECK(cache == cudaFuncCachePreferL1 || cache == cudaFuncCachePreferNone, "cache config %d", int(cache));
  CUDA(cudaFuncSetAttribute(shared_user, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
  CUDA(cudaFuncSetAttribute(shared_user, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024));
  CUDA(cudaFuncGetAttributes(&fa, shared_user));
  CHECK(fa.maxDynamicSharedSizeBytes == 100 * 1024, "max dynamic shared %d", fa.maxDynamicSharedSizeBytes);
  shared_user<<<1, 512, 100 * 1024>>>(dout);
  CUDA(cudaGetLastError());
  std::vector<int> out(512);
  CUDA(cudaMemcpy(out.data(), dout, 512 * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 512; ++i) CHECK(out[i] == (511 - i) * 3, "shared_user[%d] %d", i, out[i]);

  // occupancy, with the device's limits
  int sms = 0, max_threads_sm = 0, max_blocks_sm = 0, smem_sm = 0, reserved = 0;
  CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CUDA(cudaDeviceGetAttribute(&max_threads_sm, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
  CUDA(cudaDeviceGetAttribute(&max_blocks_sm, cudaDevAttrMaxBlocksPerMultiprocessor, 0));
  CUDA(cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0));
  CUDA(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, 0));
  int blocks = 0;
  CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, axpy, 256, 0));
  CHECK(blocks == std::min(max_threads_sm / 256, max_blocks_sm), "256-thread blocks per SM: %d", blocks);
  CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, axpy, 32, 0));
  CHECK(blocks == std::min(max_threads_sm / 32, max_blocks_sm), "32-thread blocks per SM: %d", blocks);
  CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, shared_user, 128, 40 * 1024));
  CHECK(blocks == smem_sm / (40 * 1024 + reserved), "40 KiB blocks per SM: %d (smem %d, reserved %d)", blocks, smem_sm, reserved);
  int min_grid = 0, block = 0;
  CUDA(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, axpy, 0, 0));
  CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, axpy, block, 0));
  CHECK(block > 0 && block <= 1024 && block % 32 == 0 && blocks * block == max_threads_sm, "potential block size %d", block);
  CHECK(min_grid == blocks * sms, "min grid %d vs %d x %d", min_grid, blocks, sms);
  CUDA(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, bounded, 0, 0));
  CHECK(block <= 256, "block size within __launch_bounds__: %d", block);
  size_t avail = 0;
  CUDA(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, shared_user, 2, 128));
  CHECK(avail >= 100 * 1024 && avail <= size_t(smem_sm / 2), "dynamic shared for 2 blocks: %zu", avail);
  CUDA(cudaStreamDestroy(stream));
  cudaFree(dx);
  cudaFree(dy);
  cudaFree(dsum);
  cudaFree(dout);
  return report("launch_api");
}
