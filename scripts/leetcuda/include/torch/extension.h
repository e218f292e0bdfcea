/* The part of PyTorch's C++ API (torch/extension.h) that LeetCUDA's CUDA-core kernel files
 * (kernels/<name>/<name>.cu) use in their bindings, for scripts/leetcuda: a Tensor is a
 * contiguous device allocation (cudaMalloc) with a dtype and a shape; `PYBIND11_MODULE` defines
 * an unused function, so that a test driver can include a kernel file and call its binding
 * functions (`relu_f32(x, y)`) directly. Written from how the kernel files call it; not
 * PyTorch's code. */
#pragma once
#include <cassert>
#include <cuda_runtime.h>
#include <initializer_list>
#include <iostream>
#include <stdexcept>
#include <stdint.h>
#include <tuple>
#include <vector>

namespace torch {
enum class Dtype { Float32, Half, BFloat16, Int32, Int8, Float8E4M3, Float8E5M2, Int64 };
constexpr Dtype kFloat32 = Dtype::Float32, kFloat = Dtype::Float32, kHalf = Dtype::Half,
                kFloat16 = Dtype::Half, kBFloat16 = Dtype::BFloat16, kInt32 = Dtype::Int32,
                kInt = Dtype::Int32, kInt8 = Dtype::Int8, kFloat8_e4m3fn = Dtype::Float8E4M3,
                kFloat8_e5m2 = Dtype::Float8E5M2, kInt64 = Dtype::Int64;
enum DeviceType { kCPU, kCUDA };

inline size_t element_size(Dtype d) {
  switch (d) {
  case Dtype::Float32: case Dtype::Int32: return 4;
  case Dtype::Half: case Dtype::BFloat16: return 2;
  case Dtype::Int64: return 8;
  default: return 1;
  }
}
inline std::ostream &operator<<(std::ostream &os, Dtype d) { return os << "dtype " << int(d); }

struct TensorOptions {
  Dtype dtype_ = Dtype::Float32;
  DeviceType device_ = kCUDA;
  TensorOptions dtype(Dtype d) const { TensorOptions o = *this; o.dtype_ = d; return o; }
  Dtype dtype() const { return dtype_; }
  TensorOptions device(DeviceType t, int = 0) const { TensorOptions o = *this; o.device_ = t; return o; }
};
inline std::ostream &operator<<(std::ostream &os, const TensorOptions &o) {
  return os << "TensorOptions(" << o.dtype_ << ")";
}

struct Scalar {
  double v;
  template <typename T> T to() const { return (T)v; }
};

/* A contiguous tensor. Device tensors own a cudaMalloc allocation (shared by copies, never
 * freed: test programs are short); host tensors (`cpu()`) a vector of bytes. */
struct Tensor {
  Dtype dtype_ = Dtype::Float32;
  DeviceType device_ = kCUDA;
  std::vector<int64_t> shape_;
  void *data_ = nullptr;
  std::vector<unsigned char> *host_ = nullptr;
  int dim() const { return (int)shape_.size(); }
  int64_t size(int i) const { return shape_.at(i < 0 ? i + shape_.size() : i); }
  std::vector<int64_t> sizes() const { return shape_; }
  int64_t numel() const {
    int64_t n = 1;
    for (auto s : shape_) n *= s;
    return n;
  }
  int64_t stride(int i) const {
    int64_t s = 1;
    for (int j = (int)shape_.size() - 1; j > i; j--) s *= shape_[j];
    return s;
  }
  void *data_ptr() const { return data_; }
  template <typename T> T *data_ptr() const { return (T *)data_; }
  TensorOptions options() const { return TensorOptions().dtype(dtype_).device(device_); }
  Dtype scalar_type() const { return dtype_; }
  bool is_contiguous() const { return true; }
  Tensor contiguous() const { return *this; }
  Tensor cpu() const {
    Tensor t = *this;
    t.device_ = kCPU;
    if (device_ == kCUDA) {
      t.host_ = new std::vector<unsigned char>(numel() * element_size(dtype_));
      cudaMemcpy(t.host_->data(), data_, t.host_->size(), cudaMemcpyDeviceToHost);
      t.data_ = t.host_->data();
    }
    return t;
  }
  Scalar item() const {
    Tensor h = cpu();
    switch (dtype_) {
    case Dtype::Float32: return {*(float *)h.data_};
    case Dtype::Int32: return {(double)*(int *)h.data_};
    case Dtype::Int64: return {(double)*(int64_t *)h.data_};
    default: throw std::runtime_error("item(): dtype not supported by this torch stand-in");
    }
  }
};

inline Tensor empty(std::initializer_list<int64_t> shape, const TensorOptions &o) {
  Tensor t;
  t.dtype_ = o.dtype_;
  t.shape_ = shape;
  cudaMalloc(&t.data_, t.numel() * element_size(t.dtype_) + 16);
  return t;
}
inline Tensor zeros(std::initializer_list<int64_t> shape, const TensorOptions &o) {
  Tensor t = empty(shape, o);
  cudaMemset(t.data_, 0, t.numel() * element_size(t.dtype_));
  return t;
}
/* torch::max(a, 0) on a 1-D int32 tensor: (the maximum, its index), as device tensors. */
inline std::tuple<Tensor, Tensor> max(const Tensor &a, int) {
  if (a.dtype_ != Dtype::Int32 || a.dim() != 1)
    throw std::runtime_error("max(): only 1-D int32 in this torch stand-in");
  Tensor h = a.cpu();
  int *v = (int *)h.data_;
  int64_t at = 0;
  for (int64_t i = 1; i < a.numel(); i++)
    if (v[i] > v[at]) at = i;
  Tensor m = empty({}, TensorOptions().dtype(Dtype::Int32));
  cudaMemcpy(m.data_, &v[at], 4, cudaMemcpyHostToDevice);
  Tensor i = empty({}, TensorOptions().dtype(Dtype::Int64));
  cudaMemcpy(i.data_, &at, 8, cudaMemcpyHostToDevice);
  return {m, i};
}
} // namespace torch

namespace ptxsim_pybind {
struct Module {
  template <typename... A> void def(A &&...) {}
};
} // namespace ptxsim_pybind
#define TORCH_EXTENSION_NAME leetcuda_kernels
#define PYBIND11_MODULE(name, m) [[maybe_unused]] static void ptxsim_unused_module_##name(ptxsim_pybind::Module &m)
