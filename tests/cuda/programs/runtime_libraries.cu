// Kernels that are not in the program's fatbin: PTX text loaded at run time through the CUDA
// runtime's library API (cudaLibraryLoadData, cudaLibraryGetKernel, cudaLibraryGetKernelCount,
// cudaLibraryEnumerateKernels, cudaLibraryGetGlobal, cudaLaunchKernel of a cudaKernel_t,
// cudaKernelSetAttributeForDevice, cudaLibraryUnload), and the same PTX through the driver API
// reached with cudaGetDriverEntryPointByVersion (cuModuleLoadData, cuModuleGetFunction,
// cuLaunchKernel) on memory from cudaMalloc, the way JIT-compiling programs mix the two. A
// launch of 2048 threads through the runtime is cudaErrorInvalidConfiguration either way.
#include <cuda.h>
#include <algorithm>
#include <cstring>
#include <vector>
#include "check.h"

// out[i] = in[i] * scale + offset, with `offset` a .global variable of the module.
static const char *ptx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .global .align 4 .f32 offset = 0f3F000000;
.visible .entry scale_add(.param .u64 out, .param .u64 in, .param .f32 scale, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<6>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    ld.param.f32 %f1, [scale];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.u32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra done;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.f32 %f2, [%rd4];
    ld.global.f32 %f3, [offset];
    fma.rn.f32 %f4, %f2, %f1, %f3;
    add.s64 %rd5, %rd1, %rd3;
    st.global.f32 [%rd5], %f4;
done:
    ret;
}
.visible .entry nothing()
{
    ret;
}
)";

template <typename F>
F entry(const char *name) {
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult found;
  CUDA(cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found));
  CHECK(fn != nullptr && found == cudaDriverEntryPointSuccess, "entry point %s", name);
  return reinterpret_cast<F>(fn);
}

int main() {
  const int n = 1000;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = float(i) * 0.25f - 50.0f;
  float *din, *dout;
  CUDA(cudaMalloc(&din, n * 4));
  CUDA(cudaMalloc(&dout, n * 4));
  CUDA(cudaMemcpy(din, in.data(), n * 4, cudaMemcpyHostToDevice));

  cudaLibrary_t lib;
  CUDA(cudaLibraryLoadData(&lib, ptx, nullptr, nullptr, 0, nullptr, nullptr, 0));
  unsigned count = 0;
  CUDA(cudaLibraryGetKernelCount(&count, lib));
  CHECK(count == 2, "kernel count %u", count);
  std::vector<cudaKernel_t> all(count);
  CUDA(cudaLibraryEnumerateKernels(all.data(), count, lib));
  cudaKernel_t kernel;
  CUDA(cudaLibraryGetKernel(&kernel, lib, "scale_add"));
  CHECK(std::find(all.begin(), all.end(), kernel) != all.end(), "enumerated kernels include scale_add");
  float *offset = nullptr;
  size_t bytes = 0;
  CUDA(cudaLibraryGetGlobal(reinterpret_cast<void **>(&offset), &bytes, lib, "offset"));
  CHECK(offset != nullptr && bytes == 4, "global offset: %zu bytes", bytes);
  float two = 2.0f;
  CUDA(cudaMemcpy(offset, &two, 4, cudaMemcpyHostToDevice));
  CUDA(cudaKernelSetAttributeForDevice(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024, 0));
  float scale = 3.0f;
  unsigned un = n;
  void *args[] = {&dout, &din, &scale, &un};
  CUDA(cudaLaunchKernel(reinterpret_cast<const void *>(kernel), dim3((n + 127) / 128), dim3(128), args, 0, nullptr));
  std::vector<float> out(n);
  CUDA(cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += out[i] != std::fma(in[i], 3.0f, 2.0f);
  CHECK(bad == 0, "library kernel: %d wrong (out[1] %g)", bad, out[1]);
  cudaError_t e = cudaLaunchKernel(reinterpret_cast<const void *>(kernel), dim3(1), dim3(2048), args, 0, nullptr);
  CHECK(e == cudaErrorInvalidConfiguration, "2048 threads: %s", cudaGetErrorName(e));
  cudaGetLastError();
  CUDA(cudaLibraryUnload(lib));

  // the driver API, reached through the runtime
  auto load = entry<CUresult (*)(CUmodule *, const void *)>("cuModuleLoadData");
  auto get_function = entry<CUresult (*)(CUfunction *, CUmodule, const char *)>("cuModuleGetFunction");
  auto launch = entry<CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                                   void **, void **)>("cuLaunchKernel");
  auto get_global = entry<CUresult (*)(CUdeviceptr *, size_t *, CUmodule, const char *)>("cuModuleGetGlobal");
  auto unload = entry<CUresult (*)(CUmodule)>("cuModuleUnload");
  CUmodule module;
  CUfunction function;
  CHECK(load(&module, ptx) == CUDA_SUCCESS, "cuModuleLoadData");
  CHECK(get_function(&function, module, "scale_add") == CUDA_SUCCESS, "cuModuleGetFunction");
  CUdeviceptr global = 0;
  CHECK(get_global(&global, &bytes, module, "offset") == CUDA_SUCCESS && bytes == 4, "cuModuleGetGlobal");
  float initial = 0;
  CUDA(cudaMemcpy(&initial, reinterpret_cast<void *>(global), 4, cudaMemcpyDeviceToHost));
  CHECK(initial == 0.5f, "the module's own initial offset %g", initial);
  scale = -1.0f;
  CHECK(launch(function, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr) == CUDA_SUCCESS, "cuLaunchKernel");
  CUDA(cudaDeviceSynchronize());
  CUDA(cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost));
  bad = 0;
  for (int i = 0; i < n; ++i) bad += out[i] != std::fma(in[i], -1.0f, 0.5f);
  CHECK(bad == 0, "module kernel: %d wrong (out[1] %g)", bad, out[1]);
  CHECK(unload(module) == CUDA_SUCCESS, "cuModuleUnload");
  cudaFree(din);
  cudaFree(dout);
  return report("runtime_libraries");
}
