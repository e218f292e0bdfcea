// A CUDA graph's topology and node parameters through the runtime: kernel, memset, host,
// empty and 1D-copy nodes with dependencies given at creation and added afterwards
// (cudaGraphAddDependencies: a node added later runs first), cudaGraphGetEdges,
// cudaGraphGetRootNodes, cudaGraphNodeGetDependencies/DependentNodes,
// cudaGraphRemoveDependencies, cudaGraphDestroyNode, the Get/Set of kernel, memset and host
// node parameters (in the graph and, for memset and host nodes, in the executable),
// cudaGraphNodeSetEnabled/GetEnabled, cudaGraphExecGetFlags, cudaGraphNodeFindInClone and
// cudaGraphNodeGetContainingGraph, user objects (cudaUserObjectCreate and
// cudaGraphRetainUserObject: the destructor runs once graph and executable are gone), and
// cudaGraphDebugDotPrint. The CUDA Runtime API's "Graph Management" section describes each.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <set>
#include <utility>
#include <vector>
#include "check.h"

__global__ void scale(int *data, int n, int factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}
__global__ void add_value(int *data, int n, int value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += value;
}

static std::vector<int> host_log;
static void CUDART_CB log_value(void *p) { host_log.push_back(int(reinterpret_cast<size_t>(p))); }
static int destroyed = 0;
static void CUDART_CB on_destroy(void *p) { destroyed += *static_cast<int *>(p); }

int main() {
  const int n = 256;
  int *d;
  CUDA(cudaMalloc(&d, n * sizeof(int)));
  std::vector<int> host(n);
  for (int i = 0; i < n; ++i) host[i] = i;
  int *pinned;
  CUDA(cudaMallocHost(&pinned, n * sizeof(int)));

  cudaGraph_t graph;
  CUDA(cudaGraphCreate(&graph, 0));
  // memset(d, 0) -> scale(x3)?  No: the graph is  copy -> scale -> add -> copy back, with the
  // copy added *after* scale and tied in front of it by cudaGraphAddDependencies.
  int factor = 3, value = 5;
  void *scale_args[] = {&d, (void *)&n, &factor};
  cudaKernelNodeParams kp = {};
  kp.func = (void *)scale;
  kp.gridDim = dim3((n + 63) / 64);
  kp.blockDim = dim3(64);
  kp.kernelParams = scale_args;
  cudaGraphNode_t scale_node, add_node, copy_in, copy_out, host_node, empty_node, memset_node;
  CUDA(cudaGraphAddKernelNode(&scale_node, graph, nullptr, 0, &kp));
  void *add_args[] = {&d, (void *)&n, &value};
  kp.func = (void *)add_value;
  kp.kernelParams = add_args;
  CUDA(cudaGraphAddKernelNode(&add_node, graph, &scale_node, 1, &kp));
  CUDA(cudaGraphAddMemcpyNode1D(&copy_in, graph, nullptr, 0, d, host.data(), n * sizeof(int),
                                cudaMemcpyHostToDevice));
  CUDA(cudaGraphAddDependencies(graph, &copy_in, &scale_node, nullptr, 1));
  CUDA(cudaGraphAddMemcpyNode1D(&copy_out, graph, &add_node, 1, pinned, d, n * sizeof(int),
                                cudaMemcpyDeviceToHost));
  cudaHostNodeParams hp = {log_value, (void *)size_t(1)};
  CUDA(cudaGraphAddHostNode(&host_node, graph, &copy_out, 1, &hp));
  CUDA(cudaGraphAddEmptyNode(&empty_node, graph, &host_node, 1));
  // A memset node of a scratch buffer, independent of the others (a second root).
  int *scratch;
  CUDA(cudaMalloc(&scratch, 64 * sizeof(int)));
  cudaMemsetParams mp = {};
  mp.dst = scratch;
  mp.value = 0x01020304;
  mp.elementSize = 4;
  mp.width = 64;
  mp.height = 1;
  CUDA(cudaGraphAddMemsetNode(&memset_node, graph, nullptr, 0, &mp));

  size_t count = 0;
  CUDA(cudaGraphGetNodes(graph, nullptr, &count));
  CHECK(count == 7, "nodes: %zu", count);
  CUDA(cudaGraphGetRootNodes(graph, nullptr, &count));
  CHECK(count == 2, "root nodes: %zu", count);
  std::vector<cudaGraphNode_t> roots(count);
  CUDA(cudaGraphGetRootNodes(graph, roots.data(), &count));
  std::set<cudaGraphNode_t> root_set(roots.begin(), roots.end());
  CHECK(root_set == std::set<cudaGraphNode_t>({copy_in, memset_node}), "the roots are the copy and the memset");
  CUDA(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &count));
  CHECK(count == 5, "edges: %zu", count);
  std::vector<cudaGraphNode_t> from(count), to(count);
  CUDA(cudaGraphGetEdges(graph, from.data(), to.data(), nullptr, &count));
  std::set<std::pair<cudaGraphNode_t, cudaGraphNode_t>> edges;
  for (size_t i = 0; i < count; ++i) edges.insert({from[i], to[i]});
  std::set<std::pair<cudaGraphNode_t, cudaGraphNode_t>> want_edges = {
      {copy_in, scale_node}, {scale_node, add_node}, {add_node, copy_out}, {copy_out, host_node},
      {host_node, empty_node}};
  CHECK(edges == want_edges, "the edges are the chain copy -> scale -> add -> copy -> host -> empty");
  cudaGraphNode_t deps[4];
  count = 4;
  CUDA(cudaGraphNodeGetDependencies(scale_node, deps, nullptr, &count));
  CHECK(count == 1 && deps[0] == copy_in, "scale depends on the copy (%zu)", count);
  count = 4;
  CUDA(cudaGraphNodeGetDependentNodes(add_node, deps, nullptr, &count));
  CHECK(count == 1 && deps[0] == copy_out, "the copy back depends on add (%zu)", count);

  // Node parameters read back.
  cudaKernelNodeParams got = {};
  CUDA(cudaGraphKernelNodeGetParams(add_node, &got));
  CHECK(got.func == (void *)add_value && got.gridDim.x == 4 && got.blockDim.x == 64,
        "kernel node params: grid %u block %u", got.gridDim.x, got.blockDim.x);
  CHECK(got.kernelParams && *static_cast<int *>(got.kernelParams[2]) == 5, "kernel node argument");
  cudaMemsetParams gm = {};
  CUDA(cudaGraphMemsetNodeGetParams(memset_node, &gm));
  CHECK(gm.dst == scratch && gm.value == 0x01020304u && gm.elementSize == 4 && gm.width == 64,
        "memset params: value %x width %zu", gm.value, gm.width);
  cudaHostNodeParams gh = {};
  CUDA(cudaGraphHostNodeGetParams(host_node, &gh));
  CHECK(gh.fn == log_value && gh.userData == (void *)size_t(1), "host node params");
  cudaGraph_t owner;
  CUDA(cudaGraphNodeGetContainingGraph(add_node, &owner));
  CHECK(owner == graph, "the containing graph");

  // A user object owned by the graph (one reference moved to it).
  static int weight = 10;
  cudaUserObject_t object;
  CUDA(cudaUserObjectCreate(&object, &weight, on_destroy, 1, cudaUserObjectNoDestructorSync));
  CUDA(cudaGraphRetainUserObject(graph, object, 1, cudaGraphUserObjectMove));

  cudaGraphExec_t exec;
  CUDA(cudaGraphInstantiateWithFlags(&exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch));
  unsigned long long flags = 0;
  CUDA(cudaGraphExecGetFlags(exec, &flags));
  CHECK(flags == cudaGraphInstantiateFlagAutoFreeOnLaunch, "exec flags %llu", flags);
  cudaStream_t stream;
  CUDA(cudaStreamCreate(&stream));
  CUDA(cudaGraphLaunch(exec, stream));
  CUDA(cudaStreamSynchronize(stream));
  for (int i = 0; i < n; ++i) CHECK(pinned[i] == i * 3 + 5, "first launch [%d] = %d", i, pinned[i]);
  std::vector<int> s(64);
  CUDA(cudaMemcpy(s.data(), scratch, 64 * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(s[0] == 0x01020304 && s[63] == 0x01020304, "memset node: %x", s[0]);
  CHECK(host_log == std::vector<int>({1}), "host node ran once (%zu)", host_log.size());

  // Change the executable: the host node's argument, the memset's value; disable add.
  hp.userData = (void *)size_t(2);
  CUDA(cudaGraphExecHostNodeSetParams(exec, host_node, &hp));
  mp.value = 7;
  CUDA(cudaGraphExecMemsetNodeSetParams(exec, memset_node, &mp));
  CUDA(cudaGraphNodeSetEnabled(exec, add_node, 0));
  unsigned enabled = 1;
  CUDA(cudaGraphNodeGetEnabled(exec, add_node, &enabled));
  CHECK(enabled == 0, "add is disabled");
  CUDA(cudaGraphLaunch(exec, stream));
  CUDA(cudaStreamSynchronize(stream));
  for (int i = 0; i < n; ++i) CHECK(pinned[i] == i * 3, "second launch (add disabled) [%d] = %d", i, pinned[i]);
  CUDA(cudaMemcpy(s.data(), scratch, 64 * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(s[5] == 7, "memset node after the update: %x", s[5]);
  CHECK(host_log == std::vector<int>({1, 2}), "host node's new argument");
  // The graph itself is unchanged by the executable's updates.
  CUDA(cudaGraphMemsetNodeGetParams(memset_node, &gm));
  CHECK(gm.value == 0x01020304u, "the graph's memset node kept its value");

  // Clone, find the clone's node, edit the clone's topology.
  cudaGraph_t clone;
  CUDA(cudaGraphClone(&clone, graph));
  cudaGraphNode_t add_in_clone, empty_in_clone, memset_in_clone;
  CUDA(cudaGraphNodeFindInClone(&add_in_clone, add_node, clone));
  CUDA(cudaGraphNodeFindInClone(&empty_in_clone, empty_node, clone));
  CUDA(cudaGraphNodeFindInClone(&memset_in_clone, memset_node, clone));
  CUDA(cudaGraphNodeGetContainingGraph(add_in_clone, &owner));
  CHECK(owner == clone, "the clone's node belongs to the clone");
  CUDA(cudaGraphDestroyNode(empty_in_clone));
  CUDA(cudaGraphDestroyNode(memset_in_clone));
  CUDA(cudaGraphGetNodes(clone, nullptr, &count));
  CHECK(count == 5, "the clone has 5 nodes after destroying 2 (%zu)", count);
  CUDA(cudaGraphGetNodes(graph, nullptr, &count));
  CHECK(count == 7, "the original keeps 7 (%zu)", count);
  // Cut scale -> add in the clone: add becomes a root, runs in any order relative to scale;
  // cut the copy back off too and check the edge count.
  cudaGraphNode_t scale_in_clone;
  CUDA(cudaGraphNodeFindInClone(&scale_in_clone, scale_node, clone));
  CUDA(cudaGraphRemoveDependencies(clone, &scale_in_clone, &add_in_clone, nullptr, 1));
  CUDA(cudaGraphGetEdges(clone, nullptr, nullptr, nullptr, &count));
  CHECK(count == 3, "the clone's edges after the removal: %zu", count);
  CUDA(cudaGraphGetRootNodes(clone, nullptr, &count));
  CHECK(count == 2, "the clone's roots: %zu", count);
  // An edge that is not there cannot be removed.
  cudaError_t e = cudaGraphRemoveDependencies(clone, &scale_in_clone, &add_in_clone, nullptr, 1);
  CHECK(e == cudaErrorInvalidValue, "removing a missing edge: %s", cudaGetErrorName(e));
  cudaGetLastError();

  // The DOT description of the graph.
  const char *dot = "graph_topology.dot";
  CUDA(cudaGraphDebugDotPrint(graph, dot, cudaGraphDebugDotFlagsVerbose));
  FILE *f = std::fopen(dot, "r");
  CHECK(f != nullptr, "the DOT file exists");
  if (f) {
    char text[65536];
    size_t len = std::fread(text, 1, sizeof(text) - 1, f);
    text[len] = 0;
    std::fclose(f);
    std::remove(dot);
    CHECK(std::strstr(text, "digraph") != nullptr, "a digraph");
    int arrows = 0;
    for (const char *p = text; (p = std::strstr(p, "->")); p += 2) ++arrows;
    CHECK(arrows == 5, "five edges in the DOT file (%d)", arrows);
  }

  CUDA(cudaGraphDestroy(clone));
  CHECK(destroyed == 0, "the user object lives while the graph does");
  CUDA(cudaGraphDestroy(graph));
  CUDA(cudaGraphExecDestroy(exec));
  // The destructor runs asynchronously once the last reference is gone ("on an internal
  // thread"): wait for it up to a second.
  CUDA(cudaDeviceSynchronize());
  for (int i = 0; i < 100 && destroyed == 0; ++i) usleep(10000);
  CHECK(destroyed == 10, "the user object's destructor ran once (%d)", destroyed);
  CUDA(cudaStreamDestroy(stream));
  CUDA(cudaFreeHost(pinned));
  return report("graph_topology");
}
