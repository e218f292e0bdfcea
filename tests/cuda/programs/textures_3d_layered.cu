// Textures beyond the 2D basics: a 3D cudaArray (cudaMalloc3DArray, cudaMemcpy3D) read with
// tex3D at texel centres (point) and between them (linear filtering, against the GPU's 8-bit
// fractional weights as the Programming Guide's "Linear Filtering" appendix gives them), a
// layered 2D array read with tex2DLayered, tex2Dgather of an int texture (the four texels of
// the bilinear footprint, component 0), border addressing with a border of zero, a uchar4
// texture read as element type, and a 3D surface written with surf3Dwrite and copied back.
#include <cmath>
#include <vector>
#include "check.h"

constexpr int W = 8, H = 6, D = 4, LAYERS = 3;

__global__ void sample3d(cudaTextureObject_t point, cudaTextureObject_t linear, const float4 *coords, float *out, int n) {
  int i = threadIdx.x;
  if (i >= n) return;
  float4 c = coords[i];
  out[2 * i] = tex3D<float>(point, c.x, c.y, c.z);
  out[2 * i + 1] = tex3D<float>(linear, c.x, c.y, c.z);
}

__global__ void layered(cudaTextureObject_t tex, float *out) {
  int x = threadIdx.x, y = threadIdx.y, layer = blockIdx.x;
  out[(layer * H + y) * W + x] = tex2DLayered<float>(tex, x + 0.5f, y + 0.5f, layer);
}

__global__ void gather(cudaTextureObject_t tex, int4 *out, cudaTextureObject_t border, float *border_out, cudaTextureObject_t bytes, uchar4 *bytes_out) {
  int x = threadIdx.x, y = threadIdx.y;
  out[y * W + x] = tex2Dgather<int4>(tex, x + 1.0f, y + 1.0f, 0);
  border_out[y * W + x] = tex2D<float>(border, x - 2.0f + 0.5f, y - 2.0f + 0.5f);
  bytes_out[y * W + x] = tex2D<uchar4>(bytes, x + 0.5f, y + 0.5f);
}

__global__ void write3d(cudaSurfaceObject_t surf) {
  int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
  surf3Dwrite(float(x * 100 + y * 10 + z), surf, x * sizeof(float), y, z);
}

static float frac8(float f) { return std::round(f * 256.0f) / 256.0f; }

int main() {
  // 3D texture
  std::vector<float> vol(W * H * D);
  for (int z = 0; z < D; ++z)
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) vol[(z * H + y) * W + x] = float(x + 10 * y + 100 * z);
  cudaChannelFormatDesc fdesc = cudaCreateChannelDesc<float>();
  cudaArray_t arr3;
  CUDA(cudaMalloc3DArray(&arr3, &fdesc, make_cudaExtent(W, H, D)));
  cudaMemcpy3DParms copy = {};
  copy.srcPtr = make_cudaPitchedPtr(vol.data(), W * sizeof(float), W, H);
  copy.dstArray = arr3;
  copy.extent = make_cudaExtent(W, H, D);
  copy.kind = cudaMemcpyHostToDevice;
  CUDA(cudaMemcpy3D(&copy));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = arr3;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t point, linear;
  CUDA(cudaCreateTextureObject(&point, &res, &td, nullptr));
  td.filterMode = cudaFilterModeLinear;
  CUDA(cudaCreateTextureObject(&linear, &res, &td, nullptr));
  std::vector<float4> coords = {{0.5f, 0.5f, 0.5f, 0}, {3.5f, 2.5f, 1.5f, 0}, {2.0f, 3.0f, 2.0f, 0}, {4.25f, 1.75f, 2.6f, 0}, {7.5f, 5.5f, 3.5f, 0}};
  int nc = int(coords.size());
  float4 *dcoords;
  float *dout;
  CUDA(cudaMalloc(&dcoords, nc * sizeof(float4)));
  CUDA(cudaMalloc(&dout, 2 * nc * sizeof(float)));
  CUDA(cudaMemcpy(dcoords, coords.data(), nc * sizeof(float4), cudaMemcpyHostToDevice));
  sample3d<<<1, nc>>>(point, linear, dcoords, dout, nc);
  CUDA(cudaGetLastError());
  std::vector<float> got(2 * nc);
  CUDA(cudaMemcpy(got.data(), dout, got.size() * 4, cudaMemcpyDeviceToHost));
  auto at = [&](int x, int y, int z) {
    x = std::min(std::max(x, 0), W - 1), y = std::min(std::max(y, 0), H - 1), z = std::min(std::max(z, 0), D - 1);
    return vol[(z * H + y) * W + x];
  };
  for (int i = 0; i < nc; ++i) {
    float4 c = coords[i];
    float p = at(int(std::floor(c.x)), int(std::floor(c.y)), int(std::floor(c.z)));
    CHECK(got[2 * i] == p, "tex3D point at (%g %g %g): %g vs %g", c.x, c.y, c.z, got[2 * i], p);
    float xb = c.x - 0.5f, yb = c.y - 0.5f, zb = c.z - 0.5f;
    int i0 = int(std::floor(xb)), j0 = int(std::floor(yb)), k0 = int(std::floor(zb));
    float a = frac8(xb - i0), b = frac8(yb - j0), g = frac8(zb - k0);
    double want = 0;
    for (int dz = 0; dz < 2; ++dz)
      for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 2; ++dx)
          want += (dx ? a : 1 - a) * (dy ? b : 1 - b) * (dz ? g : 1 - g) * at(i0 + dx, j0 + dy, k0 + dz);
    CHECK(std::fabs(got[2 * i + 1] - want) <= 1e-3 * (1 + std::fabs(want)), "tex3D linear at (%g %g %g): %g vs %g", c.x, c.y, c.z,
          got[2 * i + 1], want);
  }

  // layered 2D
  std::vector<float> lay(W * H * LAYERS);
  for (size_t i = 0; i < lay.size(); ++i) lay[i] = float(i) * 0.5f;
  cudaArray_t arrl;
  CUDA(cudaMalloc3DArray(&arrl, &fdesc, make_cudaExtent(W, H, LAYERS), cudaArrayLayered));
  copy = {};
  copy.srcPtr = make_cudaPitchedPtr(lay.data(), W * sizeof(float), W, H);
  copy.dstArray = arrl;
  copy.extent = make_cudaExtent(W, H, LAYERS);
  copy.kind = cudaMemcpyHostToDevice;
  CUDA(cudaMemcpy3D(&copy));
  res.res.array.array = arrl;
  td.filterMode = cudaFilterModePoint;
  cudaTextureObject_t ltex;
  CUDA(cudaCreateTextureObject(&ltex, &res, &td, nullptr));
  float *dl;
  CUDA(cudaMalloc(&dl, lay.size() * 4));
  layered<<<LAYERS, dim3(W, H)>>>(ltex, dl);
  CUDA(cudaGetLastError());
  std::vector<float> lgot(lay.size());
  CUDA(cudaMemcpy(lgot.data(), dl, lay.size() * 4, cudaMemcpyDeviceToHost));
  CHECK(lgot == lay, "tex2DLayered reads every texel of every layer");

  // gather, border, uchar4
  std::vector<int> ints(W * H);
  for (int i = 0; i < W * H; ++i) ints[i] = i * 3 + 1;
  cudaChannelFormatDesc idesc = cudaCreateChannelDesc<int>();
  cudaArray_t arri, arrf, arrb;
  CUDA(cudaMallocArray(&arri, &idesc, W, H));
  CUDA(cudaMemcpy2DToArray(arri, 0, 0, ints.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
  CUDA(cudaMallocArray(&arrf, &fdesc, W, H));
  CUDA(cudaMemcpy2DToArray(arrf, 0, 0, vol.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
  std::vector<uchar4> px(W * H);
  for (int i = 0; i < W * H; ++i) px[i] = make_uchar4(i, 255 - i, i * 2, 7);
  cudaChannelFormatDesc bdesc = cudaCreateChannelDesc<uchar4>();
  CUDA(cudaMallocArray(&arrb, &bdesc, W, H));
  CUDA(cudaMemcpy2DToArray(arrb, 0, 0, px.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
  cudaTextureObject_t gtex, btex, ptex;
  res.res.array.array = arri;
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  CUDA(cudaCreateTextureObject(&gtex, &res, &td, nullptr));
  res.res.array.array = arrf;
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeBorder;
  CUDA(cudaCreateTextureObject(&btex, &res, &td, nullptr));
  res.res.array.array = arrb;
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  CUDA(cudaCreateTextureObject(&ptex, &res, &td, nullptr));
  int4 *dg;
  float *db;
  uchar4 *dp;
  CUDA(cudaMalloc(&dg, W * H * sizeof(int4)));
  CUDA(cudaMalloc(&db, W * H * 4));
  CUDA(cudaMalloc(&dp, W * H * 4));
  gather<<<1, dim3(W, H)>>>(gtex, dg, btex, db, ptex, dp);
  CUDA(cudaGetLastError());
  std::vector<int4> g(W * H);
  std::vector<float> bo(W * H);
  std::vector<uchar4> po(W * H);
  CUDA(cudaMemcpy(g.data(), dg, g.size() * sizeof(int4), cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(bo.data(), db, bo.size() * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(po.data(), dp, po.size() * 4, cudaMemcpyDeviceToHost));
  auto iat = [&](int x, int y) { return ints[std::min(std::max(y, 0), H - 1) * W + std::min(std::max(x, 0), W - 1)]; };
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      // tex2Dgather at (x + 1, y + 1): the 2x2 footprint with corners (x, y)..(x + 1, y + 1), in the
      // order (i0, j1), (i1, j1), (i1, j0), (i0, j0) (CUDA C++ Programming Guide, "tex2Dgather()")
      int4 w = make_int4(iat(x, y + 1), iat(x + 1, y + 1), iat(x + 1, y), iat(x, y));
      int4 o = g[y * W + x];
      CHECK(o.x == w.x && o.y == w.y && o.z == w.z && o.w == w.w, "gather (%d %d): %d %d %d %d vs %d %d %d %d", x, y, o.x, o.y, o.z,
            o.w, w.x, w.y, w.z, w.w);
      int sx = x - 2, sy = y - 2;
      float wb = (sx < 0 || sy < 0 || sx >= W || sy >= H) ? 0.0f : vol[sy * W + sx];
      CHECK(bo[y * W + x] == wb, "border (%d %d): %g vs %g", sx, sy, bo[y * W + x], wb);
      uchar4 pw = px[y * W + x], pg = po[y * W + x];
      CHECK(pg.x == pw.x && pg.y == pw.y && pg.z == pw.z && pg.w == pw.w, "uchar4 texel (%d %d)", x, y);
    }

  // a 3D surface
  cudaArray_t arrs;
  CUDA(cudaMalloc3DArray(&arrs, &fdesc, make_cudaExtent(W, H, D), cudaArraySurfaceLoadStore));
  cudaResourceDesc sres = {};
  sres.resType = cudaResourceTypeArray;
  sres.res.array.array = arrs;
  cudaSurfaceObject_t surf;
  CUDA(cudaCreateSurfaceObject(&surf, &sres));
  write3d<<<D, dim3(W, H)>>>(surf);
  CUDA(cudaGetLastError());
  std::vector<float> sv(W * H * D);
  copy = {};
  copy.srcArray = arrs;
  copy.dstPtr = make_cudaPitchedPtr(sv.data(), W * sizeof(float), W, H);
  copy.extent = make_cudaExtent(W, H, D);
  copy.kind = cudaMemcpyDeviceToHost;
  CUDA(cudaMemcpy3D(&copy));
  int bad = 0;
  for (int z = 0; z < D; ++z)
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) bad += sv[(z * H + y) * W + x] != float(x * 100 + y * 10 + z);
  CHECK(bad == 0, "surf3Dwrite: %d wrong", bad);
  return report("textures_3d_layered");
}
