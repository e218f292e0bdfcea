// CUDA Dynamic Parallelism (CDP2, CUDA 12+): kernels launching kernels, for
// crates/exec/tests/suite/dynamic_parallelism.rs. Built with -rdc=true (ptx-samples/regen.sh).
#include <cstdio>

// Each thread writes `value + thread` to its element of `out`.
__global__ void fill(int *out, int value) { out[threadIdx.x] = value + threadIdx.x; }

// Every thread of the parent launches a child grid of `n` threads over its own slice.
__global__ void fan_out(int *out, int n)
{
    int slot = blockIdx.x * blockDim.x + threadIdx.x;
    fill<<<1, n>>>(out + slot * n, 100 * slot);
}

// Appends `value` to the log (log[0] counts the entries), then, while `depth` > 0, launches
// itself with 10 * value.
__global__ void append(int *log, int value, int depth)
{
    int at = atomicAdd(&log[0], 1);
    log[1 + at] = value;
    if (depth > 0) append<<<1, 1>>>(log, 10 * value, depth - 1);
}

// Stream order: a tail launch first (it runs after everything else the grid launched), then two
// launches into the block's NULL stream (the second waits for the first and its child), then
// one into a named stream of its own.
__global__ void ordering(int *log)
{
    append<<<1, 1, 0, cudaStreamTailLaunch>>>(log, 9, 0);
    append<<<1, 1>>>(log, 1, 1);
    append<<<1, 1>>>(log, 2, 0);
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    append<<<1, 1, 0, s>>>(log, 3, 0);
    cudaStreamDestroy(s);
}

// Records its depth and launches itself until `stop`.
__global__ void recurse(int *out, int depth, int stop)
{
    out[depth] = depth;
    if (depth < stop) recurse<<<1, 1>>>(out, depth + 1, stop);
}

// The device runtime's calls: cudaMalloc / cudaFree, cudaMemcpyAsync and cudaMemsetAsync
// (ordered with the launches of the stream), an invalid launch and the last-error calls, the
// error strings.
__global__ void runtime_calls(int *out, char *text)
{
    int *p = nullptr;
    out[0] = cudaMalloc((void **)&p, 4 * sizeof(int));
    for (int i = 0; i < 4; ++i) p[i] = 7 * (i + 1);
    out[1] = cudaMemcpyAsync(out + 8, p, 4 * sizeof(int), cudaMemcpyDeviceToDevice, 0);
    fill<<<1, 2>>>(out + 8, 50);   // after the copy: out[8..10] = 50, 51
    out[2] = cudaMemsetAsync(out + 12, 0xff, 2 * sizeof(int), 0);
    fill<<<1, 2048>>>(out, 0);     // more threads than a block may have
    out[3] = cudaPeekAtLastError();
    out[4] = cudaGetLastError();
    out[5] = cudaGetLastError();
    out[6] = cudaFree(p);
    const char *s = cudaGetErrorString(cudaErrorInvalidConfiguration);
    const char *n = cudaGetErrorName(cudaErrorInvalidConfiguration);
    int i = 0;
    for (; s[i]; ++i) text[i] = s[i];
    text[i++] = '|';
    for (int j = 0; n[j]; ++j) text[i++] = n[j];
    text[i] = 0;
}

// printf of a parent and of its child, and a child that fails.
__global__ void child_prints(int v) { printf("child %d\n", v); }
__global__ void parent_prints()
{
    printf("parent %d\n", threadIdx.x);
    child_prints<<<1, 1>>>(threadIdx.x);
}
__global__ void bad_child(int *p) { p[threadIdx.x] = 1; }
__global__ void launches_bad_child() { bad_child<<<1, 1>>>(nullptr); }
