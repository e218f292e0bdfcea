// Checks a LeetCUDA kernel file that is not element-wise (compiled with -DKERNEL_FILE="path"
// and one of -DREDUCE, -DDOT, -DSOFTMAX, -DLAYER_NORM, -DRMS_NORM, -DHISTOGRAM, -DSGEMV,
// -DHGEMV, -DEMBEDDING, -DTRANSPOSE, -DSGEMM; SGEMM with the folder's other files,
// sgemm_async.cu and sgemm_wmma_tf32_stage.cu) against the host: each of its bindings, on shapes its binding
// accepts, against the operation's definition (PyTorch's, which LeetCUDA's .py tests compare
// with) computed in double precision from the inputs as the device holds them. A binding that
// refuses the shape (LeetCUDA's own std::runtime_error) is reported, not counted.
#include <torch/extension.h>
#include "common.h"
#include KERNEL_FILE

#include <functional>

#ifdef SGEMM
// sgemm.cu's module names the cuBLAS bindings of sgemm_cublas.cu (not built here: no cuBLAS in
// the toolkit) and wmma functions its other files no longer define; never called.
#define PTXSIM_MISSING(f)                                                                   \
  void f(torch::Tensor, torch::Tensor, torch::Tensor) {                                     \
    throw std::runtime_error(#f " is not built here");                                      \
  }
PTXSIM_MISSING(sgemm_cublas)
PTXSIM_MISSING(sgemm_cublas_tf32)
PTXSIM_MISSING(sgemm_wmma_m16n16k8_mma4x2_warp2x4_stage2)
PTXSIM_MISSING(sgemm_wmma_m16n16k8_mma4x2_warp2x4_stage2_offset)
PTXSIM_MISSING(sgemm_wmma_m16n16k8_mma4x2_warp2x4_stage3)
PTXSIM_MISSING(sgemm_wmma_m16n16k8_mma4x2_warp2x4_stage3_offset)
#endif

static double tol_of(torch::Dtype d) { return d == torch::kFloat32 ? 1e-4 : 3e-2; }

static void guarded(const std::string &name, std::function<void()> body) {
  try {
    body();
  } catch (const std::exception &e) {
    printf("%s: refused by its binding (%s)\n", name.c_str(), e.what());
  }
}

#if defined(REDUCE) || defined(DOT)
// Sums of N values (block_all_reduce_sum_*: x; dot_prod_*: a.b), one atomicAdd per CTA.
template <typename F>
static void sum_check(const char *name, F fn, torch::Dtype dtype, int64_t n, bool dot) {
  guarded(name, [&] {
    bool integer = dtype == torch::kInt8;
    std::vector<float> a = integer ? uniform(n, -100, 100) : uniform(n, -1, 1);
    std::vector<float> b = uniform(n, -1, 1);
    if (integer)
      for (auto &v : a) v = std::trunc(v);
    torch::Tensor ta;
    if (integer) {  // int8 bytes
      ta = torch::empty({n}, torch::TensorOptions().dtype(torch::kInt8));
      std::vector<signed char> bytes(n);
      for (int64_t i = 0; i < n; i++) bytes[i] = (signed char)a[i];
      cudaMemcpy(ta.data_ptr(), bytes.data(), n, cudaMemcpyHostToDevice);
    } else {
      ta = make({n}, dtype, a);
    }
    double want = 0;
    torch::Tensor out;
    if (dot) {
      torch::Tensor tb = make({n}, dtype, b);
      for (int64_t i = 0; i < n; i++) want += (double)a[i] * b[i];
#ifdef DOT
      out = fn(ta, tb);
#endif
    } else {
      for (int64_t i = 0; i < n; i++) want += a[i];
#ifdef REDUCE
      out = fn(ta);
#endif
    }
    // f16 accumulators: the sum of 1024-element blocks rounded to half (ulp 0.03 at 32).
    double tol = integer ? 0 : dtype == torch::kFloat32 ? 1e-3 : std::sqrt((double)n) * 0.05;
    compare(std::string(name) + " n " + std::to_string(n), fetch(out), {want}, tol, 1e-3);
  });
}
#endif

int main() {
#ifdef REDUCE
#define R(name, dtype) sum_check(#name, name, dtype, 8192, false)
  R(block_all_reduce_sum_f32_f32, torch::kFloat32);
  R(block_all_reduce_sum_f32x4_f32, torch::kFloat32);
  R(block_all_reduce_sum_f16_f16, torch::kHalf);
  R(block_all_reduce_sum_f16_f32, torch::kHalf);
  R(block_all_reduce_sum_f16x2_f16, torch::kHalf);
  R(block_all_reduce_sum_f16x2_f32, torch::kHalf);
  R(block_all_reduce_sum_f16x8_pack_f16, torch::kHalf);
  R(block_all_reduce_sum_f16x8_pack_f32, torch::kHalf);
  R(block_all_reduce_sum_bf16_bf16, torch::kBFloat16);
  R(block_all_reduce_sum_bf16_f32, torch::kBFloat16);
  R(block_all_reduce_sum_bf16x2_bf16, torch::kBFloat16);
  R(block_all_reduce_sum_bf16x2_f32, torch::kBFloat16);
  R(block_all_reduce_sum_bf16x8_pack_bf16, torch::kBFloat16);
  R(block_all_reduce_sum_bf16x8_pack_f32, torch::kBFloat16);
  R(block_all_reduce_sum_i8_i32, torch::kInt8);
  R(block_all_reduce_sum_i8x16_pack_i32, torch::kInt8);
#endif
#ifdef DOT
#define D(name, dtype) sum_check(#name, name, dtype, 8192, true)
  D(dot_prod_f32_f32, torch::kFloat32);
  D(dot_prod_f32x4_f32, torch::kFloat32);
  D(dot_prod_f16_f32, torch::kHalf);
  D(dot_prod_f16x2_f32, torch::kHalf);
  D(dot_prod_f16x8_pack_f32, torch::kHalf);
#endif
#if defined(SOFTMAX) || defined(LAYER_NORM) || defined(RMS_NORM)
  // Row-wise operations on S x H.
  auto rows = [](const char *name, auto fn, torch::Dtype dtype, int64_t s, int64_t h,
                 const char *op) {
    guarded(name, [&] {
      std::vector<float> x = uniform(s * h, -1, 1);
      torch::Tensor tx = make({s, h}, dtype, x), ty = zeros_like({s, h}, dtype);
      const float g = 1.5f, b = 0.25f;
      std::vector<double> want(s * h);
      for (int64_t r = 0; r < s; r++) {
        const float *row = &x[r * h];
        double mean = 0, sq = 0, mx = -1e30, sum = 0;
        for (int64_t i = 0; i < h; i++) mean += row[i], sq += (double)row[i] * row[i];
        mean /= h;
        double var = 0;
        for (int64_t i = 0; i < h; i++) var += (row[i] - mean) * (row[i] - mean);
        for (int64_t i = 0; i < h; i++) mx = std::max(mx, (double)row[i]);
        for (int64_t i = 0; i < h; i++) sum += std::exp(row[i] - mx);
        for (int64_t i = 0; i < h; i++) {
          double v;
          if (!strcmp(op, "softmax")) v = std::exp(row[i] - mx) / sum;
          else if (!strcmp(op, "layer_norm")) v = (row[i] - mean) / std::sqrt(var / h + 1e-5) * g + b;
          else v = row[i] / std::sqrt(sq / h + 1e-5) * g;
          want[r * h + i] = v;
        }
      }
      fn(tx, ty, g, b);
      compare(std::string(name) + " " + std::to_string(s) + "x" + std::to_string(h),
              fetch(ty), want, dtype == torch::kFloat32 ? 1e-5 : 3e-2, tol_of(dtype));
    });
  };
#endif
#ifdef SOFTMAX
#define SM(name, dtype)                                                                     \
  rows(#name, [](torch::Tensor x, torch::Tensor y, float, float) { name(x, y); }, dtype, 8,  \
       256, "softmax")
  SM(softmax_f32_per_token, torch::kFloat32);
  SM(softmax_f32x4_per_token, torch::kFloat32);
  SM(safe_softmax_f32_per_token, torch::kFloat32);
  SM(safe_softmax_f32x4_per_token, torch::kFloat32);
  SM(safe_softmax_f16_f32_per_token, torch::kHalf);
  SM(safe_softmax_f16x2_f32_per_token, torch::kHalf);
  SM(safe_softmax_f16x8_pack_f32_per_token, torch::kHalf);
  SM(online_safe_softmax_f32_per_token, torch::kFloat32);
  SM(online_safe_softmax_f32x4_pack_per_token, torch::kFloat32);
#endif
#ifdef LAYER_NORM
#define LN(name, dtype)                                                                     \
  rows(#name, [](torch::Tensor x, torch::Tensor y, float g, float b) { name(x, y, g, b); },    \
       dtype, 8, 256, "layer_norm")
  LN(layer_norm_f32, torch::kFloat32);
  LN(layer_norm_f32x4, torch::kFloat32);
  LN(layer_norm_f16_f16, torch::kHalf);
  LN(layer_norm_f16_f32, torch::kHalf);
  LN(layer_norm_f16x2_f16, torch::kHalf);
  LN(layer_norm_f16x8_f16, torch::kHalf);
  LN(layer_norm_f16x8_pack_f16, torch::kHalf);
  LN(layer_norm_f16x8_pack_f32, torch::kHalf);
#endif
#ifdef RMS_NORM
#define RN(name, dtype)                                                                     \
  rows(#name, [](torch::Tensor x, torch::Tensor y, float g, float) { name(x, y, g); }, dtype,  \
       8, 256, "rms_norm")
  RN(rms_norm_f32, torch::kFloat32);
  RN(rms_norm_f32x4, torch::kFloat32);
  RN(rms_norm_f16_f16, torch::kHalf);
  RN(rms_norm_f16x2_f16, torch::kHalf);
  RN(rms_norm_f16x8_f16, torch::kHalf);
  RN(rms_norm_f16x8_f32, torch::kHalf);
  RN(rms_norm_f16_f32, torch::kHalf);
  RN(rms_norm_f16x8_pack_f16, torch::kHalf);
  RN(rms_norm_f16x8_pack_f32, torch::kHalf);
#endif
#ifdef HISTOGRAM
  for (auto fn : {histogram_i32, histogram_i32x4}) {
    const char *name = fn == histogram_i32 ? "histogram_i32" : "histogram_i32x4";
    guarded(name, [&] {
      int64_t n = 8192;
      std::vector<float> a = uniform(n, 0, 100);
      torch::Tensor ta = make({n}, torch::kInt32, a);
      int mx = 0;
      for (auto v : a) mx = std::max(mx, (int)v);
      std::vector<double> want(mx + 1, 0);
      for (auto v : a) want[(int)v] += 1;
      compare(name, fetch(fn(ta)), want, 0, 0);
    });
  }
#endif
#ifdef SGEMV
  auto gemv = [](const char *name, auto fn, int64_t m, int64_t k) {
    guarded(name, [&] {
      std::vector<float> a = uniform(m * k, -1, 1), x = uniform(k, -1, 1);
      torch::Tensor ta = make({m, k}, torch::kFloat32, a), tx = make({k, 1}, torch::kFloat32, x);
      torch::Tensor ty = zeros_like({m, 1}, torch::kFloat32);
      std::vector<double> want(m, 0);
      for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < k; j++) want[i] += (double)a[i * k + j] * x[j];
      fn(ta, tx, ty);
      compare(std::string(name) + " " + std::to_string(m) + "x" + std::to_string(k), fetch(ty),
              want, 1e-4, 1e-4);
    });
  };
  gemv("sgemv_k32_f32", sgemv_k32_f32, 256, 512);
  gemv("sgemv_k128_f32x4", sgemv_k128_f32x4, 256, 512);
  gemv("sgemv_k16_f32", sgemv_k16_f32, 256, 16);
#endif
#ifdef EMBEDDING
  auto embed = [](const char *name, auto fn, torch::Dtype dtype) {
    guarded(name, [&] {
      int64_t n = 64, vocab = 1000, e = 256;
      std::vector<float> idx = uniform(n, 0, vocab), w = uniform(vocab * e, -1, 1);
      torch::Tensor ti = make({n}, torch::kInt32, idx), tw = make({vocab, e}, dtype, w);
      torch::Tensor to = zeros_like({n, e}, dtype);
      std::vector<double> want(n * e);
      for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < e; j++) want[i * e + j] = w[(int64_t)idx[i] * e + j];
      fn(ti, tw, to);
      compare(name, fetch(to), want, 0, 0);
    });
  };
  embed("embedding_f32", embedding_f32, torch::kFloat32);
  embed("embedding_f32x4", embedding_f32x4, torch::kFloat32);
  embed("embedding_f32x4_pack", embedding_f32x4_pack, torch::kFloat32);
  embed("embedding_f16", embedding_f16, torch::kHalf);
  embed("embedding_f16x8", embedding_f16x8, torch::kHalf);
  embed("embedding_f16x8_pack", embedding_f16x8_pack, torch::kHalf);
#endif
#ifdef HGEMV
  auto hgemv = [](const char *name, auto fn, int64_t m, int64_t k) {
    guarded(name, [&] {
      std::vector<float> a = uniform(m * k, -1, 1), x = uniform(k, -1, 1);
      torch::Tensor ta = make({m, k}, torch::kHalf, a), tx = make({k, 1}, torch::kHalf, x);
      torch::Tensor ty = zeros_like({m, 1}, torch::kHalf);
      std::vector<double> want(m, 0);
      for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < k; j++) want[i] += (double)a[i * k + j] * x[j];
      fn(ta, tx, ty);
      // Half products and sums: K of them, each rounded (ulp 2^-11 relative).
      compare(std::string(name) + " " + std::to_string(m) + "x" + std::to_string(k), fetch(ty),
              want, 0.05, 0.01);
    });
  };
  hgemv("hgemv_k32_f16", hgemv_k32_f16, 256, 512);
  hgemv("hgemv_k128_f16x4", hgemv_k128_f16x4, 256, 512);
  hgemv("hgemv_k16_f16", hgemv_k16_f16, 256, 16);
#endif
#ifdef SGEMM
  // c = a * b (M x K by K x N, row-major); the tf32 tensor-core ones round a and b to tf32
  // (10-bit mantissas): K products of values in [-1, 1] each off by up to 2^-10 relative.
  auto gemm = [](const char *name, auto fn, int64_t m, int64_t n, int64_t k, bool tf32) {
    guarded(name, [&] {
      std::vector<float> a = uniform(m * k, -1, 1), b = uniform(k * n, -1, 1);
      torch::Tensor ta = make({m, k}, torch::kFloat32, a), tb = make({k, n}, torch::kFloat32, b);
      torch::Tensor tc = zeros_like({m, n}, torch::kFloat32);
      std::vector<double> want(m * n, 0);
      for (int64_t i = 0; i < m; i++)
        for (int64_t l = 0; l < k; l++)
          for (int64_t j = 0; j < n; j++) want[i * n + j] += (double)a[i * k + l] * b[l * n + j];
      fn(ta, tb, tc);
      compare(std::string(name) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                  std::to_string(k),
              fetch(tc), want, tf32 ? 0.05 : 1e-4, tf32 ? 0.01 : 1e-4);
    });
  };
#define G(name) gemm(#name, name, 256, 256, 128, false)
  G(sgemm_naive_f32);
  G(sgemm_sliced_k_f32);
  G(sgemm_t_8x8_sliced_k_f32x4);
  G(sgemm_t_8x8_sliced_k_f32x4_bcf);
  G(sgemm_t_8x8_sliced_k_f32x4_bcf_offset);
  G(sgemm_t_8x8_sliced_k_f32x4_bcf_dbuf);
  G(sgemm_t_8x8_sliced_k_f32x4_bcf_dbuf_offset);
  G(sgemm_t_8x4_sliced_k16_f32x4_bcf_dbuf);
  G(sgemm_t_8x4_sliced_k16_f32x4_bcf_dbuf_async);
  G(sgemm_t_8x8_sliced_k16_f32x4_bcf_dbuf);
  G(sgemm_t_8x8_sliced_k16_f32x4_bcf_dbuf_async);
  G(sgemm_t_8x16_sliced_k16_f32x4_bcf_dbuf);
  G(sgemm_t_8x16_sliced_k16_f32x4_bcf_dbuf_async);
  for (int stages : {2, 3, 4})
    for (bool swizzle : {false, true}) {
      std::string name = "sgemm_wmma_m16n16k8_mma4x2_warp2x4_stages(stages " +
                         std::to_string(stages) + (swizzle ? ", swizzle 256)" : ")");
      gemm(name.c_str(), [&](torch::Tensor a, torch::Tensor b, torch::Tensor c) {
        sgemm_wmma_m16n16k8_mma4x2_warp2x4_stages(a, b, c, stages, swizzle, 256);
      }, 256, 256, 128, true);
      name = "sgemm_wmma_m16n16k8_mma4x2_warp2x4_stages_dsmem(stages " +
             std::to_string(stages) + (swizzle ? ", swizzle 256)" : ")");
      gemm(name.c_str(), [&](torch::Tensor a, torch::Tensor b, torch::Tensor c) {
        sgemm_wmma_m16n16k8_mma4x2_warp2x4_stages_dsmem(a, b, c, stages, swizzle, 256);
      }, 256, 256, 128, true);
    }
#endif
#ifdef TRANSPOSE
  auto transpose = [](const char *name, auto fn, int64_t m, int64_t n) {
    guarded(name, [&] {
      std::vector<float> x = uniform(m * n, -1, 1);
      torch::Tensor tx = make({m, n}, torch::kFloat32, x), ty = zeros_like({n, m}, torch::kFloat32);
      std::vector<double> want(m * n);
      for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) want[j * m + i] = x[i * n + j];
      fn(tx, ty);
      compare(std::string(name) + " " + std::to_string(m) + "x" + std::to_string(n), fetch(ty),
              want, 0, 0);
    });
  };
#define T(name) transpose(#name, name, 256, 512)
  T(mat_transpose_f32_col2row);
  T(mat_transpose_f32_row2col);
  T(mat_transpose_f32x4_col2row);
  T(mat_transpose_f32x4_row2col);
  T(mat_transpose_f32_col2row2d);
  T(mat_transpose_f32_row2col2d);
  T(mat_transpose_f32x4_col2row2d);
  T(mat_transpose_f32x4_row2col2d);
  T(mat_transpose_f32_diagonal2d);
  T(mat_transpose_f32x4_shared_col2row2d);
  T(mat_transpose_f32x4_shared_row2col2d);
  T(mat_transpose_f32x4_shared_bcf_col2row2d);
  T(mat_transpose_f32x4_shared_bcf_row2col2d);
#endif
  return finish();
}
