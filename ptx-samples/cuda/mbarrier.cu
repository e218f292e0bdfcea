// mbarrier through libcu++: cuda::barrier<thread_scope_block> (mbarrier.init / arrive /
// test_wait or try_wait) and cuda::memcpy_async with a barrier (cp.async + cp.async.mbarrier.arrive).
#include <cuda/barrier>
#include <cooperative_groups.h>

// As the CUDA Programming Guide does for block-scope barriers in shared memory.
#pragma nv_diag_suppress static_var_with_dynamic_init

// Each block stages its tile of `in` into shared memory with memcpy_async tied to a barrier,
// waits, and writes the tile reversed (so the result depends on other threads' copies).
extern "C" __global__ void barrier_reverse_tile(const float* in, float* out, int n) {
    __shared__ float tile[256];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cooperative_groups::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    int base = blockIdx.x * blockDim.x;
    int i = base + threadIdx.x;
    if (i < n) {
        cuda::memcpy_async(&tile[threadIdx.x], &in[i], sizeof(float), bar);
    } else {
        tile[threadIdx.x] = 0.0f;
    }
    bar.arrive_and_wait();
    int j = blockDim.x - 1 - threadIdx.x;
    if (i < n) out[i] = tile[j] * 2.0f + (float)threadIdx.x;
}

// Two phases of one barrier: every thread adds its value to a shared sum between phases.
extern "C" __global__ void barrier_two_phases(const int* in, int* out, int n) {
    __shared__ int sum[2];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
        sum[0] = 0;
        sum[1] = 0;
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    atomicAdd(&sum[0], v);
    bar.arrive_and_wait();
    atomicAdd(&sum[1], sum[0] - v);
    auto token = bar.arrive();
    bar.wait(std::move(token));
    if (i < n) out[i] = sum[1] + v;
}
