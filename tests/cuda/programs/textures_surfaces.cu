// Texture and surface objects: a 2D float cudaArray read with tex2D (point filtering, clamp and
// wrap addressing, normalized coordinates), linear filtering compared with the GPU's
// interpolation (9-bit fixed-point weights, as the CUDA C++ Programming Guide's "Linear
// Filtering" appendix describes), an 8-bit texture read as normalized floats
// (cudaReadModeNormalizedFloat), a texture over linear device memory (tex1Dfetch), and a
// surface written with surf2Dwrite and read back.
#include <cmath>
#include <vector>
#include "check.h"

__global__ void sample(cudaTextureObject_t point, cudaTextureObject_t wrap, cudaTextureObject_t linear,
                       cudaTextureObject_t bytes, cudaTextureObject_t fetch, float *out, int n) {
  int i = threadIdx.x;
  if (i >= n) return;
  float x = -2.0f + 0.37f * i, y = 1.5f + 0.11f * i;
  out[6 * i + 0] = tex2D<float>(point, x, y);
  out[6 * i + 1] = tex2D<float>(wrap, x / 8.0f, y / 4.0f);
  out[6 * i + 2] = tex2D<float>(linear, 0.3f * i, 0.7f + 0.05f * i);
  out[6 * i + 3] = tex2D<float>(bytes, i % 8 + 0.5f, i % 4 + 0.5f);
  out[6 * i + 4] = tex1Dfetch<float>(fetch, i);
  out[6 * i + 5] = tex1Dfetch<float>(fetch, i + 1000);  // out of range: 0
}
__global__ void write_surface(cudaSurfaceObject_t s, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h) surf2Dwrite(float(x * 10 + y), s, x * sizeof(float), y);
}

static float texel(const std::vector<float> &img, int w, int h, int x, int y) {
  x = x < 0 ? 0 : x >= w ? w - 1 : x;
  y = y < 0 ? 0 : y >= h ? h - 1 : y;
  return img[y * w + x];
}

int main() {
  const int w = 8, h = 4;
  std::vector<float> img(w * h);
  for (int i = 0; i < w * h; ++i) img[i] = float(i * i % 17) - 3.0f;
  cudaChannelFormatDesc fdesc = cudaCreateChannelDesc<float>();
  cudaArray_t arr;
  CUDA(cudaMallocArray(&arr, &fdesc, w, h));
  CUDA(cudaMemcpy2DToArray(arr, 0, 0, img.data(), w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = arr;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t point, wrap, linear, bytes, fetch;
  CUDA(cudaCreateTextureObject(&point, &res, &td, nullptr));
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeWrap;
  td.normalizedCoords = 1;
  CUDA(cudaCreateTextureObject(&wrap, &res, &td, nullptr));
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.normalizedCoords = 0;
  td.filterMode = cudaFilterModeLinear;
  CUDA(cudaCreateTextureObject(&linear, &res, &td, nullptr));

  std::vector<unsigned char> b(w * h);
  for (int i = 0; i < w * h; ++i) b[i] = (unsigned char)(i * 37 % 256);
  cudaChannelFormatDesc bdesc = cudaCreateChannelDesc<unsigned char>();
  cudaArray_t barr;
  CUDA(cudaMallocArray(&barr, &bdesc, w, h));
  CUDA(cudaMemcpy2DToArray(barr, 0, 0, b.data(), w, w, h, cudaMemcpyHostToDevice));
  res.res.array.array = barr;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeNormalizedFloat;
  CUDA(cudaCreateTextureObject(&bytes, &res, &td, nullptr));

  const int m = 64;
  std::vector<float> lin(m);
  for (int i = 0; i < m; ++i) lin[i] = 1.0f / (i + 1);
  float *dlin;
  CUDA(cudaMalloc(&dlin, m * 4));
  CUDA(cudaMemcpy(dlin, lin.data(), m * 4, cudaMemcpyHostToDevice));
  cudaResourceDesc lres = {};
  lres.resType = cudaResourceTypeLinear;
  lres.res.linear.devPtr = dlin;
  lres.res.linear.desc = fdesc;
  lres.res.linear.sizeInBytes = m * 4;
  cudaTextureDesc ltd = {};
  ltd.readMode = cudaReadModeElementType;
  CUDA(cudaCreateTextureObject(&fetch, &lres, &ltd, nullptr));

  const int n = 32;
  float *out;
  CUDA(cudaMalloc(&out, 6 * n * 4));
  sample<<<1, n>>>(point, wrap, linear, bytes, fetch, out, n);
  CUDA(cudaDeviceSynchronize());
  std::vector<float> got(6 * n);
  CUDA(cudaMemcpy(got.data(), out, got.size() * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    float x = -2.0f + 0.37f * i, y = 1.5f + 0.11f * i;
    float p = texel(img, w, h, int(std::floor(x)), int(std::floor(y)));
    CHECK(got[6 * i] == p, "point clamp %d: %g vs %g", i, got[6 * i], p);
    // wrap: normalized u in [0,1) after frac, times the size
    float u = x / 8.0f, v = y / 4.0f;
    u = (u - std::floor(u)) * w;
    v = (v - std::floor(v)) * h;
    float q = img[(int(std::floor(v)) % h) * w + int(std::floor(u)) % w];
    CHECK(got[6 * i + 1] == q, "point wrap %d: %g vs %g", i, got[6 * i + 1], q);
    // linear: xB = x - 0.5, weights as 9-bit fixed point (1/256 steps)
    float lx = 0.3f * i - 0.5f, ly = 0.7f + 0.05f * i - 0.5f;
    int x0 = int(std::floor(lx)), y0 = int(std::floor(ly));
    float a = std::round((lx - x0) * 256.0f) / 256.0f, c = std::round((ly - y0) * 256.0f) / 256.0f;
    float want = (1 - a) * (1 - c) * texel(img, w, h, x0, y0) + a * (1 - c) * texel(img, w, h, x0 + 1, y0) +
                 (1 - a) * c * texel(img, w, h, x0, y0 + 1) + a * c * texel(img, w, h, x0 + 1, y0 + 1);
    // the guide gives the weights' format, not how they are rounded: allow one step of 1/256
    // in each weight
    float spread = 0;
    for (int dy = 0; dy < 2; ++dy)
      for (int dx = 0; dx < 2; ++dx)
        spread = std::fmax(spread, std::fabs(texel(img, w, h, x0 + dx, y0 + dy) - texel(img, w, h, x0, y0)));
    CHECK(close_to(got[6 * i + 2], want, 1e-5, 2.0f * spread / 256.0f + 1e-5f), "linear %d: %g vs %g", i,
          got[6 * i + 2], want);
    float nb = b[(i % 4) * w + i % 8] / 255.0f;
    CHECK(close_to(got[6 * i + 3], nb, 1e-6), "normalized byte %d: %g vs %g", i, got[6 * i + 3], nb);
    CHECK(got[6 * i + 4] == lin[i], "tex1Dfetch %d", i);
    CHECK(got[6 * i + 5] == 0.0f, "tex1Dfetch out of range %d: %g", i, got[6 * i + 5]);
  }
  // surface
  cudaArray_t sarr;
  CUDA(cudaMallocArray(&sarr, &fdesc, w, h, cudaArraySurfaceLoadStore));
  cudaResourceDesc sres = {};
  sres.resType = cudaResourceTypeArray;
  sres.res.array.array = sarr;
  cudaSurfaceObject_t surf;
  CUDA(cudaCreateSurfaceObject(&surf, &sres));
  write_surface<<<h, w>>>(surf, w, h);
  std::vector<float> back(w * h);
  CUDA(cudaMemcpy2DFromArray(back.data(), w * 4, sarr, 0, 0, w * 4, h, cudaMemcpyDeviceToHost));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) CHECK(back[y * w + x] == float(x * 10 + y), "surface [%d,%d]", y, x);
  CUDA(cudaDestroyTextureObject(point));
  CUDA(cudaDestroySurfaceObject(surf));
  CUDA(cudaFreeArray(arr));
  return report("textures_surfaces");
}
