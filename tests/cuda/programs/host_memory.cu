// Host memory as programs use it: cudaSetDeviceFlags(cudaDeviceMapHost), cudaHostAlloc with
// cudaHostAllocMapped/Portable/WriteCombined and cudaHostGetDevicePointer (zero copy: a kernel
// writes host memory directly), cudaHostRegister of a malloc'd buffer, cudaMallocHost,
// cudaMemcpyAsync from pageable memory, cudaOccupancyMaxPotentialBlockSize to pick a launch
// shape, cudaDeviceSynchronize, and cudaDeviceReset at the end.
#include <cstdlib>
#include <cstring>
#include <vector>
#include "check.h"

__global__ void triple(const int *in, int *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = 3 * in[i];
}

int main() {
  CUDA(cudaSetDeviceFlags(cudaDeviceMapHost));
  int can_map = 0;
  CUDA(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, 0));
  CHECK(can_map == 1, "can map host memory %d", can_map);
  const int n = 5000;
  int *mapped_in, *mapped_out;
  CUDA(cudaHostAlloc(&mapped_in, n * 4, cudaHostAllocMapped | cudaHostAllocPortable));
  CUDA(cudaHostAlloc(&mapped_out, n * 4, cudaHostAllocMapped | cudaHostAllocWriteCombined));
  for (int i = 0; i < n; ++i) mapped_in[i] = i - 2500;
  int *din, *dout;
  CUDA(cudaHostGetDevicePointer(&din, mapped_in, 0));
  CUDA(cudaHostGetDevicePointer(&dout, mapped_out, 0));
  int min_grid = 0, block = 0;
  CUDA(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, triple, 0, 0));
  CHECK(block > 0 && block <= 1024 && block % 32 == 0 && min_grid > 0, "potential block size %d, grid %d", block,
        min_grid);
  triple<<<min_grid, block>>>(din, dout, n);
  CUDA(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) CHECK(mapped_out[i] == 3 * (i - 2500), "zero copy [%d] %d", i, mapped_out[i]);
  unsigned flags = 0;
  CUDA(cudaHostGetFlags(&flags, mapped_in));
  CHECK(flags & cudaHostAllocMapped, "host flags %u", flags);

  // registered malloc memory
  int *plain = (int *)std::malloc(n * 4);
  for (int i = 0; i < n; ++i) plain[i] = i * 7;
  CUDA(cudaHostRegister(plain, n * 4, cudaHostRegisterMapped));
  int *dplain;
  CUDA(cudaHostGetDevicePointer(&dplain, plain, 0));
  int *dev;
  CUDA(cudaMalloc(&dev, n * 4));
  triple<<<8, 128>>>(dplain, dev, n);
  std::vector<int> back(n);
  CUDA(cudaMemcpy(back.data(), dev, n * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(back[i] == 21 * i, "registered [%d] %d", i, back[i]);
  triple<<<8, 128>>>(dev, dplain, n);  // the kernel writes the registered buffer
  CUDA(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) CHECK(plain[i] == 63 * i, "written registered [%d] %d", i, plain[i]);
  CUDA(cudaHostUnregister(plain));
  std::free(plain);

  // pageable async copies and pinned cudaMallocHost
  std::vector<int> pageable(n);
  for (int i = 0; i < n; ++i) pageable[i] = -i;
  int *pinned;
  CUDA(cudaMallocHost(&pinned, n * 4));
  cudaStream_t s;
  CUDA(cudaStreamCreate(&s));
  CUDA(cudaMemcpyAsync(dev, pageable.data(), n * 4, cudaMemcpyHostToDevice, s));
  triple<<<4, 256, 0, s>>>(dev, dev, n);
  CUDA(cudaMemcpyAsync(pinned, dev, n * 4, cudaMemcpyDeviceToHost, s));
  CUDA(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i) CHECK(pinned[i] == -3 * i, "pinned [%d] %d", i, pinned[i]);
  CUDA(cudaStreamDestroy(s));
  CUDA(cudaFreeHost(pinned));
  CUDA(cudaFreeHost(mapped_in));
  CUDA(cudaFreeHost(mapped_out));
  CUDA(cudaFree(dev));
  int failed = report("host_memory");
  CUDA(cudaDeviceReset());
  // after a reset, the device is usable again
  int *again;
  CUDA(cudaMalloc(&again, 16));
  CUDA(cudaMemset(again, 0, 16));
  CUDA(cudaFree(again));
  return failed;
}
