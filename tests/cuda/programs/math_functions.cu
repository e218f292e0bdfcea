// The CUDA math library against the host's libm, within the maximum ulp errors that the CUDA
// C++ Programming Guide's "Mathematical Functions" appendix lists (float: sinf/cosf 2 ulp,
// expf 2, logf 1, erff 2, lgammaf 6 (outside the negative poles), powf 4, tanhf 2, cbrtf 1,
// atan2f 3; double: 1-2 ulp, lgamma 4; the fast intrinsics __sinf/__expf with their absolute or
// relative bounds; rsqrtf 2 ulp), checked here as relative errors with some slack.
#include <cmath>
#include <vector>
#include "check.h"

constexpr int FN = 16, DN = 10;

__global__ void float_kernel(const float *x, const float *y, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i], b = y[i];
  float *o = out + FN * i;
  o[0] = sinf(a);
  o[1] = cosf(a);
  o[2] = expf(b);
  o[3] = logf(fabsf(a) + 0.5f);
  o[4] = erff(b);
  o[5] = lgammaf(fabsf(a) + 0.25f);
  o[6] = powf(fabsf(a) + 0.1f, b);
  o[7] = tanhf(b);
  o[8] = cbrtf(a);
  o[9] = atan2f(a, b);
  o[10] = __sinf(b);
  o[11] = __expf(b);
  o[12] = rsqrtf(fabsf(a) + 1.0f);
  o[13] = sqrtf(fabsf(a));
  o[14] = fmodf(a, 1.75f);
  o[15] = __fdividef(a, b + 10.0f);
}

__global__ void double_kernel(const double *x, const double *y, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double a = x[i], b = y[i];
  double *o = out + DN * i;
  o[0] = sin(a);
  o[1] = cos(a);
  o[2] = exp(b);
  o[3] = log(fabs(a) + 0.5);
  o[4] = erf(b);
  o[5] = lgamma(fabs(a) + 0.25);
  o[6] = pow(fabs(a) + 0.1, b);
  o[7] = sqrt(fabs(a));
  o[8] = atan(a) + asinh(b);
  o[9] = a / (b + 10.0);
}

int main() {
  const int n = 2000;
  unsigned seed = 1;
  std::vector<float> x(n), y(n);
  std::vector<double> dx(n), dy(n);
  for (int i = 0; i < n; ++i) {
    x[i] = float(int(lcg(seed) % 2000001) - 1000000) / 50000.0f;  // [-20, 20]
    y[i] = float(int(lcg(seed) % 2000001) - 1000000) / 250000.0f;  // [-4, 4]
    dx[i] = double(int(lcg(seed) % 2000001) - 1000000) / 49999.0;
    dy[i] = double(int(lcg(seed) % 2000001) - 1000000) / 250001.0;
  }
  float *px, *py, *po;
  double *qx, *qy, *qo;
  CUDA(cudaMalloc(&px, n * 4));
  CUDA(cudaMalloc(&py, n * 4));
  CUDA(cudaMalloc(&po, FN * n * 4));
  CUDA(cudaMalloc(&qx, n * 8));
  CUDA(cudaMalloc(&qy, n * 8));
  CUDA(cudaMalloc(&qo, DN * n * 8));
  CUDA(cudaMemcpy(px, x.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(py, y.data(), n * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(qx, dx.data(), n * 8, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(qy, dy.data(), n * 8, cudaMemcpyHostToDevice));
  float_kernel<<<(n + 255) / 256, 256>>>(px, py, po, n);
  double_kernel<<<(n + 255) / 256, 256>>>(qx, qy, qo, n);
  CUDA(cudaDeviceSynchronize());
  std::vector<float> fo(FN * n);
  std::vector<double> dout(DN * n);
  CUDA(cudaMemcpy(fo.data(), po, fo.size() * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(dout.data(), qo, dout.size() * 8, cudaMemcpyDeviceToHost));
  const char *fnames[FN] = {"sinf", "cosf", "expf", "logf", "erff", "lgammaf", "powf", "tanhf",
                            "cbrtf", "atan2f", "__sinf", "__expf", "rsqrtf", "sqrtf", "fmodf", "__fdividef"};
  const double ulp = 1.0 / (1 << 23);
  for (int i = 0; i < n; ++i) {
    double a = x[i], b = y[i];
    // the arguments as the kernel forms them, in float
    float a5 = std::fabs(x[i]) + 0.5f, a25 = std::fabs(x[i]) + 0.25f, a01 = std::fabs(x[i]) + 0.1f,
          a1 = std::fabs(x[i]) + 1.0f, b10 = y[i] + 10.0f;
    double want[FN] = {std::sin(a), std::cos(a), std::exp(b), std::log(a5),
                       std::erf(b), std::lgamma(a25), std::pow(a01, b),
                       std::tanh(b), std::cbrt(a), std::atan2(a, b), std::sin(b), std::exp(b),
                       1.0 / std::sqrt(a1), std::sqrt(std::fabs(a)),
                       std::fmod(a, 1.75), a / b10};
    // relative bounds (ulps of float) and absolute bounds where the function is near zero
    double rel[FN] = {4, 4, 4, 2, 4, 8, 8, 4, 2, 6, 0, 0, 4, 1, 0, 4};
    double abs_[FN] = {4 * ulp, 4 * ulp, 0, 2 * ulp, 4 * ulp, 16 * ulp, 0, 4 * ulp, 0, 0,
                       1.0 / (1 << 21) /* __sinf: 2^-21.41 on [-pi, pi] */, 0, 0, 0, 0, 0};
    for (int f = 0; f < FN; ++f) {
      double got = fo[FN * i + f];
      double r = rel[f] * ulp, t = abs_[f];
      if (f == 10 && std::fabs(b) > 3.14159) t = 1e-5;
      if (f == 11) r = (2 + 1.16 * std::fabs(b)) * ulp + 1e-6;  // __expf: 2 + floor(abs(1.16 * x)) ulp
      if (f == 2) r = 4 * ulp;
      if (f == 6) t = 8 * ulp * std::fabs(want[f]);
      CHECK(close_to(got, want[f], r, t), "%s(%.9g, %.9g) = %.9g, host %.9g", fnames[f], a, b, got, want[f]);
    }
    double p = dx[i], q = dy[i];
    double dwant[DN] = {std::sin(p), std::cos(p), std::exp(q), std::log(std::fabs(p) + 0.5),
                        std::erf(q), std::lgamma(std::fabs(p) + 0.25), std::pow(std::fabs(p) + 0.1, q),
                        std::sqrt(std::fabs(p)), std::atan(p) + std::asinh(q), p / (q + 10.0)};
    const char *dnames[DN] = {"sin", "cos", "exp", "log", "erf", "lgamma", "pow", "sqrt", "atan+asinh", "div"};
    const double dulp = std::ldexp(1.0, -52);
    for (int f = 0; f < DN; ++f) {
      double tol = f == 5 ? 8 * dulp : 4 * dulp;
      double atol = (f == 0 || f == 1 || f == 3 || f == 4 || f == 5 || f == 8) ? 4 * dulp : 0;
      if (f == 7 || f == 9) tol = 0;  // correctly rounded
      CHECK(close_to(dout[DN * i + f], dwant[f], tol, atol), "%s(%.17g, %.17g) = %.17g, host %.17g",
            dnames[f], p, q, dout[DN * i + f], dwant[f]);
    }
  }
  return report("math_functions");
}
