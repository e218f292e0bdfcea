/* The CUDA driver API through ptxsim's libcuda.so.1, as a C program uses it: linked with
 * -lcuda, only driver API calls (the prototypes below, written here, not NVIDIA's cuda.h).
 * argv[1] is ptx-samples/nvcc/block.sm_90.ptx. Built and run by crates/cuda/tests/c_abi.rs;
 * prints "ok" and exits 0 when every check holds (a "timing:" line on stdout too). */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUgraphExec_st *CUgraphExec;

/* CUDA_KERNEL_NODE_PARAMS and CUDA_MEMCPY3D, their fields as cuda.h orders them. */
typedef struct {
    CUfunction func;
    unsigned int gridDimX, gridDimY, gridDimZ;
    unsigned int blockDimX, blockDimY, blockDimZ;
    unsigned int sharedMemBytes;
    void **kernelParams;
    void **extra;
} KernelNodeParams;

typedef struct {
    size_t srcXInBytes, srcY, srcZ, srcLOD;
    int srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    void *srcArray;
    void *reserved0;
    size_t srcPitch, srcHeight;
    size_t dstXInBytes, dstY, dstZ, dstLOD;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    void *dstArray;
    void *reserved1;
    size_t dstPitch, dstHeight;
    size_t WidthInBytes, Height, Depth;
} Memcpy3D;

/* The values of cuda.h's enums that this program uses. */
enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_INVALID_PTX = 218,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_NOT_SUPPORTED = 801,
    CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
    CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
    CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
    CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
    CU_MEMORYTYPE_HOST = 1,
    CU_MEMORYTYPE_DEVICE = 2,
};
#define CU_LAUNCH_PARAM_END ((void *)0)
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void *)1)
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void *)2)

CUresult cuInit(unsigned int flags);
CUresult cuDriverGetVersion(int *version);
CUresult cuDeviceGetCount(int *count);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuDeviceGetName(char *name, int len, CUdevice device);
CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice device);
CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice device);
CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice device);
CUresult cuCtxCreate_v2(CUcontext *context, unsigned int flags, CUdevice device);
CUresult cuCtxDestroy_v2(CUcontext context);
CUresult cuCtxGetCurrent(CUcontext *context);
CUresult cuCtxSetCurrent(CUcontext context);
CUresult cuCtxSynchronize(void);
CUresult cuCtxPushCurrent_v2(CUcontext context);
CUresult cuCtxPopCurrent_v2(CUcontext *context);
CUresult cuModuleLoadData(CUmodule *module, const void *image);
CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int count, int *options,
                            void **values);
CUresult cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name);
CUresult cuModuleGetGlobal_v2(CUdeviceptr *address, size_t *bytes, CUmodule module,
                              const char *name);
CUresult cuModuleUnload(CUmodule module);
CUresult cuMemAlloc_v2(CUdeviceptr *address, size_t bytes);
CUresult cuMemFree_v2(CUdeviceptr address);
CUresult cuMemGetInfo_v2(size_t *free, size_t *total);
CUresult cuMemcpyHtoD_v2(CUdeviceptr destination, const void *source, size_t bytes);
CUresult cuMemcpyDtoH_v2(void *destination, CUdeviceptr source, size_t bytes);
CUresult cuMemcpyDtoD_v2(CUdeviceptr destination, CUdeviceptr source, size_t bytes);
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr destination, const void *source, size_t bytes,
                              CUstream stream);
CUresult cuMemsetD8_v2(CUdeviceptr destination, unsigned char value, size_t count);
CUresult cuMemsetD32_v2(CUdeviceptr destination, unsigned int value, size_t count);
CUresult cuLaunchKernel(CUfunction function, unsigned int grid_x, unsigned int grid_y,
                        unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                        unsigned int block_z, unsigned int shared_bytes, CUstream stream,
                        void **kernel_params, void **extra);
/* CUlaunchAttribute and CUlaunchConfig (cuda.h): an id padded to 8 bytes, a 64-byte value. */
typedef struct {
    int id;
    char pad[4];
    union {
        unsigned char bytes[64];
        struct {
            unsigned int x, y, z;
        } clusterDim;
    } value;
} CUlaunchAttribute;
typedef struct {
    unsigned int gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    CUstream hStream;
    CUlaunchAttribute *attrs;
    unsigned int numAttrs;
} CUlaunchConfig;
enum {
    CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
    CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6
};
/* CUtensorMap (cuda.h): 16 opaque quadwords, aligned to 128 bytes. */
typedef struct {
    _Alignas(128) uint64_t opaque[16];
} CUtensorMap;
CUresult cuTensorMapEncodeTiled(CUtensorMap *tensor_map, int data_type, unsigned int rank,
                                void *global_address, const uint64_t *global_dim,
                                const uint64_t *global_strides, const uint32_t *box_dim,
                                const uint32_t *element_strides, int interleave, int swizzle,
                                int l2_promotion, int oob_fill);
CUresult cuTensorMapEncodeIm2col(CUtensorMap *tensor_map, int data_type, unsigned int rank,
                                 void *global_address, const uint64_t *global_dim,
                                 const uint64_t *global_strides, const int *lower_corner,
                                 const int *upper_corner, unsigned int channels_per_pixel,
                                 unsigned int pixels_per_column, const uint32_t *element_strides,
                                 int interleave, int swizzle, int l2_promotion, int oob_fill);
CUresult cuTensorMapReplaceAddress(CUtensorMap *tensor_map, void *global_address);
CUresult cuTensorMapEncodeIm2colWide(CUtensorMap *tensor_map, int data_type, unsigned int rank,
                                     void *global_address, const uint64_t *global_dim,
                                     const uint64_t *global_strides, int lower_corner_width,
                                     int upper_corner_width, unsigned int channels_per_pixel,
                                     unsigned int pixels_per_column,
                                     const uint32_t *element_strides, int interleave, int mode,
                                     int swizzle, int l2_promotion, int oob_fill);
CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction function, void **kernel_params,
                          void **extra);
CUresult cuOccupancyMaxActiveClusters(int *clusters, CUfunction function,
                                      const CUlaunchConfig *config);
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction function,
                                                     int block_size, size_t dynamic_shared);
CUresult cuFuncGetAttribute(int *value, int attribute, CUfunction function);
CUresult cuFuncSetAttribute(CUfunction function, int attribute, int value);
CUresult cuStreamCreate(CUstream *stream, unsigned int flags);
CUresult cuStreamSynchronize(CUstream stream);
CUresult cuStreamDestroy_v2(CUstream stream);
CUresult cuEventCreate(CUevent *event, unsigned int flags);
CUresult cuEventRecord(CUevent event, CUstream stream);
CUresult cuEventSynchronize(CUevent event);
CUresult cuEventElapsedTime(float *milliseconds, CUevent start, CUevent end);
CUresult cuEventDestroy_v2(CUevent event);
CUresult cuGetErrorName(CUresult error, const char **name);
CUresult cuGetErrorString(CUresult error, const char **description);
CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr pointer);
CUresult cuGraphCreate(CUgraph *graph, unsigned int flags);
CUresult cuGraphAddKernelNode(CUgraphNode *node, CUgraph graph, const CUgraphNode *dependencies,
                              size_t count, const KernelNodeParams *params);
CUresult cuGraphAddMemcpyNode(CUgraphNode *node, CUgraph graph, const CUgraphNode *dependencies,
                              size_t count, const Memcpy3D *copy, CUcontext context);
CUresult cuGraphInstantiate_v2(CUgraphExec *executable, CUgraph graph, CUgraphNode *error_node,
                               char *log, size_t log_size);
CUresult cuGraphExecKernelNodeSetParams(CUgraphExec executable, CUgraphNode node,
                                        const KernelNodeParams *params);
CUresult cuGraphLaunch(CUgraphExec executable, CUstream stream);
CUresult cuGraphExecDestroy(CUgraphExec executable);
CUresult cuGraphDestroy(CUgraph graph);
CUresult cuMemAllocManaged(CUdeviceptr *address, size_t bytes, unsigned int flags);
CUresult cuCtxSetLimit(int limit, size_t value);
CUresult cuCtxGetLimit(size_t *value, int limit);
CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest);
CUresult cuStreamCreateWithPriority(CUstream *stream, unsigned int flags, int priority);
CUresult cuStreamGetPriority(CUstream stream, int *priority);
CUresult cuStreamGetFlags(CUstream stream, unsigned int *flags);
CUresult cuPointerGetAttributes(unsigned int count, int *attributes, void **data,
                                CUdeviceptr pointer);
typedef struct {
    int type, id;
} CUmemLocation;
CUresult cuMemAdvise_v2(CUdeviceptr address, size_t bytes, int advice, CUmemLocation location);
CUresult cuMemPrefetchAsync_v2(CUdeviceptr address, size_t bytes, CUmemLocation location,
                               unsigned int flags, CUstream stream);
CUresult cuMemRangeGetAttribute(void *data, size_t data_size, int attribute, CUdeviceptr address,
                                size_t bytes);
CUresult cuStreamAttachMemAsync(CUstream stream, CUdeviceptr address, size_t bytes,
                                unsigned int flags);
typedef struct CUmemPool_st *CUmemoryPool;
typedef struct {
    int allocType, handleTypes;
    CUmemLocation location;
    void *win32SecurityAttributes;
    size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
} CUmemPoolProps;
CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props);
CUresult cuMemPoolDestroy(CUmemoryPool pool);
CUresult cuMemPoolSetAttribute(CUmemoryPool pool, int attribute, void *value);
CUresult cuMemPoolGetAttribute(CUmemoryPool pool, int attribute, void *value);
CUresult cuMemAllocFromPoolAsync(CUdeviceptr *address, size_t bytes, CUmemoryPool pool,
                                 CUstream stream);
CUresult cuMemFreeAsync(CUdeviceptr address, CUstream stream);
CUresult cuGraphAddChildGraphNode(CUgraphNode *node, CUgraph graph, const CUgraphNode *dependencies,
                                  size_t count, CUgraph child);
CUresult cuGraphAddEmptyNode(CUgraphNode *node, CUgraph graph, const CUgraphNode *dependencies,
                             size_t count);
CUresult cuGraphGetNodes(CUgraph graph, CUgraphNode *nodes, size_t *count);
CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice device, unsigned int flags);
CUresult cuDevicePrimaryCtxGetState(CUdevice device, unsigned int *flags, int *active);
CUresult cuCtxGetFlags(unsigned int *flags);
/* CUDA_MEMCPY3D_PEER is CUDA_MEMCPY3D with srcContext and dstContext in the reserved fields. */
CUresult cuMemcpy3DPeer(const Memcpy3D *copy);
CUresult cuMemHostAlloc(void **pointer, size_t bytes, unsigned int flags);
CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr address);
CUresult cuMemHostGetFlags(unsigned int *flags, void *pointer);
CUresult cuMemFreeHost(void *pointer);
CUresult cuFlushGPUDirectRDMAWrites(int target, int scope);
CUresult cuCtxSetFlags(unsigned int flags);
/* CUgraphExecUpdateResultInfo: result, errorNode, errorFromNode. */
typedef struct {
    int result;
    CUgraphNode error_node;
    CUgraphNode error_from_node;
} GraphExecUpdateResultInfo;
CUresult cuGraphExecUpdate_v2(CUgraphExec executable, CUgraph graph, GraphExecUpdateResultInfo *info);
/* Graph topology and node parameters (cuda.h, "Graph Management"). */
typedef struct {
    CUdeviceptr dst;
    size_t pitch;
    unsigned int value, elementSize;
    size_t width, height;
} MemsetNodeParams;
typedef void (*HostFn)(void *);
typedef struct {
    HostFn fn;
    void *userData;
} HostNodeParams;
typedef struct CUuserObject_st *CUuserObject;
CUresult cuGraphAddMemsetNode(CUgraphNode *node, CUgraph graph, const CUgraphNode *dependencies,
                              size_t count, const MemsetNodeParams *params, CUcontext context);
CUresult cuGraphAddHostNode(CUgraphNode *node, CUgraph graph, const CUgraphNode *dependencies,
                            size_t count, const HostNodeParams *params);
CUresult cuGraphAddDependencies(CUgraph graph, const CUgraphNode *from, const CUgraphNode *to,
                                size_t count);
CUresult cuGraphRemoveDependencies(CUgraph graph, const CUgraphNode *from, const CUgraphNode *to,
                                   size_t count);
CUresult cuGraphGetEdges(CUgraph graph, CUgraphNode *from, CUgraphNode *to, size_t *count);
CUresult cuGraphGetRootNodes(CUgraph graph, CUgraphNode *nodes, size_t *count);
CUresult cuGraphNodeGetDependencies(CUgraphNode node, CUgraphNode *nodes, size_t *count);
CUresult cuGraphDestroyNode(CUgraphNode node);
CUresult cuGraphMemsetNodeGetParams(CUgraphNode node, MemsetNodeParams *params);
CUresult cuGraphNodeSetEnabled(CUgraphExec executable, CUgraphNode node, unsigned int enabled);
CUresult cuGraphClone(CUgraph *clone, CUgraph graph);
CUresult cuGraphNodeFindInClone(CUgraphNode *node, CUgraphNode original, CUgraph clone);
CUresult cuUserObjectCreate(CUuserObject *object, void *data, HostFn destroy,
                            unsigned int references, unsigned int flags);
CUresult cuGraphRetainUserObject(CUgraph graph, CUuserObject object, unsigned int count,
                                 unsigned int flags);
CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice device);
CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice device);
CUresult cuDeviceSetMemPool(CUdevice device, CUmemoryPool pool);
CUresult cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *location, int type);
CUresult cuMemGetDefaultMemPool(CUmemoryPool *pool, CUmemLocation *location, int type);
CUresult cuMemPoolGetAccess(int *flags, CUmemoryPool pool, CUmemLocation *location);
CUresult cuDeviceGetP2PAttribute(int *value, int attribute, CUdevice source, CUdevice destination);
CUresult cuOccupancyMaxPotentialClusterSize(int *size, CUfunction function,
                                            const CUlaunchConfig *config);
CUresult cuStreamBeginCapture_v2(CUstream stream, int mode);
CUresult cuStreamEndCapture(CUstream stream, CUgraph *graph);
CUresult cuStreamGetCaptureInfo_v3(CUstream stream, int *status, unsigned long long *id,
                                   CUgraph *graph, const CUgraphNode **dependencies,
                                   const void **edge_data, size_t *count);
CUresult cuMemcpy3DAsync_v2(const Memcpy3D *copy, CUstream stream);
/* CUmemcpyAttributes: srcAccessOrder, srcLocHint and dstLocHint (CUmemLocation), flags. */
typedef struct {
    int srcAccessOrder;
    int srcLocHint[2], dstLocHint[2];
    unsigned int flags;
} MemcpyAttributes;
CUresult cuMemcpyBatchAsync_v2(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                               MemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,
                               CUstream stream);

#include "check.h"

/* One thread loads a 2-D box of a tensor map into shared memory with cp.async.bulk.tensor,
   waits on the mbarrier and copies the box's `bytes` to out (clean under ptxas -arch sm_90a). */
/* __launch_bounds__(256) as nvcc writes it: .maxntid 256, 1, 1. */
static const char *bounded_ptx =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .entry bounded(.param .u64 out)\n"
    ".maxntid 256, 1, 1\n"
    "{\n"
    "    .reg .b32 %r<2>;\n"
    "    .reg .b64 %rd<4>;\n"
    "    ld.param.u64 %rd1, [out];\n"
    "    mov.u32 %r1, %tid.x;\n"
    "    mul.wide.u32 %rd2, %r1, 4;\n"
    "    add.s64 %rd3, %rd1, %rd2;\n"
    "    st.global.u32 [%rd3], %r1;\n"
    "    ret;\n"
    "}\n";

static const char *tma_ptx =
    ".version 8.0\n"
    ".target sm_90a\n"
    ".address_size 64\n"
    ".visible .entry tma_box(.param .align 64 .b8 tmap[128], .param .u64 out,\n"
    "    .param .s32 c0, .param .s32 c1, .param .u32 bytes)\n"
    "{\n"
    "    .reg .b32 %r<8>;\n"
    "    .reg .b64 %rd<8>;\n"
    "    .reg .pred %p<3>;\n"
    "    .shared .align 128 .b8 box[1024];\n"
    "    .shared .align 8 .b64 bar;\n"
    "    mov.u64 %rd1, tmap;\n"
    "    cvta.param.u64 %rd2, %rd1;\n"
    "    ld.param.s32 %r1, [c0];\n"
    "    ld.param.s32 %r2, [c1];\n"
    "    ld.param.u32 %r3, [bytes];\n"
    "    griddepcontrol.wait;\n"
    "    mbarrier.init.shared::cta.b64 [bar], 1;\n"
    "    mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], %r3;\n"
    "    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
    " [box], [%rd2, {%r1, %r2}], [bar];\n"
    "WAIT:\n"
    "    mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;\n"
    "    @!%p1 bra WAIT;\n"
    "    ld.param.u64 %rd4, [out];\n"
    "    mov.u32 %r4, 0;\n"
    "COPY:\n"
    "    mov.u32 %r5, box;\n"
    "    add.u32 %r5, %r5, %r4;\n"
    "    ld.shared.u32 %r6, [%r5];\n"
    "    cvt.u64.u32 %rd5, %r4;\n"
    "    add.u64 %rd6, %rd4, %rd5;\n"
    "    st.global.u32 [%rd6], %r6;\n"
    "    add.u32 %r4, %r4, 4;\n"
    "    setp.lt.u32 %p2, %r4, %r3;\n"
    "    @%p2 bra COPY;\n"
    "    griddepcontrol.launch_dependents;\n"
    "    ret;\n"
    "}\n";

/* cuTensorMapEncodeTiled's documented rules (cuda.h), then a tensor copy whose box straddles
   the tensor's corner, against a host loop: elements outside the tensor are zero. The launch
   carries the programmatic-dependent-launch attribute. */
static void tensor_map_test(void) {
    enum { COLS = 24, ROWS = 10, PITCH = 32, BOX_COLS = 16, BOX_ROWS = 4 };
    uint32_t host[PITCH * ROWS];
    for (uint32_t i = 0; i < PITCH * ROWS; i++) host[i] = 3u * i + 1u;
    CUdeviceptr tensor = 0, out = 0;
    OK(cuMemAlloc_v2(&tensor, sizeof host));
    OK(cuMemcpyHtoD_v2(tensor, host, sizeof host));
    OK(cuMemAlloc_v2(&out, BOX_COLS * BOX_ROWS * 4));
    uint64_t dims[2] = {COLS, ROWS};
    uint64_t strides[1] = {PITCH * 4};
    uint32_t box[2] = {BOX_COLS, BOX_ROWS};
    uint32_t element_strides[2] = {1, 1};
    void *address = (void *)(uintptr_t)tensor;
    static CUtensorMap map;
    /* UINT32 = 2, FLOAT32 = 7; interleave, swizzle, L2 promotion, OOB fill NONE = 0. */
    OK(cuTensorMapEncodeTiled(&map, 2, 2, address, dims, strides, box, element_strides, 0, 0, 0,
                              0));
    CHECK(cuTensorMapEncodeTiled(&map, 2, 0, address, dims, strides, box, element_strides, 0, 0,
                                 0, 0) == CUDA_ERROR_INVALID_VALUE,
          "tensorRank 0");
    CHECK(cuTensorMapEncodeTiled(&map, 2, 2, (char *)address + 8, dims, strides, box,
                                 element_strides, 0, 0, 0, 0) == CUDA_ERROR_INVALID_VALUE,
          "globalAddress not 16-byte aligned");
    uint64_t odd_strides[1] = {100};
    CHECK(cuTensorMapEncodeTiled(&map, 2, 2, address, dims, odd_strides, box, element_strides, 0,
                                 0, 0, 0) == CUDA_ERROR_INVALID_VALUE,
          "globalStrides not a multiple of 16");
    uint32_t big_box[2] = {16, 257};
    CHECK(cuTensorMapEncodeTiled(&map, 2, 2, address, dims, strides, big_box, element_strides, 0,
                                 0, 0, 0) == CUDA_ERROR_INVALID_VALUE,
          "boxDim above 256");
    uint32_t narrow_box[2] = {3, 4};
    CHECK(cuTensorMapEncodeTiled(&map, 2, 2, address, dims, strides, narrow_box, element_strides,
                                 0, 0, 0, 0) == CUDA_ERROR_INVALID_VALUE,
          "boxDim[0] * 4 not a multiple of 16 bytes");
    uint32_t wide_strides[2] = {1, 9};
    CHECK(cuTensorMapEncodeTiled(&map, 2, 2, address, dims, strides, box, wide_strides, 0, 0, 0,
                                 0) == CUDA_ERROR_INVALID_VALUE,
          "elementStrides above 8");
    /* 16 words are 64 bytes: more than the 32-byte swizzle (1) allows. */
    CHECK(cuTensorMapEncodeTiled(&map, 2, 2, address, dims, strides, box, element_strides, 0, 1,
                                 0, 0) == CUDA_ERROR_INVALID_VALUE,
          "box inner dimension above the swizzle span");
    CHECK(cuTensorMapEncodeTiled(&map, 2, 2, address, dims, strides, box, element_strides, 0, 0,
                                 0, 1) == CUDA_ERROR_INVALID_VALUE,
          "NaN fill for an integer type");
    CHECK(cuTensorMapEncodeTiled(&map, 2, 2, address, dims, strides, box, element_strides, 1, 0,
                                 0, 0) == CUDA_ERROR_INVALID_VALUE,
          "interleave with rank 2");
    static CUtensorMap maps[2];
    CHECK(cuTensorMapEncodeTiled((CUtensorMap *)((char *)maps + 8), 2, 2, address, dims, strides,
                                 box, element_strides, 0, 0, 0, 0) == CUDA_ERROR_INVALID_VALUE,
          "tensorMap not 64-byte aligned");
    OK(cuTensorMapEncodeTiled(&map, 2, 2, address, dims, strides, box, element_strides, 0, 0, 0,
                              0));

    CUmodule module = NULL;
    CUfunction function = NULL;
    OK(cuModuleLoadData(&module, tma_ptx));
    OK(cuModuleGetFunction(&function, module, "tma_box"));
    int c0 = 16, c1 = 8;
    unsigned int bytes = BOX_COLS * BOX_ROWS * 4;
    void *args[] = {&map, &out, &c0, &c1, &bytes};
    CUlaunchAttribute pdl;
    memset(&pdl, 0, sizeof pdl);
    pdl.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    pdl.value.bytes[0] = 1;
    CUlaunchConfig config = {1, 1, 1, 1, 1, 1, 0, NULL, &pdl, 1};
    OK(cuLaunchKernelEx(&config, function, args, NULL));
    uint32_t got[BOX_COLS * BOX_ROWS];
    OK(cuMemcpyDtoH_v2(got, out, sizeof got));
    for (int r = 0; r < BOX_ROWS; r++) {
        for (int c = 0; c < BOX_COLS; c++) {
            int x = c0 + c, y = c1 + r;
            uint32_t want = (x < COLS && y < ROWS) ? host[y * PITCH + x] : 0u;
            CHECK(got[r * BOX_COLS + c] == want, "tensor box (%d, %d): %u, not %u", r, c,
                  got[r * BOX_COLS + c], want);
        }
    }
    OK(cuModuleUnload(module));
    OK(cuMemFree_v2(out));
    OK(cuMemFree_v2(tensor));
}


/* One thread loads an im2col column of a 3-D (NWC) tensor map with the im2col offset `s` and
   copies its `bytes` to out (clean under ptxas -arch sm_90a). */
static const char *im2col_ptx =
    ".version 8.0\n"
    ".target sm_90a\n"
    ".address_size 64\n"
    ".visible .entry im2col_column(.param .align 64 .b8 tmap[128], .param .u64 out,\n"
    "    .param .s32 c, .param .s32 w, .param .s32 n, .param .u16 s, .param .u32 bytes)\n"
    "{\n"
    "    .reg .b16 %rs<2>;\n"
    "    .reg .b32 %r<10>;\n"
    "    .reg .b64 %rd<8>;\n"
    "    .reg .pred %p<3>;\n"
    "    .shared .align 128 .b8 box[1024];\n"
    "    .shared .align 8 .b64 bar;\n"
    "    mov.u64 %rd1, tmap;\n"
    "    cvta.param.u64 %rd2, %rd1;\n"
    "    ld.param.s32 %r1, [c];\n"
    "    ld.param.s32 %r2, [w];\n"
    "    ld.param.s32 %r7, [n];\n"
    "    ld.param.u16 %rs1, [s];\n"
    "    ld.param.u32 %r3, [bytes];\n"
    "    mbarrier.init.shared::cta.b64 [bar], 1;\n"
    "    mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], %r3;\n"
    "    cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
    " [box], [%rd2, {%r1, %r2, %r7}], [bar], {%rs1};\n"
    "WAIT:\n"
    "    mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;\n"
    "    @!%p1 bra WAIT;\n"
    "    ld.param.u64 %rd4, [out];\n"
    "    mov.u32 %r4, 0;\n"
    "COPY:\n"
    "    mov.u32 %r5, box;\n"
    "    add.u32 %r5, %r5, %r4;\n"
    "    ld.shared.u32 %r6, [%r5];\n"
    "    cvt.u64.u32 %rd5, %r4;\n"
    "    add.u64 %rd6, %rd4, %rd5;\n"
    "    st.global.u32 [%rd6], %r6;\n"
    "    add.u32 %r4, %r4, 4;\n"
    "    setp.lt.u32 %p2, %r4, %r3;\n"
    "    @%p2 bra COPY;\n"
    "    ret;\n"
    "}\n";

/* cuTensorMapEncodeIm2col's documented rules (cuda.h), then an im2col copy of a 1-D
   convolution's column (NWC: 2 images of 10 pixels of 4 channels; filter width 3, padding 1,
   so the pixel box corners are -1 and -1; 16 output pixels from output pixel 5 at the filter
   position 2) against the convolution's definition: output pixel m of image m / 10 reads
   input pixel m % 10 - 1 + 2, zero outside the image. */
static void im2col_test(void) {
    enum { C = 4, W = 10, N = 2, PIXELS = 16, FIRST = 5, S = 2 };
    uint32_t host[N * W * C];
    for (uint32_t i = 0; i < N * W * C; i++) host[i] = 7u * i + 5u;
    CUdeviceptr tensor = 0, out = 0;
    OK(cuMemAlloc_v2(&tensor, sizeof host));
    OK(cuMemcpyHtoD_v2(tensor, host, sizeof host));
    OK(cuMemAlloc_v2(&out, PIXELS * C * 4));
    uint64_t dims[3] = {C, W, N};
    uint64_t strides[2] = {C * 4, W * C * 4};
    int lower[1] = {-1}, upper[1] = {-1};
    uint32_t element_strides[3] = {1, 1, 1};
    void *address = (void *)(uintptr_t)tensor;
    static CUtensorMap map;
    CHECK(cuTensorMapEncodeIm2col(&map, 2, 2, address, dims, strides, lower, upper, C, PIXELS,
                                  element_strides, 0, 0, 0, 0) == CUDA_ERROR_INVALID_VALUE,
          "im2col tensorRank 2");
    int far[1] = {40000};
    CHECK(cuTensorMapEncodeIm2col(&map, 2, 3, address, dims, strides, far, upper, C, PIXELS,
                                  element_strides, 0, 0, 0, 0) == CUDA_ERROR_INVALID_VALUE,
          "a rank-3 corner outside [-32768, 32767]");
    CHECK(cuTensorMapEncodeIm2col(&map, 2, 3, address, dims, strides, lower, upper, 0, PIXELS,
                                  element_strides, 0, 0, 0, 0) == CUDA_ERROR_INVALID_VALUE,
          "channelsPerPixel 0");
    CHECK(cuTensorMapEncodeIm2col(&map, 2, 3, address, dims, strides, lower, upper, C, 1025,
                                  element_strides, 0, 0, 0, 0) == CUDA_ERROR_INVALID_VALUE,
          "pixelsPerColumn above 1024");
    OK(cuTensorMapEncodeIm2col(&map, 2, 3, address, dims, strides, lower, upper, C, PIXELS,
                               element_strides, 0, 0, 0, 0));

    CUmodule module = NULL;
    CUfunction function = NULL;
    OK(cuModuleLoadData(&module, im2col_ptx));
    OK(cuModuleGetFunction(&function, module, "im2col_column"));
    /* The filter base of output pixel FIRST: its W coordinate less the padding. */
    int c = 0, w = FIRST - 1, n = 0;
    unsigned short s = S;
    unsigned int bytes = PIXELS * C * 4;
    void *args[] = {&map, &out, &c, &w, &n, &s, &bytes};
    OK(cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    uint32_t got[PIXELS * C];
    OK(cuMemcpyDtoH_v2(got, out, sizeof got));
    for (int m = FIRST; m < FIRST + PIXELS; m++) {
        int image = m / W, x = m % W - 1 + S;
        for (int k = 0; k < C; k++) {
            uint32_t want = (image < N && x >= 0 && x < W) ? host[(image * W + x) * C + k] : 0u;
            uint32_t value = got[(m - FIRST) * C + k];
            CHECK(value == want, "im2col pixel %d channel %d: %u, not %u", m, k, value, want);
        }
    }
    OK(cuModuleUnload(module));
    OK(cuMemFree_v2(out));
    OK(cuMemFree_v2(tensor));
}

/* cuTensorMapEncodeIm2colWide's documented rules (cuda.h): an NHWC tensor of 32 channels of
   4 bytes (128 bytes a pixel, the 128-byte swizzle), W 10, H 3, N 2. (Its copies run on
   sm_100 devices: crates/exec/tests/suite/tma_im2col_w.rs.) */
static void im2col_wide_test(void) {
    enum { C = 32, W = 10, H = 3, N = 2, W_MODE = 0, W128_MODE = 1, SWIZZLE_128B = 3 };
    CUdeviceptr tensor = 0;
    OK(cuMemAlloc_v2(&tensor, C * W * H * N * 4));
    uint64_t dims[4] = {C, W, H, N};
    uint64_t strides[3] = {C * 4, W * C * 4, H * W * C * 4};
    uint32_t element_strides[4] = {1, 1, 1, 1};
    void *address = (void *)(uintptr_t)tensor;
    static CUtensorMap map;
    CHECK(cuTensorMapEncodeIm2colWide(&map, 2, 2, address, dims, strides, -1, 0, C, 64,
                                      element_strides, 0, W_MODE, SWIZZLE_128B, 0, 0) ==
              CUDA_ERROR_INVALID_VALUE,
          "im2col-w tensorRank 2");
    CHECK(cuTensorMapEncodeIm2colWide(&map, 2, 4, address, dims, strides, -1, 0, C, 64,
                                      element_strides, 0, 2, SWIZZLE_128B, 0, 0) ==
              CUDA_ERROR_INVALID_VALUE,
          "mode 2 is no CUtensorMapIm2ColWideMode");
    CHECK(cuTensorMapEncodeIm2colWide(&map, 2, 4, address, dims, strides, -1, 0, C, 64,
                                      element_strides, 0, W_MODE, 0, 0, 0) ==
              CUDA_ERROR_INVALID_VALUE,
          "no swizzle (\"other swizzle modes are not supported\")");
    CHECK(cuTensorMapEncodeIm2colWide(&map, 2, 4, address, dims, strides, 0, -W, C, 64,
                                      element_strides, 0, W_MODE, SWIZZLE_128B, 0, 0) ==
              CUDA_ERROR_INVALID_VALUE,
          "a bounding box of no area");
    CHECK(cuTensorMapEncodeIm2colWide(&map, 2, 4, address, dims, strides, -40000, 0, C, 64,
                                      element_strides, 0, W_MODE, SWIZZLE_128B, 0, 0) ==
              CUDA_ERROR_INVALID_VALUE,
          "pixelBoxLowerCornerWidth outside [-32768, 32767]");
    CHECK(cuTensorMapEncodeIm2colWide(&map, 2, 4, address, dims, strides, -1, 0, 0, 64,
                                      element_strides, 0, W_MODE, SWIZZLE_128B, 0, 0) ==
              CUDA_ERROR_INVALID_VALUE,
          "im2col-w channelsPerPixel 0");
    CHECK(cuTensorMapEncodeIm2colWide(&map, 2, 4, address, dims, strides, -1, 0, C, 1025,
                                      element_strides, 0, W_MODE, SWIZZLE_128B, 0, 0) ==
              CUDA_ERROR_INVALID_VALUE,
          "im2col-w pixelsPerColumn above 1024");
    /* "This field is ignored when mode is CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128." */
    OK(cuTensorMapEncodeIm2colWide(&map, 2, 4, address, dims, strides, -1, 0, C, 1025,
                                   element_strides, 0, W128_MODE, SWIZZLE_128B, 0, 0));
    OK(cuTensorMapEncodeIm2colWide(&map, 2, 4, address, dims, strides, -1, 0, C, 64,
                                   element_strides, 0, W_MODE, SWIZZLE_128B, 0, 0));
    OK(cuTensorMapReplaceAddress(&map, address));
    OK(cuMemFree_v2(tensor));
}

/* out[i] = in[ntid - 1 - i] through dynamic shared memory (extern .shared). */
static const char *reverse_ptx =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".extern .shared .align 4 .b8 tile[];\n"
    ".visible .entry reverse(.param .u64 out, .param .u64 in)\n"
    "{\n"
    "    .reg .b32 %r<8>;\n"
    "    .reg .b64 %rd<8>;\n"
    "    ld.param.u64 %rd1, [out];\n"
    "    ld.param.u64 %rd2, [in];\n"
    "    mov.u32 %r1, %tid.x;\n"
    "    mov.u32 %r2, %ntid.x;\n"
    "    mul.wide.u32 %rd3, %r1, 4;\n"
    "    add.s64 %rd4, %rd2, %rd3;\n"
    "    ld.global.u32 %r3, [%rd4];\n"
    "    mov.u32 %r4, tile;\n"
    "    shl.b32 %r5, %r1, 2;\n"
    "    add.s32 %r6, %r4, %r5;\n"
    "    st.shared.u32 [%r6], %r3;\n"
    "    bar.sync 0;\n"
    "    sub.s32 %r7, %r2, %r1;\n"
    "    sub.s32 %r7, %r7, 1;\n"
    "    shl.b32 %r7, %r7, 2;\n"
    "    add.s32 %r7, %r4, %r7;\n"
    "    ld.shared.u32 %r3, [%r7];\n"
    "    add.s64 %rd5, %rd1, %rd3;\n"
    "    st.global.u32 [%rd5], %r3;\n"
    "    ret;\n"
    "}\n";

/* counter += 1 (one thread): a .global variable that keeps its value between launches. */
static const char *counter_ptx =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .global .align 4 .u32 counter;\n"
    ".visible .entry bump()\n"
    "{\n"
    "    .reg .b32 %r<3>;\n"
    "    ld.global.u32 %r1, [counter];\n"
    "    add.u32 %r2, %r1, 1;\n"
    "    st.global.u32 [counter], %r2;\n"
    "    ret;\n"
    "}\n";

/* PTX for sm_90a, the device's arch-specific target (what nvcc -arch=sm_90a and CUTLASS's
 * sm_90 kernels carry: ptxas --help, "PTX with .target sm_XYa can only be compiled to GPU
 * target sm_XYa", the sm_90 GPU itself), with an instruction only sm_90a has: one warpgroup,
 * out[i] = 3i + 1. */
static const char *arch_ptx =
    ".version 8.0\n"
    ".target sm_90a\n"
    ".address_size 64\n"
    ".visible .entry fill_90a(.param .u64 out)\n"
    "{\n"
    "    .reg .b32 %r<4>;\n"
    "    .reg .b64 %rd<4>;\n"
    "    wgmma.fence.sync.aligned;\n"
    "    ld.param.u64 %rd1, [out];\n"
    "    cvta.to.global.u64 %rd2, %rd1;\n"
    "    mov.u32 %r1, %tid.x;\n"
    "    mul.wide.u32 %rd3, %r1, 4;\n"
    "    add.s64 %rd2, %rd2, %rd3;\n"
    "    mad.lo.s32 %r2, %r1, 3, 1;\n"
    "    st.global.u32 [%rd2], %r2;\n"
    "    ret;\n"
    "}\n";

/* PTX of an earlier architecture and ISA version (CUDA 9's .version 6.0, sm_70), which CUDA's
 * JIT compiles for the device as ptxas -arch sm_90 does (it checks; .version 6.0 knows no
 * sm_90): out[i] = 3i + 1. */
static const char *old_ptx =
    ".version 6.0\n"
    ".target sm_70\n"
    ".address_size 64\n"
    ".visible .entry fill(.param .u64 out)\n"
    "{\n"
    "    .reg .b32 %r<4>;\n"
    "    .reg .b64 %rd<4>;\n"
    "    ld.param.u64 %rd1, [out];\n"
    "    cvta.to.global.u64 %rd2, %rd1;\n"
    "    mov.u32 %r1, %tid.x;\n"
    "    mul.wide.u32 %rd3, %r1, 4;\n"
    "    add.s64 %rd2, %rd2, %rd3;\n"
    "    mad.lo.s32 %r2, %r1, 3, 1;\n"
    "    st.global.u32 [%rd2], %r2;\n"
    "    ret;\n"
    "}\n";

/* out[0] = k, out[1] = tail[1] (one thread): .const variables the host sets through
 * cuModuleGetGlobal and cuMemcpyHtoD. k is at offset 0 of the constant bank, tail at 8. */
static const char *constant_ptx =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .const .align 4 .u32 k = 7;\n"
    ".visible .const .align 8 .u32 tail[2];\n"
    ".visible .entry read_k(.param .u64 out)\n"
    "{\n"
    "    .reg .b32 %r<3>;\n"
    "    .reg .b64 %rd<2>;\n"
    "    ld.param.u64 %rd1, [out];\n"
    "    ld.const.u32 %r1, [k];\n"
    "    ld.const.u32 %r2, [tail+4];\n"
    "    st.global.u32 [%rd1], %r1;\n"
    "    st.global.u32 [%rd1+4], %r2;\n"
    "    ret;\n"
    "}\n";

/* Stores 1 at p + off (one thread). The store is line 11, column 5. */
static const char *poke_ptx =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .entry poke(.param .u64 p, .param .u64 off)\n"
    "{\n"
    "    .reg .b32 %r;\n"
    "    .reg .b64 %rd<4>;\n"
    "    ld.param.u64 %rd1, [p];\n"
    "    ld.param.u64 %rd2, [off];\n"
    "    add.s64 %rd3, %rd1, %rd2; mov.u32 %r, 1;\n"
    "    st.global.u32 [%rd3], %r;\n"
    "    ret;\n"
    "}\n";

/* Reads word `index` of the module's 4-word `.global` table `table` (initialized 1, 2, 3, 4)
 * and stores it to out[0]: an index past 3 reads past the variable, as HeCBench's perlin reads
 * its 256-entry `_hash` up to entry 510. */
static const char *table_ptx =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".global .align 4 .u32 table[4] = {1, 2, 3, 4};\n"
    ".visible .entry peek(.param .u64 out, .param .u64 index)\n"
    "{\n"
    "    .reg .b32 %r;\n"
    "    .reg .b64 %rd<5>;\n"
    "    ld.param.u64 %rd1, [out];\n"
    "    ld.param.u64 %rd2, [index];\n"
    "    mov.u64 %rd3, table; shl.b64 %rd2, %rd2, 2; add.s64 %rd4, %rd3, %rd2;\n"
    "    ld.global.u32 %r, [%rd4];\n"
    "    st.global.u32 [%rd1], %r;\n"
    "    ret;\n"
    "}\n";

/* Waits until flag[0] is not 0, then stores 7 at flag[1] (one thread): a kernel that waits for
 * the host, as cuda-samples' UnifiedMemoryPerf's spinWhileLessThanOne does. */
static const char *spin_ptx =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .entry spin(.param .u64 flag)\n"
    "{\n"
    "    .reg .pred %p;\n"
    "    .reg .b32 %r<3>;\n"
    "    .reg .b64 %rd<2>;\n"
    "    ld.param.u64 %rd1, [flag];\n"
    "wait:\n"
    "    ld.volatile.global.u32 %r1, [%rd1];\n"
    "    setp.eq.u32 %p, %r1, 0;\n"
    "    @%p bra wait;\n"
    "    mov.u32 %r2, 7;\n"
    "    st.global.u32 [%rd1+4], %r2;\n"
    "    ret;\n"
    "}\n";

/* An unknown instruction on line 6, column 5. */
static const char *broken_ptx =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .entry broken()\n"
    "{\n"
    "    frobnicate.u32 %r1;\n"
    "}\n";

/* Each CTA of a cluster stores its %ctaid.x in shared memory, waits at the cluster barrier, and
 * writes to out[ctaid] what its partner (rank ^ 1) stored, read through mapa; then the rank. */
static const char *cluster_ptx =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry partner(.param .u64 out) {\n"
    "  .reg .b32 %r<8>; .reg .b64 %rd<4>;\n"
    "  .shared .align 4 .b32 mine;\n"
    "  mov.u32 %r1, %ctaid.x; st.shared.u32 [mine], %r1;\n"
    "  barrier.cluster.arrive; barrier.cluster.wait;\n"
    "  mov.u32 %r2, %cluster_ctarank; xor.b32 %r3, %r2, 1;\n"
    "  mapa.shared::cluster.u32 %r4, mine, %r3; ld.shared::cluster.u32 %r5, [%r4];\n"
    "  barrier.cluster.arrive; barrier.cluster.wait;\n"
    "  ld.param.u64 %rd1, [out]; mul.wide.u32 %rd2, %r1, 8; add.s64 %rd3, %rd1, %rd2;\n"
    "  st.global.v2.u32 [%rd3], {%r5, %r2};\n"
    "  ret;\n"
    "}\n";

static char *read_file(const char *path, size_t *size) {
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    fseek(file, 0, SEEK_END);
    long length = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *text = malloc((size_t)length + 1);
    if (!text || fread(text, 1, (size_t)length, file) != (size_t)length) {
        fclose(file);
        free(text);
        return NULL;
    }
    fclose(file);
    text[length] = 0;
    *size = (size_t)length;
    return text;
}

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* The histogram of in[i] & 255, computed here. */
static void histogram(const uint32_t *in, int n, uint32_t *bins) {
    memset(bins, 0, 256 * sizeof *bins);
    for (int i = 0; i < n; i++) bins[in[i] & 255]++;
}

/* Host functions of the graph topology test: the order host nodes ran in, and a user
 * object's destructor. */
static int order_seen[8], order_count;
static void record_order(void *value) {
    if (order_count < 8) order_seen[order_count++] = (int)(uintptr_t)value;
}
static void count_destruction(void *counter) { ++*(int *)counter; }

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s block.sm_90.ptx\n", argv[0]);
        return 2;
    }
    size_t sample_size = 0;
    char *sample = read_file(argv[1], &sample_size);
    if (!sample) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 2;
    }

    /* Before cuInit. */
    int early = 0;
    CHECK(cuDeviceGetCount(&early) == CUDA_ERROR_NOT_INITIALIZED, "a call before cuInit");

    /* The device. */
    OK(cuInit(0));
    int version = 0, count = 0, warp = 0, major = 0, minor = 0, cc_major = 0;
    OK(cuDriverGetVersion(&version));
    CHECK(version >= 12000, "driver version %d", version);
    OK(cuDeviceGetCount(&count));
    CHECK(count == 1, "%d devices", count);
    CUdevice device = -1;
    OK(cuDeviceGet(&device, 0));
    CHECK(device == 0, "device %d", device);
    char name[64] = {0};
    OK(cuDeviceGetName(name, sizeof name, device));
    CHECK(strcmp(name, "ptxsim sm_90") == 0, "device name `%s`", name);
    OK(cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, device));
    CHECK(warp == 32, "warp size %d", warp);
    OK(cuDeviceComputeCapability(&major, &minor, device));
    CHECK(major == 9 && minor == 0, "compute capability %d.%d", major, minor);
    OK(cuDeviceGetAttribute(&cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
    CHECK(cc_major == 9, "compute capability major %d", cc_major);
    size_t total = 0;
    OK(cuDeviceTotalMem_v2(&total, device));
    CHECK(total > 0, "total memory %zu", total);

    CUcontext context = NULL, current = NULL;
    OK(cuCtxCreate_v2(&context, 0, device));
    OK(cuCtxGetCurrent(&current));
    CHECK(current == context && context != NULL, "current context");

    /* The sample module: histogram256 with kernelParams. */
    CUmodule module = NULL;
    OK(cuModuleLoadData(&module, sample));
    CUfunction histogram256 = NULL;
    OK(cuModuleGetFunction(&histogram256, module, "histogram256"));
    int registers = 0;
    OK(cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, histogram256));
    CHECK(registers > 0, "%d registers", registers);

    enum { N = 3000 };
    static uint32_t in[N], bins[256], expected[256];
    uint32_t state = 12345;
    for (int i = 0; i < N; i++) {
        state = state * 1664525u + 1013904223u;
        in[i] = state >> 7;
    }
    histogram(in, N, expected);

    CUdeviceptr d_in = 0, d_bins = 0;
    OK(cuMemAlloc_v2(&d_in, sizeof in));
    OK(cuMemAlloc_v2(&d_bins, sizeof bins));
    size_t free_bytes = 0, total_bytes = 0;
    OK(cuMemGetInfo_v2(&free_bytes, &total_bytes));
    CHECK(total_bytes - free_bytes >= sizeof in + sizeof bins, "%zu of %zu free", free_bytes,
          total_bytes);
    OK(cuMemcpyHtoD_v2(d_in, in, sizeof in));
    OK(cuMemcpyHtoD_v2(0, NULL, 0)); /* copying nothing does nothing */
    /* memset D32, read back, then D8 to zero. */
    OK(cuMemsetD32_v2(d_bins, 0xdeadbeefu, 256));
    OK(cuMemcpyDtoH_v2(bins, d_bins, sizeof bins));
    CHECK(bins[0] == 0xdeadbeefu && bins[255] == 0xdeadbeefu, "memset D32: %#x", bins[0]);
    OK(cuMemsetD8_v2(d_bins, 0, sizeof bins));

    int n = N;
    void *params[] = {&d_in, &d_bins, &n};
    OK(cuLaunchKernel(histogram256, 4, 1, 1, 256, 1, 1, 0, NULL, params, NULL));
    OK(cuMemcpyDtoH_v2(bins, d_bins, sizeof bins));
    int wrong = 0;
    for (int b = 0; b < 256; b++) wrong += bins[b] != expected[b];
    CHECK(wrong == 0, "histogram: %d bins differ (bin 0: %u, expected %u)", wrong, bins[0],
          expected[0]);

    /* The same kernel with `extra` (the parameter space as one buffer): the bins add up. */
    struct {
        CUdeviceptr in;
        CUdeviceptr bins;
        int n;
    } packed = {d_in, d_bins, N};
    size_t packed_size = sizeof packed;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE,
                     &packed_size, CU_LAUNCH_PARAM_END};
    OK(cuLaunchKernel(histogram256, 2, 1, 1, 128, 1, 1, 0, NULL, NULL, extra));
    OK(cuMemcpyDtoH_v2(bins, d_bins, sizeof bins));
    wrong = 0;
    for (int b = 0; b < 256; b++) wrong += bins[b] != 2 * expected[b];
    CHECK(wrong == 0, "histogram twice: %d bins differ", wrong);

    /* Launches that do not fit: a parameter buffer smaller than the parameters, more dynamic
     * shared memory than the kernel's limit (48 KiB until cuFuncSetAttribute), a handle that
     * is no kernel. None of them is sticky. */
    size_t short_size = 8;
    void *short_extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE,
                           &short_size, CU_LAUNCH_PARAM_END};
    CHECK(cuLaunchKernel(histogram256, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, short_extra) ==
              CUDA_ERROR_INVALID_VALUE,
          "a short parameter buffer");
    CHECK(cuLaunchKernel(histogram256, 1, 1, 1, 32, 1, 1, 64 * 1024, NULL, params, NULL) ==
              CUDA_ERROR_INVALID_VALUE,
          "too much dynamic shared memory");
    CHECK(cuLaunchKernel((CUfunction)module, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL) ==
              CUDA_ERROR_INVALID_HANDLE,
          "a module handle as a kernel");
    CHECK(cuMemFree_v2(d_bins + 4) == CUDA_ERROR_INVALID_VALUE, "freeing inside an allocation");
    OK(cuCtxSynchronize());

    /* Device-to-device copy and pointer attributes. */
    CUdeviceptr d_copy = 0;
    OK(cuMemAlloc_v2(&d_copy, sizeof bins));
    OK(cuMemcpyDtoD_v2(d_copy, d_bins, sizeof bins));
    static uint32_t copied[256];
    OK(cuMemcpyDtoH_v2(copied, d_copy, sizeof copied));
    CHECK(memcmp(copied, bins, sizeof bins) == 0, "device-to-device copy");
    CUdeviceptr start = 0;
    size_t range = 0;
    unsigned int memory_type = 0;
    OK(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, d_copy + 100));
    OK(cuPointerGetAttribute(&range, CU_POINTER_ATTRIBUTE_RANGE_SIZE, d_copy + 100));
    OK(cuPointerGetAttribute(&memory_type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d_copy));
    CHECK(start == d_copy && range == sizeof bins && memory_type == CU_MEMORYTYPE_DEVICE,
          "pointer attributes");
    /* A copy past the end of an allocation is refused. */
    CHECK(cuMemcpyHtoD_v2(d_copy + 8, bins, sizeof bins) == CUDA_ERROR_INVALID_VALUE,
          "copy past the end");
    OK(cuMemFree_v2(d_copy));

    /* PTX for an older architecture loads as the JIT compiles it. */
    {
        CUmodule old_module = NULL;
        CUfunction fill = NULL;
        OK(cuModuleLoadData(&old_module, old_ptx));
        OK(cuModuleGetFunction(&fill, old_module, "fill"));
        CUdeviceptr d_fill = 0;
        OK(cuMemAlloc_v2(&d_fill, 64 * 4));
        void *fill_params[] = {&d_fill};
        OK(cuLaunchKernel(fill, 1, 1, 1, 64, 1, 1, 0, NULL, fill_params, NULL));
        static uint32_t filled[64];
        OK(cuMemcpyDtoH_v2(filled, d_fill, sizeof filled));
        int bad = 0;
        for (int i = 0; i < 64; i++) bad += filled[i] != 3u * (uint32_t)i + 1u;
        CHECK(bad == 0, "old PTX: %d values differ (out[1] = %u)", bad, filled[1]);
        OK(cuMemFree_v2(d_fill));
        OK(cuModuleUnload(old_module));
    }

    /* PTX for the device's arch-specific target (sm_90a on the sm_90 device) loads and runs. */
    {
        CUmodule arch_module = NULL;
        CUfunction fill = NULL;
        OK(cuModuleLoadData(&arch_module, arch_ptx));
        OK(cuModuleGetFunction(&fill, arch_module, "fill_90a"));
        CUdeviceptr d_fill = 0;
        OK(cuMemAlloc_v2(&d_fill, 128 * 4));
        void *fill_params[] = {&d_fill};
        OK(cuLaunchKernel(fill, 1, 1, 1, 128, 1, 1, 0, NULL, fill_params, NULL));
        static uint32_t filled[128];
        OK(cuMemcpyDtoH_v2(filled, d_fill, sizeof filled));
        int bad = 0;
        for (int i = 0; i < 128; i++) bad += filled[i] != 3u * (uint32_t)i + 1u;
        CHECK(bad == 0, "sm_90a PTX: %d values differ (out[1] = %u)", bad, filled[1]);
        OK(cuMemFree_v2(d_fill));
        OK(cuModuleUnload(arch_module));
    }

    /* Dynamic shared memory, on a stream, timed with events. */
    CUmodule reverse_module = NULL;
    CUfunction reverse = NULL;
    OK(cuModuleLoadData(&reverse_module, reverse_ptx));
    OK(cuModuleGetFunction(&reverse, reverse_module, "reverse"));
    OK(cuFuncSetAttribute(reverse, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 64 * 1024));
    int limit = 0;
    OK(cuFuncGetAttribute(&limit, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, reverse));
    CHECK(limit == 64 * 1024, "dynamic shared limit %d", limit);
    CUstream stream = NULL;
    CUevent before = NULL, after = NULL;
    OK(cuStreamCreate(&stream, 0));
    OK(cuEventCreate(&before, 0));
    OK(cuEventCreate(&after, 0));
    CUdeviceptr d_out = 0;
    OK(cuMemAlloc_v2(&d_out, 256 * 4));
    OK(cuEventRecord(before, stream));
    OK(cuMemcpyHtoDAsync_v2(d_in, in, 256 * 4, stream));
    void *reverse_params[] = {&d_out, &d_in};
    OK(cuLaunchKernel(reverse, 1, 1, 1, 256, 1, 1, 256 * 4, stream, reverse_params, NULL));
    OK(cuEventRecord(after, stream));
    OK(cuEventSynchronize(after));
    OK(cuStreamSynchronize(stream));
    float milliseconds = -1;
    OK(cuEventElapsedTime(&milliseconds, before, after));
    CHECK(milliseconds >= 0, "elapsed %f ms", milliseconds);
    static uint32_t reversed[256];
    OK(cuMemcpyDtoH_v2(reversed, d_out, sizeof reversed));
    wrong = 0;
    for (int i = 0; i < 256; i++) wrong += reversed[i] != in[255 - i];
    CHECK(wrong == 0, "reverse through dynamic shared memory: %d differ", wrong);
    OK(cuEventDestroy_v2(before));
    OK(cuEventDestroy_v2(after));
    OK(cuStreamDestroy_v2(stream));

    /* A .global variable keeps its value across launches and is reachable by address. */
    CUmodule counter_module = NULL;
    CUfunction bump = NULL;
    OK(cuModuleLoadData(&counter_module, counter_ptx));
    OK(cuModuleGetFunction(&bump, counter_module, "bump"));
    CUdeviceptr d_counter = 0;
    size_t counter_size = 0;
    OK(cuModuleGetGlobal_v2(&d_counter, &counter_size, counter_module, "counter"));
    CHECK(counter_size == 4, "counter has %zu bytes", counter_size);
    uint32_t counter = 40;
    OK(cuMemcpyHtoD_v2(d_counter, &counter, 4));
    OK(cuLaunchKernel(bump, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    OK(cuLaunchKernel(bump, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    OK(cuMemcpyDtoH_v2(&counter, d_counter, 4));
    CHECK(counter == 42, "counter %u", counter);
    /* A module variable is an allocation to cuMemGetAddressRange too: the printf-alternative
       blog sample copies a kernel's __FILE__ string from the module's data by its range. */
    {
        CUdeviceptr base = 0;
        size_t size = 0;
        OK(cuMemGetAddressRange_v2(&base, &size, d_counter + 2));
        CHECK(base == d_counter && size == 4, "cuMemGetAddressRange of a variable: %#llx + %zu",
              (unsigned long long)base, size);
    }
    CHECK(cuModuleGetGlobal_v2(&d_counter, &counter_size, counter_module, "nothing") ==
              CUDA_ERROR_NOT_FOUND,
          "unknown global");
    OK(cuModuleUnload(counter_module));

    /* A .const variable: its address from cuModuleGetGlobal; what cuMemcpyHtoD writes there is
     * what the next launches read, and cuMemcpyDtoH reads it back. */
    {
        CUmodule constant_module = NULL;
        CUfunction read_k = NULL;
        OK(cuModuleLoadData(&constant_module, constant_ptx));
        OK(cuModuleGetFunction(&read_k, constant_module, "read_k"));
        CUdeviceptr d_k = 0, d_tail = 0, d_pair = 0;
        size_t k_size = 0, tail_size = 0;
        OK(cuModuleGetGlobal_v2(&d_k, &k_size, constant_module, "k"));
        OK(cuModuleGetGlobal_v2(&d_tail, &tail_size, constant_module, "tail"));
        CHECK(k_size == 4 && tail_size == 8, "k has %zu bytes, tail %zu", k_size, tail_size);
        CHECK(d_tail == d_k + 8, "tail at k + %lld", (long long)(d_tail - d_k));
        OK(cuMemAlloc_v2(&d_pair, 8));
        void *pair_params[] = {&d_pair};
        uint32_t pair[2] = {0, 0};
        OK(cuLaunchKernel(read_k, 1, 1, 1, 1, 1, 1, 0, NULL, pair_params, NULL));
        OK(cuMemcpyDtoH_v2(pair, d_pair, 8));
        CHECK(pair[0] == 7 && pair[1] == 0, "initial constants %u %u", pair[0], pair[1]);
        uint32_t k = 0xdeadbeef, tail1 = 5, back = 0;
        OK(cuMemcpyHtoD_v2(d_k, &k, 4));
        OK(cuMemcpyHtoD_v2(d_tail + 4, &tail1, 4));
        OK(cuLaunchKernel(read_k, 1, 1, 1, 1, 1, 1, 0, NULL, pair_params, NULL));
        OK(cuMemcpyDtoH_v2(pair, d_pair, 8));
        CHECK(pair[0] == 0xdeadbeef && pair[1] == 5, "constants set by the host: %#x %u",
              pair[0], pair[1]);
        OK(cuMemcpyDtoH_v2(&back, d_k, 4));
        CHECK(back == 0xdeadbeef, "k read back: %#x", back);
        /* Bytes 4..8 of the bank belong to no variable. */
        uint64_t wide = 0;
        CHECK(cuMemcpyHtoD_v2(d_k, &wide, 8) == CUDA_ERROR_INVALID_VALUE,
              "a copy past the end of k");
        OK(cuMemFree_v2(d_pair));
        OK(cuModuleUnload(constant_module));
    }
    OK(cuModuleUnload(reverse_module));

    /* A CUDA graph as tinygrad's runtime/graph/cuda.py builds one: a kernel node with `extra`
     * (its parameters copied when added), then a device-to-device and a device-to-host copy
     * node; launched, then launched again with new kernel parameters. */
    {
        CUdeviceptr d_gbins = 0, d_gcopy = 0;
        OK(cuMemAlloc_v2(&d_gbins, sizeof bins));
        OK(cuMemAlloc_v2(&d_gcopy, sizeof bins));
        struct {
            CUdeviceptr in;
            CUdeviceptr bins;
            int n;
        } graph_args = {d_in, d_gbins, N};
        size_t graph_args_size = sizeof graph_args;
        void *graph_extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &graph_args,
                               CU_LAUNCH_PARAM_BUFFER_SIZE, &graph_args_size, CU_LAUNCH_PARAM_END};
        KernelNodeParams kernel = {histogram256, 2, 1, 1, 128, 1, 1, 0, NULL, graph_extra};
        Memcpy3D to_copy = {0}, to_host = {0};
        static uint32_t graph_bins[256], half[256];
        to_copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        to_copy.srcDevice = d_gbins;
        to_copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        to_copy.dstDevice = d_gcopy;
        to_copy.WidthInBytes = sizeof bins;
        to_copy.Height = to_copy.Depth = 1;
        to_host.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        to_host.srcDevice = d_gcopy;
        to_host.dstMemoryType = CU_MEMORYTYPE_HOST;
        to_host.dstHost = graph_bins;
        to_host.WidthInBytes = sizeof graph_bins;
        to_host.Height = to_host.Depth = 1;
        CUgraph graph = NULL;
        CUgraphNode kernel_node = NULL, copy_node = NULL, host_node = NULL;
        CUgraphExec executable = NULL;
        OK(cuGraphCreate(&graph, 0));
        OK(cuGraphAddKernelNode(&kernel_node, graph, NULL, 0, &kernel));
        OK(cuGraphAddMemcpyNode(&copy_node, graph, &kernel_node, 1, &to_copy, context));
        OK(cuGraphAddMemcpyNode(&host_node, graph, &copy_node, 1, &to_host, context));
        OK(cuGraphInstantiate_v2(&executable, graph, NULL, NULL, 0));
        graph_args.n = 0; /* no effect: the node copied its parameters */
        OK(cuGraphLaunch(executable, NULL));
        CHECK(memcmp(graph_bins, expected, sizeof expected) == 0, "graph: histogram");
        graph_args.n = N / 2;
        kernel.gridDimX = 1;
        OK(cuGraphExecKernelNodeSetParams(executable, kernel_node, &kernel));
        OK(cuGraphLaunch(executable, NULL));
        histogram(in, N / 2, half);
        wrong = 0;
        for (int b = 0; b < 256; b++) wrong += graph_bins[b] != expected[b] + half[b];
        CHECK(wrong == 0, "graph with new parameters: %d bins differ", wrong);
        OK(cuGraphExecDestroy(executable));
        OK(cuGraphDestroy(graph));
        OK(cuMemFree_v2(d_gbins));
        OK(cuMemFree_v2(d_gcopy));
    }

    /* Graph topology: cuGraphAddDependencies may make a node added earlier run after one
     * added later ("Dependencies ... are added to the graph", cuda.h); each node runs after
     * its dependencies. A memset node added first, then a host-to-device copy with the edge
     * copy -> memset: the memset wins. Host nodes added in the order 1, 2 with the edge
     * 2 -> 1 run as 2, 1. A removed edge that does not exist is CUDA_ERROR_INVALID_VALUE
     * ("Specifying a non-existing dependency will return an error"); a disabled node runs as
     * an empty node; a cycle cannot be instantiated; a user object's destructor runs when
     * the last graph holding it is destroyed. */
    {
        CUdeviceptr d_topo = 0;
        OK(cuMemAlloc_v2(&d_topo, 64 * sizeof(uint32_t)));
        static uint32_t topo_source[64], topo_back[64];
        for (int i = 0; i < 64; i++) topo_source[i] = 1000u + (uint32_t)i;
        MemsetNodeParams fill = {d_topo, 0, 7, 4, 64, 1};
        Memcpy3D upload = {0};
        upload.srcMemoryType = CU_MEMORYTYPE_HOST;
        upload.srcHost = topo_source;
        upload.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        upload.dstDevice = d_topo;
        upload.WidthInBytes = sizeof topo_source;
        upload.Height = upload.Depth = 1;
        HostNodeParams first = {record_order, (void *)(uintptr_t)1};
        HostNodeParams second = {record_order, (void *)(uintptr_t)2};
        CUgraph graph = NULL;
        CUgraphNode fill_node = NULL, upload_node = NULL, host1 = NULL, host2 = NULL;
        OK(cuGraphCreate(&graph, 0));
        OK(cuGraphAddMemsetNode(&fill_node, graph, NULL, 0, &fill, context));
        OK(cuGraphAddMemcpyNode(&upload_node, graph, NULL, 0, &upload, context));
        OK(cuGraphAddDependencies(graph, &upload_node, &fill_node, 1));
        OK(cuGraphAddHostNode(&host1, graph, NULL, 0, &first));
        OK(cuGraphAddHostNode(&host2, graph, NULL, 0, &second));
        OK(cuGraphAddDependencies(graph, &host2, &host1, 1));
        CHECK(cuGraphAddDependencies(graph, &host2, &host1, 1) == CUDA_ERROR_INVALID_VALUE,
              "an edge added twice");
        size_t count = 0;
        OK(cuGraphGetEdges(graph, NULL, NULL, &count));
        CHECK(count == 2, "graph edges: %zu", count);
        CUgraphNode from[2] = {0}, to[2] = {0};
        OK(cuGraphGetEdges(graph, from, to, &count));
        CHECK(from[0] == upload_node && to[0] == fill_node && from[1] == host2 && to[1] == host1,
              "the edges as added");
        CUgraphNode roots[4] = {0};
        count = 4;
        OK(cuGraphGetRootNodes(graph, roots, &count));
        CHECK(count == 2 && roots[0] == upload_node && roots[1] == host2, "root nodes: %zu", count);
        count = 4;
        OK(cuGraphNodeGetDependencies(fill_node, roots, &count));
        CHECK(count == 1 && roots[0] == upload_node, "the memset's dependency");
        MemsetNodeParams read_back = {0};
        OK(cuGraphMemsetNodeGetParams(fill_node, &read_back));
        CHECK(read_back.dst == d_topo && read_back.value == 7 && read_back.elementSize == 4 &&
                  read_back.width == 64 && read_back.height == 1,
              "memset node parameters read back");
        CHECK(cuGraphRemoveDependencies(graph, &host1, &host2, 1) == CUDA_ERROR_INVALID_VALUE,
              "removing an edge that does not exist");
        static int topo_destroyed = 0;
        CUuserObject object = NULL;
        OK(cuUserObjectCreate(&object, &topo_destroyed, count_destruction, 1, 1));
        OK(cuGraphRetainUserObject(graph, object, 1, 1 /* CU_GRAPH_USER_OBJECT_MOVE */));
        CUgraphExec executable = NULL;
        OK(cuGraphInstantiate_v2(&executable, graph, NULL, NULL, 0));
        order_count = 0;
        OK(cuGraphLaunch(executable, NULL));
        OK(cuMemcpyDtoH_v2(topo_back, d_topo, sizeof topo_back));
        CHECK(topo_back[0] == 7 && topo_back[63] == 7, "the memset ran after the copy: %u",
              topo_back[0]);
        CHECK(order_count == 2 && order_seen[0] == 2 && order_seen[1] == 1,
              "host nodes ran as 2, 1 (%d: %d %d)", order_count, order_seen[0], order_seen[1]);
        OK(cuGraphNodeSetEnabled(executable, fill_node, 0));
        OK(cuGraphLaunch(executable, NULL));
        OK(cuMemcpyDtoH_v2(topo_back, d_topo, sizeof topo_back));
        CHECK(topo_back[0] == 1000 && topo_back[63] == 1063, "the disabled memset did not run: %u",
              topo_back[0]);
        /* A clone: its nodes are its own; cutting the clone's edge leaves the original's. */
        CUgraph clone = NULL;
        CUgraphNode clone_host1 = NULL, clone_host2 = NULL;
        OK(cuGraphClone(&clone, graph));
        OK(cuGraphNodeFindInClone(&clone_host1, host1, clone));
        OK(cuGraphNodeFindInClone(&clone_host2, host2, clone));
        CHECK(clone_host1 != host1, "the clone's node is another node");
        OK(cuGraphRemoveDependencies(clone, &clone_host2, &clone_host1, 1));
        OK(cuGraphGetEdges(graph, NULL, NULL, &count));
        CHECK(count == 2, "the original keeps its edges: %zu", count);
        OK(cuGraphDestroyNode(clone_host1));
        OK(cuGraphGetEdges(clone, NULL, NULL, &count));
        CHECK(count == 1, "the clone's edges: %zu", count);
        /* A cycle: the upload after the memset, which runs after the upload. */
        CUgraphNode clone_fill = NULL, clone_upload = NULL;
        OK(cuGraphNodeFindInClone(&clone_fill, fill_node, clone));
        OK(cuGraphNodeFindInClone(&clone_upload, upload_node, clone));
        OK(cuGraphAddDependencies(clone, &clone_fill, &clone_upload, 1));
        CUgraphExec cyclic = NULL;
        CHECK(cuGraphInstantiate_v2(&cyclic, clone, NULL, NULL, 0) == CUDA_ERROR_INVALID_VALUE,
              "a graph with a cycle");
        OK(cuGraphDestroy(clone));
        OK(cuGraphExecDestroy(executable));
        CHECK(topo_destroyed == 0, "the user object lives while the graph does");
        OK(cuGraphDestroy(graph));
        CHECK(topo_destroyed == 1, "the user object's destructor ran once: %d", topo_destroyed);
        OK(cuMemFree_v2(d_topo));
    }

    /* Copies of several rows in graphs: a captured cuMemcpy3DAsync is a node of the graph
     * (it copies when the graph runs, not when it is captured), and cuGraphAddMemcpyNode
     * takes a CUDA_MEMCPY3D with Height above 1 (cuda.h: "Creates a new memcpy node ... as
     * described by copyParams"). Then cuMemcpyBatchAsync (CUDA 12.8): its copies, and the
     * rules cuda.h gives for its arguments (a valid srcAccessOrder, not the legacy NULL
     * stream: CUDA_ERROR_INVALID_VALUE). */
    {
        enum { COLS = 6, ROWS = 5, PITCH = 64 };
        CUdeviceptr d_rows = 0;
        OK(cuMemAlloc_v2(&d_rows, PITCH * ROWS));
        static unsigned char rows_in[COLS * ROWS], rows_out[COLS * ROWS], rows_node[COLS * ROWS];
        for (int i = 0; i < COLS * ROWS; i++) rows_in[i] = (unsigned char)(3 * i + 1);
        Memcpy3D up = {0}, down = {0};
        up.srcMemoryType = CU_MEMORYTYPE_HOST;
        up.srcHost = rows_in;
        up.srcPitch = COLS;
        up.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        up.dstDevice = d_rows;
        up.dstPitch = PITCH;
        up.WidthInBytes = COLS;
        up.Height = ROWS;
        up.Depth = 1;
        down = up;
        down.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        down.srcHost = NULL;
        down.srcDevice = d_rows;
        down.srcPitch = PITCH;
        down.dstMemoryType = CU_MEMORYTYPE_HOST;
        down.dstDevice = 0;
        down.dstHost = rows_out;
        down.dstPitch = COLS;
        CUstream capturing = NULL;
        OK(cuStreamCreate(&capturing, 0));
        OK(cuStreamBeginCapture_v2(capturing, 0));
        OK(cuMemcpy3DAsync_v2(&up, capturing));
        /* "the set of nodes the next node to be captured in the stream will depend on": the
         * copy just captured. */
        int capture_status = 0;
        const CUgraphNode *capture_deps = NULL;
        size_t capture_count = 0;
        OK(cuStreamGetCaptureInfo_v3(capturing, &capture_status, NULL, NULL, &capture_deps, NULL,
                                     &capture_count));
        CHECK(capture_status == 1 && capture_count == 1 && capture_deps && capture_deps[0],
              "the capture's dependency set: %zu nodes", capture_count);
        OK(cuMemcpy3DAsync_v2(&down, capturing));
        CUgraph captured = NULL;
        OK(cuStreamEndCapture(capturing, &captured));
        CHECK(rows_out[1] == 0, "a captured copy does not run at capture");
        size_t count = 0;
        OK(cuGraphGetEdges(captured, NULL, NULL, &count));
        CHECK(count == 1, "the two captured copies are one after the other: %zu edges", count);
        down.dstHost = rows_node;
        CUgraphNode node_copy = NULL;
        OK(cuGraphAddMemcpyNode(&node_copy, captured, NULL, 0, &down, context));
        CUgraphExec rows_exec = NULL;
        OK(cuGraphInstantiate_v2(&rows_exec, captured, NULL, NULL, 0));
        OK(cuGraphLaunch(rows_exec, capturing));
        OK(cuStreamSynchronize(capturing));
        CHECK(memcmp(rows_out, rows_in, sizeof rows_in) == 0, "captured 3D copies");
        CHECK(memcmp(rows_node, rows_in, sizeof rows_in) == 0, "a memcpy node of several rows");
        OK(cuGraphExecDestroy(rows_exec));
        OK(cuGraphDestroy(captured));

        CUdeviceptr d_batch = 0;
        OK(cuMemAlloc_v2(&d_batch, 256));
        static unsigned char batch_in[128], batch_out[128];
        for (int i = 0; i < 128; i++) batch_in[i] = (unsigned char)(255 - i);
        CUdeviceptr dsts[2] = {d_batch, (CUdeviceptr)(uintptr_t)batch_out};
        CUdeviceptr srcs[2] = {(CUdeviceptr)(uintptr_t)batch_in, d_batch};
        size_t sizes[2] = {128, 128};
        MemcpyAttributes attributes = {1 /* CU_MEMCPY_SRC_ACCESS_ORDER_STREAM */, {0, 0}, {0, 0}, 0};
        size_t first = 0;
        OK(cuMemcpyBatchAsync_v2(dsts, srcs, sizes, 2, &attributes, &first, 1, capturing));
        OK(cuStreamSynchronize(capturing));
        CHECK(memcmp(batch_out, batch_in, sizeof batch_in) == 0, "batched copies");
        attributes.srcAccessOrder = 0; /* CU_MEMCPY_SRC_ACCESS_ORDER_INVALID */
        CHECK(cuMemcpyBatchAsync_v2(dsts, srcs, sizes, 2, &attributes, &first, 1, capturing) ==
                  CUDA_ERROR_INVALID_VALUE,
              "an invalid source access order");
        attributes.srcAccessOrder = 1;
        CHECK(cuMemcpyBatchAsync_v2(dsts, srcs, sizes, 2, &attributes, &first, 1, NULL) ==
                  CUDA_ERROR_INVALID_VALUE,
              "a batch on the legacy NULL stream");
        OK(cuStreamDestroy_v2(capturing));
        OK(cuMemFree_v2(d_batch));
        OK(cuMemFree_v2(d_rows));
    }

    /* Error paths: invalid PTX (with the checker's log), an unknown kernel, error names, a
     * call ptxsim does not implement. */
    CUmodule bad = NULL;
    CHECK(cuModuleLoadData(&bad, broken_ptx) == CUDA_ERROR_INVALID_PTX, "invalid PTX");
    char log[4096] = {0};
    int options[] = {5, 6}; /* CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES */
    void *values[] = {log, (void *)(uintptr_t)sizeof log};
    CHECK(cuModuleLoadDataEx(&bad, broken_ptx, 2, options, values) == CUDA_ERROR_INVALID_PTX,
          "invalid PTX (Ex)");
    CHECK(strstr(log, "6:5: error[") != NULL, "error log `%s`", log);
    CUfunction missing = NULL;
    CHECK(cuModuleGetFunction(&missing, module, "no_such_kernel") == CUDA_ERROR_NOT_FOUND,
          "unknown kernel");
    const char *text = NULL;
    OK(cuGetErrorName(CUDA_ERROR_INVALID_PTX, &text));
    CHECK(text && strcmp(text, "CUDA_ERROR_INVALID_PTX") == 0, "error name `%s`", text);
    OK(cuGetErrorString(CUDA_ERROR_ILLEGAL_ADDRESS, &text));
    CHECK(text && strstr(text, "illegal memory access"), "error string `%s`", text);
    /* Managed memory: one address for the host and the device. */
    CUdeviceptr managed = 0;
    OK(cuMemAllocManaged(&managed, 16, 1));
    unsigned char *host_view = (unsigned char *)(uintptr_t)managed;
    host_view[3] = 42;
    unsigned char back[16] = {0};
    OK(cuMemcpyDtoH_v2(back, managed, 16));
    CHECK(back[3] == 42, "managed memory written by the host reads back %d", back[3]);
    OK(cuMemsetD8_v2(managed + 8, 7, 8));
    CHECK(host_view[8] == 7 && host_view[15] == 7, "cuMemsetD8 on managed memory");
    unsigned int is_managed = 0;
    OK(cuPointerGetAttribute(&is_managed, 8 /* IS_MANAGED */, managed));
    CHECK((is_managed & 0xff) == 1, "IS_MANAGED of managed memory");
    OK(cuMemFree_v2(managed));

    /* A launch into a created stream runs at the next call that needs it ("Kernel launches are
     * asynchronous"), so a kernel may wait for the host to write managed memory after the
     * launch. */
    CUmodule spin_module = NULL;
    CUfunction spin = NULL;
    OK(cuModuleLoadData(&spin_module, spin_ptx));
    OK(cuModuleGetFunction(&spin, spin_module, "spin"));
    CUdeviceptr latch = 0;
    OK(cuMemAllocManaged(&latch, 8, 1));
    volatile uint32_t *latch_view = (volatile uint32_t *)(uintptr_t)latch;
    latch_view[0] = 0;
    latch_view[1] = 0;
    CUstream spin_stream = NULL;
    OK(cuStreamCreate(&spin_stream, 0));
    void *spin_params[] = {&latch};
    OK(cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, spin_stream, spin_params, NULL));
    latch_view[0] = 1;
    OK(cuStreamSynchronize(spin_stream));
    CHECK(latch_view[1] == 7, "the kernel waiting for the host's store wrote %u", latch_view[1]);
    OK(cuStreamDestroy_v2(spin_stream));

    /* The launch queue of a created stream is finite (docs/divergences.md, D68): a thread
     * that only launches (the developer blog's cuda-vmm sync_main launches from four threads
     * until told to stop) runs the kept launches once 1,024 wait, without another driver call.
     * 2,049 launches of a kernel that counts in managed memory: at least 1,024 have run when
     * the host reads the count, all after cuStreamSynchronize. */
    {
        static const char *bump_ptx =
            ".version 8.0\n.target sm_90\n.address_size 64\n"
            ".visible .entry bump(.param .u64 count)\n"
            "{\n    .reg .b32 %r<3>;\n    .reg .b64 %rd1;\n"
            "    ld.param.u64 %rd1, [count];\n    ld.global.u32 %r1, [%rd1];\n"
            "    add.u32 %r2, %r1, 1;\n    st.global.u32 [%rd1], %r2;\n    ret;\n}\n";
        CUmodule bump_module = NULL;
        CUfunction bump = NULL;
        OK(cuModuleLoadData(&bump_module, bump_ptx));
        OK(cuModuleGetFunction(&bump, bump_module, "bump"));
        latch_view[0] = 0;
        CUstream queue = NULL;
        OK(cuStreamCreate(&queue, 0));
        void *bump_params[] = {&latch};
        for (int i = 0; i < 2049; i++)
            OK(cuLaunchKernel(bump, 1, 1, 1, 1, 1, 1, 0, queue, bump_params, NULL));
        uint32_t ran = latch_view[0];
        CHECK(ran >= 1024 && ran < 2049, "%u of 2049 launches ran before a synchronizing call",
              ran);
        OK(cuStreamSynchronize(queue));
        CHECK(latch_view[0] == 2049, "%u of 2049 launches ran after cuStreamSynchronize",
              latch_view[0]);
        OK(cuStreamDestroy_v2(queue));
        OK(cuModuleUnload(bump_module));
    }
    OK(cuMemFree_v2(latch));

    /* Timing: the same module text loaded, its kernel found and launched again and again
     * (the module is checked once, then found by content), with a tiny launch. */
    {
        enum { ROUNDS = 200 };
        int one = 1;
        void *tiny[] = {&d_in, &d_bins, &one};
        double t0 = now_us();
        for (int i = 0; i < ROUNDS; i++) {
            CUmodule again = NULL;
            CUfunction kernel = NULL;
            OK(cuModuleLoadData(&again, sample));
            OK(cuModuleGetFunction(&kernel, again, "histogram256"));
            OK(cuModuleUnload(again));
        }
        double t1 = now_us();
        for (int i = 0; i < ROUNDS; i++)
            OK(cuLaunchKernel(histogram256, 1, 1, 1, 32, 1, 1, 0, NULL, tiny, NULL));
        double t2 = now_us();
        for (int i = 0; i < ROUNDS; i++) {
            CUmodule again = NULL;
            CUfunction kernel = NULL;
            OK(cuModuleLoadData(&again, sample));
            OK(cuModuleGetFunction(&kernel, again, "histogram256"));
            OK(cuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 0, NULL, tiny, NULL));
            OK(cuModuleUnload(again));
        }
        double t3 = now_us();
        /* A launch of one thread running three instructions: the cost around the simulation. */
        CUmodule counter_again = NULL;
        CUfunction bump_again = NULL;
        OK(cuModuleLoadData(&counter_again, counter_ptx));
        OK(cuModuleGetFunction(&bump_again, counter_again, "bump"));
        for (int i = 0; i < ROUNDS; i++)
            OK(cuLaunchKernel(bump_again, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
        double t4 = now_us();
        OK(cuModuleUnload(counter_again));
        printf("timing: %zu-byte module: load+get+unload %.1f us, launch (1 CTA x 32 threads) "
               "%.1f us, all together %.1f us per round; a 1-thread 3-instruction launch %.1f us "
               "(%d rounds each)\n",
               sample_size, (t1 - t0) / ROUNDS, (t2 - t1) / ROUNDS, (t3 - t2) / ROUNDS,
               (t4 - t3) / ROUNDS, ROUNDS);
    }

    /* An out-of-bounds store: CUDA_ERROR_ILLEGAL_ADDRESS, sticky for the context. */
    CUmodule poke_module = NULL;
    CUfunction poke = NULL;
    OK(cuModuleLoadData(&poke_module, poke_ptx));
    OK(cuModuleGetFunction(&poke, poke_module, "poke"));
    /* Just before the start of an allocation (the row above an image: Rodinia's srad_v2 and
     * dwt2d) a GPU reads mapped memory, the end of the page of the allocation before; so does
     * ptxsim (docs/divergences.md, D60). */
    CUdeviceptr lower = 0, upper = 0;
    OK(cuMemAlloc_v2(&lower, 16));
    OK(cuMemAlloc_v2(&upper, 16));
    unsigned long long minus_four = (unsigned long long)-4;
    void *poke_before[] = {&upper, &minus_four};
    OK(cuLaunchKernel(poke, 1, 1, 1, 1, 1, 1, 0, NULL, poke_before, NULL));
    OK(cuCtxSynchronize());
    CUdeviceptr small = 0;
    OK(cuMemAlloc_v2(&small, 16));
    /* Past the end of the 16 bytes but within the allocation's 64 KiB granule (a GPU maps
     * pages, and an access there does not fault on it: docs/divergences.md, D40) the store
     * lands; past the granule it faults. */
    unsigned long long in_bounds = 12, in_granule = 16, past_end = 65536;
    void *poke_ok[] = {&small, &in_bounds};
    OK(cuLaunchKernel(poke, 1, 1, 1, 1, 1, 1, 0, NULL, poke_ok, NULL));
    void *poke_slack[] = {&small, &in_granule};
    OK(cuLaunchKernel(poke, 1, 1, 1, 1, 1, 1, 0, NULL, poke_slack, NULL));
    OK(cuCtxSynchronize());
    void *poke_bad[] = {&small, &past_end};
    /* As on a GPU, the launch returns before the fault is known; the next call reports it. */
    OK(cuLaunchKernel(poke, 1, 1, 1, 1, 1, 1, 0, NULL, poke_bad, NULL));
    CHECK(cuCtxSynchronize() == CUDA_ERROR_ILLEGAL_ADDRESS, "sticky: cuCtxSynchronize");
    CUdeviceptr later = 0;
    CHECK(cuMemAlloc_v2(&later, 16) == CUDA_ERROR_ILLEGAL_ADDRESS, "sticky: cuMemAlloc");
    CHECK(cuMemcpyDtoH_v2(bins, d_bins, 16) == CUDA_ERROR_ILLEGAL_ADDRESS,
          "sticky: cuMemcpyDtoH");
    CHECK(cuLaunchKernel(poke, 1, 1, 1, 1, 1, 1, 0, NULL, poke_ok, NULL) ==
              CUDA_ERROR_ILLEGAL_ADDRESS,
          "sticky: cuLaunchKernel");
    OK(cuCtxDestroy_v2(context));

    /* A new context works. */
    CUcontext fresh = NULL;
    OK(cuCtxCreate_v2(&fresh, 0, device));
    CUcontext popped = NULL;
    OK(cuCtxPopCurrent_v2(&popped));
    OK(cuCtxGetCurrent(&current));
    CHECK(popped == fresh && current == NULL, "pop the context stack");
    OK(cuCtxPushCurrent_v2(fresh));
    OK(cuCtxGetCurrent(&current));
    CHECK(current == fresh, "push the context stack");
    OK(cuMemAlloc_v2(&later, 16));
    OK(cuMemsetD8_v2(later, 0x5a, 16));
    unsigned char bytes[16] = {0};
    OK(cuMemcpyDtoH_v2(bytes, later, 16));
    CHECK(bytes[0] == 0x5a && bytes[15] == 0x5a, "memset D8 in a fresh context");
    OK(cuMemFree_v2(later));

    /* A load past a module's `.global` variable within the 64 KiB granule does not fault (a GPU
     * places a module's variables side by side in mapped memory: docs/divergences.md, D51);
     * ptxsim's bytes there read zero. */
    CUmodule table_module = NULL;
    CUfunction peek = NULL;
    OK(cuModuleLoadData(&table_module, table_ptx));
    OK(cuModuleGetFunction(&peek, table_module, "peek"));
    CUdeviceptr peeked = 0;
    OK(cuMemAlloc_v2(&peeked, 4));
    unsigned long long in_table = 2, past_table = 256;
    unsigned int word = 0;
    void *peek_in[] = {&peeked, &in_table};
    OK(cuLaunchKernel(peek, 1, 1, 1, 1, 1, 1, 0, NULL, peek_in, NULL));
    OK(cuMemcpyDtoH_v2(&word, peeked, 4));
    CHECK(word == 3, "table[2] is its initializer's third word");
    void *peek_past[] = {&peeked, &past_table};
    OK(cuLaunchKernel(peek, 1, 1, 1, 1, 1, 1, 0, NULL, peek_past, NULL));
    OK(cuMemcpyDtoH_v2(&word, peeked, 4));
    CHECK(word == 0, "a load 1 KiB past a .global variable reads zero");
    OK(cuMemFree_v2(peeked));
    OK(cuModuleUnload(table_module));

    tensor_map_test();
    im2col_test();
    im2col_wide_test();

    /* cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: clusters of 2x1x1 CTAs. */
    CUmodule cluster_module = NULL;
    CUfunction partner = NULL;
    OK(cuModuleLoadData(&cluster_module, cluster_ptx));
    OK(cuModuleGetFunction(&partner, cluster_module, "partner"));
    CUdeviceptr pairs = 0;
    OK(cuMemAlloc_v2(&pairs, 8 * 8));
    CUlaunchAttribute cluster_attribute;
    memset(&cluster_attribute, 0, sizeof cluster_attribute);
    cluster_attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster_attribute.value.clusterDim.x = 2;
    cluster_attribute.value.clusterDim.y = 1;
    cluster_attribute.value.clusterDim.z = 1;
    CUlaunchConfig config = {8, 1, 1, 32, 1, 1, 0, NULL, &cluster_attribute, 1};
    void *pair_args[] = {&pairs};
    OK(cuLaunchKernelEx(&config, partner, pair_args, NULL));
    uint32_t got[16] = {0};
    OK(cuMemcpyDtoH_v2(got, pairs, sizeof got));
    for (uint32_t cta = 0; cta < 8; cta++) {
        /* The CUDA programming guide's cluster layout: CTA c has rank c % 2, its partner c ^ 1. */
        CHECK(got[2 * cta] == (cta ^ 1u) && got[2 * cta + 1] == cta % 2u,
              "cluster: CTA %u read %u, rank %u", cta, got[2 * cta], got[2 * cta + 1]);
    }
    /* cuOccupancyMaxPotentialClusterSize: "By default this function will always return a
     * value that's portable on future hardware" -- 8 CTAs, the portable cluster size of the
     * CUDA C++ Programming Guide, for a kernel of 32 threads without a required shape. */
    int potential = 0;
    OK(cuOccupancyMaxPotentialClusterSize(&potential, partner, &config));
    CHECK(potential == 8, "potential cluster size %d", potential);
    /* 8 CTAs are no whole number of 3-CTA clusters. */
    cluster_attribute.value.clusterDim.x = 3;
    CHECK(cuLaunchKernelEx(&config, partner, pair_args, NULL) == CUDA_ERROR_INVALID_VALUE,
          "a grid that is no whole number of clusters");
    /* cuOccupancyMaxActiveClusters: as many 2-CTA clusters as the device's multiprocessors hold
     * CTAs (cuOccupancyMaxActiveBlocksPerMultiprocessor each), halved; without a cluster shape
     * in the configuration or the kernel, an error (cuda.h: "Without required sizes, the
     * cluster size must be specified in config, else the function will return an error"). */
    {
        int clusters = -1, per_sm = -1, sms = -1;
        cluster_attribute.value.clusterDim.x = 2;
        OK(cuOccupancyMaxActiveClusters(&clusters, partner, &config));
        OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, partner, 32, 0));
        OK(cuDeviceGetAttribute(&sms, 16 /* CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT */, device));
        CHECK(clusters > 0 && clusters == sms * per_sm / 2,
              "active clusters %d (%d SMs, %d CTAs each)", clusters, sms, per_sm);
        CUlaunchConfig no_shape = config;
        no_shape.attrs = NULL;
        no_shape.numAttrs = 0;
        CHECK(cuOccupancyMaxActiveClusters(&clusters, partner, &no_shape) ==
                  CUDA_ERROR_INVALID_VALUE,
              "active clusters without a cluster shape");
    }
    OK(cuMemFree_v2(pairs));
    OK(cuModuleUnload(cluster_module));

    /* Limits (cuda.h, cuCtxSetLimit): the malloc heap's size is kept and read back;
       CU_LIMIT_MALLOC_HEAP_SIZE is 2, its default 8 MiB (cudaDeviceSetLimit's documentation). */
    {
        size_t heap = 0;
        OK(cuCtxGetLimit(&heap, 2));
        CHECK(heap == 8u << 20, "default heap %zu", heap);
        OK(cuCtxSetLimit(2, 64u << 20));
        OK(cuCtxGetLimit(&heap, 2));
        CHECK(heap == 64u << 20, "heap after cuCtxSetLimit %zu", heap);
    }
    /* Stream priorities: cuStreamGetPriority gives the priority the stream was created with,
       clamped to cuCtxGetStreamPriorityRange ("priorities outside this range are clamped");
       cuStreamGetFlags gives its flags (CU_STREAM_NON_BLOCKING is 1). */
    {
        int least = 1, greatest = 1, priority = 1;
        unsigned int flags = 7;
        CUstream high, clamped;
        OK(cuCtxGetStreamPriorityRange(&least, &greatest));
        CHECK(greatest < least, "priority range %d..%d", least, greatest);
        OK(cuStreamCreateWithPriority(&high, 1, greatest));
        OK(cuStreamGetPriority(high, &priority));
        CHECK(priority == greatest, "priority %d, asked %d", priority, greatest);
        OK(cuStreamGetFlags(high, &flags));
        CHECK(flags == 1, "flags %u", flags);
        OK(cuStreamCreateWithPriority(&clamped, 0, greatest - 10));
        OK(cuStreamGetPriority(clamped, &priority));
        CHECK(priority == greatest, "clamped priority %d", priority);
        OK(cuStreamDestroy_v2(high));
        OK(cuStreamDestroy_v2(clamped));
    }
    /* cuPointerGetAttributes of device memory: MEMORY_TYPE (2) device (2), DEVICE_POINTER (3)
       itself, HOST_POINTER (4) NULL (device memory is not host memory), IS_MANAGED (8) 0. */
    {
        CUdeviceptr buffer = 0;
        OK(cuMemAlloc_v2(&buffer, 256));
        unsigned int type = 0;
        CUdeviceptr device_pointer = 0;
        void *host_pointer = (void *)1;
        int managed = 7;
        int attributes[4] = {2, 3, 4, 8};
        void *data[4] = {&type, &device_pointer, &host_pointer, &managed};
        OK(cuPointerGetAttributes(4, attributes, data, buffer));
        CHECK(type == 2 && device_pointer == buffer && host_pointer == NULL && managed == 0,
              "device memory attributes: type %u, device %llx, host %p, managed %d", type,
              device_pointer, host_pointer, managed);
        OK(cuMemFree_v2(buffer));
    }
    /* Managed memory advice read back with cuMemRangeGetAttribute: READ_MOSTLY (1) after
       CU_MEM_ADVISE_SET_READ_MOSTLY (1), PREFERRED_LOCATION (2) the device after
       SET_PREFERRED_LOCATION (3), LAST_PREFETCH_LOCATION (4) the device after a prefetch there,
       CU_DEVICE_CPU (-1) after one to the host; a range never advised: 0 and CU_DEVICE_INVALID
       (-2). cuStreamAttachMemAsync is accepted. */
    {
        CUdeviceptr managed = 0;
        OK(cuMemAllocManaged(&managed, 1 << 16, 1));
        CUmemLocation on_device = {1, (int)device}, on_host = {2, 0};
        int read_mostly = -1, preferred = -1, prefetched = -1;
        OK(cuMemRangeGetAttribute(&preferred, 4, 2, managed, 1 << 16));
        OK(cuMemRangeGetAttribute(&read_mostly, 4, 1, managed, 1 << 16));
        CHECK(preferred == -2 && read_mostly == 0, "no advice: %d %d", preferred, read_mostly);
        OK(cuMemAdvise_v2(managed, 1 << 16, 1, on_device));
        OK(cuMemAdvise_v2(managed, 1 << 16, 3, on_device));
        OK(cuMemPrefetchAsync_v2(managed, 1 << 16, on_device, 0, NULL));
        OK(cuMemRangeGetAttribute(&read_mostly, 4, 1, managed, 1 << 16));
        OK(cuMemRangeGetAttribute(&preferred, 4, 2, managed, 4096));
        OK(cuMemRangeGetAttribute(&prefetched, 4, 4, managed, 1 << 16));
        CHECK(read_mostly == 1 && preferred == (int)device && prefetched == (int)device,
              "advice: %d %d %d", read_mostly, preferred, prefetched);
        OK(cuMemPrefetchAsync_v2(managed, 1 << 16, on_host, 0, NULL));
        OK(cuMemRangeGetAttribute(&prefetched, 4, 4, managed, 1 << 16));
        CHECK(prefetched == -1, "prefetched to the host: %d", prefetched);
        CUstream attach;
        OK(cuStreamCreate(&attach, 0));
        OK(cuStreamAttachMemAsync(attach, managed, 0, 4 /* CU_MEM_ATTACH_SINGLE */));
        OK(cuStreamSynchronize(attach));
        OK(cuStreamDestroy_v2(attach));
        OK(cuMemFree_v2(managed));
    }
    /* A memory pool of one's own: its used memory (CU_MEMPOOL_ATTR_USED_MEM_CURRENT, 7) counts
       the live allocations made from it; the release threshold (4) reads back as set. */
    {
        CUmemPoolProps props;
        memset(&props, 0, sizeof props);
        props.allocType = 1; /* CU_MEM_ALLOCATION_TYPE_PINNED */
        props.location.type = 1;
        props.location.id = (int)device;
        CUmemoryPool pool;
        OK(cuMemPoolCreate(&pool, &props));
        unsigned long long threshold = 1 << 20, value = 0;
        OK(cuMemPoolSetAttribute(pool, 4, &threshold));
        OK(cuMemPoolGetAttribute(pool, 4, &value));
        CHECK(value == threshold, "release threshold %llu", value);
        CUdeviceptr a = 0, b = 0;
        OK(cuMemAllocFromPoolAsync(&a, 1000, pool, NULL));
        OK(cuMemAllocFromPoolAsync(&b, 3000, pool, NULL));
        OK(cuMemPoolGetAttribute(pool, 7, &value));
        CHECK(value == 4000, "used memory %llu", value);
        OK(cuMemFreeAsync(a, NULL));
        OK(cuMemPoolGetAttribute(pool, 7, &value));
        CHECK(value == 3000, "used memory after a free %llu", value);
        OK(cuMemPoolGetAttribute(pool, 8, &value));
        CHECK(value == 4000, "used memory high watermark %llu", value);
        OK(cuMemFreeAsync(b, NULL));
        /* The current pool (cuda.h, cuDeviceGetMemPool: "the last pool provided to
         * cuDeviceSetMemPool for this device or the device's default memory pool"); its owner
         * has read-write access (CU_MEM_ACCESS_FLAGS_PROT_READWRITE, 3); destroying the current
         * pool makes the default current again. CUDA 13's location-based calls agree. */
        CUmemoryPool default_pool = NULL, current = NULL;
        OK(cuDeviceGetDefaultMemPool(&default_pool, device));
        OK(cuDeviceGetMemPool(&current, device));
        CHECK(current == default_pool, "the default pool is current at first");
        OK(cuDeviceSetMemPool(device, pool));
        OK(cuDeviceGetMemPool(&current, device));
        CHECK(current == pool, "cuDeviceSetMemPool makes the pool current");
        OK(cuMemGetMemPool(&current, &props.location, 1 /* CU_MEM_ALLOCATION_TYPE_PINNED */));
        CHECK(current == pool, "cuMemGetMemPool gives the current pool");
        OK(cuMemGetDefaultMemPool(&current, &props.location, 1));
        CHECK(current == default_pool, "cuMemGetDefaultMemPool gives the default pool");
        int access = 0;
        OK(cuMemPoolGetAccess(&access, pool, &props.location));
        CHECK(access == 3, "the owner's access to its pool: %d", access);
        OK(cuMemPoolDestroy(pool));
        OK(cuDeviceGetMemPool(&current, device));
        CHECK(current == default_pool, "the default pool is current again");
        /* A device and itself: "CUDA_ERROR_INVALID_DEVICE if srcDevice or dstDevice are not
         * valid or if they represent the same device" (cuDeviceGetP2PAttribute). */
        int p2p = -1;
        CHECK(cuDeviceGetP2PAttribute(&p2p, 2, device, device) == 101 /* CUDA_ERROR_INVALID_DEVICE */,
              "a peer attribute of a device with itself");
    }
    /* A child graph node: the child's nodes run where the node is (here: between two empty
       nodes); the node is one node of the parent to depend on. */
    {
        CUgraph parent, child;
        OK(cuGraphCreate(&parent, 0));
        OK(cuGraphCreate(&child, 0));
        CUgraphNode first, inner, node, last;
        OK(cuGraphAddEmptyNode(&inner, child, NULL, 0));
        OK(cuGraphAddEmptyNode(&first, parent, NULL, 0));
        OK(cuGraphAddChildGraphNode(&node, parent, &first, 1, child));
        OK(cuGraphAddEmptyNode(&last, parent, &node, 1));
        CUgraphExec executable;
        OK(cuGraphInstantiate_v2(&executable, parent, NULL, NULL, 0));
        OK(cuGraphLaunch(executable, NULL));
        OK(cuGraphExecDestroy(executable));
        OK(cuGraphDestroy(parent));
        OK(cuGraphDestroy(child));
    }
    /* Launch shapes a GPU refuses. Without the CUDA runtime in the process, a shape past the
       device's limits is CUDA_ERROR_INVALID_VALUE, as NVIDIA's driver answers driver-API
       callers; a block past the kernel's .maxntid (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
       "beyond which a launch of the function would fail", cuda.h) is
       CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES. */
    {
        CUmodule module;
        CUfunction bounded;
        OK(cuModuleLoadData(&module, bounded_ptx));
        OK(cuModuleGetFunction(&bounded, module, "bounded"));
        int most = 0;
        OK(cuFuncGetAttribute(&most, 0, bounded));
        CHECK(most == 256, "MAX_THREADS_PER_BLOCK of a .maxntid 256 kernel: %d", most);
        CUdeviceptr out;
        OK(cuMemAlloc_v2(&out, 1024 * 4));
        void *params[] = {&out};
        OK(cuLaunchKernel(bounded, 1, 1, 1, 256, 1, 1, 0, NULL, params, NULL));
        CHECK(cuLaunchKernel(bounded, 1, 1, 1, 512, 1, 1, 0, NULL, params, NULL) == 701,
              "512 threads into .maxntid 256: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES");
        CHECK(cuLaunchKernel(bounded, 1, 1, 1, 16, 32, 1, 0, NULL, params, NULL) == 701,
              "16 x 32 threads into .maxntid 256");
        CHECK(cuLaunchKernel(bounded, 1, 1, 1, 2048, 1, 1, 0, NULL, params, NULL) ==
                  CUDA_ERROR_INVALID_VALUE,
              "2048 threads");
        CHECK(cuLaunchKernel(bounded, 1, 1, 70000, 32, 1, 1, 0, NULL, params, NULL) ==
                  CUDA_ERROR_INVALID_VALUE,
              "70,000 blocks along z");
        CHECK(cuLaunchKernel(bounded, 0, 1, 1, 32, 1, 1, 0, NULL, params, NULL) ==
                  CUDA_ERROR_INVALID_VALUE,
              "an empty grid");
        /* the occupancy calculator never offers what cannot launch */
        int per_sm = -1;
        OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, bounded, 512, 0));
        CHECK(per_sm == 0, "512-thread blocks of a .maxntid 256 kernel per SM: %d", per_sm);
        OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, bounded, 256, 0));
        CHECK(per_sm == 8, "256-thread blocks per SM (2048 threads): %d", per_sm);
        OK(cuCtxSynchronize());
        OK(cuMemFree_v2(out));
        OK(cuModuleUnload(module));
    }
    /* Context flags are kept: cuCtxCreate's, cuCtxSetFlags', and the primary context's
       (cuDevicePrimaryCtxSetFlags, read back by cuDevicePrimaryCtxGetState); CU_CTX_SCHED_*
       values past CU_CTX_SCHED_BLOCKING_SYNC (4) are invalid. */
    {
        unsigned int flags = 99;
        OK(cuCtxGetFlags(&flags));
        CHECK(flags == 0, "fresh context's flags %#x", flags);
        OK(cuCtxSetFlags(0x04));
        OK(cuCtxGetFlags(&flags));
        CHECK(flags == 0x04, "flags after cuCtxSetFlags %#x", flags);
        OK(cuDevicePrimaryCtxSetFlags_v2(device, 0x04 | 0x10));
        int active = 0;
        OK(cuDevicePrimaryCtxGetState(device, &flags, &active));
        CHECK(flags == (0x04 | 0x10), "primary context flags %#x", flags);
        CHECK(cuDevicePrimaryCtxSetFlags_v2(device, 0x07) == CUDA_ERROR_INVALID_VALUE,
              "scheduling flag 7");
        OK(cuDevicePrimaryCtxSetFlags_v2(device, 0));
    }
    /* cuGraphExecUpdate's result info (cuda.h): a graph with another number of nodes is
       CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED (2) with no error node. */
    {
        CUgraph one, two;
        CUgraphNode a, b, c;
        OK(cuGraphCreate(&one, 0));
        OK(cuGraphAddEmptyNode(&a, one, NULL, 0));
        OK(cuGraphCreate(&two, 0));
        OK(cuGraphAddEmptyNode(&b, two, NULL, 0));
        OK(cuGraphAddEmptyNode(&c, two, &b, 1));
        CUgraphExec executable;
        OK(cuGraphInstantiate_v2(&executable, one, NULL, NULL, 0));
        GraphExecUpdateResultInfo info = {-1, a, a};
        CHECK(cuGraphExecUpdate_v2(executable, two, &info) == 910,
              "update across a change of topology: CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE");
        CHECK(info.result == 2 && info.error_node == NULL, "result info %d", info.result);
        OK(cuGraphExecUpdate_v2(executable, one, &info));
        CHECK(info.result == 0, "update of the same graph: result %d", info.result);
        OK(cuGraphExecDestroy(executable));
        OK(cuGraphDestroy(one));
        OK(cuGraphDestroy(two));
    }
    /* cuMemcpy3DPeer: a 3 x 2 x 2 box of bytes from (1, 1, 1) of a 6 x 4 x 3 volume, between
       the contexts' allocations. */
    {
        unsigned char volume[3][4][6], box[2][2][3];
        for (int i = 0; i < 72; ++i) ((unsigned char *)volume)[i] = (unsigned char)(i * 7 + 1);
        CUdeviceptr source, destination;
        OK(cuMemAlloc_v2(&source, sizeof volume));
        OK(cuMemAlloc_v2(&destination, sizeof box));
        OK(cuMemcpyHtoD_v2(source, volume, sizeof volume));
        Memcpy3D copy = {0};
        copy.srcXInBytes = 1, copy.srcY = 1, copy.srcZ = 1;
        copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        copy.srcDevice = source;
        copy.reserved0 = fresh; /* srcContext */
        copy.srcPitch = 6, copy.srcHeight = 4;
        copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        copy.dstDevice = destination;
        copy.reserved1 = fresh; /* dstContext */
        copy.dstPitch = 3, copy.dstHeight = 2;
        copy.WidthInBytes = 3, copy.Height = 2, copy.Depth = 2;
        OK(cuMemcpy3DPeer(&copy));
        OK(cuMemcpyDtoH_v2(box, destination, sizeof box));
        int bad = 0;
        for (int z = 0; z < 2; ++z)
            for (int y = 0; y < 2; ++y)
                for (int x = 0; x < 3; ++x) bad += box[z][y][x] != volume[z + 1][y + 1][x + 1];
        CHECK(bad == 0, "cuMemcpy3DPeer: %d bytes differ", bad);
        copy.reserved0 = (void *)0x1234; /* not a context */
        CHECK(cuMemcpy3DPeer(&copy) == 201, "cuMemcpy3DPeer with a bad context");
        OK(cuMemFree_v2(source));
        OK(cuMemFree_v2(destination));
    }
    /* cuMemGetAddressRange: "the base address ... and size ... of the allocation that
       contains the input pointer"; either output may be NULL; CUDA_ERROR_NOT_FOUND (500) for
       an address in no allocation (cuda.h). The developer blog's printf-alternative asks it. */
    {
        CUdeviceptr block = 0, base = 0;
        size_t size = 0;
        OK(cuMemAlloc_v2(&block, 1000));
        OK(cuMemGetAddressRange_v2(&base, &size, block + 100));
        CHECK(base == block && size == 1000, "cuMemGetAddressRange: %#llx + %zu for %#llx + 1000",
              (unsigned long long)base, size, (unsigned long long)block);
        size = 0;
        OK(cuMemGetAddressRange_v2(NULL, &size, block + 999));
        CHECK(size == 1000, "cuMemGetAddressRange without a base: %zu", size);
        OK(cuMemFree_v2(block));
        CHECK(cuMemGetAddressRange_v2(&base, &size, block) == 500,
              "cuMemGetAddressRange of a freed allocation");
    }
    /* cuMemHostGetFlags gives "the flags that were specified when allocating" (cuda.h):
       CU_MEMHOSTALLOC_PORTABLE (1) | CU_MEMHOSTALLOC_WRITECOMBINED (4). */
    {
        void *pinned = NULL;
        unsigned int flags = 0;
        OK(cuMemHostAlloc(&pinned, 4096, 0x01 | 0x04));
        OK(cuMemHostGetFlags(&flags, (char *)pinned + 100));
        CHECK(flags == 0x05, "pinned memory flags %#x", flags);
        OK(cuMemFreeHost(pinned));
        /* nothing in flight to flush; target CURRENT_CTX (0), scope TO_OWNER (100) */
        OK(cuFlushGPUDirectRDMAWrites(0, 100));
        CHECK(cuFlushGPUDirectRDMAWrites(0, 5) == CUDA_ERROR_INVALID_VALUE, "an unknown scope");
    }
#if defined(__x86_64__)
    /* A caller whose SSE control register flushes subnormals (FTZ and DAZ: what -ffast-math's
       crtfastmath.o sets at start-up) still gets the IEEE product a GPU's mul.rn.f32 (no .ftz)
       gives, here a subnormal, and gets its own setting back after the call. */
    {
        static const char *fmul_ptx =
            ".version 8.0\n.target sm_90\n.address_size 64\n"
            ".visible .entry fmul(.param .u64 out, .param .f32 a, .param .f32 b)\n"
            "{\n    .reg .f32 %f<4>;\n    .reg .b64 %rd1;\n"
            "    ld.param.u64 %rd1, [out];\n    ld.param.f32 %f1, [a];\n"
            "    ld.param.f32 %f2, [b];\n    mul.rn.f32 %f3, %f1, %f2;\n"
            "    st.global.f32 [%rd1], %f3;\n    ret;\n}\n";
        volatile float a = 1e-30f, b = 1e-10f;
        float expected = a * b; /* the host's IEEE product, in the default environment */
        uint32_t expected_bits;
        memcpy(&expected_bits, &expected, 4);
        CUmodule fmul_module = NULL;
        CUfunction fmul = NULL;
        CUdeviceptr out = 0;
        OK(cuModuleLoadData(&fmul_module, fmul_ptx));
        OK(cuModuleGetFunction(&fmul, fmul_module, "fmul"));
        OK(cuMemAlloc_v2(&out, 4));
        float fa = a, fb = b;
        void *args[] = {&out, &fa, &fb};
        unsigned int caller = __builtin_ia32_stmxcsr();
        __builtin_ia32_ldmxcsr(caller | 0x8040);
        OK(cuLaunchKernel(fmul, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
        uint32_t got_bits = 0;
        OK(cuMemcpyDtoH_v2(&got_bits, out, 4));
        unsigned int after = __builtin_ia32_stmxcsr();
        __builtin_ia32_ldmxcsr(caller);
        CHECK(expected_bits != 0 && got_bits == expected_bits,
              "mul.rn.f32 under the caller's FTZ/DAZ: %#x, expected the subnormal %#x", got_bits,
              expected_bits);
        CHECK((after & ~0x3fu) == ((caller | 0x8040) & ~0x3fu),
              "the caller's MXCSR after the call: %#x", after);
        OK(cuMemFree_v2(out));
        OK(cuModuleUnload(fmul_module));
    }
#endif
    OK(cuCtxDestroy_v2(fresh));

    free(sample);
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
