// Texture and surface forms textures_surfaces and textures_3d_layered do not use: a texture
// over linear memory of float4 (tex1Dfetch), one over pitched 2D memory (cudaResourceTypePitch2D)
// read with point sampling at texel centres, a half-float array read as float
// (cudaCreateChannelDescHalf), mirror addressing with normalized coordinates, a 1D layered
// texture (tex1DLayered), unsigned 16-bit reads normalized to [0, 1], 1D surfaces
// (surf1Dwrite/surf1Dread), and the descriptors read back (cudaGetTextureObjectResourceDesc);
// the CUDA C++ Programming Guide's "Texture and Surface Memory" gives each rule.
#include <cuda_fp16.h>
#include <cstring>
#include <vector>
#include "check.h"

__global__ void reads(cudaTextureObject_t linear, cudaTextureObject_t pitched, cudaTextureObject_t halves,
                      cudaTextureObject_t mirror, cudaTextureObject_t layered, cudaTextureObject_t shorts,
                      float *out, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  float *o = out + 8 * (y * w + x);
  float4 v = tex1Dfetch<float4>(linear, y * w + x);
  o[0] = v.x + v.y * 2.0f + v.z * 3.0f + v.w * 4.0f;
  o[1] = tex2D<float>(pitched, x + 0.5f, y + 0.5f);
  o[2] = tex2D<float>(halves, x + 0.5f, y + 0.5f);
  // mirror: u in [1, 2) reads the texels backwards
  o[3] = tex2D<float>(mirror, 1.0f + (x + 0.5f) / w, (y + 0.5f) / h);
  o[4] = tex1DLayered<float>(layered, x + 0.5f, y % 3);
  o[5] = tex2D<float>(shorts, x + 0.5f, y + 0.5f);
}

__global__ void surfaces(cudaSurfaceObject_t surface, int w, int *out) {
  int x = threadIdx.x;
  surf1Dwrite(x * 7 + 1, surface, x * int(sizeof(int)));
  __syncthreads();
  int v;
  surf1Dread(&v, surface, ((x + 1) % w) * int(sizeof(int)));
  out[x] = v;
}

int main() {
  const int w = 32, h = 16;
  unsigned seed = 41;
  std::vector<float4> lin(w * h);
  std::vector<float> plain(w * h);
  std::vector<__half> halves(w * h);
  std::vector<unsigned short> shorts(w * h);
  for (int i = 0; i < w * h; ++i) {
    lin[i] = make_float4(float(lcg(seed) % 100), float(lcg(seed) % 100), float(lcg(seed) % 100), float(lcg(seed) % 100));
    plain[i] = float(int(lcg(seed) % 2000) - 1000) * 0.25f;
    halves[i] = __float2half(float(int(lcg(seed) % 2000) - 1000) * 0.125f);
    shorts[i] = (unsigned short)lcg(seed);
  }
  // Linear float4.
  float4 *dlin;
  CUDA(cudaMalloc(&dlin, w * h * sizeof(float4)));
  CUDA(cudaMemcpy(dlin, lin.data(), w * h * sizeof(float4), cudaMemcpyHostToDevice));
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeLinear;
  rd.res.linear.devPtr = dlin;
  rd.res.linear.desc = cudaCreateChannelDesc<float4>();
  rd.res.linear.sizeInBytes = w * h * sizeof(float4);
  cudaTextureDesc td = {};
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t t_linear;
  CUDA(cudaCreateTextureObject(&t_linear, &rd, &td, nullptr));
  // Pitched 2D memory.
  float *dp;
  size_t pitch;
  CUDA(cudaMallocPitch(&dp, &pitch, w * sizeof(float), h));
  CUDA(cudaMemcpy2D(dp, pitch, plain.data(), w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
  cudaResourceDesc rp = {};
  rp.resType = cudaResourceTypePitch2D;
  rp.res.pitch2D.devPtr = dp;
  rp.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  rp.res.pitch2D.width = w;
  rp.res.pitch2D.height = h;
  rp.res.pitch2D.pitchInBytes = pitch;
  cudaTextureObject_t t_pitched;
  CUDA(cudaCreateTextureObject(&t_pitched, &rp, &td, nullptr));
  // Half-float array, read as float.
  cudaChannelFormatDesc hdesc = cudaCreateChannelDescHalf();
  cudaArray_t harr;
  CUDA(cudaMallocArray(&harr, &hdesc, w, h));
  CUDA(cudaMemcpy2DToArray(harr, 0, 0, halves.data(), w * 2, w * 2, h, cudaMemcpyHostToDevice));
  cudaResourceDesc ra = {};
  ra.resType = cudaResourceTypeArray;
  ra.res.array.array = harr;
  cudaTextureObject_t t_halves;
  CUDA(cudaCreateTextureObject(&t_halves, &ra, &td, nullptr));
  // The float array again, mirrored with normalized coordinates.
  cudaChannelFormatDesc fdesc = cudaCreateChannelDesc<float>();
  cudaArray_t farr;
  CUDA(cudaMallocArray(&farr, &fdesc, w, h));
  CUDA(cudaMemcpy2DToArray(farr, 0, 0, plain.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice));
  cudaResourceDesc rf = {};
  rf.resType = cudaResourceTypeArray;
  rf.res.array.array = farr;
  cudaTextureDesc tm = td;
  tm.normalizedCoords = 1;
  tm.addressMode[0] = cudaAddressModeMirror;
  tm.addressMode[1] = cudaAddressModeMirror;
  cudaTextureObject_t t_mirror;
  CUDA(cudaCreateTextureObject(&t_mirror, &rf, &tm, nullptr));
  // A 1D layered array of 3 layers.
  cudaArray_t larr;
  CUDA(cudaMalloc3DArray(&larr, &fdesc, make_cudaExtent(w, 0, 3), cudaArrayLayered));
  cudaMemcpy3DParms lp = {};
  lp.srcPtr = make_cudaPitchedPtr(plain.data(), w * 4, w, 1);
  lp.dstArray = larr;
  lp.extent = make_cudaExtent(w, 1, 3);
  lp.kind = cudaMemcpyHostToDevice;
  CUDA(cudaMemcpy3D(&lp));
  cudaResourceDesc rl = {};
  rl.resType = cudaResourceTypeArray;
  rl.res.array.array = larr;
  cudaTextureObject_t t_layered;
  CUDA(cudaCreateTextureObject(&t_layered, &rl, &td, nullptr));
  // Unsigned 16-bit, normalized.
  cudaChannelFormatDesc sdesc = cudaCreateChannelDesc<unsigned short>();
  cudaArray_t sarr;
  CUDA(cudaMallocArray(&sarr, &sdesc, w, h));
  CUDA(cudaMemcpy2DToArray(sarr, 0, 0, shorts.data(), w * 2, w * 2, h, cudaMemcpyHostToDevice));
  cudaResourceDesc rs = {};
  rs.resType = cudaResourceTypeArray;
  rs.res.array.array = sarr;
  cudaTextureDesc tn = td;
  tn.readMode = cudaReadModeNormalizedFloat;
  cudaTextureObject_t t_shorts;
  CUDA(cudaCreateTextureObject(&t_shorts, &rs, &tn, nullptr));

  float *dout;
  CUDA(cudaMalloc(&dout, w * h * 8 * sizeof(float)));
  reads<<<h, w>>>(t_linear, t_pitched, t_halves, t_mirror, t_layered, t_shorts, dout, w, h);
  CUDA(cudaGetLastError());
  std::vector<float> out(w * h * 8);
  CUDA(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int i = y * w + x;
      const float *o = &out[8 * i];
      float4 v = lin[i];
      CHECK(o[0] == v.x + v.y * 2.0f + v.z * 3.0f + v.w * 4.0f, "linear float4 (%d,%d): %g", x, y, o[0]);
      CHECK(o[1] == plain[i], "pitch2D (%d,%d): %g want %g", x, y, o[1], plain[i]);
      CHECK(o[2] == __half2float(halves[i]), "half array (%d,%d): %g", x, y, o[2]);
      CHECK(o[3] == plain[y * w + (w - 1 - x)], "mirror (%d,%d): %g want %g", x, y, o[3], plain[y * w + (w - 1 - x)]);
      CHECK(o[4] == plain[(y % 3) * w + x], "layered (%d, layer %d): %g", x, y % 3, o[4]);
      CHECK(o[5] == float(shorts[i]) / 65535.0f, "normalized u16 (%d,%d): %.9g want %.9g", x, y, o[5], shorts[i] / 65535.0f);
    }

  // A 1D surface.
  cudaChannelFormatDesc idesc = cudaCreateChannelDesc<int>();
  cudaArray_t iarr;
  CUDA(cudaMallocArray(&iarr, &idesc, w, 0, cudaArraySurfaceLoadStore));
  cudaResourceDesc ri = {};
  ri.resType = cudaResourceTypeArray;
  ri.res.array.array = iarr;
  cudaSurfaceObject_t surface;
  CUDA(cudaCreateSurfaceObject(&surface, &ri));
  int *dints;
  CUDA(cudaMalloc(&dints, w * 4));
  surfaces<<<1, w>>>(surface, w, dints);
  CUDA(cudaGetLastError());
  std::vector<int> ints(w);
  CUDA(cudaMemcpy(ints.data(), dints, w * 4, cudaMemcpyDeviceToHost));
  for (int x = 0; x < w; ++x) CHECK(ints[x] == ((x + 1) % w) * 7 + 1, "surface 1D %d: %d", x, ints[x]);

  cudaResourceDesc back = {};
  CUDA(cudaGetTextureObjectResourceDesc(&back, t_pitched));
  CHECK(back.resType == cudaResourceTypePitch2D && back.res.pitch2D.devPtr == dp && back.res.pitch2D.width == size_t(w) &&
            back.res.pitch2D.pitchInBytes == pitch,
        "resource descriptor read back");
  CUDA(cudaDestroyTextureObject(t_linear));
  CUDA(cudaDestroyTextureObject(t_pitched));
  CUDA(cudaDestroyTextureObject(t_halves));
  CUDA(cudaDestroyTextureObject(t_mirror));
  CUDA(cudaDestroyTextureObject(t_layered));
  CUDA(cudaDestroyTextureObject(t_shorts));
  CUDA(cudaDestroySurfaceObject(surface));
  return report("textures_more");
}
