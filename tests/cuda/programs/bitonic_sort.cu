// Bitonic sort as the cuda-samples sortingNetworks code does it: each block sorts 1024 key/value
// pairs in shared memory (ascending and descending halves so that neighbours form bitonic
// sequences), then merge steps too wide for a block run as one global kernel launch per stride,
// and the last strides again in shared memory. Also an odd-even transposition sort of a small
// array in one warp with __shfl_xor_sync. Checked against std::stable_sort-free comparisons:
// keys sorted, and the (key, value) pairs a permutation of the input.
#include <algorithm>
#include <vector>
#include "check.h"

constexpr int SHARED = 1024;  // elements sorted by one block (512 threads, two each)
constexpr int N = 1 << 14;

__device__ inline void cmp_swap(unsigned &ka, unsigned &va, unsigned &kb, unsigned &vb, bool dir) {
  if ((ka > kb) == dir) {
    unsigned t = ka; ka = kb; kb = t;
    t = va; va = vb; vb = t;
  }
}

// Sorts each SHARED-element chunk, ascending for even chunks and descending for odd ones.
__global__ void sort_shared(unsigned *keys, unsigned *vals) {
  __shared__ unsigned sk[SHARED], sv[SHARED];
  unsigned *k = keys + blockIdx.x * SHARED, *v = vals + blockIdx.x * SHARED;
  sk[threadIdx.x] = k[threadIdx.x];
  sv[threadIdx.x] = v[threadIdx.x];
  sk[threadIdx.x + SHARED / 2] = k[threadIdx.x + SHARED / 2];
  sv[threadIdx.x + SHARED / 2] = v[threadIdx.x + SHARED / 2];
  bool chunk_dir = (blockIdx.x & 1) == 0;
  for (unsigned size = 2; size <= SHARED; size <<= 1) {
    bool dir = ((threadIdx.x & (size / 2)) != 0) ^ chunk_dir;
    if (size == SHARED) dir = chunk_dir;
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      cmp_swap(sk[pos], sv[pos], sk[pos + stride], sv[pos + stride], dir);
    }
  }
  __syncthreads();
  k[threadIdx.x] = sk[threadIdx.x];
  v[threadIdx.x] = sv[threadIdx.x];
  k[threadIdx.x + SHARED / 2] = sk[threadIdx.x + SHARED / 2];
  v[threadIdx.x + SHARED / 2] = sv[threadIdx.x + SHARED / 2];
}

// One global merge step: compare elements `stride` apart within sequences of `size`.
__global__ void merge_global(unsigned *keys, unsigned *vals, unsigned n, unsigned size, unsigned stride) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;  // comparator index, n / 2 of them
  if (i >= n / 2) return;
  unsigned pos = 2 * i - (i & (stride - 1));
  bool dir = (pos & size) == 0;  // ascending where the bit of `size` is clear
  if (size == n) dir = true;
  cmp_swap(keys[pos], vals[pos], keys[pos + stride], vals[pos + stride], dir);
}

// The strides below SHARED of a merge of `size`: in shared memory.
__global__ void merge_shared(unsigned *keys, unsigned *vals, unsigned n, unsigned size) {
  __shared__ unsigned sk[SHARED], sv[SHARED];
  unsigned base = blockIdx.x * SHARED;
  unsigned *k = keys + base, *v = vals + base;
  for (int h = 0; h < 2; ++h) {
    sk[threadIdx.x + h * SHARED / 2] = k[threadIdx.x + h * SHARED / 2];
    sv[threadIdx.x + h * SHARED / 2] = v[threadIdx.x + h * SHARED / 2];
  }
  bool dir = (base & size) == 0;
  if (size == n) dir = true;
  for (unsigned stride = SHARED / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
    cmp_swap(sk[pos], sv[pos], sk[pos + stride], sv[pos + stride], dir);
  }
  __syncthreads();
  for (int h = 0; h < 2; ++h) {
    k[threadIdx.x + h * SHARED / 2] = sk[threadIdx.x + h * SHARED / 2];
    v[threadIdx.x + h * SHARED / 2] = sv[threadIdx.x + h * SHARED / 2];
  }
}

// 32 ints sorted by one warp with a bitonic network over __shfl_xor_sync.
__global__ void warp_sort(int *data) {
  int lane = threadIdx.x & 31;
  int x = data[blockIdx.x * 32 + lane];
  for (int size = 2; size <= 32; size <<= 1) {
    for (int stride = size / 2; stride > 0; stride >>= 1) {
      int other = __shfl_xor_sync(0xffffffffu, x, stride);
      bool up = (lane & size) == 0 || size == 32;
      bool lower = (lane & stride) == 0;
      x = (lower == up) ? min(x, other) : max(x, other);
    }
  }
  data[blockIdx.x * 32 + lane] = x;
}

int main() {
  std::vector<unsigned> keys(N), vals(N);
  unsigned s = 99;
  for (int i = 0; i < N; ++i) keys[i] = lcg(s) % 5000, vals[i] = i;  // duplicates on purpose
  unsigned *dk, *dv;
  CUDA(cudaMalloc(&dk, N * 4));
  CUDA(cudaMalloc(&dv, N * 4));
  CUDA(cudaMemcpy(dk, keys.data(), N * 4, cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(dv, vals.data(), N * 4, cudaMemcpyHostToDevice));
  sort_shared<<<N / SHARED, SHARED / 2>>>(dk, dv);
  CUDA(cudaGetLastError());
  // the chunks alternate: check the first two before merging
  std::vector<unsigned> chunk(2 * SHARED);
  CUDA(cudaMemcpy(chunk.data(), dk, 2 * SHARED * 4, cudaMemcpyDeviceToHost));
  bool up = std::is_sorted(chunk.begin(), chunk.begin() + SHARED);
  bool down = std::is_sorted(chunk.rbegin(), chunk.rbegin() + SHARED);
  CHECK(up && down, "first chunk ascending (%d), second descending (%d)", up, down);
  for (unsigned size = 2 * SHARED; size <= N; size <<= 1) {
    for (unsigned stride = size / 2; stride >= SHARED; stride >>= 1) {
      merge_global<<<N / 2 / 256, 256>>>(dk, dv, N, size, stride);
      CUDA(cudaGetLastError());
    }
    merge_shared<<<N / SHARED, SHARED / 2>>>(dk, dv, N, size);
    CUDA(cudaGetLastError());
  }
  std::vector<unsigned> gk(N), gv(N);
  CUDA(cudaMemcpy(gk.data(), dk, N * 4, cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(gv.data(), dv, N * 4, cudaMemcpyDeviceToHost));
  std::vector<unsigned> want = keys;
  std::sort(want.begin(), want.end());
  int bad = 0;
  for (int i = 0; i < N; ++i) bad += gk[i] != want[i];
  CHECK(bad == 0, "%d keys out of place (first %u vs %u)", bad, gk[0], want[0]);
  // every value once, each with its own key
  std::vector<int> seen(N, 0);
  int wrong_pair = 0, dup = 0;
  for (int i = 0; i < N; ++i) {
    if (gv[i] >= unsigned(N)) { ++wrong_pair; continue; }
    dup += seen[gv[i]]++ != 0;
    wrong_pair += keys[gv[i]] != gk[i];
  }
  CHECK(wrong_pair == 0 && dup == 0, "pairs: %d wrong, %d duplicated", wrong_pair, dup);

  std::vector<int> small(4 * 32);
  for (auto &x : small) x = int(lcg(s) % 2001) - 1000;
  int *ds;
  CUDA(cudaMalloc(&ds, small.size() * 4));
  CUDA(cudaMemcpy(ds, small.data(), small.size() * 4, cudaMemcpyHostToDevice));
  warp_sort<<<4, 32>>>(ds);
  std::vector<int> got(small.size());
  CUDA(cudaMemcpy(got.data(), ds, got.size() * 4, cudaMemcpyDeviceToHost));
  for (int w = 0; w < 4; ++w) {
    std::sort(small.begin() + w * 32, small.begin() + w * 32 + 32);
    CHECK(std::equal(small.begin() + w * 32, small.begin() + w * 32 + 32, got.begin() + w * 32), "warp %d sorted", w);
  }
  CUDA(cudaFree(dk));
  CUDA(cudaFree(dv));
  CUDA(cudaFree(ds));
  return report("bitonic_sort");
}
