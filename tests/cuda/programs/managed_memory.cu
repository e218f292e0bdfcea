// Unified memory: cudaMallocManaged arrays and structs written by the host and the kernel in turn,
// cudaMemPrefetchAsync to the device and back to the host (CUDA 13's cudaMemLocation form),
// cudaMemAdvise (read mostly, preferred location, accessed by), cudaMemRangeGetAttribute,
// __managed__ variables, cudaStreamAttachMemAsync, and a linked list built on the host and
// walked on the device.
#include <vector>
#include "check.h"

struct Node {
  int value;
  Node *next;
};

__managed__ int g_counter = 5;
__managed__ float g_table[64];

__global__ void square_all(int *a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) a[i] = a[i] * a[i];
}
__global__ void walk(const Node *head, int *sum) {
  int s = 0;
  for (const Node *p = head; p; p = p->next) s += p->value;
  *sum = s;
  atomicAdd(&g_counter, 10);
  for (int i = 0; i < 64; ++i) g_table[i] *= 2.0f;
}

int main() {
  int dev = 0, managed = 0, concurrent = 0;
  CUDA(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, dev));
  CUDA(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, dev));
  CHECK(managed == 1, "managed memory attribute %d", managed);
  const int n = 100000;
  int *a;
  CUDA(cudaMallocManaged(&a, n * sizeof(int)));
  for (int i = 0; i < n; ++i) a[i] = i % 1000;
  cudaMemLocation on_device = {cudaMemLocationTypeDevice, dev};
  cudaMemLocation on_host = {cudaMemLocationTypeHost, 0};
  CUDA(cudaMemAdvise(a, n * sizeof(int), cudaMemAdviseSetPreferredLocation, on_device));
  CUDA(cudaMemAdvise(a, n * sizeof(int), cudaMemAdviseSetAccessedBy, on_device));
  cudaStream_t s;
  CUDA(cudaStreamCreate(&s));
  CUDA(cudaMemPrefetchAsync(a, n * sizeof(int), on_device, 0, s));
  square_all<<<64, 256, 0, s>>>(a, n);
  CUDA(cudaMemPrefetchAsync(a, n * sizeof(int), on_host, 0, s));
  CUDA(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i) CHECK(a[i] == (i % 1000) * (i % 1000), "squared [%d] %d", i, a[i]);
  int preferred = -7;
  CUDA(cudaMemRangeGetAttribute(&preferred, sizeof(preferred), cudaMemRangeAttributePreferredLocation, a,
                                n * sizeof(int)));
  CHECK(preferred == dev, "preferred location %d", preferred);
  // host writes again, the device reads them after a synchronize
  for (int i = 0; i < n; ++i) a[i] = -i;
  CUDA(cudaMemAdvise(a, n * sizeof(int), cudaMemAdviseSetReadMostly, on_device));
  square_all<<<64, 256>>>(a, 1000);
  CUDA(cudaDeviceSynchronize());
  for (int i = 0; i < 1000; ++i) CHECK(a[i] == i * i, "second pass [%d] %d", i, a[i]);
  CHECK(a[1000] == -1000, "untouched [%d]", 1000);
  // a linked list in managed memory
  Node *nodes;
  CUDA(cudaMallocManaged(&nodes, 50 * sizeof(Node)));
  int want = 0;
  for (int i = 0; i < 50; ++i) {
    nodes[i].value = i * 3 - 20;
    nodes[i].next = i + 1 < 50 ? &nodes[(i * 7 + 1) % 50 == 0 ? i + 1 : i + 1] : nullptr;
    want += i * 3 - 20;
  }
  int *sum;
  CUDA(cudaMallocManaged(&sum, sizeof(int), cudaMemAttachHost));
  CUDA(cudaStreamAttachMemAsync(s, sum, 0, cudaMemAttachGlobal));
  for (int i = 0; i < 64; ++i) g_table[i] = float(i);
  walk<<<1, 1, 0, s>>>(nodes, sum);
  CUDA(cudaStreamSynchronize(s));
  CHECK(*sum == want, "list sum %d vs %d", *sum, want);
  CHECK(g_counter == 15, "__managed__ int %d", g_counter);
  for (int i = 0; i < 64; ++i) CHECK(g_table[i] == 2.0f * i, "__managed__ table [%d]", i);
  cudaPointerAttributes attr;
  CUDA(cudaPointerGetAttributes(&attr, a));
  CHECK(attr.type == cudaMemoryTypeManaged, "pointer type %d", int(attr.type));
  CUDA(cudaFree(a));
  CUDA(cudaFree(nodes));
  CUDA(cudaFree(sum));
  return report("managed_memory");
}
