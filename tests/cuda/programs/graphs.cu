// CUDA graphs: stream capture of kernels, memcpys, memsets and a host function into a graph,
// instantiate and launch it several times, update a kernel node's parameters with
// cudaGraphExecKernelNodeSetParams and cudaGraphKernelNodeSetParams, a graph built by hand (cudaGraphAddKernelNode with
// dependencies, a child graph), cudaGraphGetNodes, and capture across two streams joined by events.
#include <vector>
#include "check.h"

__global__ void axpb(float *x, int n, float a, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = a * x[i] + b;
}
__global__ void add(float *dst, const float *src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] += src[i];
}
static int g_host_calls = 0;
static void CUDART_CB count_call(void *) { ++g_host_calls; }

int main() {
  const int n = 1000;
  float *x, *y, *host;
  CUDA(cudaMalloc(&x, n * 4));
  CUDA(cudaMalloc(&y, n * 4));
  CUDA(cudaMallocHost(&host, n * 4));
  for (int i = 0; i < n; ++i) host[i] = float(i);
  cudaStream_t s, s2;
  CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  // capture: x = host; x = 2x + 1; y = 0; y = 3y + 5 (on s2, forked); x += y; host = x
  cudaGraph_t graph;
  cudaEvent_t fork, join;
  CUDA(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CUDA(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus status;
  CUDA(cudaStreamIsCapturing(s, &status));
  CHECK(status == cudaStreamCaptureStatusActive, "capturing %d", int(status));
  CUDA(cudaMemcpyAsync(x, host, n * 4, cudaMemcpyHostToDevice, s));
  CUDA(cudaEventRecord(fork, s));
  CUDA(cudaStreamWaitEvent(s2, fork, 0));
  CUDA(cudaMemsetAsync(y, 0, n * 4, s2));
  axpb<<<(n + 127) / 128, 128, 0, s2>>>(y, n, 3.0f, 5.0f);
  CUDA(cudaEventRecord(join, s2));
  axpb<<<(n + 127) / 128, 128, 0, s>>>(x, n, 2.0f, 1.0f);
  CUDA(cudaStreamWaitEvent(s, join, 0));
  add<<<(n + 127) / 128, 128, 0, s>>>(x, y, n);
  CUDA(cudaLaunchHostFunc(s, count_call, nullptr));
  CUDA(cudaMemcpyAsync(host, x, n * 4, cudaMemcpyDeviceToHost, s));
  CUDA(cudaStreamEndCapture(s, &graph));
  size_t nodes = 0;
  CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
  CHECK(nodes == 7, "captured nodes %zu", nodes);
  cudaGraphExec_t exec;
  CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int iter = 0; iter < 3; ++iter) {
    CUDA(cudaGraphLaunch(exec, s));
    CUDA(cudaStreamSynchronize(s));
    // each launch starts from host, which holds the previous result
  }
  std::vector<double> want(n);
  for (int i = 0; i < n; ++i) {
    double v = i;
    for (int iter = 0; iter < 3; ++iter) v = 2 * v + 1 + 5;
    want[i] = v;
  }
  for (int i = 0; i < n; ++i) CHECK(host[i] == float(want[i]), "captured graph [%d] %g vs %g", i, host[i], want[i]);
  CHECK(g_host_calls == 3, "host node ran %d times", g_host_calls);

  // a graph built node by node: k1 (x = 1*x + 2) -> k2 (x = 10x + 0), k1 -> child graph (y = 0*y + 7)
  {
    cudaGraph_t g, child;
    CUDA(cudaGraphCreate(&g, 0));
    CUDA(cudaGraphCreate(&child, 0));
    int nn = n;
    float a1 = 1, b1 = 2, a2 = 10, b2 = 0, a3 = 0, b3 = 7;
    void *args1[] = {&x, &nn, &a1, &b1};
    void *args2[] = {&x, &nn, &a2, &b2};
    void *args3[] = {&y, &nn, &a3, &b3};
    cudaKernelNodeParams p = {};
    p.func = (void *)axpb;
    p.gridDim = dim3((n + 255) / 256);
    p.blockDim = dim3(256);
    p.kernelParams = args1;
    cudaGraphNode_t k1, k2, kc, childnode;
    CUDA(cudaGraphAddKernelNode(&k1, g, nullptr, 0, &p));
    p.kernelParams = args2;
    CUDA(cudaGraphAddKernelNode(&k2, g, &k1, 1, &p));
    p.kernelParams = args3;
    CUDA(cudaGraphAddKernelNode(&kc, child, nullptr, 0, &p));
    CUDA(cudaGraphAddChildGraphNode(&childnode, g, &k1, 1, child));
    cudaGraphExec_t e;
    CUDA(cudaGraphInstantiate(&e, g, 0));
    for (int i = 0; i < n; ++i) host[i] = 1.0f;
    CUDA(cudaMemcpy(x, host, n * 4, cudaMemcpyHostToDevice));
    CUDA(cudaGraphLaunch(e, s));
    CUDA(cudaStreamSynchronize(s));
    CUDA(cudaMemcpy(host, x, n * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) CHECK(host[i] == 30.0f, "built graph x[%d] %g", i, host[i]);
    CUDA(cudaMemcpy(host, y, n * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) CHECK(host[i] == 7.0f, "child graph y[%d] %g", i, host[i]);
    // change k2's parameters in the executable graph: x = -1 * x + 4
    float a4 = -1, b4 = 4;
    void *args4[] = {&x, &nn, &a4, &b4};
    p.kernelParams = args4;
    CUDA(cudaGraphExecKernelNodeSetParams(e, k2, &p));
    CUDA(cudaGraphLaunch(e, s));
    CUDA(cudaStreamSynchronize(s));
    CUDA(cudaMemcpy(host, x, n * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) CHECK(host[i] == -28.0f, "updated graph x[%d] %g", i, host[i]);
    CUDA(cudaGraphExecDestroy(e));
    // change k1 in the graph itself (x = 1 * x + 5), then instantiate it again
    cudaGraphNodeType type;
    CUDA(cudaGraphNodeGetType(k1, &type));
    CHECK(type == cudaGraphNodeTypeKernel, "node type %d", int(type));
    float b5 = 5;
    void *args5[] = {&x, &nn, &a1, &b5};
    p.kernelParams = args5;
    CUDA(cudaGraphKernelNodeSetParams(k1, &p));
    CUDA(cudaGraphInstantiate(&e, g, 0));
    for (int i = 0; i < n; ++i) host[i] = 1.0f;
    CUDA(cudaMemcpy(x, host, n * 4, cudaMemcpyHostToDevice));
    CUDA(cudaGraphLaunch(e, s));
    CUDA(cudaStreamSynchronize(s));
    CUDA(cudaMemcpy(host, x, n * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) CHECK(host[i] == 60.0f, "graph node set params x[%d] %g", i, host[i]);
    CUDA(cudaGraphExecDestroy(e));
    CUDA(cudaGraphDestroy(g));
    CUDA(cudaGraphDestroy(child));
  }
  CUDA(cudaGraphExecDestroy(exec));
  CUDA(cudaGraphDestroy(graph));
  return report("graphs");
}
