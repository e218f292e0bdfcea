/* What siboehm/SGEMM_CUDA's src/runner.cu names of cuBLAS (its kernel 0, the reference), for
 * scripts/sgemm-cuda: the toolkit these runs use has no cuBLAS, and check.cu computes the
 * reference on the host instead. cublasGemmEx here fails (CUBLAS_STATUS_NOT_SUPPORTED); check.cu
 * never asks for kernel 0. Not NVIDIA's header. */
#pragma once
#include <library_types.h>
#include <stdio.h>

typedef struct ptxsim_cublas_context *cublasHandle_t;
typedef enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_SUPPORTED = 15 } cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 } cublasOperation_t;
typedef enum {
  CUBLAS_COMPUTE_32F,
  CUBLAS_COMPUTE_32F_FAST_16BF,
  CUBLAS_COMPUTE_32F_FAST_TF32
} cublasComputeType_t;
typedef enum { CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99 } cublasGemmAlgo_t;

static inline cublasStatus_t cublasGemmEx(cublasHandle_t, cublasOperation_t, cublasOperation_t,
                                          int, int, int, const void *, const void *,
                                          cudaDataType, int, const void *, cudaDataType, int,
                                          const void *, void *, cudaDataType, int,
                                          cublasComputeType_t, cublasGemmAlgo_t) {
  fprintf(stderr, "cublasGemmEx: no cuBLAS in this build\n");
  return CUBLAS_STATUS_NOT_SUPPORTED;
}
