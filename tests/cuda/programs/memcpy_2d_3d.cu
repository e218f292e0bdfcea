// Pitched and 3D memory: cudaMallocPitch, cudaMemcpy2D (host<->device, device<->device, a
// sub-rectangle), cudaMemset2D, cudaMalloc3D/cudaMemcpy3D/cudaMemset3D, cudaMemcpy2DAsync, and
// cudaMemset patterns (bytes, cudaMemsetAsync on an offset range), a kernel indexing by pitch.
#include <cstring>
#include <vector>
#include "check.h"

__global__ void touch(char *base, size_t pitch, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < width && y < height) {
    float *row = reinterpret_cast<float *>(base + y * pitch);
    row[x] = row[x] * 2.0f + float(y);
  }
}
__global__ void touch3d(cudaPitchedPtr p, int w, int h, int d) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  if (x < w && y < h && z < d) {
    char *slice = (char *)p.ptr + z * p.pitch * h;
    int *row = (int *)(slice + y * p.pitch);
    row[x] += x + 100 * y + 10000 * z;
  }
}

int main() {
  const int w = 37, h = 23;
  std::vector<float> src(w * h), dst(w * h, -1.0f);
  for (int i = 0; i < w * h; ++i) src[i] = float(i) * 0.5f;
  float *d;
  size_t pitch;
  CUDA(cudaMallocPitch(&d, &pitch, w * sizeof(float), h));
  CHECK(pitch >= w * sizeof(float) && pitch % 128 == 0, "pitch %zu", pitch);
  CUDA(cudaMemcpy2D(d, pitch, src.data(), w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
  touch<<<dim3((w + 31) / 32, h), 32>>>((char *)d, pitch, w, h);
  CUDA(cudaMemcpy2D(dst.data(), w * sizeof(float), d, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      CHECK(dst[y * w + x] == src[y * w + x] * 2.0f + y, "2D [%d,%d]", y, x);
  // a 10x5 sub-rectangle at (3, 4) into a second pitched buffer, device to device
  float *e;
  size_t epitch;
  CUDA(cudaMallocPitch(&e, &epitch, 16 * sizeof(float), 8));
  CUDA(cudaMemset2D(e, epitch, 0xff, 16 * sizeof(float), 8));
  CUDA(cudaMemcpy2D(e, epitch, (char *)d + 4 * pitch + 3 * sizeof(float), pitch, 10 * sizeof(float), 5,
                    cudaMemcpyDeviceToDevice));
  std::vector<float> sub(16 * 8);
  CUDA(cudaMemcpy2D(sub.data(), 16 * sizeof(float), e, epitch, 16 * sizeof(float), 8, cudaMemcpyDeviceToHost));
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 16; ++x) {
      float v = sub[y * 16 + x];
      if (y < 5 && x < 10) {
        CHECK(v == dst[(y + 4) * w + x + 3], "sub [%d,%d] %g", y, x, v);
      } else {
        unsigned bits;
        std::memcpy(&bits, &v, 4);
        CHECK(bits == 0xffffffffu, "memset2D kept [%d,%d] %08x", y, x, bits);
      }
    }
  // async 2D copy
  cudaStream_t s;
  CUDA(cudaStreamCreate(&s));
  std::vector<float> back(w * h);
  CUDA(cudaMemcpy2DAsync(back.data(), w * sizeof(float), d, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost, s));
  CUDA(cudaStreamSynchronize(s));
  CHECK(back == dst, "async 2D copy");

  // 3D
  const int W = 9, H = 7, D = 5;
  cudaExtent ext = make_cudaExtent(W * sizeof(int), H, D);
  cudaPitchedPtr p;
  CUDA(cudaMalloc3D(&p, ext));
  CHECK(p.pitch >= W * sizeof(int) && p.xsize == W * sizeof(int) && p.ysize == H, "3D pitched ptr");
  CUDA(cudaMemset3D(p, 0, ext));
  std::vector<int> h3(W * H * D);
  for (int i = 0; i < W * H * D; ++i) h3[i] = i;
  cudaMemcpy3DParms up = {};
  up.srcPtr = make_cudaPitchedPtr(h3.data(), W * sizeof(int), W, H);
  up.dstPtr = p;
  up.extent = ext;
  up.kind = cudaMemcpyHostToDevice;
  CUDA(cudaMemcpy3D(&up));
  touch3d<<<dim3(H, D), 32>>>(p, W, H, D);
  std::vector<int> r3(W * H * D, -1);
  cudaMemcpy3DParms down = {};
  down.srcPtr = p;
  down.dstPtr = make_cudaPitchedPtr(r3.data(), W * sizeof(int), W, H);
  down.extent = ext;
  down.kind = cudaMemcpyDeviceToHost;
  CUDA(cudaMemcpy3D(&down));
  for (int z = 0; z < D; ++z)
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        int i = (z * H + y) * W + x;
        CHECK(r3[i] == i + x + 100 * y + 10000 * z, "3D [%d,%d,%d] %d", z, y, x, r3[i]);
      }
  // a 3D copy of a sub-box with positions
  std::vector<int> box(3 * 2 * 2, -1);
  cudaMemcpy3DParms part = {};
  part.srcPtr = p;
  part.srcPos = make_cudaPos(2 * sizeof(int), 1, 3);
  part.dstPtr = make_cudaPitchedPtr(box.data(), 3 * sizeof(int), 3, 2);
  part.extent = make_cudaExtent(3 * sizeof(int), 2, 2);
  part.kind = cudaMemcpyDeviceToHost;
  CUDA(cudaMemcpy3D(&part));
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 3; ++x) {
        int gx = x + 2, gy = y + 1, gz = z + 3, i = (gz * H + gy) * W + gx;
        CHECK(box[(z * 2 + y) * 3 + x] == i + gx + 100 * gy + 10000 * gz, "3D box [%d,%d,%d]", z, y, x);
      }
  // memset patterns
  unsigned char *m;
  CUDA(cudaMalloc(&m, 1000));
  CUDA(cudaMemset(m, 0x5a, 1000));
  CUDA(cudaMemsetAsync(m + 100, 0x00, 50, s));
  CUDA(cudaMemset(m + 999, 0x7f, 1));
  CUDA(cudaDeviceSynchronize());
  std::vector<unsigned char> hm(1000);
  CUDA(cudaMemcpy(hm.data(), m, 1000, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 1000; ++i) {
    unsigned char want = i == 999 ? 0x7f : (i >= 100 && i < 150) ? 0 : 0x5a;
    CHECK(hm[i] == want, "memset [%d] %02x", i, hm[i]);
  }
  // cudaMemcpy with cudaMemcpyDefault (unified addressing infers directions)
  int *di;
  CUDA(cudaMalloc(&di, 16));
  int four[4] = {1, 2, 3, 4}, got4[4] = {};
  CUDA(cudaMemcpy(di, four, 16, cudaMemcpyDefault));
  CUDA(cudaMemcpy(got4, di, 16, cudaMemcpyDefault));
  CHECK(got4[0] == 1 && got4[3] == 4, "cudaMemcpyDefault");
  cudaPointerAttributes attr;
  CUDA(cudaPointerGetAttributes(&attr, di));
  CHECK(attr.type == cudaMemoryTypeDevice && attr.devicePointer == di, "pointer attributes");
  return report("memcpy_2d_3d");
}
