// Conversions to narrow float formats through inline PTX (no CUDA headers).
__device__ __forceinline__ unsigned short to_bf16(float x) {
  unsigned short r; asm("{ cvt.rn.bf16.f32 %0, %1; }" : "=h"(r) : "f"(x)); return r;
}
__device__ __forceinline__ unsigned short to_e4m3x2(float a, float b) {
  unsigned short r; asm("{ cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2; }" : "=h"(r) : "f"(a), "f"(b)); return r;
}
__device__ __forceinline__ unsigned short to_e5m2x2(float a, float b) {
  unsigned short r; asm("{ cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2; }" : "=h"(r) : "f"(a), "f"(b)); return r;
}
__device__ __noinline__ int helper(int a, float b) { return a * (int)b + 3; }
__device__ float gtab[4] = {1.0f, 2.5f, -3.0f, 0.125f};
__constant__ int ctab[3] = {1, 2, 3};
__device__ double dconst = 3.25;
extern "C" __global__ void __launch_bounds__(256, 2)
convert(const float* in, unsigned short* ob, unsigned short* o8, unsigned short* o5, int n) {
  __shared__ float sm[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = in[i] * gtab[i & 3] + ctab[i % 3];
    sm[threadIdx.x % 128] = x;
    __syncthreads();
    ob[i] = to_bf16(x);
    o8[i] = to_e4m3x2(x, sm[(threadIdx.x + 1) % 128]);
    o5[i] = to_e5m2x2(-x, 0.5f);
    unsigned r;
    asm volatile("{\n\t.reg .b32 t;\n\t.reg .pred p;\n\tadd.u32 t, %1, 7;\n\tsetp.gt.u32 p, t, 100;\n\t@p mov.b32 t, 0;\n\tmov.b32 %0, t;\n\t}" : "=r"(r) : "r"(i));
    unsigned lane; asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    ob[0] = to_bf16((float)helper(r + lane, x) + (float)dconst);
  }
}
extern "C" __global__ void reduce(float* out, const float* in, int n) {
  float s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s += in[i];
  for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}
