// Stream capture across streams and what it records: a capture that forks from one stream to
// two others through events and joins back, checked through the captured graph's topology
// (cudaGraphGetNodes, cudaGraphGetRootNodes, cudaGraphGetEdges: the DAG the streams' order
// describes), cudaStreamGetCaptureInfo's dependency set during the capture, a node added by hand
// with cudaGraphAddKernelNode into the capturing graph and made the stream's dependency with
// cudaStreamUpdateCaptureDependencies, and the graph launched twice (CUDA C++ Programming Guide,
// "CUDA Graphs", "Cross-stream Dependencies and Events").
#include <map>
#include <set>
#include <vector>
#include "check.h"

__global__ void fill(float *x, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v;
}
__global__ void scale(float *x, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
__global__ void combine(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + 2.0f * b[i] + c[i];
}

int main() {
  const int n = 1024;
  float *a, *b, *c;
  CUDA(cudaMalloc(&a, n * 4));
  CUDA(cudaMalloc(&b, n * 4));
  CUDA(cudaMalloc(&c, n * 4));
  cudaStream_t s1, s2, s3;
  CUDA(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CUDA(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CUDA(cudaStreamCreateWithFlags(&s3, cudaStreamNonBlocking));
  cudaEvent_t fork, joined2, joined3;
  CUDA(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CUDA(cudaEventCreateWithFlags(&joined2, cudaEventDisableTiming));
  CUDA(cudaEventCreateWithFlags(&joined3, cudaEventDisableTiming));

  CUDA(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  fill<<<n / 256, 256, 0, s1>>>(c, n, 1.0f);                 // node F (root)
  CUDA(cudaEventRecord(fork, s1));
  CUDA(cudaStreamWaitEvent(s2, fork, 0));
  CUDA(cudaStreamWaitEvent(s3, fork, 0));
  scale<<<n / 256, 256, 0, s1>>>(c, n, 3.0f);                // X after F, on the origin stream
  fill<<<n / 256, 256, 0, s2>>>(a, n, 3.0f);                 // A1 after F
  scale<<<n / 256, 256, 0, s2>>>(a, n, 2.0f);                // A2 after A1
  fill<<<n / 256, 256, 0, s3>>>(b, n, 5.0f);                 // B after F
  cudaStreamCaptureStatus status;
  unsigned long long id = 0;
  cudaGraph_t capturing = nullptr;
  const cudaGraphNode_t *deps = nullptr;
  const cudaGraphEdgeData *edge_data = nullptr;
  size_t ndeps = 0;
  CUDA(cudaStreamGetCaptureInfo(s3, &status, &id, &capturing, &deps, &edge_data, &ndeps));
  CHECK(status == cudaStreamCaptureStatusActive && capturing != nullptr, "s3 is capturing");
  CHECK(ndeps == 1, "s3's capture dependencies: %zu (its last kernel)", ndeps);
  // A node added by hand to the capturing graph after s3's kernel, made s3's dependency.
  cudaGraphNode_t manual = nullptr;
  if (ndeps == 1) {
    float factor = 0.5f;
    int count = n;
    void *args[] = {&b, &count, &factor};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)scale;
    kp.gridDim = dim3(n / 256);
    kp.blockDim = dim3(256);
    kp.kernelParams = args;
    CUDA(cudaGraphAddKernelNode(&manual, capturing, deps, 1, &kp));  // M after B
    CUDA(cudaStreamUpdateCaptureDependencies(s3, &manual, nullptr, 1, cudaStreamSetCaptureDependencies));
  }
  CUDA(cudaEventRecord(joined2, s2));
  CUDA(cudaEventRecord(joined3, s3));
  CUDA(cudaStreamWaitEvent(s1, joined2, 0));
  CUDA(cudaStreamWaitEvent(s1, joined3, 0));
  combine<<<n / 256, 256, 0, s1>>>(a, b, c, n);              // C after X, A2 and M
  cudaGraph_t graph;
  CUDA(cudaStreamEndCapture(s1, &graph));

  size_t count = 0;
  CUDA(cudaGraphGetNodes(graph, nullptr, &count));
  CHECK(count == 7, "captured nodes: %zu", count);
  std::vector<cudaGraphNode_t> nodes(count);
  CUDA(cudaGraphGetNodes(graph, nodes.data(), &count));
  CUDA(cudaGraphGetRootNodes(graph, nullptr, &count));
  CHECK(count == 1, "one root (the first fill): %zu", count);
  CUDA(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &count));
  CHECK(count == 8, "edges F->A1, A1->A2, F->B, B->M, F->X, X->C, A2->C, M->C: %zu", count);
  std::vector<cudaGraphNode_t> from(count), to(count);
  CUDA(cudaGraphGetEdges(graph, from.data(), to.data(), nullptr, &count));
  // In- and out-degrees: F 0/3, A1 1/1, A2 1/1, B 1/1, M 1/1, X 1/1, C 3/0.
  std::map<cudaGraphNode_t, int> in, out;
  for (size_t e = 0; e < count; ++e) { ++out[from[e]]; ++in[to[e]]; }
  std::multiset<std::pair<int, int>> degrees;
  for (cudaGraphNode_t node : nodes) degrees.insert({in[node], out[node]});
  std::multiset<std::pair<int, int>> want = {{0, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {3, 0}};
  CHECK(degrees == want, "the captured DAG's degrees");
  if (manual) {
    CHECK(in[manual] == 1 && out[manual] == 1, "the manual node sits between B and C");
  }

  cudaGraphExec_t exec;
  CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int round = 0; round < 2; ++round) {
    CUDA(cudaGraphLaunch(exec, s1));
    CUDA(cudaStreamSynchronize(s1));
    std::vector<float> got(n);
    CUDA(cudaMemcpy(got.data(), c, n * 4, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += got[i] != 6.0f + 2.0f * 2.5f + 3.0f;
    CHECK(bad == 0, "launch %d: %d wrong (c[0] = %g)", round, bad, got[0]);
  }
  CUDA(cudaGraphExecDestroy(exec));
  CUDA(cudaGraphDestroy(graph));
  return report("capture_fork_join");
}
