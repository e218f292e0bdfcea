/* Several simulated devices (PTXSIM_DEVICE_COUNT=2) through ptxsim's libcuda.so.1, as a
 * multi-GPU program (tinygrad's CUDA:0 and CUDA:1) uses them: a context and memory per device,
 * peer access, copies between the devices. Built and run by crates/cuda/tests/c_abi.rs with
 * PTXSIM_DEVICE_COUNT=2; with the argument "bad" (and PTXSIM_DEVICE_COUNT=9) it checks that
 * cuInit refuses the setting. Prints "ok" and exits 0 when every check holds. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUgraphExec_st *CUgraphExec;

/* CUDA_KERNEL_NODE_PARAMS. */
typedef struct {
    CUfunction func;
    unsigned int gridDimX, gridDimY, gridDimZ;
    unsigned int blockDimX, blockDimY, blockDimZ;
    unsigned int sharedMemBytes;
    void **kernelParams;
    void **extra;
} KernelNodeParams;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_PEER_ACCESS_UNSUPPORTED = 217,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
    CUDA_ERROR_PEER_ACCESS_NOT_ENABLED = 705,
};

CUresult cuInit(unsigned int flags);
CUresult cuDeviceGetCount(int *count);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuDeviceCanAccessPeer(int *can_access, CUdevice device, CUdevice peer);
CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice device);
CUresult cuCtxCreate_v2(CUcontext *context, unsigned int flags, CUdevice device);
CUresult cuCtxDestroy_v2(CUcontext context);
CUresult cuCtxSetCurrent(CUcontext context);
CUresult cuCtxSynchronize(void);
CUresult cuCtxGetDevice(CUdevice *device);
CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags);
CUresult cuCtxDisablePeerAccess(CUcontext peer);
CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device);
CUresult cuModuleLoadData(CUmodule *module, const void *image);
CUresult cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name);
CUresult cuMemAlloc_v2(CUdeviceptr *address, size_t bytes);
CUresult cuMemFree_v2(CUdeviceptr address);
CUresult cuMemGetInfo_v2(size_t *free, size_t *total);
CUresult cuMemcpyHtoD_v2(CUdeviceptr destination, const void *source, size_t bytes);
CUresult cuMemcpyDtoH_v2(void *destination, CUdeviceptr source, size_t bytes);
CUresult cuMemcpyDtoD_v2(CUdeviceptr destination, CUdeviceptr source, size_t bytes);
CUresult cuMemcpyPeer(CUdeviceptr destination, CUcontext destination_context,
                      CUdeviceptr source, CUcontext source_context, size_t bytes);
CUresult cuMemcpyPeerAsync(CUdeviceptr destination, CUcontext destination_context,
                           CUdeviceptr source, CUcontext source_context, size_t bytes,
                           CUstream stream);
CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr pointer);
CUresult cuLaunchKernel(CUfunction function, unsigned int grid_x, unsigned int grid_y,
                        unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                        unsigned int block_z, unsigned int shared_bytes, CUstream stream,
                        void **kernel_params, void **extra);
CUresult cuGraphCreate(CUgraph *graph, unsigned int flags);
CUresult cuGraphAddKernelNode(CUgraphNode *node, CUgraph graph, const CUgraphNode *dependencies,
                              size_t count, const KernelNodeParams *params);
CUresult cuGraphInstantiate_v2(CUgraphExec *executable, CUgraph graph, CUgraphNode *error_node,
                               char *log, size_t log_size);
CUresult cuGraphLaunch(CUgraphExec executable, CUstream stream);
CUresult cuGraphExecDestroy(CUgraphExec executable);
CUresult cuGraphDestroy(CUgraph graph);

#include "check.h"


/* out[i] = in[i] + 1 for the 16 threads of one CTA. */
static const char *add_one_ptx =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .entry add_one(.param .u64 out, .param .u64 in)\n"
    "{\n"
    "    .reg .b32 %r<3>;\n"
    "    .reg .b64 %rd<6>;\n"
    "    ld.param.u64 %rd1, [out];\n"
    "    ld.param.u64 %rd2, [in];\n"
    "    mov.u32 %r1, %tid.x;\n"
    "    mul.wide.u32 %rd3, %r1, 4;\n"
    "    add.s64 %rd4, %rd2, %rd3;\n"
    "    ld.global.u32 %r2, [%rd4];\n"
    "    add.u32 %r2, %r2, 1;\n"
    "    add.s64 %rd5, %rd1, %rd3;\n"
    "    st.global.u32 [%rd5], %r2;\n"
    "    ret;\n"
    "}\n";

enum { N = 16 };

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "bad") == 0) {
        CUresult result = cuInit(0);
        CHECK(result == CUDA_ERROR_INVALID_VALUE, "cuInit with PTXSIM_DEVICE_COUNT=9: %d",
              result);
        if (failures) return 1;
        printf("ok\n");
        return 0;
    }
    OK(cuInit(0));
    int count = 0;
    OK(cuDeviceGetCount(&count));
    CHECK(count == 2, "%d devices", count);
    CUdevice d0 = -1, d1 = -1, d2 = -1;
    OK(cuDeviceGet(&d0, 0));
    OK(cuDeviceGet(&d1, 1));
    CHECK(d0 == 0 && d1 == 1, "devices %d %d", d0, d1);
    CHECK(cuDeviceGet(&d2, 2) == CUDA_ERROR_INVALID_DEVICE, "device 2");
    int can = -1;
    OK(cuDeviceCanAccessPeer(&can, 0, 1));
    CHECK(can == 1, "0 -> 1 peer access: %d", can);
    OK(cuDeviceCanAccessPeer(&can, 1, 0));
    CHECK(can == 1, "1 -> 0 peer access: %d", can);
    OK(cuDeviceCanAccessPeer(&can, 1, 1));
    CHECK(can == 0, "1 -> 1 peer access: %d", can);
    size_t total = 0;
    OK(cuDeviceTotalMem_v2(&total, 1));
    CHECK(total > 0, "device 1 memory");

    /* A context on each device, each with its own memory. */
    CUcontext c0 = NULL, c1 = NULL, primary1 = NULL, again1 = NULL;
    OK(cuCtxCreate_v2(&c0, 0, 0));
    OK(cuCtxCreate_v2(&c1, 0, 1));
    OK(cuDevicePrimaryCtxRetain(&primary1, 1));
    OK(cuDevicePrimaryCtxRetain(&again1, 1));
    CHECK(primary1 != NULL && primary1 == again1 && primary1 != c1, "device 1's primary context");
    CUdevice current = -1;
    OK(cuCtxGetDevice(&current));
    CHECK(current == 1, "c1 is on device %d", current);
    uint32_t values[N], back[N];
    for (int i = 0; i < N; i++) values[i] = 3u * (uint32_t)i + 1u;
    CUdeviceptr on1 = 0, on0 = 0, out0 = 0;
    OK(cuMemAlloc_v2(&on1, sizeof values));
    OK(cuMemcpyHtoD_v2(on1, values, sizeof values));
    size_t free1 = 0;
    OK(cuMemGetInfo_v2(&free1, &total));
    CHECK(total - free1 == sizeof values, "device 1 uses %zu bytes", total - free1);
    OK(cuCtxSetCurrent(c0));
    OK(cuCtxGetDevice(&current));
    CHECK(current == 0, "c0 is on device %d", current);
    size_t free0 = 0;
    OK(cuMemGetInfo_v2(&free0, &total));
    CHECK(free0 == total, "device 0 uses %zu bytes", total - free0);
    OK(cuMemAlloc_v2(&on0, sizeof values));
    OK(cuMemAlloc_v2(&out0, sizeof values));
    int ordinal = -1;
    CUcontext owner = NULL;
    OK(cuPointerGetAttribute(&ordinal, 9 /* DEVICE_ORDINAL */, on1));
    CHECK(ordinal == 1, "on1 is on device %d", ordinal);
    OK(cuPointerGetAttribute(&owner, 1 /* CONTEXT */, on1));
    CHECK(owner == c1, "on1 belongs to c1");
    OK(cuPointerGetAttribute(&ordinal, 9, on0));
    CHECK(ordinal == 0, "on0 is on device %d", ordinal);

    /* Copies between the devices: cuMemcpyPeer, and cuMemcpyDtoD (unified addresses). */
    OK(cuMemcpyPeer(on0, c0, on1, c1, sizeof values));
    memset(back, 0, sizeof back);
    OK(cuMemcpyDtoH_v2(back, on0, sizeof back));
    CHECK(memcmp(back, values, sizeof values) == 0, "cuMemcpyPeer device 1 -> 0");
    OK(cuMemcpyHtoD_v2(on0, values + N / 2, sizeof values / 2));
    OK(cuMemcpyPeerAsync(on1, c1, on0, c0, sizeof values / 2, NULL));
    OK(cuMemcpyDtoD_v2(on0 + sizeof values / 2, on1, sizeof values / 2));
    OK(cuMemcpyDtoH_v2(back, on0, sizeof back));
    CHECK(memcmp(back, values + N / 2, sizeof values / 2) == 0 &&
              memcmp(back + N / 2, values + N / 2, sizeof values / 2) == 0,
          "cuMemcpyPeerAsync 0 -> 1, then cuMemcpyDtoD 1 -> 0");
    OK(cuMemcpyHtoD_v2(on1, values, sizeof values));

    /* A kernel on device 0 reads device 1's memory once peer access is enabled. */
    CUmodule module = NULL;
    CUfunction add_one = NULL;
    OK(cuModuleLoadData(&module, add_one_ptx));
    OK(cuModuleGetFunction(&add_one, module, "add_one"));
    CHECK(cuCtxEnablePeerAccess(c0, 0) == CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,
          "peer access to the same device");
    CHECK(cuCtxEnablePeerAccess(c1, 1) == CUDA_ERROR_INVALID_VALUE, "flags 1");
    OK(cuCtxEnablePeerAccess(c1, 0));
    CHECK(cuCtxEnablePeerAccess(c1, 0) == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
          "enabled twice");
    void *params[] = {&out0, &on1};
    OK(cuLaunchKernel(add_one, 1, 1, 1, N, 1, 1, 0, NULL, params, NULL));
    OK(cuMemcpyDtoH_v2(back, out0, sizeof back));
    int wrong = 0;
    for (int i = 0; i < N; i++) wrong += back[i] != 3u * (uint32_t)i + 2u;
    CHECK(wrong == 0, "add_one on device 0 reading device 1: %d differ", wrong);
    OK(cuCtxDisablePeerAccess(c1));
    CHECK(cuCtxDisablePeerAccess(c1) == CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "disabled twice");

    /* A graph with a kernel of each device (tinygrad's multi-device graphs): each node runs
     * on its kernel's device, whichever context is current when the graph is launched. */
    {
        CUmodule module1 = NULL;
        CUfunction add_one1 = NULL;
        CUdeviceptr out1 = 0;
        OK(cuCtxSetCurrent(c1));
        OK(cuModuleLoadData(&module1, add_one_ptx));
        OK(cuModuleGetFunction(&add_one1, module1, "add_one"));
        OK(cuMemAlloc_v2(&out1, sizeof values));
        OK(cuCtxSetCurrent(c0));
        OK(cuMemcpyHtoD_v2(on0, values, sizeof values));
        void *params0[] = {&out0, &on0};
        void *params1[] = {&out1, &on1};
        KernelNodeParams node0 = {add_one, 1, 1, 1, N, 1, 1, 0, params0, NULL};
        KernelNodeParams node1 = {add_one1, 1, 1, 1, N, 1, 1, 0, params1, NULL};
        CUgraph graph = NULL;
        CUgraphNode first = NULL, second = NULL;
        CUgraphExec executable = NULL;
        OK(cuGraphCreate(&graph, 0));
        OK(cuGraphAddKernelNode(&first, graph, NULL, 0, &node0));
        OK(cuGraphAddKernelNode(&second, graph, NULL, 0, &node1));
        OK(cuGraphInstantiate_v2(&executable, graph, NULL, NULL, 0));
        OK(cuMemcpyHtoD_v2(out0, values, sizeof values));
        OK(cuGraphLaunch(executable, NULL));
        uint32_t back1[N];
        OK(cuMemcpyDtoH_v2(back, out0, sizeof back));
        OK(cuMemcpyDtoH_v2(back1, out1, sizeof back1));
        wrong = 0;
        for (int i = 0; i < N; i++) {
            wrong += back[i] != 3u * (uint32_t)i + 2u;
            wrong += back1[i] != 3u * (uint32_t)i + 2u;
        }
        CHECK(wrong == 0, "a graph with kernels of both devices: %d differ", wrong);
        OK(cuGraphExecDestroy(executable));
        OK(cuGraphDestroy(graph));
        OK(cuCtxSetCurrent(c1));
        OK(cuMemFree_v2(out1));
        OK(cuCtxSetCurrent(c0));
    }

    /* Device 1's context is not affected by device 0's fault below. */
    OK(cuCtxSetCurrent(c1));
    OK(cuMemcpyDtoH_v2(back, on1, sizeof back));
    CHECK(memcmp(back, values, sizeof values) == 0, "device 1's memory");
    /* Without peer access, device 1's memory is outside every allocation of device 0. */
    OK(cuCtxSetCurrent(c0));
    /* The fault is reported by the call after the launch, as on a GPU. */
    OK(cuLaunchKernel(add_one, 1, 1, 1, N, 1, 1, 0, NULL, params, NULL));
    CHECK(cuCtxSynchronize() == CUDA_ERROR_ILLEGAL_ADDRESS,
          "add_one on device 0 reading device 1 without peer access");
    OK(cuCtxSetCurrent(c1));
    OK(cuMemFree_v2(on1));
    OK(cuCtxDestroy_v2(c0));
    OK(cuCtxDestroy_v2(c1));

    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
