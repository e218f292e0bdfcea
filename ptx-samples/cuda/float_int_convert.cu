// f32 <-> integer conversions with explicit rounding intrinsics.
// Note for host references: C casts of out-of-range/NaN floats to integers are
// undefined behaviour on the host, while the __float2int_* intrinsics are defined
// (saturating, NaN -> 0) in device code; compare casts only on in-range inputs.

// out[4*i + k] = in[i] to s32 with k = 0:rn, 1:rz, 2:rd, 3:ru
extern "C" __global__ void f32_to_s32_rmodes(const float* in, int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = in[i];
        out[4 * i + 0] = __float2int_rn(x);
        out[4 * i + 1] = __float2int_rz(x);
        out[4 * i + 2] = __float2int_rd(x);
        out[4 * i + 3] = __float2int_ru(x);
    }
}

// out[4*i + k] = in[i] to u32 with k = 0:rn, 1:rz, 2:rd, 3:ru
extern "C" __global__ void f32_to_u32_rmodes(const float* in, unsigned int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = in[i];
        out[4 * i + 0] = __float2uint_rn(x);
        out[4 * i + 1] = __float2uint_rz(x);
        out[4 * i + 2] = __float2uint_rd(x);
        out[4 * i + 3] = __float2uint_ru(x);
    }
}

// out[4*i + k] = in[i] to s64 with k = 0:rn, 1:rz, 2:rd, 3:ru
extern "C" __global__ void f32_to_s64_rmodes(const float* in, long long* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = in[i];
        out[4 * i + 0] = __float2ll_rn(x);
        out[4 * i + 1] = __float2ll_rz(x);
        out[4 * i + 2] = __float2ll_rd(x);
        out[4 * i + 3] = __float2ll_ru(x);
    }
}

// s32 -> f32 and u32 -> f32 in four rounding modes:
// fs[4*i + k] = __int2float_{rn,rz,rd,ru}(in[i]); fu[4*i + k] = __uint2float_*( (unsigned)in[i] )
extern "C" __global__ void s32_u32_to_f32_rmodes(const int* in, float* fs, float* fu, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = in[i];
        unsigned int u = (unsigned int)v;
        fs[4 * i + 0] = __int2float_rn(v);
        fs[4 * i + 1] = __int2float_rz(v);
        fs[4 * i + 2] = __int2float_rd(v);
        fs[4 * i + 3] = __int2float_ru(v);
        fu[4 * i + 0] = __uint2float_rn(u);
        fu[4 * i + 1] = __uint2float_rz(u);
        fu[4 * i + 2] = __uint2float_rd(u);
        fu[4 * i + 3] = __uint2float_ru(u);
    }
}

// s64 -> f32 and u64 -> f32 in four rounding modes
extern "C" __global__ void s64_u64_to_f32_rmodes(const long long* in, float* fs, float* fu, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        long long v = in[i];
        unsigned long long u = (unsigned long long)v;
        fs[4 * i + 0] = __ll2float_rn(v);
        fs[4 * i + 1] = __ll2float_rz(v);
        fs[4 * i + 2] = __ll2float_rd(v);
        fs[4 * i + 3] = __ll2float_ru(v);
        fu[4 * i + 0] = __ull2float_rn(u);
        fu[4 * i + 1] = __ull2float_rz(u);
        fu[4 * i + 2] = __ull2float_rd(u);
        fu[4 * i + 3] = __ull2float_ru(u);
    }
}

// Plain C casts (nvcc emits cvt.rzi.* / cvt.rn.f32.*). Inputs should be in range.
extern "C" __global__ void c_casts(const float* in, int* as_int, unsigned short* as_u16,
                                   long long* as_ll, float* from_int, double* as_double, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = in[i];
        int v = (int)x;
        as_int[i] = v;
        as_u16[i] = (unsigned short)x;
        as_ll[i] = (long long)x;
        from_int[i] = (float)v;
        as_double[i] = (double)x;
    }
}

// Saturating f32 -> [0,1] (cvt.sat.f32.f32) and round-to-integral in f32 (cvt.rni/rzi/rmi/rpi.f32.f32)
extern "C" __global__ void f32_saturate_and_round(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = in[i];
        out[5 * i + 0] = __saturatef(x);
        out[5 * i + 1] = rintf(x);
        out[5 * i + 2] = truncf(x);
        out[5 * i + 3] = floorf(x);
        out[5 * i + 4] = ceilf(x);
    }
}
