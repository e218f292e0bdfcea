// What the LeetCUDA test drivers of scripts/leetcuda share: device tensors made from host
// values (torch stand-in in include/torch), read back as doubles, and a comparison that
// counts the values outside a tolerance and prints the first.
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <random>
#include <string>
#include <vector>

static std::mt19937 rng(2024);
static int g_failures = 0, g_checks = 0;

static std::vector<float> uniform(size_t n, float lo, float hi) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto &x : v) x = d(rng);
  return v;
}

// A device tensor of `shape` holding `values` converted to `dtype` (float32, half, bfloat16 or
// int32), and the values as the device holds them (rounded to the dtype).
static torch::Tensor make(std::initializer_list<int64_t> shape, torch::Dtype dtype,
                          std::vector<float> &values) {
  torch::Tensor t = torch::empty(shape, torch::TensorOptions().dtype(dtype));
  size_t n = t.numel();
  std::vector<unsigned char> bytes(n * torch::element_size(dtype));
  for (size_t i = 0; i < n; i++) {
    if (dtype == torch::kFloat32) {
      memcpy(&bytes[4 * i], &values[i], 4);
    } else if (dtype == torch::kHalf) {
      __half h = __float2half_rn(values[i]);
      values[i] = __half2float(h);
      memcpy(&bytes[2 * i], &h, 2);
    } else if (dtype == torch::kBFloat16) {
      __nv_bfloat16 h = __float2bfloat16_rn(values[i]);
      values[i] = __bfloat162float(h);
      memcpy(&bytes[2 * i], &h, 2);
    } else if (dtype == torch::kInt32) {
      int v = (int)values[i];
      values[i] = (float)v;
      memcpy(&bytes[4 * i], &v, 4);
    }
  }
  cudaMemcpy(t.data_ptr(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice);
  return t;
}

static torch::Tensor zeros_like(std::initializer_list<int64_t> shape, torch::Dtype dtype) {
  return torch::zeros(shape, torch::TensorOptions().dtype(dtype));
}

static std::vector<double> fetch(const torch::Tensor &t) {
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    printf("CUDA error: %s\n", cudaGetErrorString(e));
    exit(1);
  }
  size_t n = t.numel();
  std::vector<unsigned char> bytes(n * torch::element_size(t.dtype_));
  cudaMemcpy(bytes.data(), t.data_ptr(), bytes.size(), cudaMemcpyDeviceToHost);
  std::vector<double> v(n);
  for (size_t i = 0; i < n; i++) {
    if (t.dtype_ == torch::kFloat32) {
      float f;
      memcpy(&f, &bytes[4 * i], 4);
      v[i] = f;
    } else if (t.dtype_ == torch::kHalf) {
      __half h;
      memcpy(&h, &bytes[2 * i], 2);
      v[i] = __half2float(h);
    } else if (t.dtype_ == torch::kBFloat16) {
      __nv_bfloat16 h;
      memcpy(&h, &bytes[2 * i], 2);
      v[i] = __bfloat162float(h);
    } else if (t.dtype_ == torch::kInt32) {
      int x;
      memcpy(&x, &bytes[4 * i], 4);
      v[i] = x;
    }
  }
  return v;
}

// Every got[i] within atol + rtol * |want[i]|; prints "name: ok" or the first value outside.
static void compare(const std::string &name, const std::vector<double> &got,
                    const std::vector<double> &want, double atol, double rtol) {
  g_checks++;
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < want.size(); i++) {
    double d = std::fabs(got[i] - want[i]);
    if (!(d <= atol + rtol * std::fabs(want[i]))) {
      if (!bad) first = i;
      bad++;
    }
  }
  if (bad) {
    g_failures++;
    printf("%s: MISMATCH %zu of %zu values (first at %zu: got %.8g, expected %.8g)\n",
           name.c_str(), bad, want.size(), first, got[first], want[first]);
  } else {
    printf("%s: ok (%zu values)\n", name.c_str(), want.size());
  }
}

static int finish() {
  printf("%d of %d checks failed\n", g_failures, g_checks);
  return g_failures ? 1 : 0;
}
