// A stand-in for PyTorch's <torch/extension.h>, enough for the host wrappers of the projects that
// scripts/tc-kernels/run.sh builds: a Tensor is a device pointer, a 2-D shape and a dtype. The
// runners make the Tensors; nothing here comes from PyTorch.
#pragma once
// PyTorch's headers bring in CUDA's half and bfloat16 types when nvcc compiles them.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
// ... and much of the standard library.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>
#include <iostream>
#include <stdexcept>
#include <string>

namespace torch {
enum ScalarType { kHalf, kBFloat16, kFloat32 };
using Dtype = ScalarType;

struct TensorOptions {
  ScalarType type;
  ScalarType dtype() const { return type; }
};
inline std::ostream &operator<<(std::ostream &os, const TensorOptions &o) {
  return os << "dtype " << static_cast<int>(o.type);
}

struct Tensor {
  void *ptr = nullptr;
  int64_t rows = 0, cols = 0;
  ScalarType type = kHalf;
  int64_t size(int dim) const { return dim == 0 ? rows : cols; }
  void *data_ptr() const { return ptr; }
  TensorOptions options() const { return TensorOptions{type}; }
  ScalarType scalar_type() const { return type; }
};
} // namespace torch

#define TORCH_CHECK(cond, ...)                                                 \
  do {                                                                         \
    if (!(cond))                                                               \
      throw std::runtime_error("TORCH_CHECK failed: " #cond);                  \
  } while (0)
