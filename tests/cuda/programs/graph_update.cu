// The CUDA-graph pattern of iterative solvers and ML frameworks: capture a step (kernels,
// a memset, a device-to-device copy) from a stream with cudaStreamBeginCapture, instantiate it
// once, then each iteration re-capture with new parameters and try cudaGraphExecUpdate; if the
// update is refused, re-instantiate. Also cudaStreamIsCapturing / cudaStreamGetCaptureInfo
// during capture, cudaThreadExchangeStreamCaptureMode, relaxed capture mode, cudaGraphUpload,
// cudaGraphInstantiateWithFlags, cudaGraphClone, cudaGraphGetNodes counts, a topology change
// that cudaGraphExecUpdate must refuse (with its result info), and cudaGraphLaunch in a loop.
#include <vector>
#include "check.h"

constexpr int N = 4096;

__global__ void scale_add(float *x, const float *y, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = a * x[i] + y[i];
}
__global__ void add_const(float *x, int n, float c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += c;
}

void capture_step(cudaStream_t s, float *x, float *y, float *tmp, float a, float c, bool extra, cudaGraph_t *graph) {
  CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus status;
  CUDA(cudaStreamIsCapturing(s, &status));
  CHECK(status == cudaStreamCaptureStatusActive, "capturing: %d", int(status));
  unsigned long long id = 0;
  CUDA(cudaStreamGetCaptureInfo(s, &status, &id));
  CHECK(status == cudaStreamCaptureStatusActive && id != 0, "capture info %d id %llu", int(status), id);
  CUDA(cudaMemsetAsync(tmp, 0, N * sizeof(float), s));
  add_const<<<N / 256, 256, 0, s>>>(tmp, N, c);
  scale_add<<<N / 256, 256, 0, s>>>(x, tmp, N, a);
  if (extra) add_const<<<N / 256, 256, 0, s>>>(x, N, 1.0f);
  CUDA(cudaMemcpyAsync(y, x, N * sizeof(float), cudaMemcpyDeviceToDevice, s));
  CUDA(cudaStreamEndCapture(s, graph));
}

int main() {
  float *x, *y, *tmp;
  CUDA(cudaMalloc(&x, N * 4));
  CUDA(cudaMalloc(&y, N * 4));
  CUDA(cudaMalloc(&tmp, N * 4));
  std::vector<float> hx(N);
  for (int i = 0; i < N; ++i) hx[i] = float(i % 64);
  CUDA(cudaMemcpy(x, hx.data(), N * 4, cudaMemcpyHostToDevice));
  cudaStream_t s;
  CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaStreamCaptureStatus idle;
  CUDA(cudaStreamIsCapturing(s, &idle));
  CHECK(idle == cudaStreamCaptureStatusNone, "not capturing before: %d", int(idle));

  cudaGraph_t graph;
  capture_step(s, x, y, tmp, 1.0f, 0.0f, false, &graph);
  size_t nodes = 0;
  CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
  CHECK(nodes == 4, "captured nodes %zu", nodes);
  cudaGraphExec_t exec;
  CUDA(cudaGraphInstantiateWithFlags(&exec, graph, 0));
  CUDA(cudaGraphUpload(exec, s));
  std::vector<double> ref(hx.begin(), hx.end());
  int updates = 0, reinstantiations = 0;
  bool exec_extra = false;  // the executable graph's shape
  for (int it = 0; it < 6; ++it) {
    float a = 0.5f + 0.25f * it, c = float(it);
    bool extra = it == 4;  // one iteration has an extra kernel: a different topology, twice
    cudaGraph_t next;
    capture_step(s, x, y, tmp, a, c, extra, &next);
    cudaGraphExecUpdateResultInfo info;
    cudaError_t e = cudaGraphExecUpdate(exec, next, &info);
    if (e == cudaSuccess) {
      CHECK(extra == exec_extra, "iteration %d: an update across a change of topology succeeded", it);
      ++updates;
      CHECK(info.result == cudaGraphExecUpdateSuccess, "update result %d", int(info.result));
    } else {
      cudaGetLastError();
      CHECK(extra != exec_extra, "iteration %d: update refused (%s, result %d)", it, cudaGetErrorName(e), int(info.result));
      CHECK(info.result == cudaGraphExecUpdateErrorTopologyChanged, "refusal reason %d", int(info.result));
      CUDA(cudaGraphExecDestroy(exec));
      CUDA(cudaGraphInstantiate(&exec, next, 0));
      exec_extra = extra;
      ++reinstantiations;
    }
    CUDA(cudaGraphDestroy(graph));
    graph = next;
    CUDA(cudaGraphLaunch(exec, s));
    for (int i = 0; i < N; ++i) ref[i] = double(a) * ref[i] + c + (extra ? 1.0 : 0.0);
  }
  CUDA(cudaStreamSynchronize(s));
  CHECK(updates == 4 && reinstantiations == 2, "updates %d, re-instantiations %d", updates, reinstantiations);
  std::vector<float> got(N), got_y(N);
  CUDA(cudaMemcpy(got.data(), x, N * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(got_y.data(), y, N * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < N; ++i) bad += !close_to(got[i], ref[i], 1e-5) || got_y[i] != got[i];
  CHECK(bad == 0, "%d wrong (x[5] %g vs %g)", bad, got[5], ref[5]);

  // a clone launched three times; the relaxed capture mode lets this thread make unsafe calls
  cudaGraph_t clone;
  CUDA(cudaGraphClone(&clone, graph));
  cudaGraphExec_t exec2;
  CUDA(cudaGraphInstantiate(&exec2, clone, 0));
  for (int k = 0; k < 3; ++k) CUDA(cudaGraphLaunch(exec2, s));
  CUDA(cudaStreamSynchronize(s));
  const float a_last = 0.5f + 0.25f * 5, c_last = 5.0f;
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < N; ++i) ref[i] = double(a_last) * ref[i] + c_last;
  CUDA(cudaMemcpy(got.data(), x, N * 4, cudaMemcpyDeviceToHost));
  bad = 0;
  for (int i = 0; i < N; ++i) bad += !close_to(got[i], ref[i], 1e-5);
  CHECK(bad == 0, "clone: %d wrong (x[5] %g vs %g)", bad, got[5], ref[5]);
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  CUDA(cudaThreadExchangeStreamCaptureMode(&mode));
  CHECK(mode == cudaStreamCaptureModeGlobal, "previous capture mode %d", int(mode));
  CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
  void *scratch = nullptr;
  CUDA(cudaMalloc(&scratch, 256));  // allowed while capturing in relaxed mode
  add_const<<<N / 256, 256, 0, s>>>(x, N, -1.0f);
  cudaGraph_t relaxed;
  CUDA(cudaStreamEndCapture(s, &relaxed));
  CUDA(cudaFree(scratch));
  CUDA(cudaThreadExchangeStreamCaptureMode(&mode));
  cudaGraphExec_t exec3;
  CUDA(cudaGraphInstantiate(&exec3, relaxed, 0));
  CUDA(cudaGraphLaunch(exec3, s));
  CUDA(cudaStreamSynchronize(s));
  CUDA(cudaMemcpy(got.data(), x, N * 4, cudaMemcpyDeviceToHost));
  bad = 0;
  for (int i = 0; i < N; ++i) bad += !close_to(got[i], ref[i] - 1.0, 1e-5);
  CHECK(bad == 0, "relaxed capture: %d wrong", bad);
  CUDA(cudaGraphExecDestroy(exec));
  CUDA(cudaGraphExecDestroy(exec2));
  CUDA(cudaGraphExecDestroy(exec3));
  CUDA(cudaGraphDestroy(graph));
  CUDA(cudaGraphDestroy(clone));
  CUDA(cudaGraphDestroy(relaxed));
  CUDA(cudaStreamDestroy(s));
  return report("graph_update");
}
