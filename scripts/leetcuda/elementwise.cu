// Checks a LeetCUDA element-wise kernel file (elementwise add, relu, sigmoid, swish, elu, gelu,
// hardswish, hardshrink; compiled with -DKERNEL_FILE="path" -DOP=name) against the host: each
// binding (OP_f32, OP_f32x4, OP_f16, OP_f16x2, OP_f16x8, OP_f16x8_pack) on a 1-D tensor and on
// 2-D tensors of both launch shapes its binding picks (a CTA per row; K over 1024, flat).
// The references are PyTorch's definitions of the operations (which LeetCUDA's .py tests
// compare with), computed in double precision from the inputs as the device holds them.
#include <torch/extension.h>
#include "common.h"
#include KERNEL_FILE

#define PASTE2(a, b) a##b
#define PASTE(a, b) PASTE2(a, b)
#define STR2(a) #a
#define STR(a) STR2(a)

static double reference(double x, double y) {
  (void)y;
  std::string op = STR(OP);
  if (op == "elementwise_add") return x + y;
  if (op == "relu") return x > 0 ? x : 0;
  if (op == "sigmoid") return 1 / (1 + std::exp(-x));
  if (op == "swish") return x / (1 + std::exp(-x));
  if (op == "elu") return x > 0 ? x : std::exp(x) - 1;  // alpha 1
  if (op == "gelu")  // approximate="tanh"
    return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  if (op == "hardswish") return x <= -3 ? 0 : x >= 3 ? x : x * (x + 3) / 6;
  if (op == "hardshrink") return std::fabs(x) > 0.5 ? x : 0;  // lambda 0.5
  printf("no reference for %s\n", op.c_str());
  exit(2);
}

template <typename F>
static void check(const char *variant, F fn, torch::Dtype dtype,
                  std::initializer_list<int64_t> shape) {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  std::vector<float> a = uniform(n, -4, 4), b = uniform(n, -4, 4);
  torch::Tensor ta = make(shape, dtype, a), tb = make(shape, dtype, b);
  torch::Tensor out = zeros_like(shape, dtype);
#if defined(BINARY)
  fn(ta, tb, out);
#else
  fn(ta, out);
#endif
  std::vector<double> want(n);
  for (int64_t i = 0; i < n; i++) want[i] = reference(a[i], b[i]);
  std::string name = std::string(STR(OP)) + "_" + variant + " shape";
  for (auto s : shape) name += " " + std::to_string(s);
  // float32 with --use_fast_math (LeetCUDA's flags: ex2.approx, approximate division);
  // half: the operations in half precision.
  if (dtype == torch::kFloat32)
    compare(name, fetch(out), want, 1e-5, 1e-5);
  else
    compare(name, fetch(out), want, 1e-2, 1e-2);
}

#define ALL_SHAPES(variant, dtype)                                                          \
  do {                                                                                      \
    check(#variant, PASTE(OP, _##variant), dtype, {4096});                                  \
    check(#variant, PASTE(OP, _##variant), dtype, {16, 256});                               \
    check(#variant, PASTE(OP, _##variant), dtype, {4, 8192});                               \
  } while (0)

int main() {
  ALL_SHAPES(f32, torch::kFloat32);
  ALL_SHAPES(f32x4, torch::kFloat32);
  ALL_SHAPES(f16, torch::kHalf);
  ALL_SHAPES(f16x2, torch::kHalf);
  ALL_SHAPES(f16x8, torch::kHalf);
  ALL_SHAPES(f16x8_pack, torch::kHalf);
  return finish();
}
