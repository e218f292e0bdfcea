// Shared memory + __syncthreads: MXFP8-style block quantisation.
// Launch with blockDim.x == 32; each block of 32 inputs gets one UE8M0 scale.
//   amax   = max |in[j]| over the block (shared-memory tree reduction)
//   scale  = e8m0(amax / 448, satfinite, round up)   -> scales[blockIdx.x]
//   out[i] = e4m3(in[i] / 2^(scale - 127), satfinite)
// Host reference: same header functions; the division is IEEE (nvcc's default -prec-div=true).
#include <cuda_fp8.h>
#include <cuda_bf16.h>

#define MX_BLOCK 32

extern "C" __global__ void mx_quant_e4m3(const float* in, __nv_fp8_storage_t* out,
                                         __nv_fp8_storage_t* scales, int n)
{
    __shared__ float amax[MX_BLOCK];
    __shared__ float block_scale;
    int t = threadIdx.x;
    int i = blockIdx.x * MX_BLOCK + t;
    float x = (i < n) ? in[i] : 0.0f;
    amax[t] = fabsf(x);
    __syncthreads();
    for (int s = MX_BLOCK / 2; s > 0; s >>= 1) {
        if (t < s) {
            amax[t] = fmaxf(amax[t], amax[t + s]);
        }
        __syncthreads();
    }
    if (t == 0) {
        __nv_fp8_storage_t e = __nv_cvt_float_to_e8m0(amax[0] / 448.0f, __NV_SATFINITE, cudaRoundPosInf);
        scales[blockIdx.x] = e;
        __nv_bfloat16_raw sb = __nv_cvt_e8m0_to_bf16raw(e);
        __nv_bfloat16 sv = sb;
        block_scale = __bfloat162float(sv);
    }
    __syncthreads();
    if (i < n) {
        out[i] = __nv_cvt_float_to_fp8(x / block_scale, __NV_SATFINITE, __NV_E4M3);
    }
}
