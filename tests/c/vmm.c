/* Virtual memory management through ptxsim's libcuda.so.1 (cuMemAddressReserve, cuMemCreate,
 * cuMemMap, cuMemSetAccess, ...), as vectorAddMMAP uses it: two physical allocations mapped
 * side by side, a kernel and copies across the seam, a second mapping of one allocation (by
 * its retained handle, and by an exported and imported file descriptor), and the errors CUDA
 * documents. Linked with -lcuda; the prototypes and structures are written here from cuda.h's
 * declarations. Built and run by crates/cuda/tests/c_abi.rs; prints "ok" and exits 0 when every
 * check holds. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef unsigned long long CUmemGenericAllocationHandle;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;

/* CUmemLocation, CUmemAllocationProp, CUmemAccessDesc: cuda.h's fields in its order. */
typedef struct {
    int type;
    int id;
} MemLocation;

typedef struct {
    int type;
    int requestedHandleTypes;
    MemLocation location;
    void *win32HandleMetaData;
    struct {
        unsigned char compressionType;
        unsigned char gpuDirectRDMACapable;
        unsigned short usage;
        unsigned char reserved[4];
    } allocFlags;
} MemAllocationProp;

typedef struct {
    MemLocation location;
    int flags;
} MemAccessDesc;

/* The values of cuda.h's enums that this program uses. */
enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_NOT_SUPPORTED = 801,
    CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 102,
    CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED = 103,
    CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED = 107,
    CU_MEM_ALLOCATION_TYPE_PINNED = 1,
    CU_MEM_LOCATION_TYPE_DEVICE = 1,
    CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1,
    CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0,
    CU_MEM_ACCESS_FLAGS_PROT_NONE = 0,
    CU_MEM_ACCESS_FLAGS_PROT_READ = 1,
    CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3,
    CU_MEM_ALLOCATION_COMP_GENERIC = 1,
};

CUresult cuInit(unsigned int flags);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice device);
CUresult cuCtxCreate_v2(CUcontext *context, unsigned int flags, CUdevice device);
CUresult cuCtxDestroy_v2(CUcontext context);
CUresult cuCtxSynchronize(void);
CUresult cuModuleLoadData(CUmodule *module, const void *image);
CUresult cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name);
CUresult cuMemcpyHtoD_v2(CUdeviceptr destination, const void *source, size_t bytes);
CUresult cuMemcpyDtoH_v2(void *destination, CUdeviceptr source, size_t bytes);
CUresult cuMemcpyDtoD_v2(CUdeviceptr destination, CUdeviceptr source, size_t bytes);
CUresult cuMemFree_v2(CUdeviceptr address);
CUresult cuLaunchKernel(CUfunction function, unsigned int grid_x, unsigned int grid_y,
                        unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                        unsigned int block_z, unsigned int shared_bytes, CUstream stream,
                        void **kernel_params, void **extra);
CUresult cuMemGetAllocationGranularity(size_t *granularity, const MemAllocationProp *prop,
                                       int option);
CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
                             unsigned long long flags);
CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size);
CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                     const MemAllocationProp *prop, unsigned long long flags);
CUresult cuMemRelease(CUmemGenericAllocationHandle handle);
CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                  unsigned long long flags);
CUresult cuMemUnmap(CUdeviceptr ptr, size_t size);
CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const MemAccessDesc *desc, size_t count);
CUresult cuMemGetAccess(unsigned long long *flags, const MemLocation *location, CUdeviceptr ptr);
CUresult cuMemGetAllocationPropertiesFromHandle(MemAllocationProp *prop,
                                                CUmemGenericAllocationHandle handle);
CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr);
CUresult cuMemExportToShareableHandle(void *shareableHandle, CUmemGenericAllocationHandle handle,
                                      int handleType, unsigned long long flags);
CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *osHandle,
                                        int shHandleType);

/* out[i] = 3 * i + 1 for every i < n (one thread per element). */
static const char *const ptx =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .entry fill(.param .u64 out, .param .u32 n)\n"
    "{\n"
    "    .reg .pred %p;\n"
    "    .reg .b32 %r<7>;\n"
    "    .reg .b64 %rd<4>;\n"
    "    ld.param.u64 %rd1, [out];\n"
    "    ld.param.u32 %r1, [n];\n"
    "    mov.u32 %r2, %ctaid.x;\n"
    "    mov.u32 %r3, %ntid.x;\n"
    "    mov.u32 %r4, %tid.x;\n"
    "    mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "    setp.ge.u32 %p, %r5, %r1;\n"
    "    @%p bra done;\n"
    "    mad.lo.s32 %r6, %r5, 3, 1;\n"
    "    mul.wide.u32 %rd2, %r5, 4;\n"
    "    add.s64 %rd3, %rd1, %rd2;\n"
    "    st.global.u32 [%rd3], %r6;\n"
    "done:\n"
    "    ret;\n"
    "}\n";

/* Elements written on each side of the seam between the two chunks. */
#define SIDE 256u

static CUfunction load_fill(void) {
    CUmodule module;
    CUfunction fill = NULL;
    OK(cuModuleLoadData(&module, ptx));
    OK(cuModuleGetFunction(&fill, module, "fill"));
    return fill;
}

/* Launches fill on n elements from out (blocks of SIDE threads). */
static CUresult launch_fill(CUfunction fill, CUdeviceptr out, unsigned int n) {
    void *params[] = {&out, &n};
    return cuLaunchKernel(fill, (n + SIDE - 1) / SIDE, 1, 1, SIDE, 1, 1, 0, NULL, params, NULL);
}

int main(void) {
    CUdevice device;
    OK(cuInit(0));
    OK(cuDeviceGet(&device, 0));
    int vmm = 0, posix_fd = 0, compression = 0;
    OK(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, device));
    OK(cuDeviceGetAttribute(&posix_fd, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
                            device));
    OK(cuDeviceGetAttribute(&compression, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, device));
    CHECK(vmm == 1 && posix_fd == 1 && compression == 1, "attributes %d %d %d", vmm, posix_fd,
          compression);

    MemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    prop.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC;
    size_t granularity = 0;
    OK(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    /* An H100's granularity, 2 MiB (what NVIDIA's driver reports for it). */
    CHECK(granularity == 2u << 20, "granularity %zu", granularity);

    /* Reserve four chunks of addresses; two physical chunks mapped side by side in the first
     * two, the last two for second mappings of the first chunk. */
    CUdeviceptr base = 0;
    OK(cuMemAddressReserve(&base, 4 * granularity, 0, 0, 0));
    CHECK(base != 0 && base % granularity == 0, "base %#llx", base);
    CUmemGenericAllocationHandle chunks[2];
    for (int i = 0; i < 2; i++) {
        OK(cuMemCreate(&chunks[i], granularity, &prop, 0));
        OK(cuMemMap(base + i * granularity, granularity, 0, chunks[i], 0));
    }
    MemAllocationProp got;
    memset(&got, 0xff, sizeof got);
    OK(cuMemGetAllocationPropertiesFromHandle(&got, chunks[0]));
    CHECK(got.type == CU_MEM_ALLOCATION_TYPE_PINNED && got.location.id == device &&
              got.allocFlags.compressionType == CU_MEM_ALLOCATION_COMP_GENERIC &&
              got.requestedHandleTypes == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
          "properties %d %d %d %d", got.type, got.location.id, got.allocFlags.compressionType,
          got.requestedHandleTypes);

    /* Granularity and alignment rules: CUDA_ERROR_INVALID_VALUE. */
    CUmemGenericAllocationHandle bad;
    CUdeviceptr other = 0;
    CHECK(cuMemCreate(&bad, granularity + 4096, &prop, 0) == CUDA_ERROR_INVALID_VALUE,
          "cuMemCreate of a size that is not a multiple of the granularity");
    CHECK(cuMemMap(base + 2 * granularity + 4096, granularity, 0, chunks[0], 0) ==
              CUDA_ERROR_INVALID_VALUE,
          "cuMemMap at an address that is not a multiple of the granularity");
    CHECK(cuMemMap(base + granularity, granularity, 0, chunks[0], 0) == CUDA_ERROR_INVALID_VALUE,
          "cuMemMap over a mapping");
    CHECK(cuMemMap(base + 2 * granularity, granularity, granularity, chunks[0], 0) ==
              CUDA_ERROR_INVALID_VALUE,
          "cuMemMap with an offset");
    CHECK(cuMemAddressReserve(&other, granularity, 3 * 4096, 0, 0) == CUDA_ERROR_INVALID_VALUE,
          "cuMemAddressReserve with an alignment that is not a power of two");
    CHECK(cuMemAddressFree(base, 4 * granularity) == CUDA_ERROR_INVALID_VALUE,
          "cuMemAddressFree of mapped addresses");
    /* Sizes and alignments at the ends of the address space are refused, not wrapped. */
    size_t huge = ~(size_t)0 - (granularity - 1);
    CHECK(cuMemAddressReserve(&other, granularity, (size_t)1 << 63, 0, 0) ==
              CUDA_ERROR_OUT_OF_MEMORY,
          "cuMemAddressReserve aligned to 2^63");
    CHECK(cuMemAddressReserve(&other, huge, 0, 0, 0) == CUDA_ERROR_OUT_OF_MEMORY,
          "cuMemAddressReserve of all addresses");
    CHECK(cuMemMap(base + 2 * granularity, huge, 0, chunks[0], 0) == CUDA_ERROR_INVALID_VALUE,
          "cuMemMap of more than the allocation");
    CHECK(cuMemUnmap(base, huge) == CUDA_ERROR_INVALID_VALUE, "cuMemUnmap of all addresses");
    CHECK(cuMemCreate(&bad, huge, &prop, 0) == CUDA_ERROR_OUT_OF_MEMORY,
          "cuMemCreate of more than the device has");

    /* Mapped, not yet accessible: copies fail, a kernel faults (in a context of its own: the
     * fault is sticky). */
    MemLocation here = {CU_MEM_LOCATION_TYPE_DEVICE, device};
    unsigned long long flags = 99;
    OK(cuMemGetAccess(&flags, &here, base + 100));
    CHECK(flags == CU_MEM_ACCESS_FLAGS_PROT_NONE, "access before cuMemSetAccess: %llu", flags);
    CUcontext faulting;
    OK(cuCtxCreate_v2(&faulting, 0, device));
    unsigned int word = 7;
    CHECK(cuMemcpyHtoD_v2(base, &word, 4) == CUDA_ERROR_INVALID_VALUE,
          "a copy before cuMemSetAccess");
    OK(launch_fill(load_fill(), base, 1));
    CHECK(cuCtxSynchronize() == CUDA_ERROR_ILLEGAL_ADDRESS, "a kernel before cuMemSetAccess");
    OK(cuCtxDestroy_v2(faulting));

    CUcontext context;
    OK(cuCtxCreate_v2(&context, 0, device));
    CUfunction fill = load_fill();
    MemAccessDesc access = {{CU_MEM_LOCATION_TYPE_DEVICE, device}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    CHECK(cuMemSetAccess(base, 3 * granularity, &access, 1) == CUDA_ERROR_INVALID_VALUE,
          "cuMemSetAccess on a range that is not fully mapped");
    OK(cuMemSetAccess(base, 2 * granularity, &access, 1));
    OK(cuMemGetAccess(&flags, &here, base + granularity + 8));
    CHECK(flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE, "access after cuMemSetAccess: %llu", flags);
    /* The chunks were released only after mapping (as vectorAddMMAP does): the mappings keep
     * them alive. */
    OK(cuMemRelease(chunks[1]));

    /* The kernel writes SIDE elements on each side of the seam; the copy back crosses it. */
    CUdeviceptr seam = base + granularity;
    CUdeviceptr out = seam - SIDE * 4;
    OK(launch_fill(fill, out, 2 * SIDE));
    OK(cuCtxSynchronize());
    unsigned int values[2 * SIDE];
    memset(values, 0, sizeof values);
    OK(cuMemcpyDtoH_v2(values, out, sizeof values));
    int wrong = 0;
    for (unsigned int i = 0; i < 2 * SIDE; i++) {
        wrong += values[i] != 3 * i + 1;
    }
    CHECK(wrong == 0, "%d of %u values differ from 3i+1 (values[%u] = %u)", wrong, 2 * SIDE, SIDE,
          values[SIDE]);

    /* Copies from the host and on the device across the seam. */
    unsigned int pattern[8] = {10, 11, 12, 13, 14, 15, 16, 17};
    OK(cuMemcpyHtoD_v2(seam - 16, pattern, sizeof pattern));
    OK(cuMemcpyDtoD_v2(base + 64, seam - 16, sizeof pattern));
    unsigned int back[8] = {0};
    OK(cuMemcpyDtoH_v2(back, base + 64, sizeof back));
    CHECK(memcmp(back, pattern, sizeof back) == 0, "the copy across the seam: %u ... %u", back[0],
          back[7]);
    CHECK(cuMemFree_v2(base) == CUDA_ERROR_INVALID_VALUE, "cuMemFree of mapped memory");

    /* A second mapping of chunk 0, by its retained handle: the same bytes. */
    CUmemGenericAllocationHandle retained = 0;
    OK(cuMemRetainAllocationHandle(&retained, (void *)(uintptr_t)(base + 4096)));
    CHECK(retained == chunks[0], "retained handle %llu, mapped %llu", retained, chunks[0]);
    CUdeviceptr alias = base + 2 * granularity;
    OK(cuMemMap(alias, granularity, 0, retained, 0));
    OK(cuMemSetAccess(alias, granularity, &access, 1));
    OK(cuMemcpyDtoH_v2(back, alias + 64, sizeof back));
    CHECK(memcmp(back, pattern, sizeof back) == 0, "the second mapping: %u ... %u", back[0], back[7]);
    OK(launch_fill(fill, alias, 4));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH_v2(back, base, 4 * sizeof(unsigned int)));
    CHECK(back[0] == 1 && back[1] == 4 && back[2] == 7 && back[3] == 10,
          "the first mapping after a kernel wrote the second: %u %u %u %u", back[0], back[1],
          back[2], back[3]);
    OK(cuMemRelease(retained));

    /* A third, through a POSIX file descriptor exported and imported in this process. */
    int fd = -1;
    OK(cuMemExportToShareableHandle(&fd, chunks[0], CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    CHECK(fd >= 0, "descriptor %d", fd);
    CUmemGenericAllocationHandle imported = 0;
    OK(cuMemImportFromShareableHandle(&imported, (void *)(uintptr_t)fd,
                                      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    CUdeviceptr third = base + 3 * granularity;
    OK(cuMemMap(third, granularity, 0, imported, 0));
    OK(cuMemSetAccess(third, granularity, &access, 1));
    OK(cuMemcpyDtoH_v2(back, third, 4 * sizeof(unsigned int)));
    CHECK(back[2] == 7, "the imported mapping: %u", back[2]);
    OK(cuMemRelease(imported));
    close(fd);
    CHECK(cuMemImportFromShareableHandle(&imported, (void *)(uintptr_t)fd,
                                         CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ==
              CUDA_ERROR_INVALID_VALUE,
          "importing a closed descriptor");
    MemAccessDesc read_only = access;
    read_only.flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
    CHECK(cuMemSetAccess(third, granularity, &read_only, 1) == CUDA_ERROR_NOT_SUPPORTED,
          "read-only access");

    /* Unmapping the second mapping leaves the first; cuMemUnmap takes whole mappings. */
    OK(cuMemUnmap(alias, 2 * granularity));
    OK(cuMemcpyDtoH_v2(back, base + 64, sizeof back));
    CHECK(memcmp(back, pattern, sizeof back) == 0, "the first mapping after unmapping the others");
    CHECK(cuMemUnmap(base, granularity + 4096) == CUDA_ERROR_INVALID_VALUE,
          "cuMemUnmap of part of a mapping");
    OK(cuMemRelease(chunks[0]));
    CHECK(cuMemRelease(chunks[0]) == CUDA_ERROR_INVALID_VALUE, "a second release");
    OK(cuMemUnmap(base, 2 * granularity));

    /* After cuMemUnmap, copies fail and a kernel faults. */
    CHECK(cuMemcpyDtoH_v2(back, base, 4) == CUDA_ERROR_INVALID_VALUE, "a copy after cuMemUnmap");
    OK(launch_fill(fill, out, 2 * SIDE));
    CHECK(cuCtxSynchronize() == CUDA_ERROR_ILLEGAL_ADDRESS, "a kernel after cuMemUnmap");
    OK(cuMemAddressFree(base, 4 * granularity));
    CHECK(cuMemAddressFree(base, 4 * granularity) == CUDA_ERROR_INVALID_VALUE,
          "a second cuMemAddressFree");
    OK(cuCtxDestroy_v2(context));

    if (failures == 0) {
        printf("ok\n");
        return 0;
    }
    return 1;
}
