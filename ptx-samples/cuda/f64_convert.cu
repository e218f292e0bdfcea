// f64 conversions: f64 -> f32 in four rounding modes, f64 -> s32/u32/s64/u64,
// s64/u64 -> f64, and f64 -> f16 / bf16.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// out[4*i + k] = in[i] to f32 with k = 0:rn, 1:rz, 2:rd, 3:ru
extern "C" __global__ void f64_to_f32_rmodes(const double* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double x = in[i];
        out[4 * i + 0] = __double2float_rn(x);
        out[4 * i + 1] = __double2float_rz(x);
        out[4 * i + 2] = __double2float_rd(x);
        out[4 * i + 3] = __double2float_ru(x);
    }
}

// s32[4*i+k] = __double2int_{rn,rz,rd,ru}; u64[4*i+k] = __double2ull_*; s64[4*i+k] = __double2ll_*
extern "C" __global__ void f64_to_int_rmodes(const double* in, int* s32, unsigned long long* u64,
                                             long long* s64, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double x = in[i];
        s32[4 * i + 0] = __double2int_rn(x);
        s32[4 * i + 1] = __double2int_rz(x);
        s32[4 * i + 2] = __double2int_rd(x);
        s32[4 * i + 3] = __double2int_ru(x);
        u64[4 * i + 0] = __double2ull_rn(x);
        u64[4 * i + 1] = __double2ull_rz(x);
        u64[4 * i + 2] = __double2ull_rd(x);
        u64[4 * i + 3] = __double2ull_ru(x);
        s64[4 * i + 0] = __double2ll_rn(x);
        s64[4 * i + 1] = __double2ll_rz(x);
        s64[4 * i + 2] = __double2ll_rd(x);
        s64[4 * i + 3] = __double2ll_ru(x);
    }
}

// d[4*i+k] = __ll2double_{rn,rz,rd,ru}(in[i]); du[4*i+k] = __ull2double_*((unsigned long long)in[i])
extern "C" __global__ void s64_u64_to_f64_rmodes(const long long* in, double* d, double* du, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        long long v = in[i];
        unsigned long long u = (unsigned long long)v;
        d[4 * i + 0] = __ll2double_rn(v);
        d[4 * i + 1] = __ll2double_rz(v);
        d[4 * i + 2] = __ll2double_rd(v);
        d[4 * i + 3] = __ll2double_ru(v);
        du[4 * i + 0] = __ull2double_rn(u);
        du[4 * i + 1] = __ull2double_rz(u);
        du[4 * i + 2] = __ull2double_rd(u);
        du[4 * i + 3] = __ull2double_ru(u);
    }
}

// h[i] = __double2half(in[i]) (rn), b[i] = __double2bfloat16(in[i]) (rn)
extern "C" __global__ void f64_to_f16_bf16(const double* in, __half* h, __nv_bfloat16* b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        h[i] = __double2half(in[i]);
        b[i] = __double2bfloat16(in[i]);
    }
}
