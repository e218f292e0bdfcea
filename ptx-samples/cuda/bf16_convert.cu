// bf16 conversions via cuda_bf16.h: f32 -> bf16 in all four rounding modes,
// bf16 -> f32, two floats -> bfloat162, bf16 <-> f16 and a bfloat162 add.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// out[4*i + k] = in[i] rounded to bf16 with k = 0:rn, 1:rz, 2:rd, 3:ru
extern "C" __global__ void f32_to_bf16_rmodes(const float* in, __nv_bfloat16* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = in[i];
        out[4 * i + 0] = __float2bfloat16_rn(x);
        out[4 * i + 1] = __float2bfloat16_rz(x);
        out[4 * i + 2] = __float2bfloat16_rd(x);
        out[4 * i + 3] = __float2bfloat16_ru(x);
    }
}

// out[i] = (float)in[i]
extern "C" __global__ void bf16_to_f32(const __nv_bfloat16* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = __bfloat162float(in[i]);
    }
}

// out[i] = bfloat162(lo = a[i], hi = b[i]) rounded to nearest
extern "C" __global__ void f32x2_to_bf162_rn(const float* a, const float* b, __nv_bfloat162* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = __floats2bfloat162_rn(a[i], b[i]);
    }
}

// sum[i] = a[i] + b[i] (bfloat162 add); back[i] = float2 of the sum
extern "C" __global__ void bf162_add(const __nv_bfloat162* a, const __nv_bfloat162* b,
                                     __nv_bfloat162* sum, float2* back, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __nv_bfloat162 s = __hadd2(a[i], b[i]);
        sum[i] = s;
        back[i] = __bfloat1622float2(s);
    }
}

// f16 -> bf16 (via float, rn) and bf16 -> f16 (via float, rn)
extern "C" __global__ void f16_bf16_roundtrip(const __half* h, __nv_bfloat16* h_as_bf16,
                                              const __nv_bfloat16* b, __half* b_as_f16, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        h_as_bf16[i] = __float2bfloat16_rn(__half2float(h[i]));
        b_as_f16[i] = __float2half_rn(__bfloat162float(b[i]));
    }
}
