/* An NVRTC program as cuda-samples' Common/nvrtc_helper.h writes them: it compiles a kernel
 * with NVIDIA's NVRTC for a real architecture (--gpu-architecture=sm_90), asks for the cubin
 * (nvrtcGetCUBINSize, nvrtcGetCUBIN), loads it with cuModuleLoadData and runs the kernel.
 * Compiled with NVIDIA's nvrtc.h and cuda.h, linked with libnvrtc.so.13 and -lcuda; run by
 * crates/nvrtc/tests/nvrtc_program.rs with libptxsim_nvrtc.so preloaded (the "cubin" is then
 * NVRTC's PTX) and ptxsim's libcuda.so.1.
 *
 * The kernel's results are checked against the same arithmetic done here on the host, in
 * integers (exact on both sides). Prints "ok" and exits 0 when every check holds; without the
 * preload, cuModuleLoadData fails on the ELF cubin and the program prints the error code and
 * exits 3 (the test checks that too). */
#include <cuda.h>
#include <nvrtc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define N 1000

static const char *source =
    "extern \"C\" __global__ void mix(const unsigned *x, unsigned *out, unsigned a, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) {\n"
    "        unsigned v = x[i];\n"
    "        out[i] = a * v + (v >> 3) + (unsigned)i * 7u;\n"
    "    }\n"
    "}\n";

#define NVRTC_OK(call)                                                                       \
    do {                                                                                     \
        nvrtcResult result_ = (call);                                                        \
        if (result_ != NVRTC_SUCCESS) {                                                      \
            fprintf(stderr, "%s returned %s\n", #call, nvrtcGetErrorString(result_));        \
            return 2;                                                                        \
        }                                                                                    \
    } while (0)

int main(void) {
    nvrtcProgram program;
    NVRTC_OK(nvrtcCreateProgram(&program, source, "mix.cu", 0, NULL, NULL));
    const char *options[] = {"--gpu-architecture=sm_90"};
    nvrtcResult compiled = nvrtcCompileProgram(program, 1, options);
    if (compiled != NVRTC_SUCCESS) {
        size_t log_size = 0;
        nvrtcGetProgramLogSize(program, &log_size);
        char *log = malloc(log_size + 1);
        nvrtcGetProgramLog(program, log);
        log[log_size] = 0;
        fprintf(stderr, "nvrtcCompileProgram: %s\n%s\n", nvrtcGetErrorString(compiled), log);
        return 2;
    }
    size_t size = 0;
    NVRTC_OK(nvrtcGetCUBINSize(program, &size));
    char *code = malloc(size);
    NVRTC_OK(nvrtcGetCUBIN(program, code));
    NVRTC_OK(nvrtcDestroyProgram(&program));
    /* What the program got, for the test to tell PTX from an ELF cubin. */
    printf("code: %zu bytes, starts with %s\n", size,
           size >= 4 && memcmp(code, "\x7f" "ELF", 4) == 0 ? "ELF" : "text");

    CUdevice device;
    CUcontext context;
    CUmodule module;
    CUfunction function;
    OK(cuInit(0));
    OK(cuDeviceGet(&device, 0));
    OK(cuDevicePrimaryCtxRetain(&context, device));
    OK(cuCtxSetCurrent(context));
    CUresult loaded = cuModuleLoadData(&module, code);
    if (loaded != CUDA_SUCCESS) {
        printf("cuModuleLoadData returned %d\n", (int)loaded);
        return 3;
    }
    OK(cuModuleGetFunction(&function, module, "mix"));

    static unsigned x[N], out[N];
    for (unsigned i = 0; i < N; i++) {
        x[i] = i * 2654435761u;
    }
    CUdeviceptr dx, dout;
    OK(cuMemAlloc(&dx, sizeof x));
    OK(cuMemAlloc(&dout, sizeof out));
    OK(cuMemcpyHtoD(dx, x, sizeof x));
    unsigned a = 40503u;
    int n = N;
    void *params[] = {&dx, &dout, &a, &n};
    OK(cuLaunchKernel(function, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
    OK(cuMemcpyDtoH(out, dout, sizeof out));
    for (unsigned i = 0; i < N; i++) {
        unsigned expected = a * x[i] + (x[i] >> 3) + i * 7u;
        CHECK(out[i] == expected, "out[%u] = %u, expected %u", i, out[i], expected);
    }
    OK(cuMemFree(dx));
    OK(cuMemFree(dout));
    OK(cuModuleUnload(module));
    free(code);
    if (failures == 0) {
        printf("ok\n");
    }
    return failures != 0;
}
