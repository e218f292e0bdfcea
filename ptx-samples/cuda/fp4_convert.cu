// FP4 (e2m1) conversions via cuda_fp4.h. Hardware cvt on sm_100a-class targets,
// software emulation elsewhere.
#include <cuda_fp4.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// out[i] = e2m1(in[i]) round-to-nearest (satfinite), value in the low nibble
extern "C" __global__ void f32_to_e2m1(const float* in, __nv_fp4_storage_t* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = __nv_cvt_float_to_fp4(in[i], __NV_E2M1, cudaRoundNearest);
    }
}

// out[i] = e2m1x2(in[i]); in[i].x -> low nibble, in[i].y -> high nibble
extern "C" __global__ void f32x2_to_e2m1x2(const float2* in, __nv_fp4x2_storage_t* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = __nv_cvt_float2_to_fp4x2(in[i], __NV_E2M1, cudaRoundNearest);
    }
}

// out[2*i+0] = e2m1x2 from half2 (rn), out[2*i+1] = e2m1x2 from bfloat162 (rn)
extern "C" __global__ void half2_bf162_to_e2m1x2(const __half2_raw* h, const __nv_bfloat162_raw* b,
                                                 __nv_fp4x2_storage_t* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[2 * i + 0] = __nv_cvt_halfraw2_to_fp4x2(h[i], __NV_E2M1, cudaRoundNearest);
        out[2 * i + 1] = __nv_cvt_bfloat16raw2_to_fp4x2(b[i], __NV_E2M1, cudaRoundNearest);
    }
}

// half_out[i] = half2 of the two nibbles of in[i]; bf_out[i] = bf16 of the low nibble
extern "C" __global__ void e2m1x2_to_half2(const __nv_fp4x2_storage_t* in, __half2_raw* half_out,
                                           __nv_bfloat16_raw* bf_out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        half_out[i] = __nv_cvt_fp4x2_to_halfraw2(in[i], __NV_E2M1);
        bf_out[i] = __nv_cvt_fp4_to_bf16raw(in[i], __NV_E2M1);
    }
}
