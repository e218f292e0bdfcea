// FP8 (e4m3 / e5m2) conversions via cuda_fp8.h, with and without satfinite.
// On sm_89+ the header uses the cvt.*.e4m3x2/e5m2x2 instructions; on sm_80 it
// falls back to a software (integer bit-twiddling) implementation.
#include <cuda_fp8.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// out[i] = e4m3(in[i]), satfinite
extern "C" __global__ void f32_to_e4m3(const float* in, __nv_fp8_storage_t* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = __nv_cvt_float_to_fp8(in[i], __NV_SATFINITE, __NV_E4M3);
    }
}

// out[4*i + k]: k = 0: e4m3 satfinite, 1: e4m3 nosat, 2: e5m2 satfinite, 3: e5m2 nosat
extern "C" __global__ void f32_to_fp8_variants(const float* in, __nv_fp8_storage_t* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = in[i];
        out[4 * i + 0] = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
        out[4 * i + 1] = __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E4M3);
        out[4 * i + 2] = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2);
        out[4 * i + 3] = __nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E5M2);
    }
}

// out[2*i + 0] = e4m3x2(in[i]) satfinite, out[2*i + 1] = e5m2x2(in[i]) nosat
// (in[i].x goes to the low byte, in[i].y to the high byte)
extern "C" __global__ void f32x2_to_fp8x2(const float2* in, __nv_fp8x2_storage_t* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[2 * i + 0] = __nv_cvt_float2_to_fp8x2(in[i], __NV_SATFINITE, __NV_E4M3);
        out[2 * i + 1] = __nv_cvt_float2_to_fp8x2(in[i], __NV_NOSAT, __NV_E5M2);
    }
}

// out[2*i + 0] = e4m3x2(in[i]) nosat, out[2*i + 1] = e5m2x2(in[i]) satfinite
extern "C" __global__ void half2_to_fp8x2(const __half2_raw* in, __nv_fp8x2_storage_t* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[2 * i + 0] = __nv_cvt_halfraw2_to_fp8x2(in[i], __NV_NOSAT, __NV_E4M3);
        out[2 * i + 1] = __nv_cvt_halfraw2_to_fp8x2(in[i], __NV_SATFINITE, __NV_E5M2);
    }
}

// out[2*i + 0] = half2 from in[i] read as e4m3x2, out[2*i + 1] = read as e5m2x2
extern "C" __global__ void fp8x2_to_half2(const __nv_fp8x2_storage_t* in, __half2_raw* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[2 * i + 0] = __nv_cvt_fp8x2_to_halfraw2(in[i], __NV_E4M3);
        out[2 * i + 1] = __nv_cvt_fp8x2_to_halfraw2(in[i], __NV_E5M2);
    }
}

// out[2*i + 0] = float(e4m3 in[i]), out[2*i + 1] = float(e5m2 in[i]) (fp8 class operator float)
extern "C" __global__ void fp8_to_f32(const __nv_fp8_storage_t* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __nv_fp8_e4m3 a;
        __nv_fp8_e5m2 b;
        a.__x = in[i];
        b.__x = in[i];
        out[2 * i + 0] = float(a);
        out[2 * i + 1] = float(b);
    }
}

// out[2*i + 0] = e4m3x2 from a bf16x2 (satfinite), out[2*i + 1] = e5m2 of the low bf16 (nosat) in the low byte
extern "C" __global__ void bf162_to_fp8(const __nv_bfloat162_raw* in, __nv_fp8x2_storage_t* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __nv_bfloat162_raw v = in[i];
        __nv_bfloat16_raw lo;
        lo.x = v.x;
        out[2 * i + 0] = __nv_cvt_bfloat16raw2_to_fp8x2(v, __NV_SATFINITE, __NV_E4M3);
        out[2 * i + 1] = __nv_cvt_bfloat16raw_to_fp8(lo, __NV_NOSAT, __NV_E5M2);
    }
}
