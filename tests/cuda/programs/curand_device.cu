// curand_kernel.h's device API: XORWOW and Philox4x32-10 states, curand(), curand4(),
// curand_uniform, curand_normal, curand_normal2_double, and skipahead through curand_init's
// offset (XORWOW's precalculated matrices in device memory). The raw outputs are checked against
// the generators as curand_kernel.h defines them (its _curand_init_scratch, curand() and
// curand_Philox4x32_10, restated here for the host); the uniform values against the header's
// formula, and the normal values by their moments.
// Build: needs curand_kernel.h (nvidia-curand's include folder on the include path).
#include <cmath>
#include <curand_kernel.h>
#include <vector>
#include "check.h"

constexpr int DRAWS = 8;

__global__ void xorwow(unsigned long long seed, unsigned *raw, float *uni, unsigned *skipped) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  curandState s;
  curand_init(seed + t, 0, 0, &s);
  for (int k = 0; k < DRAWS; ++k) raw[t * DRAWS + k] = curand(&s);
  for (int k = 0; k < DRAWS; ++k) uni[t * DRAWS + k] = curand_uniform(&s);
  curandState o;
  curand_init(seed, 0, t * 3 + 1, &o);  // the t*3+1-th number of seed's sequence onwards
  skipped[t] = curand(&o);
}

__global__ void philox(unsigned long long seed, uint4 *raw) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  curandStatePhilox4_32_10_t s;
  curand_init(seed, t, 0, &s);
  raw[2 * t] = curand4(&s);
  raw[2 * t + 1] = curand4(&s);
}

__global__ void normals(unsigned long long seed, float *out, double *dout, int per_thread) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  curandStatePhilox4_32_10_t s;
  curand_init(seed, t, 0, &s);
  curandState x;
  curand_init(seed, t, 0, &x);
  for (int k = 0; k < per_thread; ++k) out[t * per_thread + k] = curand_normal(&x);
  for (int k = 0; k < per_thread; k += 2) {
    double2 d = curand_normal2_double(&s);
    dout[t * per_thread + k] = d.x;
    dout[t * per_thread + k + 1] = d.y;
  }
}

struct Xorwow {
  unsigned d, v[5];
  explicit Xorwow(unsigned long long seed) {  // _curand_init_scratch, subsequence 0, offset 0
    unsigned s0 = unsigned(seed) ^ 0xaad26b49u;
    unsigned s1 = unsigned(seed >> 32) ^ 0xf7dcefddu;
    unsigned t0 = 1099087573u * s0;
    unsigned t1 = 2591861531u * s1;
    d = 6615241 + t1 + t0;
    v[0] = 123456789u + t0;
    v[1] = 362436069u ^ t0;
    v[2] = 521288629u + t1;
    v[3] = 88675123u ^ t1;
    v[4] = 5783321u + t0;
  }
  unsigned next() {
    unsigned t = v[0] ^ (v[0] >> 2);
    v[0] = v[1];
    v[1] = v[2];
    v[2] = v[3];
    v[3] = v[4];
    v[4] = (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1));
    d += 362437;
    return v[4] + d;
  }
};

static void round_(unsigned c[4], const unsigned k[2]) {
  unsigned long long p0 = 0xD2511F53ull * c[0], p1 = 0xCD9E8D57ull * c[2];
  unsigned r[4] = {unsigned(p1 >> 32) ^ c[1] ^ k[0], unsigned(p1), unsigned(p0 >> 32) ^ c[3] ^ k[1],
                   unsigned(p0)};
  for (int i = 0; i < 4; ++i) c[i] = r[i];
}
static void philox10(unsigned c[4], unsigned long long seed) {
  unsigned k[2] = {unsigned(seed), unsigned(seed >> 32)};
  for (int r = 0; r < 10; ++r) {
    round_(c, k);
    k[0] += 0x9E3779B9u;
    k[1] += 0xBB67AE85u;
  }
}

int main() {
  const int threads = 256;
  const unsigned long long seed = 1234ull;
  unsigned *raw, *skipped;
  float *uni;
  uint4 *praw;
  CUDA(cudaMalloc(&raw, threads * DRAWS * 4));
  CUDA(cudaMalloc(&uni, threads * DRAWS * 4));
  CUDA(cudaMalloc(&skipped, threads * 4));
  CUDA(cudaMalloc(&praw, 2 * threads * sizeof(uint4)));
  xorwow<<<threads / 64, 64>>>(seed, raw, uni, skipped);
  philox<<<threads / 64, 64>>>(0x123456789abcdefull, praw);
  CUDA(cudaDeviceSynchronize());
  std::vector<unsigned> graw(threads * DRAWS), gskip(threads);
  std::vector<float> guni(threads * DRAWS);
  std::vector<uint4> gp(2 * threads);
  CUDA(cudaMemcpy(graw.data(), raw, graw.size() * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(guni.data(), uni, guni.size() * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(gskip.data(), skipped, gskip.size() * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(gp.data(), praw, gp.size() * sizeof(uint4), cudaMemcpyDeviceToHost));
  std::vector<unsigned> sequence(3 * threads + 2);
  {
    Xorwow g(seed);
    for (auto &x : sequence) x = g.next();
  }
  for (int t = 0; t < threads; ++t) {
    Xorwow g(seed + t);
    for (int k = 0; k < DRAWS; ++k) {
      unsigned want = g.next();
      CHECK(graw[t * DRAWS + k] == want, "xorwow thread %d draw %d: %u vs %u", t, k, graw[t * DRAWS + k], want);
    }
    for (int k = 0; k < DRAWS; ++k) {
      float want = float(g.next()) * CURAND_2POW32_INV + CURAND_2POW32_INV / 2.0f;
      CHECK(close_to(guni[t * DRAWS + k], want, 1.2e-7), "uniform thread %d draw %d: %.9g vs %.9g", t, k,
            guni[t * DRAWS + k], want);
      CHECK(guni[t * DRAWS + k] > 0.0f && guni[t * DRAWS + k] <= 1.0f, "uniform range");
    }
    CHECK(gskip[t] == sequence[t * 3 + 1], "skipahead %d: %u vs %u", t, gskip[t], sequence[t * 3 + 1]);
    for (int k = 0; k < 2; ++k) {
      unsigned c[4] = {unsigned(k), 0, unsigned(t), 0};  // counter k of subsequence t
      philox10(c, 0x123456789abcdefull);
      uint4 g4 = gp[2 * t + k];
      CHECK(g4.x == c[0] && g4.y == c[1] && g4.z == c[2] && g4.w == c[3], "philox thread %d block %d", t, k);
    }
  }
  {
    const int per = 64, nthreads = 512, n = per * nthreads;
    float *out;
    double *dout;
    CUDA(cudaMalloc(&out, n * 4));
    CUDA(cudaMalloc(&dout, n * 8));
    normals<<<nthreads / 128, 128>>>(42, out, dout, per);
    CUDA(cudaDeviceSynchronize());
    std::vector<float> g(n);
    std::vector<double> gd(n);
    CUDA(cudaMemcpy(g.data(), out, n * 4, cudaMemcpyDeviceToHost));
    CUDA(cudaMemcpy(gd.data(), dout, n * 8, cudaMemcpyDeviceToHost));
    for (int which = 0; which < 2; ++which) {
      double m1 = 0, m2 = 0, m3 = 0, m4 = 0;
      int within1 = 0;
      for (int i = 0; i < n; ++i) {
        double x = which ? gd[i] : g[i];
        m1 += x;
        m2 += x * x;
        m3 += x * x * x;
        m4 += x * x * x * x;
        within1 += std::fabs(x) < 1.0;
      }
      m1 /= n; m2 /= n; m3 /= n; m4 /= n;
      // standard normal: mean 0, variance 1, skew 0, kurtosis 3, P(|x|<1) = 0.6827; the bounds
      // are about 5 standard errors for n = 32768 samples
      CHECK(std::fabs(m1) < 0.03, "normal %d mean %g", which, m1);
      CHECK(std::fabs(m2 - 1) < 0.04, "normal %d variance %g", which, m2);
      CHECK(std::fabs(m3) < 0.07, "normal %d third moment %g", which, m3);
      CHECK(std::fabs(m4 - 3) < 0.25, "normal %d fourth moment %g", which, m4);
      CHECK(std::fabs(double(within1) / n - 0.6827) < 0.013, "normal %d P(|x|<1) %g", which, double(within1) / n);
    }
  }
  return report("curand_device");
}
