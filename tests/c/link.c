/* The JIT linker of the driver API (cuLinkCreate, cuLinkAddData, cuLinkAddFile,
 * cuLinkComplete, cuLinkDestroy) through ptxsim's libcuda.so.1, as cuda-samples' ptxjit uses
 * it, with the prototypes and values of cuda.h written here. argv[1] is tests/fatbin/
 * add.none.fatbin, argv[2] tests/fatbin/add.sass.fatbin (nvcc's fatbins of tests/fatbin/add.cu
 * with compute_90 PTX, and with sm_90 SASS only); further arguments are host objects (.o) or
 * archives (.a) of add.cu built by nvcc. Built and run by crates/cuda/tests/c_abi.rs (and, with
 * objects, by crates/cuda/tests/cuda_runtime.rs);
 * prints "ok" and exits 0 when every check holds. Expected values are computed here on the
 * host. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUlinkState_st *CUlinkState;

/* The values of cuda.h's enums that this program uses. */
enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_INVALID_PTX = 218,
    CUDA_ERROR_FILE_NOT_FOUND = 301,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
};
enum { /* CUjit_option */
    CU_JIT_WALL_TIME = 2,
    CU_JIT_INFO_LOG_BUFFER = 3,
    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
    CU_JIT_OPTIMIZATION_LEVEL = 7,
    CU_JIT_LOG_VERBOSE = 12,
};
enum { /* CUjitInputType */
    CU_JIT_INPUT_CUBIN = 0,
    CU_JIT_INPUT_PTX = 1,
    CU_JIT_INPUT_FATBINARY = 2,
    CU_JIT_INPUT_OBJECT = 3,
    CU_JIT_INPUT_LIBRARY = 4,
};

CUresult cuInit(unsigned int flags);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device);
CUresult cuCtxSetCurrent(CUcontext context);
CUresult cuModuleLoadData(CUmodule *module, const void *image);
CUresult cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name);
CUresult cuModuleUnload(CUmodule module);
CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes);
CUresult cuMemFree_v2(CUdeviceptr pointer);
CUresult cuMemcpyHtoD_v2(CUdeviceptr destination, const void *source, size_t bytes);
CUresult cuMemcpyDtoH_v2(void *destination, CUdeviceptr source, size_t bytes);
CUresult cuLaunchKernel(CUfunction function, unsigned int gx, unsigned int gy, unsigned int gz,
                        unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared,
                        CUstream stream, void **params, void **extra);
CUresult cuLinkCreate_v2(unsigned int count, int *options, void **values, CUlinkState *state);
CUresult cuLinkAddData_v2(CUlinkState state, int type, void *data, size_t size, const char *name,
                          unsigned int count, int *options, void **values);
CUresult cuLinkAddFile_v2(CUlinkState state, int type, const char *path, unsigned int count,
                          int *options, void **values);
CUresult cuLinkComplete(CUlinkState state, void **image, size_t *size);
CUresult cuLinkDestroy(CUlinkState state);
/* The plain names, which cuda.h maps to the _v2 ones; programs that bind by name use them. */
CUresult cuLinkCreate(unsigned int count, int *options, void **values, CUlinkState *state);
CUresult cuLinkAddData(CUlinkState state, int type, void *data, size_t size, const char *name,
                       unsigned int count, int *options, void **values);

#include "check.h"

/* Two translation units of relocatable device code: the kernel calls a function and reads a
 * variable that the other unit defines. */
static const char *caller_ptx =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".extern .func (.param .b32 result) scale(.param .b32 x);\n"
    ".extern .global .align 4 .u32 offset;\n"
    ".visible .entry run(.param .u64 out, .param .u32 n)\n"
    "{\n"
    "    .reg .pred %p;\n"
    "    .reg .b32 %r<6>;\n"
    "    .reg .b64 %rd<4>;\n"
    "    ld.param.u64 %rd1, [out];\n"
    "    ld.param.u32 %r1, [n];\n"
    "    mov.u32 %r2, %tid.x;\n"
    "    setp.ge.u32 %p, %r2, %r1;\n"
    "    @%p bra done;\n"
    "    {\n"
    "    .param .b32 x;\n"
    "    .param .b32 r;\n"
    "    st.param.b32 [x], %r2;\n"
    "    call.uni (r), scale, (x);\n"
    "    ld.param.b32 %r3, [r];\n"
    "    }\n"
    "    ld.global.u32 %r4, [offset];\n"
    "    add.u32 %r5, %r3, %r4;\n"
    "    mul.wide.u32 %rd2, %r2, 4;\n"
    "    add.u64 %rd3, %rd1, %rd2;\n"
    "    st.global.u32 [%rd3], %r5;\n"
    "done:\n"
    "    ret;\n"
    "}\n";

static const char *callee_ptx =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .global .align 4 .u32 offset = 1000;\n"
    ".visible .func (.param .b32 result) scale(.param .b32 x)\n"
    "{\n"
    "    .reg .b32 %r<3>;\n"
    "    ld.param.b32 %r1, [x];\n"
    "    mul.lo.u32 %r2, %r1, 3;\n"
    "    st.param.b32 [result], %r2;\n"
    "    ret;\n"
    "}\n";

static const char *broken_ptx =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .entry broken()\n"
    "{\n"
    "    frobnicate;\n"
    "    ret;\n"
    "}\n";

#define N 100

/* Runs `run` of the linked image and checks out[i] = 3 i + 1000. */
static void run_linked(const void *image) {
    CUmodule module;
    CUfunction function;
    CHECK(cuModuleLoadData(&module, image) == CUDA_SUCCESS, "the linked image loads");
    CHECK(cuModuleGetFunction(&function, module, "run") == CUDA_SUCCESS, "run is in it");
    CUdeviceptr out;
    OK(cuMemAlloc_v2(&out, N * sizeof(uint32_t)));
    unsigned n = N;
    void *params[] = {&out, &n};
    OK(cuLaunchKernel(function, 1, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
    uint32_t host[N];
    OK(cuMemcpyDtoH_v2(host, out, sizeof host));
    for (unsigned i = 0; i < N; i++) {
        CHECK(host[i] == 3 * i + 1000, "out[%u] = %u, expected %u", i, host[i], 3 * i + 1000);
    }
    OK(cuMemFree_v2(out));
    OK(cuModuleUnload(module));
}

/* Links the file `path` (an input of `kind` holding tests/fatbin/add.cu's PTX) alone, and runs
 * its kernel `add` (a[i] += b[i]) on values whose sums are exact. */
static void link_and_add(int kind, const char *path) {
    CUlinkState link;
    OK(cuLinkCreate(0, NULL, NULL, &link));
    CHECK(cuLinkAddFile_v2(link, kind, path, 0, NULL, NULL) == CUDA_SUCCESS, "%s links", path);
    void *image = NULL;
    OK(cuLinkComplete(link, &image, NULL));
    CUmodule module;
    CUfunction function;
    OK(cuModuleLoadData(&module, image));
    OK(cuModuleGetFunction(&function, module, "add"));
    float a[N], b[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = 0.5f * (float)i;
    }
    CUdeviceptr da, db;
    OK(cuMemAlloc_v2(&da, sizeof a));
    OK(cuMemAlloc_v2(&db, sizeof b));
    OK(cuMemcpyHtoD_v2(da, a, sizeof a));
    OK(cuMemcpyHtoD_v2(db, b, sizeof b));
    int n = N;
    void *params[] = {&da, &db, &n};
    OK(cuLaunchKernel(function, 1, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
    OK(cuMemcpyDtoH_v2(a, da, sizeof a));
    for (int i = 0; i < N; i++) {
        CHECK(a[i] == 1.5f * (float)i, "%s: a[%d] = %f", path, i, (double)a[i]);
    }
    OK(cuMemFree_v2(da));
    OK(cuMemFree_v2(db));
    OK(cuModuleUnload(module));
    OK(cuLinkDestroy(link));
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s add.none.fatbin add.sass.fatbin [OBJECT.o|LIBRARY.a]...\n",
                argv[0]);
        return 2;
    }
    CUdevice device;
    CUcontext context;
    CUlinkState link;
    OK(cuInit(0));
    OK(cuDeviceGet(&device, 0));
    OK(cuDevicePrimaryCtxRetain(&context, device));
    OK(cuCtxSetCurrent(context));

    /* 1. Two PTX inputs, linked by name; the options of ptxjit. */
    {
        char info[256], error[256];
        float wall_time_unused = -1.0f;
        int options[] = {CU_JIT_WALL_TIME,       CU_JIT_INFO_LOG_BUFFER,
                         CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                         CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE,
                         CU_JIT_OPTIMIZATION_LEVEL};
        void *values[] = {&wall_time_unused, info, (void *)(uintptr_t)sizeof info, error,
                          (void *)(uintptr_t)sizeof error, (void *)1, (void *)4};
        memset(info, 'x', sizeof info);
        memset(error, 'x', sizeof error);
        OK(cuLinkCreate_v2(7, options, values, &link));
        OK(cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, (void *)caller_ptx, strlen(caller_ptx) + 1,
                            "caller.ptx", 0, NULL, NULL));
        /* The plain name, without the NUL in the size and without a name. */
        OK(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)callee_ptx, strlen(callee_ptx), NULL, 0,
                         NULL, NULL));
        void *image = NULL;
        size_t size = 0;
        OK(cuLinkComplete(link, &image, &size));
        CHECK(image != NULL && size > 0 && ((const char *)image)[size - 1] == 0,
              "the image is NUL-terminated text of its size");
        /* cuda.h: the size options are "OUT: Amount of log buffer filled with messages", the
         * wall time "Overwrites the option value"; the logs are NUL-terminated. */
        CHECK(memchr(info, 0, sizeof info) != NULL, "the info log is NUL-terminated");
        CHECK(error[0] == 0, "the error log is empty: %.40s", error);
        CHECK((uintptr_t)values[2] == strlen(info) + 1, "the info size slot says %zu, not %zu",
              (size_t)(uintptr_t)values[2], strlen(info) + 1);
        CHECK(values[0] != (void *)&wall_time_unused, "the wall time slot is overwritten");
        CHECK(wall_time_unused == -1.0f, "the variable itself is not written");
        float wall_time;
        memcpy(&wall_time, &values[0], sizeof wall_time);
        CHECK(wall_time >= 0.0f, "the wall time is %f ms", (double)wall_time);
        run_linked(image);
        OK(cuLinkDestroy(link));
        CHECK(cuLinkDestroy(link) == CUDA_ERROR_INVALID_HANDLE, "a destroyed state");
        CHECK(cuLinkComplete(link, &image, &size) == CUDA_ERROR_INVALID_HANDLE,
              "a destroyed state");
    }

    /* 2. A fatbin holding compute_90 PTX (a file), the plain cuLinkCreate; no options. */
    link_and_add(CU_JIT_INPUT_FATBINARY, argv[1]);
    /* Host objects and archives of them (made by nvcc and ar in crates/cuda/tests/
     * cuda_runtime.rs), if given. */
    for (int i = 3; i < argc; i++) {
        size_t length = strlen(argv[i]);
        int library = length > 2 && strcmp(argv[i] + length - 2, ".a") == 0;
        link_and_add(library ? CU_JIT_INPUT_LIBRARY : CU_JIT_INPUT_OBJECT, argv[i]);
    }

    /* 3. Errors: machine code, a file that is not there, PTX that does not check, no input;
     * each message goes to the error log. */
    {
        char error[512];
        int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
        void *values[] = {error, (void *)(uintptr_t)sizeof error};
        OK(cuLinkCreate_v2(2, options, values, &link));
        CHECK(cuLinkAddFile_v2(link, CU_JIT_INPUT_FATBINARY, argv[2], 0, NULL, NULL) ==
                  CUDA_ERROR_NO_BINARY_FOR_GPU,
              "a fatbin of SASS only");
        CHECK(strstr(error, "add.sass.fatbin") != NULL, "the error log: %s", error);
        static const char elf[] = "\x7f" "ELF";
        CHECK(cuLinkAddData_v2(link, CU_JIT_INPUT_CUBIN, (void *)elf, sizeof elf, "k.cubin", 0,
                               NULL, NULL) == CUDA_ERROR_NO_BINARY_FOR_GPU,
              "a cubin");
        CHECK(strstr(error, "k.cubin: a cubin") != NULL, "the error log: %s", error);
        CHECK(cuLinkAddFile_v2(link, CU_JIT_INPUT_PTX, "/nonexistent/x.ptx", 0, NULL, NULL) ==
                  CUDA_ERROR_FILE_NOT_FOUND,
              "a missing file");
        CHECK(cuLinkAddData_v2(link, 99, (void *)caller_ptx, 10, NULL, 0, NULL, NULL) ==
                  CUDA_ERROR_INVALID_VALUE,
              "an unknown input type");
        void *image = NULL;
        CHECK(cuLinkComplete(link, &image, NULL) == CUDA_ERROR_INVALID_VALUE, "no input");
        OK(cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, (void *)broken_ptx, strlen(broken_ptx) + 1,
                            "broken.ptx", 0, NULL, NULL));
        CHECK(cuLinkComplete(link, &image, NULL) == CUDA_ERROR_INVALID_PTX, "broken PTX");
        CHECK(strstr(error, "frobnicate") != NULL, "the error log: %s", error);
        CHECK((uintptr_t)values[1] == strlen(error) + 1, "the error size slot");
        OK(cuLinkDestroy(link));
        CHECK(cuLinkDestroy(NULL) == CUDA_ERROR_INVALID_HANDLE, "NULL");
    }

    if (failures == 0) {
        printf("ok\n");
    }
    return failures != 0;
}
