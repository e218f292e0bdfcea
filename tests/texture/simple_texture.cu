// End-to-end check of texture and surface objects through the CUDA runtime (static cudart):
//   nvcc -arch=sm_90 -cudart static simple_texture.cu -o simple_texture
//   cargo build --release -p ptxsim-cuda; mkdir lib; ln -s $PWD/target/release/libcuda.so lib/libcuda.so.1
//   LD_LIBRARY_PATH=lib ./simple_texture      # prints PASSED, exit 0
// simpleTexture-like: a 2D float texture over a CUDA array, rotated by a kernel with linear
// filtering and normalized coordinates (wrap), checked against a host reference of the CUDA
// guide's formula; plus a surface round trip and tex1Dfetch over linear memory.
#include <cstdio>
#include <cmath>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); return 1; } } while (0)

__global__ void transform(float* out, cudaTextureObject_t tex, int w, int h, float theta) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float u = (float)x - (float)w / 2, v = (float)y - (float)h / 2;
  float tu = u * cosf(theta) - v * sinf(theta), tv = v * cosf(theta) + u * sinf(theta);
  tu /= (float)w; tv /= (float)h;
  out[y * w + x] = tex2D<float>(tex, tu + 0.5f, tv + 0.5f);
}
__global__ void surf_double(cudaSurfaceObject_t s, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h) { float v; surf2Dread(&v, s, x * 4, y); surf2Dwrite(v * 2.0f, s, x * 4, y); }
}
__global__ void fetch(cudaTextureObject_t t, int* out, int n) {
  int i = threadIdx.x; if (i < n) out[i] = tex1Dfetch<int>(t, i * 2);
}

static double frac(double x) { return x - floor(x); }
static double wgt(double f) { return round(f * 256.0) / 256.0; }

int main() {
  const int w = 16, h = 12; const float theta = 0.5f;
  float host[w * h];
  for (int i = 0; i < w * h; i++) host[i] = (float)((i * 37) % 101) / 7.0f;
  cudaChannelFormatDesc fd = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  cudaArray_t arr;
  CHECK(cudaMallocArray(&arr, &fd, w, h, cudaArraySurfaceLoadStore));
  CHECK(cudaMemcpy2DToArray(arr, 0, 0, host, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
  cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeArray; rd.res.array.array = arr;
  cudaTextureDesc td = {};
  td.addressMode[0] = cudaAddressModeWrap; td.addressMode[1] = cudaAddressModeWrap;
  td.filterMode = cudaFilterModeLinear; td.readMode = cudaReadModeElementType; td.normalizedCoords = 1;
  cudaTextureObject_t tex; CHECK(cudaCreateTextureObject(&tex, &rd, &td, NULL));
  float* dout; CHECK(cudaMalloc(&dout, w * h * sizeof(float)));
  dim3 block(8, 4), grid(w / 8, h / 4);
  transform<<<grid, block>>>(dout, tex, w, h, theta);
  CHECK(cudaGetLastError()); CHECK(cudaDeviceSynchronize());
  float out[w * h]; CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int y = 0; y < h; y++) for (int x = 0; x < w; x++) {
    // The same float arithmetic as the kernel for the coordinates (sinf/cosf may differ in the
    // last bit on the device: compare with a tolerance of one filter step).
    float u = (float)x - (float)w / 2, v = (float)y - (float)h / 2;
    float tu = u * cosf(theta) - v * sinf(theta), tv = v * cosf(theta) + u * sinf(theta);
    tu /= (float)w; tv /= (float)h;
    double cx = frac((double)(tu + 0.5f)) * w - 0.5, cy = frac((double)(tv + 0.5f)) * h - 0.5;
    int i = (int)floor(cx), j = (int)floor(cy); double a = wgt(frac(cx)), b = wgt(frac(cy));
    auto T = [&](int i, int j) { i = ((i % w) + w) % w; j = ((j % h) + h) % h; return (double)host[j * w + i]; };
    double ref = (1-a)*(1-b)*T(i,j) + a*(1-b)*T(i+1,j) + (1-a)*b*T(i,j+1) + a*b*T(i+1,j+1);
    if (fabs(ref - out[y * w + x]) > 1e-3 * (1 + fabs(ref))) { if (bad++ < 5) printf("mismatch (%d,%d): %f vs %f\n", x, y, out[y*w+x], ref); }
  }
  printf("transform: %d mismatches\n", bad);
  // Surface: double in place, read back with cudaMemcpy2DFromArray.
  cudaResourceDesc sd = {}; sd.resType = cudaResourceTypeArray; sd.res.array.array = arr;
  cudaSurfaceObject_t surf; CHECK(cudaCreateSurfaceObject(&surf, &sd));
  surf_double<<<h, w>>>(surf, w, h); CHECK(cudaDeviceSynchronize());
  float back[w * h];
  CHECK(cudaMemcpy2DFromArray(back, w * sizeof(float), arr, 0, 0, w * sizeof(float), h, cudaMemcpyDeviceToHost));
  int sbad = 0; for (int i = 0; i < w * h; i++) if (back[i] != 2 * host[i]) sbad++;
  printf("surface: %d mismatches\n", sbad);
  // tex1Dfetch over linear memory.
  int lin[64]; for (int i = 0; i < 64; i++) lin[i] = i * i - 7;
  int* dlin; CHECK(cudaMalloc(&dlin, sizeof lin)); CHECK(cudaMemcpy(dlin, lin, sizeof lin, cudaMemcpyHostToDevice));
  cudaResourceDesc ld = {}; ld.resType = cudaResourceTypeLinear; ld.res.linear.devPtr = dlin;
  ld.res.linear.desc = cudaCreateChannelDesc<int>(); ld.res.linear.sizeInBytes = sizeof lin;
  cudaTextureDesc ltd = {}; ltd.readMode = cudaReadModeElementType;
  cudaTextureObject_t ltex; CHECK(cudaCreateTextureObject(&ltex, &ld, &ltd, NULL));
  int* dfo; CHECK(cudaMalloc(&dfo, 40 * sizeof(int)));
  fetch<<<1, 40>>>(ltex, dfo, 40); CHECK(cudaDeviceSynchronize());
  int fo[40]; CHECK(cudaMemcpy(fo, dfo, sizeof fo, cudaMemcpyDeviceToHost));
  int fbad = 0; for (int i = 0; i < 40; i++) { int want = 2 * i < 64 ? lin[2 * i] : 0; if (fo[i] != want) fbad++; }
  printf("tex1Dfetch: %d mismatches\n", fbad);
  CHECK(cudaDestroyTextureObject(tex)); CHECK(cudaDestroyTextureObject(ltex)); CHECK(cudaDestroySurfaceObject(surf));
  CHECK(cudaFreeArray(arr));
  bool ok = bad == 0 && sbad == 0 && fbad == 0;
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
