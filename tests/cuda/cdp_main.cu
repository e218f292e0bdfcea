// CUDA Dynamic Parallelism through the CUDA runtime and the device runtime (-rdc=true,
// -lcudadevrt), for crates/cuda/tests/cuda_runtime.rs. Every result is checked against the
// host's own computation from the CUDA Programming Guide's ordering rules: work launched into
// one stream runs in order, a tail launch runs after the rest of its grid's work.
#include <cstdio>

__global__ void times(int *data, int factor);
__global__ void plus(int *data, int term);

// Block b works on data[b * n, (b + 1) * n): times 10 as a tail launch (last), times 2 then
// plus 1 in the block's NULL stream (in that order).
__global__ void parent(int *data, int n)
{
    if (threadIdx.x != 0) return;
    int *slice = data + blockIdx.x * n;
    times<<<1, n, 0, cudaStreamTailLaunch>>>(slice, 10);
    times<<<1, n>>>(slice, 2);
    plus<<<1, n>>>(slice, 1);
}

int main()
{
    const int blocks = 3, n = 8, count = blocks * n;
    int host[count], expected[count];
    for (int i = 0; i < count; ++i) {
        host[i] = i - 5;
        expected[i] = ((i - 5) * 2 + 1) * 10;
    }
    int *data;
    cudaMalloc(&data, sizeof host);
    cudaMemcpy(data, host, sizeof host, cudaMemcpyHostToDevice);
    parent<<<blocks, 4>>>(data, n);
    cudaError_t launched = cudaGetLastError();
    cudaError_t synced = cudaDeviceSynchronize();
    cudaMemcpy(host, data, sizeof host, cudaMemcpyDeviceToHost);
    int failed = (launched != cudaSuccess) + (synced != cudaSuccess);
    for (int i = 0; i < count; ++i) {
        if (host[i] != expected[i]) {
            printf("data[%d] = %d, expected %d\n", i, host[i], expected[i]);
            ++failed;
        }
    }
    printf("PASSED: %d failed\n", failed);
    return failed != 0;
}
