// Asynchronous global-to-shared copies in the three spellings CUDA offers (compiled for sm_90,
// so they become cp.async): cooperative_groups::memcpy_async with cg::wait, the primitives of
// cuda_pipeline.h (__pipeline_memcpy_async, __pipeline_commit, __pipeline_wait_prior) for a
// per-thread double buffer, cuda::memcpy_async of a whole tile with cuda::aligned_size_t<16>
// completing on a cuda::barrier, and a three-stage block-wide cuda::pipeline
// (pipeline_shared_state, producer_acquire/commit, consumer_wait/release) streaming tiles
// through shared memory. Each kernel computes sums of the tiles, checked against the host.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_pipeline.h>
#include <vector>
#include "check.h"
namespace cg = cooperative_groups;

constexpr int TILE = 256, TILES = 12, THREADS = 128;

// out[b] = sum over the block's tiles of tile[i] * (i % 7)
__global__ void cg_copy(const float *in, float *out) {
  __shared__ float tile[TILE];
  auto block = cg::this_thread_block();
  float acc = 0;
  for (int t = blockIdx.x; t < TILES; t += gridDim.x) {
    cg::memcpy_async(block, tile, in + t * TILE, sizeof(float) * TILE);
    cg::wait(block);
    for (int i = threadIdx.x; i < TILE; i += blockDim.x) acc += tile[i] * float(i % 7);
    block.sync();
  }
  atomicAdd(out, acc);
}

__global__ void primitives(const float4 *in, float *out) {
  __shared__ float4 buf[2][THREADS];
  int tid = threadIdx.x;
  float acc = 0;
  const int n = TILES * TILE / 4 / THREADS;  // float4 rounds
  __pipeline_memcpy_async(&buf[0][tid], &in[tid], sizeof(float4));
  __pipeline_commit();
  for (int r = 0; r < n; ++r) {
    if (r + 1 < n) __pipeline_memcpy_async(&buf[(r + 1) & 1][tid], &in[(r + 1) * THREADS + tid], sizeof(float4));
    __pipeline_commit();
    __pipeline_wait_prior(1);  // all but the newest batch have landed
    float4 v = buf[r & 1][tid];
    acc += v.x + 2 * v.y + 3 * v.z + 4 * v.w;
  }
  atomicAdd(out, acc);
}

__global__ void barrier_copy(const float *in, float *out) {
  __shared__ alignas(16) float tile[TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  float acc = 0;
  for (int t = blockIdx.x; t < TILES; t += gridDim.x) {
    cuda::memcpy_async(block, tile, in + t * TILE, cuda::aligned_size_t<16>(sizeof(float) * TILE), bar);
    bar.arrive_and_wait();
    for (int i = threadIdx.x; i < TILE; i += blockDim.x) acc += tile[i] * float(t + 1);
    block.sync();
  }
  atomicAdd(out, acc);
}

constexpr int STAGES = 3;
__global__ void staged(const float *in, float *out) {
  __shared__ alignas(16) float tiles[STAGES][TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  int fetched = 0;
  float acc = 0;
  for (int t = 0; t < TILES; ++t) {
    for (; fetched < TILES && fetched < t + STAGES; ++fetched) {
      pipe.producer_acquire();
      cuda::memcpy_async(block, tiles[fetched % STAGES], in + fetched * TILE, cuda::aligned_size_t<16>(sizeof(float) * TILE), pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    for (int i = threadIdx.x; i < TILE; i += blockDim.x) acc += tiles[t % STAGES][i] * float((i + t) % 5);
    pipe.consumer_release();
  }
  atomicAdd(out, acc);
}

int main() {
  std::vector<float> in(TILES * TILE);
  unsigned s = 77;
  for (auto &v : in) v = float(int(lcg(s) % 64) - 32);  // small integers: every sum exact
  float *din, *dout;
  CUDA(cudaMalloc(&din, in.size() * 4));
  CUDA(cudaMalloc(&dout, 4 * 4));
  CUDA(cudaMemcpy(din, in.data(), in.size() * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemset(dout, 0, 4 * 4));
  cg_copy<<<3, THREADS>>>(din, dout);
  CUDA(cudaGetLastError());
  primitives<<<1, THREADS>>>(reinterpret_cast<const float4 *>(din), dout + 1);
  CUDA(cudaGetLastError());
  barrier_copy<<<4, THREADS>>>(din, dout + 2);
  CUDA(cudaGetLastError());
  staged<<<1, THREADS>>>(din, dout + 3);
  CUDA(cudaGetLastError());
  float got[4];
  CUDA(cudaMemcpy(got, dout, sizeof got, cudaMemcpyDeviceToHost));
  double want[4] = {0, 0, 0, 0};
  for (int t = 0; t < TILES; ++t)
    for (int i = 0; i < TILE; ++i) {
      double v = in[t * TILE + i];
      want[0] += v * (i % 7);
      want[1] += v * (1 + (t * TILE + i) % 4);
      want[2] += v * (t + 1);
      want[3] += v * ((i + t) % 5);
    }
  const char *names[4] = {"cg::memcpy_async", "__pipeline_memcpy_async", "cuda::memcpy_async + barrier", "cuda::pipeline"};
  for (int k = 0; k < 4; ++k) CHECK(got[k] == float(want[k]), "%s: %g vs %g", names[k], got[k], want[k]);
  return report("async_copy");
}
