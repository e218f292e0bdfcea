// FP6 (e2m3 / e3m2) conversions via cuda_fp6.h. The hardware cvt forms exist
// only on sm_100a/sm_100f-class targets; elsewhere the header emulates in software.
#include <cuda_fp6.h>
#include <cuda_fp16.h>

// out[2*i + 0] = e2m3(in[i]), out[2*i + 1] = e3m2(in[i]); round-to-nearest (always satfinite)
extern "C" __global__ void f32_to_fp6(const float* in, __nv_fp6_storage_t* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[2 * i + 0] = __nv_cvt_float_to_fp6(in[i], __NV_E2M3, cudaRoundNearest);
        out[2 * i + 1] = __nv_cvt_float_to_fp6(in[i], __NV_E3M2, cudaRoundNearest);
    }
}

// out[2*i + 0] = e2m3x2(in[i]), out[2*i + 1] = e3m2x2(in[i]); .x -> low byte
extern "C" __global__ void f32x2_to_fp6x2(const float2* in, __nv_fp6x2_storage_t* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[2 * i + 0] = __nv_cvt_float2_to_fp6x2(in[i], __NV_E2M3, cudaRoundNearest);
        out[2 * i + 1] = __nv_cvt_float2_to_fp6x2(in[i], __NV_E3M2, cudaRoundNearest);
    }
}

// out[2*i + 0] = half2 from in[i] read as e2m3x2, out[2*i + 1] = read as e3m2x2
extern "C" __global__ void fp6x2_to_half2(const __nv_fp6x2_storage_t* in, __half2_raw* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[2 * i + 0] = __nv_cvt_fp6x2_to_halfraw2(in[i], __NV_E2M3);
        out[2 * i + 1] = __nv_cvt_fp6x2_to_halfraw2(in[i], __NV_E3M2);
    }
}

// out[2*i + 0] = f16 from in[i] read as e2m3, out[2*i + 1] = read as e3m2 (top 2 bits ignored)
extern "C" __global__ void fp6_to_half(const __nv_fp6_storage_t* in, __half_raw* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[2 * i + 0] = __nv_cvt_fp6_to_halfraw(in[i], __NV_E2M3);
        out[2 * i + 1] = __nv_cvt_fp6_to_halfraw(in[i], __NV_E3M2);
    }
}
