// fp16 conversions via cuda_fp16.h: f32 -> f16 in all four rounding modes,
// f16 -> f32, two floats -> half2, and a couple of half2 arithmetic ops.
// Every result can be reproduced on the host with the same header functions.
#include <cuda_fp16.h>

// out[4*i + k] = in[i] rounded to f16 with k = 0:rn, 1:rz, 2:rd, 3:ru
extern "C" __global__ void f32_to_f16_rmodes(const float* in, __half* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = in[i];
        out[4 * i + 0] = __float2half_rn(x);
        out[4 * i + 1] = __float2half_rz(x);
        out[4 * i + 2] = __float2half_rd(x);
        out[4 * i + 3] = __float2half_ru(x);
    }
}

// out[i] = (float)in[i]
extern "C" __global__ void f16_to_f32(const __half* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = __half2float(in[i]);
    }
}

// out[i] = half2(lo = a[i], hi = b[i]) rounded to nearest
extern "C" __global__ void f32x2_to_half2_rn(const float* a, const float* b, __half2* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = __floats2half2_rn(a[i], b[i]);
    }
}

// out[i] = a[i] * b[i] + a[i] (half2 mul then add, two roundings), and
// widened[i] = float2 of the result.
extern "C" __global__ void half2_mul_add(const __half2* a, const __half2* b, __half2* out,
                                         float2* widened, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half2 p = __hmul2(a[i], b[i]);
        __half2 r = __hadd2(p, a[i]);
        out[i] = r;
        widened[i] = __half22float2(r);
    }
}
