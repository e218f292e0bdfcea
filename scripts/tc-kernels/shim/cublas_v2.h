// A stand-in for cuBLAS's header (not installed with the tools ptxsim uses): cuda_hgemm's
// common.h includes it for an error-check macro that only its cuBLAS kernel, which the runner
// leaves out, expands.
#pragma once
#include <cstddef>
typedef enum { CUBLAS_STATUS_SUCCESS = 0 } cublasStatus_t;
