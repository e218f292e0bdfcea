// nvcc: -rdc=true
// Separate compilation (-rdc=true): kernels in this file call __device__ functions and read a
// __device__ variable defined in lib.cu, and a kernel defined there is launched from here;
// the device linker (nvlink) joins the two units' PTX into one fatbin entry.
#include <vector>
#include "check.h"

extern __device__ float scale_by_table(float x, int i);
extern __device__ int lib_counter;
__global__ void lib_kernel(int *out, int n);
extern void lib_set_table(const float *values, int n);

__global__ void use_lib(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = scale_by_table(in[i], i);
    atomicAdd(&lib_counter, 1);
  }
}

int main() {
  const int n = 1000;
  float table[8];
  for (int k = 0; k < 8; ++k) table[k] = 0.5f * (k + 1);
  lib_set_table(table, 8);
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = float(i) - 400.0f;
  float *in, *out;
  int *iout;
  CUDA(cudaMalloc(&in, n * 4));
  CUDA(cudaMalloc(&out, n * 4));
  CUDA(cudaMalloc(&iout, n * 4));
  CUDA(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  use_lib<<<(n + 127) / 128, 128>>>(in, out, n);
  lib_kernel<<<(n + 127) / 128, 128>>>(iout, n);
  CUDA(cudaDeviceSynchronize());
  std::vector<float> got(n);
  std::vector<int> igot(n);
  CUDA(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(igot.data(), iout, n * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    CHECK(got[i] == h[i] * table[i % 8] + 1.0f, "use_lib[%d] %g", i, got[i]);
    CHECK(igot[i] == n + i, "lib_kernel[%d] %d", i, igot[i]);
  }
  return report("rdc_separate");
}
