// Copies beyond one row, and where they go: cudaMemcpy2DAsync/cudaMemcpy3DAsync and
// cudaMemset2DAsync/cudaMemset3DAsync on a created stream, the same 2D copy and memset
// captured into a graph and launched twice, cudaGraphAddMemcpyNode with a 3D cudaMemcpy3DParms
// (pitched device memory to host), arrays (cudaMemcpy2DToArray, cudaMemcpy2DFromArray,
// cudaMemcpy2DArrayToArray, cudaArrayGetInfo), and the batched copies of CUDA 12.8
// (cudaMemcpyBatchAsync). The CUDA Runtime API's "Memory Management" section describes each.
#include <cstdint>
#include <cstring>
#include <vector>
#include "check.h"

__global__ void bump(float *data, size_t pitch, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < width && y < height) reinterpret_cast<float *>(reinterpret_cast<char *>(data) + y * pitch)[x] += 1.0f;
}

int main() {
  const int W = 37, H = 11, D = 3;
  std::vector<float> host(W * H * D);
  for (size_t i = 0; i < host.size(); ++i) host[i] = float(i % 1000) * 0.5f;
  cudaStream_t s;
  CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  // 2D async copy in, a kernel, a 2D memset of a sub-rectangle, a 2D copy back.
  float *pitched;
  size_t pitch;
  CUDA(cudaMallocPitch(&pitched, &pitch, W * sizeof(float), H));
  CUDA(cudaMemcpy2DAsync(pitched, pitch, host.data(), W * sizeof(float), W * sizeof(float), H,
                         cudaMemcpyHostToDevice, s));
  bump<<<dim3(1, H), 64, 0, s>>>(pitched, pitch, W, H);
  CUDA(cudaMemset2DAsync(reinterpret_cast<char *>(pitched) + pitch * 2 + 4 * 4, pitch, 0, 3 * sizeof(float), 4, s));
  std::vector<float> back(W * H);
  CUDA(cudaMemcpy2DAsync(back.data(), W * sizeof(float), pitched, pitch, W * sizeof(float), H,
                         cudaMemcpyDeviceToHost, s));
  CUDA(cudaStreamSynchronize(s));
  auto want2d = [&](int x, int y, int rounds) {
    if (y >= 2 && y < 6 && x >= 4 && x < 7) return 0.0f;
    return host[y * W + x] + float(rounds);
  };
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      CHECK(back[y * W + x] == want2d(x, y, 1), "2D async (%d,%d): %g", x, y, back[y * W + x]);

  // The same sequence captured into a graph, launched twice.
  cudaGraph_t graph;
  CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CUDA(cudaMemcpy2DAsync(pitched, pitch, host.data(), W * sizeof(float), W * sizeof(float), H,
                         cudaMemcpyHostToDevice, s));
  bump<<<dim3(1, H), 64, 0, s>>>(pitched, pitch, W, H);
  bump<<<dim3(1, H), 64, 0, s>>>(pitched, pitch, W, H);
  CUDA(cudaMemset2DAsync(reinterpret_cast<char *>(pitched) + pitch * 2 + 4 * 4, pitch, 0, 3 * sizeof(float), 4, s));
  CUDA(cudaMemcpy2DAsync(back.data(), W * sizeof(float), pitched, pitch, W * sizeof(float), H,
                         cudaMemcpyDeviceToHost, s));
  CUDA(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int round = 0; round < 2; ++round) {
    std::fill(back.begin(), back.end(), -1.0f);
    CUDA(cudaGraphLaunch(exec, s));
    CUDA(cudaStreamSynchronize(s));
    int bad = 0;
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) bad += back[y * W + x] != want2d(x, y, 2);
    CHECK(bad == 0, "captured 2D copies, launch %d: %d wrong", round, bad);
  }

  // 3D: cudaMalloc3D, cudaMemcpy3DAsync in, cudaMemset3DAsync of a box, and a graph memcpy
  // node that copies the whole volume back.
  cudaPitchedPtr volume;
  cudaExtent extent = make_cudaExtent(W * sizeof(float), H, D);
  CUDA(cudaMalloc3D(&volume, extent));
  cudaMemcpy3DParms in = {};
  in.srcPtr = make_cudaPitchedPtr(host.data(), W * sizeof(float), W, H);
  in.dstPtr = volume;
  in.extent = extent;
  in.kind = cudaMemcpyHostToDevice;
  CUDA(cudaMemcpy3DAsync(&in, s));
  cudaPitchedPtr box = volume;
  box.ptr = static_cast<char *>(volume.ptr) + volume.pitch * H * 1 + volume.pitch * 3 + 8 * sizeof(float);
  CUDA(cudaMemset3DAsync(box, 0xff, make_cudaExtent(5 * sizeof(float), 2, 2), s));
  std::vector<float> back3(W * H * D, 0.0f);
  cudaMemcpy3DParms out = {};
  out.srcPtr = volume;
  out.dstPtr = make_cudaPitchedPtr(back3.data(), W * sizeof(float), W, H);
  out.extent = extent;
  out.kind = cudaMemcpyDeviceToHost;
  cudaGraph_t g3;
  CUDA(cudaGraphCreate(&g3, 0));
  cudaGraphNode_t copy3;
  CUDA(cudaGraphAddMemcpyNode(&copy3, g3, nullptr, 0, &out));
  cudaGraphExec_t e3;
  CUDA(cudaGraphInstantiate(&e3, g3, 0));
  CUDA(cudaGraphLaunch(e3, s));
  CUDA(cudaStreamSynchronize(s));
  int bad3 = 0;
  for (int z = 0; z < D; ++z)
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        bool in_box = z >= 1 && z < 3 && y >= 3 && y < 5 && x >= 8 && x < 13;
        float v = back3[(z * H + y) * W + x];
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        bad3 += in_box ? bits != 0xffffffffu : v != host[(z * H + y) * W + x];
      }
  CHECK(bad3 == 0, "3D copy, memset and graph copy node: %d wrong", bad3);

  // Arrays: host -> array (2D), array -> array, array -> host; the array's description.
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray_t a, b;
  CUDA(cudaMallocArray(&a, &desc, W, H));
  CUDA(cudaMallocArray(&b, &desc, W, H));
  CUDA(cudaMemcpy2DToArray(a, 0, 0, host.data(), W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy2DArrayToArray(b, 2 * sizeof(float), 1, a, 0, 0, (W - 2) * sizeof(float), H - 1));
  std::vector<float> from_array(W * H, -5.0f);
  CUDA(cudaMemcpy2DFromArray(from_array.data(), W * sizeof(float), b, 0, 0, W * sizeof(float), H, cudaMemcpyDeviceToHost));
  int bada = 0;
  for (int y = 1; y < H; ++y)
    for (int x = 2; x < W; ++x) bada += from_array[y * W + x] != host[(y - 1) * W + (x - 2)];
  CHECK(bada == 0, "array to array copy: %d wrong", bada);
  cudaChannelFormatDesc got_desc;
  cudaExtent got_extent;
  unsigned flags = 7;
  CUDA(cudaArrayGetInfo(&got_desc, &got_extent, &flags, a));
  CHECK(got_desc.x == 32 && got_desc.f == cudaChannelFormatKindFloat && got_extent.width == W &&
            got_extent.height == H && got_extent.depth == 0 && flags == 0,
        "array info: %d bits, %zux%zux%zu, flags %u", got_desc.x, got_extent.width, got_extent.height,
        got_extent.depth, flags);

  // Batched copies (CUDA 12.8): three copies of different kinds in one call.
  float *d1, *d2;
  CUDA(cudaMalloc(&d1, 4096));
  CUDA(cudaMalloc(&d2, 4096));
  std::vector<float> h1(1024), h2(1024, 0.0f);
  for (int i = 0; i < 1024; ++i) h1[i] = float(i) * 3.0f;
  CUDA(cudaMemcpy(d1, h1.data(), 4096, cudaMemcpyHostToDevice));
  void *dsts[3] = {d2, h2.data(), d2 + 512};
  const void *srcs[3] = {d1, d1 + 100, h1.data()};
  size_t sizes[3] = {2048, 400, 64};
  cudaMemcpyAttributes attr = {};
  attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
  size_t attr_index = 0;
  cudaError_t batch = cudaMemcpyBatchAsync(dsts, srcs, sizes, 3, &attr, &attr_index, 1, s);
  CHECK(batch == cudaSuccess, "cudaMemcpyBatchAsync: %s", cudaGetErrorName(batch));
  CUDA(cudaStreamSynchronize(s));
  std::vector<float> back_d2(1024);
  CUDA(cudaMemcpy(back_d2.data(), d2, 4096, cudaMemcpyDeviceToHost));
  int badb = 0;
  for (int i = 0; i < 512; ++i) badb += back_d2[i] != h1[i];
  for (int i = 0; i < 100; ++i) badb += h2[i] != h1[100 + i];
  for (int i = 0; i < 16; ++i) badb += back_d2[512 + i] != h1[i];
  CHECK(badb == 0, "batched copies: %d wrong", badb);

  CUDA(cudaGraphExecDestroy(exec));
  CUDA(cudaGraphExecDestroy(e3));
  CUDA(cudaGraphDestroy(graph));
  CUDA(cudaGraphDestroy(g3));
  CUDA(cudaFreeArray(a));
  CUDA(cudaFreeArray(b));
  CUDA(cudaStreamDestroy(s));
  return report("copies_capture");
}
