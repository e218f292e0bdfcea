// Independent thread scheduling (CUDA C++ Programming Guide, "Independent Thread Scheduling"):
// lanes of one warp contending for a spin lock on one address (which deadlocks without it), a
// producer lane and a consumer lane of the same warp handing values over through volatile
// shared memory with __nanosleep back-off, shuffles and votes with partial masks inside
// divergent branches, __syncwarp(mask) between two halves of a warp that run different code,
// __fns (the n-th set bit, forward and backward), and __activemask in nested branches.
#include <vector>
#include "check.h"

__global__ void lane_lock(int *lock, int *counter, int *order, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    bool done = false;
    while (!done) {
      if (atomicCAS(lock, 0, 1) == 0) {
        int slot = *counter;  // inside the lock: a plain read-modify-write
        order[slot] = int(threadIdx.x);
        *counter = slot + 1;
        __threadfence();
        atomicExch(lock, 0);
        done = true;
      }
    }
  }
}

__global__ void producer_consumer(int *out, int n) {
  __shared__ volatile int box, full;
  if (threadIdx.x == 0) full = 0;
  __syncwarp();
  if (threadIdx.x == 0) {  // producer
    for (int i = 0; i < n; ++i) {
      while (full) __nanosleep(32);
      box = i * i + 1;
      __threadfence_block();
      full = 1;
    }
  } else if (threadIdx.x == 31) {  // consumer
    for (int i = 0; i < n; ++i) {
      while (!full) __nanosleep(16);
      out[i] = box;
      __threadfence_block();
      full = 0;
    }
  }
}

__global__ void divergent(const int *in, int *out) {
  int lane = threadIdx.x & 31;
  int v = in[threadIdx.x];
  int *o = out + 8 * threadIdx.x;
  if (lane & 1) {  // odd lanes
    unsigned mask = __activemask();
    o[0] = int(mask);
    o[1] = __shfl_sync(0xaaaaaaaau, v, 1, 32);                  // lane 1's value
    o[2] = __shfl_xor_sync(0xaaaaaaaau, v, 2);                  // odd partner
    o[3] = int(__ballot_sync(0xaaaaaaaau, v > 50));
    o[4] = __reduce_add_sync(0xaaaaaaaau, v);
    if (lane < 16) {
      o[5] = int(__activemask());
    } else {
      o[5] = int(__activemask()) | 1;
    }
  } else {  // even lanes
    o[0] = int(__activemask());
    o[1] = __shfl_down_sync(0x55555555u, v, 2);                 // next even lane's (or own)
    o[2] = __any_sync(0x55555555u, v == 7);
    o[3] = int(__ballot_sync(0x55555555u, v & 1));
    o[4] = __reduce_max_sync(0x55555555u, v);
    o[5] = __match_any_sync(0x55555555u, v % 3);
  }
  // two halves that meet at __syncwarp(mask) after different work
  __shared__ int stage[64];
  int half = lane < 16;
  if (half) {
    stage[threadIdx.x] = v * 2;
    __syncwarp(0x0000ffffu);
    o[6] = stage[(threadIdx.x & ~31) + ((lane + 1) & 15)];
  } else {
    stage[threadIdx.x] = v * 3;
    __syncwarp(0xffff0000u);
    o[6] = stage[(threadIdx.x & ~31) + 16 + ((lane + 1) & 15)];
  }
  // __fns: the position of the n-th set bit counting from base (forward for n > 0, backward
  // for n < 0), 0xffffffff where there is none
  unsigned bits = unsigned(in[threadIdx.x] * 2654435761u);
  o[7] = int(__fns(bits, unsigned(lane), (lane % 5) - 2));
}

static unsigned fns_ref(unsigned mask, unsigned base, int offset) {
  // CUDA Math API, __fns: "Find the position of the n-th set to 1 bit in a 32-bit integer.
  // Given a 32-bit value mask and an integer value base (between 0 and 31), find the n-th
  // (given by offset) set bit in mask from the base bit. If not found, return 0xFFFFFFFF."
  // offset 0 checks the base bit itself.
  if (offset == 0) return (mask >> base) & 1 ? base : 0xffffffffu;
  if (offset > 0) {
    int count = 0;
    for (int b = int(base); b < 32; ++b)
      if ((mask >> b) & 1 && ++count == offset) return unsigned(b);
  } else {
    int count = 0;
    for (int b = int(base); b >= 0; --b)
      if ((mask >> b) & 1 && ++count == -offset) return unsigned(b);
  }
  return 0xffffffffu;
}

int main() {
  int *lock, *counter, *order;
  const int rounds = 5;
  CUDA(cudaMalloc(&lock, 4));
  CUDA(cudaMalloc(&counter, 4));
  CUDA(cudaMalloc(&order, 32 * rounds * 4));
  CUDA(cudaMemset(lock, 0, 4));
  CUDA(cudaMemset(counter, 0, 4));
  lane_lock<<<1, 32>>>(lock, counter, order, rounds);
  CUDA(cudaGetLastError());
  CUDA(cudaDeviceSynchronize());
  int total = 0;
  CUDA(cudaMemcpy(&total, counter, 4, cudaMemcpyDeviceToHost));
  std::vector<int> got(32 * rounds);
  CUDA(cudaMemcpy(got.data(), order, got.size() * 4, cudaMemcpyDeviceToHost));
  CHECK(total == 32 * rounds, "lane lock: %d increments, want %d", total, 32 * rounds);
  std::vector<int> per_lane(32, 0);
  for (int x : got)
    if (x >= 0 && x < 32) ++per_lane[x];
  for (int l = 0; l < 32; ++l) CHECK(per_lane[l] == rounds, "lane %d took the lock %d times", l, per_lane[l]);

  const int n = 40;
  int *pc;
  CUDA(cudaMalloc(&pc, n * 4));
  producer_consumer<<<1, 32>>>(pc, n);
  CUDA(cudaGetLastError());
  std::vector<int> handed(n);
  CUDA(cudaMemcpy(handed.data(), pc, n * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(handed[i] == i * i + 1, "handed over %d: %d", i, handed[i]);

  const int threads = 64;
  std::vector<int> in(threads);
  unsigned seed = 3;
  for (int i = 0; i < threads; ++i) in[i] = int(lcg(seed) % 100);
  in[4] = 7;
  int *din, *dout;
  CUDA(cudaMalloc(&din, threads * 4));
  CUDA(cudaMalloc(&dout, threads * 8 * 4));
  CUDA(cudaMemcpy(din, in.data(), threads * 4, cudaMemcpyHostToDevice));
  divergent<<<1, threads>>>(din, dout);
  CUDA(cudaGetLastError());
  std::vector<int> out(threads * 8);
  CUDA(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
  for (int t = 0; t < threads; ++t) {
    int w = t & ~31, lane = t & 31;
    const int *o = &out[8 * t];
    if (lane & 1) {
      CHECK(unsigned(o[0]) == 0xaaaaaaaau, "odd activemask %08x", o[0]);
      CHECK(o[1] == in[w + 1], "odd shfl lane 1: %d", o[1]);
      CHECK(o[2] == in[w + (lane ^ 2)], "odd shfl_xor: %d", o[2]);
      unsigned ballot = 0, sum = 0;
      for (int l = 1; l < 32; l += 2) { ballot |= unsigned(in[w + l] > 50) << l; sum += in[w + l]; }
      CHECK(unsigned(o[3]) == ballot, "odd ballot %08x want %08x", o[3], ballot);
      CHECK(unsigned(o[4]) == sum, "odd reduce_add %d want %u", o[4], sum);
      unsigned nested = lane < 16 ? 0x0000aaaau : (0xaaaa0000u | 1);
      CHECK(unsigned(o[5]) == nested, "nested activemask %08x want %08x", o[5], nested);
    } else {
      CHECK(unsigned(o[0]) == 0x55555555u, "even activemask %08x", o[0]);
      int want = lane + 2 < 32 ? in[t + 2] : in[t];
      CHECK(o[1] == want, "even shfl_down lane %d: %d want %d", lane, o[1], want);
      bool any7 = false;
      unsigned ballot = 0;
      int mx = 0;
      unsigned match = 0;
      for (int l = 0; l < 32; l += 2) {
        any7 |= in[w + l] == 7;
        ballot |= unsigned(in[w + l] & 1) << l;
        mx = std::max(mx, in[w + l]);
        if (in[w + l] % 3 == in[t] % 3) match |= 1u << l;
      }
      CHECK(o[2] == int(any7), "even any: %d", o[2]);
      CHECK(unsigned(o[3]) == ballot, "even ballot %08x want %08x", o[3], ballot);
      CHECK(o[4] == mx, "even reduce_max %d want %d", o[4], mx);
      CHECK(unsigned(o[5]) == match, "even match_any %08x want %08x", o[5], match);
    }
    int want6 = lane < 16 ? in[w + ((lane + 1) & 15)] * 2 : in[w + 16 + ((lane + 1) & 15)] * 3;
    CHECK(o[6] == want6, "syncwarp(mask) halves, thread %d: %d want %d", t, o[6], want6);
    unsigned bits = unsigned(in[t] * 2654435761u);
    unsigned want7 = fns_ref(bits, unsigned(lane), (lane % 5) - 2);
    CHECK(unsigned(o[7]) == want7, "__fns(%08x, %d, %d) = %d, want %d", bits, lane, (lane % 5) - 2, o[7], int(want7));
  }
  return report("warp_divergence");
}
