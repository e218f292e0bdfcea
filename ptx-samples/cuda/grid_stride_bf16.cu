// Control flow: a grid-stride loop converting scaled f32 to bf16 and an
// integer accumulate with a data-dependent branch.
#include <cuda_bf16.h>

// for every i < n (grid-stride): out[i] = bf16_rn(in[i] * scale);
// count[0] += number of elements whose bf16 result is negative (atomic)
extern "C" __global__ void grid_stride_f32_to_bf16(const float* in, __nv_bfloat16* out, float scale,
                                                   unsigned int* count, int n)
{
    unsigned int local = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        __nv_bfloat16 r = __float2bfloat16_rn(in[i] * scale);
        out[i] = r;
        if (__bfloat162float(r) < 0.0f) {
            local++;
        }
    }
    if (local != 0) {
        atomicAdd(count, local);
    }
}
