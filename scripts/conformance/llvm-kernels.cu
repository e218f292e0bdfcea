// Small CUDA kernels for `llvmcorpus.py clang`: clang's CUDA device compilation without the
// CUDA headers (`-nocudainc`), so only clang's own builtins are used. Written for this probe.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))

typedef unsigned int u32;
typedef unsigned long long u64;

static __device__ u32 tid() { return __nvvm_read_ptx_sreg_tid_x(); }
static __device__ u32 gid() {
  return __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + tid();
}

__constant__ float coefficients[4] = {1.0f, 0.5f, 0.25f, 0.125f};
__device__ int counter;
__device__ void *table[2] = {&counter, 0};

__global__ void saxpy(float a, const float *x, float *y, int n) {
  u32 i = gid();
  if (i < (u32)n) y[i] = a * x[i] + y[i] * coefficients[i & 3];
}

__global__ void block_sum(const float *in, float *out, int n) {
  __shared__ float partial[256];
  u32 t = tid();
  u32 i = gid();
  partial[t] = i < (u32)n ? in[i] : 0.0f;
  __syncthreads();
  for (u32 s = 128; s > 0; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) __nvvm_atom_add_gen_f(out, partial[0]);
}

__global__ void warp_sum(const int *in, int *out) {
  int v = in[gid()];
  for (int d = 16; d > 0; d >>= 1) v += __nvvm_shfl_sync_down_i32(0xffffffffu, v, d, 31);
  if ((tid() & 31) == 0) __nvvm_atom_add_gen_i(out, v);
  __nvvm_atom_add_gen_i(&counter, 1);
}

__global__ void halves(const _Float16 *a, const _Float16 *b, _Float16 *c, double *d, int n) {
  u32 i = gid();
  if (i >= (u32)n) return;
  _Float16 x = a[i] * b[i] + (_Float16)1.0f;
  c[i] = x > (_Float16)0.0f ? x : -x;
  d[i] = __builtin_sqrt((double)x) + __builtin_fma((double)a[i], 2.0, 1.0);
}

struct Pair {
  int key;
  float value;
  char tag[3];
};

static __device__ __attribute__((noinline)) Pair combine(Pair p, Pair q, int k) {
  Pair r = {p.key + q.key + k, p.value * q.value, {p.tag[0], q.tag[1], 0}};
  return r;
}

__global__ void pairs(Pair *p, u64 *clock, int n) {
  u32 i = gid();
  if (i + 1 < (u32)n) p[i] = combine(p[i], p[i + 1], (int)i);
  clock[i] = __nvvm_read_ptx_sreg_clock64();
  u32 lo = (u32)(u64)table[0];
  if (lo == 7) __builtin_trap();
}

__global__ void branches(const int *in, int *out, int n) {
  u32 i = gid();
  int v = in[i], acc = 0;
  switch (v & 7) {
  case 0: acc = v * 3; break;
  case 1: acc = v / 7; break;
  case 2: acc = v % 5; break;
  case 3: acc = __builtin_popcount(v); break;
  case 4: acc = __builtin_clz(v | 1); break;
  case 5: acc = (int)__builtin_bitreverse32((u32)v); break;
  default: acc = v < n ? v : n;
  }
  for (int k = 0; k < (v & 15); ++k) acc = acc * 31 + k;
  out[i] = acc;
}
