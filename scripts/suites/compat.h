/* CUDA 13 removed these runtime calls (deprecated since CUDA 4.0); the CUDA Runtime API
   reference of earlier versions names cudaDeviceSynchronize and cudaDeviceReset as their
   replacements. Force-included (nvcc -include) by scripts/suites/suite.py. */
#pragma once
#ifdef __cplusplus
#include <cuda_runtime_api.h>
static inline cudaError_t cudaThreadSynchronize(void) { return cudaDeviceSynchronize(); }
static inline cudaError_t cudaThreadExit(void) { return cudaDeviceReset(); }
#endif
