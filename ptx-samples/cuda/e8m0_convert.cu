// UE8M0 scale-factor conversions via cuda_fp8.h (MX block scales).
#include <cuda_fp8.h>
#include <cuda_bf16.h>

// out[4*i + k]: k = 0: rz satfinite, 1: ru(PosInf) satfinite, 2: rz nosat, 3: ru nosat
extern "C" __global__ void f32_to_e8m0(const float* in, __nv_fp8_storage_t* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = in[i];
        out[4 * i + 0] = __nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundZero);
        out[4 * i + 1] = __nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundPosInf);
        out[4 * i + 2] = __nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundZero);
        out[4 * i + 3] = __nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundPosInf);
    }
}

// out[2*i + 0] = e8m0x2(in[i]) rz satfinite; out[2*i + 1] = ru nosat; .x -> low byte
extern "C" __global__ void f32x2_to_e8m0x2(const float2* in, __nv_fp8x2_storage_t* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[2 * i + 0] = __nv_cvt_float2_to_e8m0x2(in[i], __NV_SATFINITE, cudaRoundZero);
        out[2 * i + 1] = __nv_cvt_float2_to_e8m0x2(in[i], __NV_NOSAT, cudaRoundPosInf);
    }
}

// out[2*i + 0] = e8m0x2(bf16x2 in[i]) rz nosat; out[2*i + 1] = ru satfinite
extern "C" __global__ void bf162_to_e8m0x2(const __nv_bfloat162_raw* in, __nv_fp8x2_storage_t* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[2 * i + 0] = __nv_cvt_bfloat162raw_to_e8m0x2(in[i], __NV_NOSAT, cudaRoundZero);
        out[2 * i + 1] = __nv_cvt_bfloat162raw_to_e8m0x2(in[i], __NV_SATFINITE, cudaRoundPosInf);
    }
}

// one[i] = bf16 of the e8m0 low byte of in[i]; two[i] = bf16x2 of both bytes
extern "C" __global__ void e8m0_to_bf16(const __nv_fp8x2_storage_t* in, __nv_bfloat16_raw* one,
                                        __nv_bfloat162_raw* two, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        one[i] = __nv_cvt_e8m0_to_bf16raw((__nv_fp8_storage_t)(in[i] & 0xFFu));
        two[i] = __nv_cvt_e8m0x2_to_bf162raw(in[i]);
    }
}
