// Module globals: __constant__ arrays and structs filled with cudaMemcpyToSymbol (with offsets,
// and async), __device__ variables read back with cudaMemcpyFromSymbol, cudaGetSymbolAddress
// and cudaGetSymbolSize, a device global initialised in the source, and static __device__
// variables in a function.
#include <vector>
#include "check.h"

struct Params {
  float scale;
  int offset;
  double weights[4];
};
__constant__ float c_coeffs[16];
__constant__ Params c_params;
__device__ int d_counter;
__device__ float d_buffer[256];
__device__ int d_initialised[4] = {10, 20, 30, 40};
__device__ unsigned long long d_big = 0x123456789abcdefull;

__global__ void use_symbols(float *out) {
  int i = threadIdx.x;
  float acc = 0;
  for (int k = 0; k < 16; ++k) acc += c_coeffs[k] * float(i + k);
  out[i] = acc * c_params.scale + c_params.offset + float(c_params.weights[i % 4]) + d_initialised[i % 4];
  d_buffer[i] = float(i) * 0.5f;
  atomicAdd(&d_counter, 1);
  if (i == 0) d_big += 1;
}

int main() {
  float coeffs[16];
  for (int k = 0; k < 16; ++k) coeffs[k] = 0.125f * k;
  CUDA(cudaMemcpyToSymbol(c_coeffs, coeffs, 8 * sizeof(float)));
  CUDA(cudaMemcpyToSymbol(c_coeffs, coeffs + 8, 8 * sizeof(float), 8 * sizeof(float)));
  Params p = {2.0f, -3, {0.5, 1.5, 2.5, 3.5}};
  cudaStream_t s;
  CUDA(cudaStreamCreate(&s));
  CUDA(cudaMemcpyToSymbolAsync(c_params, &p, sizeof p, 0, cudaMemcpyHostToDevice, s));
  CUDA(cudaStreamSynchronize(s));
  int zero = 0;
  CUDA(cudaMemcpyToSymbol(d_counter, &zero, sizeof zero));
  size_t size = 0;
  CUDA(cudaGetSymbolSize(&size, d_buffer));
  CHECK(size == 256 * sizeof(float), "symbol size %zu", size);
  float *buffer_addr;
  CUDA(cudaGetSymbolAddress((void **)&buffer_addr, d_buffer));
  CUDA(cudaMemset(buffer_addr, 0, 256 * sizeof(float)));
  const int threads = 128;
  float *out;
  CUDA(cudaMalloc(&out, threads * 4));
  use_symbols<<<1, threads>>>(out);
  use_symbols<<<1, threads>>>(out);
  CUDA(cudaDeviceSynchronize());
  std::vector<float> got(threads), buf(256);
  CUDA(cudaMemcpy(got.data(), out, threads * 4, cudaMemcpyDeviceToHost));
  int counter = 0;
  unsigned long long big = 0;
  CUDA(cudaMemcpyFromSymbol(&counter, d_counter, sizeof counter));
  CUDA(cudaMemcpyFromSymbol(buf.data(), d_buffer, 256 * sizeof(float)));
  CUDA(cudaMemcpyFromSymbol(&big, d_big, 8));
  int init[2];
  CUDA(cudaMemcpyFromSymbol(init, d_initialised, 2 * sizeof(int), 2 * sizeof(int)));
  for (int i = 0; i < threads; ++i) {
    float acc = 0;
    for (int k = 0; k < 16; ++k) acc += coeffs[k] * float(i + k);
    float want = acc * 2.0f + -3 + float(p.weights[i % 4]) + (i % 4 + 1) * 10;
    CHECK(close_to(got[i], want, 1e-5), "out[%d] %g vs %g", i, got[i], want);
  }
  CHECK(counter == 2 * threads, "counter %d", counter);
  for (int i = 0; i < 256; ++i) CHECK(buf[i] == (i < threads ? i * 0.5f : 0.0f), "d_buffer[%d]", i);
  CHECK(big == 0x123456789abcdefull + 2, "d_big %llx", big);
  CHECK(init[0] == 30 && init[1] == 40, "initialised %d %d", init[0], init[1]);
  return report("symbols_constant");
}
