// A CUDA runtime program for ptxsim's driver library (printf, assert, managed and mapped memory,
// a __managed__ variable,
// __constant__ symbols, streams, events, graphs and stream capture, a cooperative launch, a
// texture and a surface): built by nvcc the usual way (runtime
// API, static cudart, a fatbin holding compute_90 PTX) and run with ptxsim's libcuda.so.1 by
// crates/cuda/tests/cuda_runtime.rs. Every check compares with a value the host computes;
// printf's lines are printed again by the host's printf (glibc) after a `expected:` marker,
// and the test compares the two.
#include <cassert>
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>

namespace cg = cooperative_groups;

static int failures = 0;

static void check(bool ok, const char *what) {
    printf("check %s: %s\n", what, ok ? "ok" : "FAILED");
    if (!ok) failures++;
}

static void check_cuda(cudaError_t e, const char *what) {
    if (e != cudaSuccess) printf("cuda error in %s: %s\n", what, cudaGetErrorString(e));
    check(e == cudaSuccess, what);
}

__global__ void saxpy(int n, float a, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void say(float scale) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    printf("device %d: %.3f %5x %s|%-4d|%e\n", t, scale * t, 0xab * t, t % 2 ? "odd" : "even", t, scale / (t + 1));
}

__constant__ int coefficients[4];

__global__ void polynomial(const int *x, int *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = coefficients[0] + x[i] * (coefficients[1] + x[i] * (coefficients[2] + x[i] * coefficients[3]));
}

__global__ void increment(int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] += i;
}

static void CUDART_CB count_call(void *data) { ++*(int *)data; }

// A __managed__ variable (`.global .attribute(.managed)`): the host reads and writes it
// directly, kernels through its name.
__device__ __managed__ int managed_total = 11;

__global__ void add_to_managed(int n) { atomicAdd(&managed_total, n + threadIdx.x); }

// Each thread writes its rank, the grid synchronizes, and each reads another CTA's value.
__global__ void mirror(int *scratch, int *out, int n) {
    cg::grid_group grid = cg::this_grid();
    int i = grid.thread_rank();
    if (i < n) scratch[i] = i * i;
    grid.sync();
    if (i < n) out[i] = scratch[n - 1 - i];
}

// Reads a 2D texture at texel centres (point sampling) and writes the values doubled to a
// surface.
__global__ void texel_double(cudaTextureObject_t texture, cudaSurfaceObject_t surface, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) {
        float v = tex2D<float>(texture, x + 0.5f, y + 0.5f);
        surf2Dwrite(2.0f * v, surface, x * (int)sizeof(float), y);
    }
}

__global__ void heap(int *out) {
    int *p = (int *)malloc(4 * sizeof(int));
    if (p == nullptr) { out[threadIdx.x] = -1; return; }
    for (int k = 0; k < 4; k++) p[k] = threadIdx.x * 10 + k;
    int sum = 0;
    for (int k = 0; k < 4; k++) sum += p[k];
    free(p);
    out[threadIdx.x] = sum;
}

__global__ void must_be_small(const int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) assert(x[i] < 100);
}

int main() {
    int devices = 0;
    check_cuda(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
    check(devices >= 1, "one device at least");
    cudaDeviceProp prop;
    check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    check(prop.major * 10 + prop.minor >= 90 && prop.warpSize == 32, "compute capability 9.0+, warp size 32");

    // saxpy through cudaMalloc / cudaMemcpy.
    const int n = 1000;
    float hx[n], hy[n];
    for (int i = 0; i < n; i++) { hx[i] = i * 0.5f; hy[i] = 1.0f - i; }
    float *x, *y;
    check_cuda(cudaMalloc(&x, n * sizeof(float)), "cudaMalloc x");
    check_cuda(cudaMalloc(&y, n * sizeof(float)), "cudaMalloc y");
    cudaMemcpy(x, hx, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(y, hy, n * sizeof(float), cudaMemcpyHostToDevice);
    saxpy<<<(n + 255) / 256, 256>>>(n, 3.0f, x, y);
    check_cuda(cudaGetLastError(), "saxpy launch");
    float out[n];
    check_cuda(cudaMemcpy(out, y, n * sizeof(float), cudaMemcpyDeviceToHost), "saxpy copy back");
    int wrong = 0;
    for (int i = 0; i < n; i++) wrong += out[i] != 3.0f * hx[i] + hy[i];
    check(wrong == 0, "saxpy");

    // printf from 2 blocks of 3 threads; the host prints the same lines after the marker.
    fflush(stdout);
    say<<<2, 3>>>(0.25f);
    check_cuda(cudaDeviceSynchronize(), "printf kernel");
    printf("expected:\n");
    for (int t = 0; t < 6; t++)
        printf("device %d: %.3f %5x %s|%-4d|%e\n", t, 0.25f * t, 0xab * t, t % 2 ? "odd" : "even", t, 0.25f / (t + 1));
    printf("end of expected\n");

    // __constant__ memory through cudaMemcpyToSymbol.
    int c[4] = {3, -2, 5, 1};
    check_cuda(cudaMemcpyToSymbol(coefficients, c, sizeof c), "cudaMemcpyToSymbol");
    int readback[4] = {0};
    check_cuda(cudaMemcpyFromSymbol(readback, coefficients, sizeof readback), "cudaMemcpyFromSymbol");
    check(readback[0] == 3 && readback[3] == 1, "constant read back");
    int *px, *py, hpx[64], hpy[64];
    for (int i = 0; i < 64; i++) hpx[i] = i - 32;
    cudaMalloc(&px, sizeof hpx);
    cudaMalloc(&py, sizeof hpy);
    cudaMemcpy(px, hpx, sizeof hpx, cudaMemcpyHostToDevice);
    polynomial<<<2, 32>>>(px, py, 64);
    cudaMemcpy(hpy, py, sizeof hpy, cudaMemcpyDeviceToHost);
    wrong = 0;
    for (int i = 0; i < 64; i++) {
        int v = hpx[i];
        wrong += hpy[i] != c[0] + v * (c[1] + v * (c[2] + v * c[3]));
    }
    check(wrong == 0, "polynomial with __constant__ coefficients");

    // Managed memory: written by the host, incremented by a kernel, read by the host.
    int *managed;
    check_cuda(cudaMallocManaged(&managed, 5000 * sizeof(int)), "cudaMallocManaged");
    for (int i = 0; i < 5000; i++) managed[i] = 7;
    increment<<<40, 128>>>(managed, 5000);
    check_cuda(cudaDeviceSynchronize(), "managed kernel");
    wrong = 0;
    for (int i = 0; i < 5000; i++) wrong += managed[i] != 7 + i;
    check(wrong == 0, "managed memory");
    cudaPointerAttributes attributes;
    check_cuda(cudaPointerGetAttributes(&attributes, managed), "cudaPointerGetAttributes");
    check(attributes.type == cudaMemoryTypeManaged, "managed pointer type");
    check_cuda(cudaFree(managed), "cudaFree managed");

    // A __managed__ variable: its initializer, then the host's store, seen by a kernel whose
    // stores the host sees after the synchronization. 4 threads add 3+0 .. 3+3 = 18.
    check(managed_total == 11, "__managed__ initial value");
    managed_total = 100;
    add_to_managed<<<1, 4>>>(3);
    check_cuda(cudaDeviceSynchronize(), "__managed__ kernel");
    check(managed_total == 118, "__managed__ variable");

    // Mapped pinned memory (zero copy) on a stream, timed with events.
    int *pinned, *mapped;
    check_cuda(cudaHostAlloc(&pinned, 256 * sizeof(int), cudaHostAllocMapped), "cudaHostAlloc");
    check_cuda(cudaHostGetDevicePointer(&mapped, pinned, 0), "cudaHostGetDevicePointer");
    for (int i = 0; i < 256; i++) pinned[i] = 100;
    cudaStream_t stream;
    cudaEvent_t start, stop;
    check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate");
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start, stream);
    increment<<<2, 128, 0, stream>>>(mapped, 256);
    cudaEventRecord(stop, stream);
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    float ms = -1;
    check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    check(ms >= 0, "elapsed time");
    wrong = 0;
    for (int i = 0; i < 256; i++) wrong += pinned[i] != 100 + i;
    check(wrong == 0, "mapped pinned memory");
    cudaStreamDestroy(stream);
    cudaFreeHost(pinned);

    // malloc and free in a kernel.
    int *sums, hsums[32];
    cudaMalloc(&sums, sizeof hsums);
    heap<<<1, 32>>>(sums);
    cudaMemcpy(hsums, sums, sizeof hsums, cudaMemcpyDeviceToHost);
    wrong = 0;
    for (int t = 0; t < 32; t++) wrong += hsums[t] != 40 * t + 6;
    check(wrong == 0, "device malloc");

    // Stream-ordered allocation, copies told apart by address (cudaMemcpyDefault), occupancy.
    cudaStream_t s2;
    cudaStreamCreate(&s2);
    int *async_buffer;
    check_cuda(cudaMallocAsync(&async_buffer, 128 * sizeof(int), s2), "cudaMallocAsync");
    int host_in[128], host_out[128];
    for (int i = 0; i < 128; i++) host_in[i] = 3 * i;
    check_cuda(cudaMemcpyAsync(async_buffer, host_in, sizeof host_in, cudaMemcpyDefault, s2), "cudaMemcpyAsync default");
    increment<<<1, 128, 0, s2>>>(async_buffer, 128);
    check_cuda(cudaMemcpy(host_out, async_buffer, sizeof host_out, cudaMemcpyDefault), "cudaMemcpy default");
    wrong = 0;
    for (int i = 0; i < 128; i++) wrong += host_out[i] != 4 * i;
    check(wrong == 0, "stream-ordered buffer");
    check_cuda(cudaFreeAsync(async_buffer, s2), "cudaFreeAsync");
    check_cuda(cudaStreamSynchronize(s2), "cudaStreamSynchronize s2");
    int blocks_per_sm = 0;
    check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, increment, 256, 0), "occupancy");
    check(blocks_per_sm == 8, "2048 threads per SM: 8 blocks of 256");

    // Stream capture across two streams (fork and join through events), replayed twice.
    cudaStream_t a, b;
    cudaStreamCreate(&a);
    cudaStreamCreate(&b);
    cudaEvent_t fork, join;
    cudaEventCreate(&fork);
    cudaEventCreate(&join);
    int *g1, *g2, hg1[64], hg2[64], host_calls = 0;
    cudaMalloc(&g1, sizeof hg1);
    cudaMalloc(&g2, sizeof hg2);
    check_cuda(cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    cudaStreamCaptureStatus status;
    cudaStreamIsCapturing(a, &status);
    check(status == cudaStreamCaptureStatusActive, "the stream is capturing");
    cudaMemsetAsync(g1, 0, sizeof hg1, a);
    cudaEventRecord(fork, a);
    cudaStreamWaitEvent(b, fork, 0);
    cudaMemsetAsync(g2, 0, sizeof hg2, b);
    increment<<<1, 64, 0, b>>>(g2, 64);
    cudaEventRecord(join, b);
    increment<<<1, 64, 0, a>>>(g1, 64);
    cudaStreamWaitEvent(a, join, 0);
    increment<<<1, 64, 0, a>>>(g2, 64);
    cudaLaunchHostFunc(a, count_call, &host_calls);
    cudaMemcpyAsync(hg1, g1, sizeof hg1, cudaMemcpyDeviceToHost, a);
    cudaMemcpyAsync(hg2, g2, sizeof hg2, cudaMemcpyDeviceToHost, a);
    cudaGraph_t graph;
    check_cuda(cudaStreamEndCapture(a, &graph), "cudaStreamEndCapture");
    check(host_calls == 0, "nothing ran while capturing");
    cudaGraphExec_t exec;
    check_cuda(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
    size_t nodes = 0;
    cudaGraphGetNodes(graph, nullptr, &nodes);
    check(nodes >= 8, "the captured graph has its nodes");
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 64; i++) hg1[i] = hg2[i] = -1;
        check_cuda(cudaGraphLaunch(exec, a), "cudaGraphLaunch");
        cudaStreamSynchronize(a);
        wrong = 0;
        for (int i = 0; i < 64; i++) wrong += hg1[i] != i || hg2[i] != 2 * i;
        check(wrong == 0 && host_calls == round + 1, "captured graph replay");
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);

    // A cooperative launch: grid-wide synchronization across 4 CTAs.
    int *scratch, *mirrored, hm[512];
    cudaMalloc(&scratch, sizeof hm);
    cudaMalloc(&mirrored, sizeof hm);
    int count = 512;
    void *mirror_args[] = {&scratch, &mirrored, &count};
    check_cuda(cudaLaunchCooperativeKernel((void *)mirror, dim3(4), dim3(128), mirror_args, 0, nullptr),
               "cudaLaunchCooperativeKernel");
    cudaMemcpy(hm, mirrored, sizeof hm, cudaMemcpyDeviceToHost);
    wrong = 0;
    for (int i = 0; i < 512; i++) wrong += hm[i] != (511 - i) * (511 - i);
    check(wrong == 0, "grid.sync across CTAs");

    // A texture object over a CUDA array, read with tex2D; a surface written with surf2Dwrite.
    const int tw = 8, th = 4;
    float texels[tw * th], doubled[tw * th];
    for (int i = 0; i < tw * th; i++) texels[i] = 0.25f * i - 3.0f;
    cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
    cudaArray_t source_array, result_array;
    check_cuda(cudaMallocArray(&source_array, &channel, tw, th), "cudaMallocArray");
    check_cuda(cudaMallocArray(&result_array, &channel, tw, th, cudaArraySurfaceLoadStore), "cudaMallocArray surface");
    check_cuda(cudaMemcpy2DToArray(source_array, 0, 0, texels, tw * sizeof(float), tw * sizeof(float), th,
                                   cudaMemcpyHostToDevice), "cudaMemcpy2DToArray");
    cudaResourceDesc resource = {};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = source_array;
    cudaTextureDesc description = {};
    description.addressMode[0] = description.addressMode[1] = cudaAddressModeClamp;
    description.filterMode = cudaFilterModePoint;
    description.readMode = cudaReadModeElementType;
    cudaTextureObject_t texture = 0;
    check_cuda(cudaCreateTextureObject(&texture, &resource, &description, nullptr), "cudaCreateTextureObject");
    cudaResourceDesc surface_resource = {};
    surface_resource.resType = cudaResourceTypeArray;
    surface_resource.res.array.array = result_array;
    cudaSurfaceObject_t surface = 0;
    check_cuda(cudaCreateSurfaceObject(&surface, &surface_resource), "cudaCreateSurfaceObject");
    texel_double<<<dim3(1, th), tw>>>(texture, surface, tw, th);
    check_cuda(cudaMemcpy2DFromArray(doubled, tw * sizeof(float), result_array, 0, 0, tw * sizeof(float), th,
                                     cudaMemcpyDeviceToHost), "cudaMemcpy2DFromArray");
    wrong = 0;
    for (int i = 0; i < tw * th; i++) wrong += doubled[i] != 2.0f * texels[i];
    check(wrong == 0, "texture read and surface write");
    cudaDestroyTextureObject(texture);
    cudaDestroySurfaceObject(surface);
    cudaFreeArray(source_array);
    cudaFreeArray(result_array);

    // A failed assert: cudaErrorAssert, and the context is unusable afterwards (last).
    int big[8] = {1, 2, 3, 4, 5, 500, 7, 8};
    int *dbig;
    cudaMalloc(&dbig, sizeof big);
    cudaMemcpy(dbig, big, sizeof big, cudaMemcpyHostToDevice);
    must_be_small<<<1, 8>>>(dbig, 8);
    cudaError_t e = cudaDeviceSynchronize();
    check(e == cudaErrorAssert, "assert gives cudaErrorAssert");
    check(cudaMalloc(&x, 16) == cudaErrorAssert, "the error is sticky");

    printf("%s: %d failed\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
