// Inline PTX: f32 -> f16/bf16/tf32 forms that have no plain C++ intrinsic:
// .relu, .satfinite, packed x2 with .rz, and tf32 (.rna.satfinite). sm_80+.

// For each i with a = a_in[i], b = b_in[i]:
// out[6*i + 0] = cvt.rn.relu.f16x2.f32            (a -> high half, b -> low half)
// out[6*i + 1] = cvt.rz.f16x2.f32
// out[6*i + 2] = cvt.rn.relu.bf16x2.f32
// out[6*i + 3] = cvt.rz.satfinite.bf16x2.f32      (PTX ISA 8.1+)
// out[6*i + 4] = cvt.rna.satfinite.tf32.f32 of a
// out[6*i + 5] = cvt.rn.satfinite.f16.f32 of a (low 16 bits) | cvt.rz.relu.bf16.f32 of b << 16
extern "C" __global__ void f32_to_f16_bf16_tf32_asm(const float* a_in, const float* b_in,
                                                    unsigned int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float a = a_in[i], b = b_in[i];
        unsigned int r;
        unsigned short h, bb;
        asm("cvt.rn.relu.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(a), "f"(b));
        out[6 * i + 0] = r;
        asm("cvt.rz.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(a), "f"(b));
        out[6 * i + 1] = r;
        asm("cvt.rn.relu.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(a), "f"(b));
        out[6 * i + 2] = r;
        asm("cvt.rz.satfinite.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(a), "f"(b));
        out[6 * i + 3] = r;
        asm("cvt.rna.satfinite.tf32.f32 %0, %1;" : "=r"(r) : "f"(a));
        out[6 * i + 4] = r;
        asm("cvt.rn.satfinite.f16.f32 %0, %1;" : "=h"(h) : "f"(a));
        asm("cvt.rz.relu.bf16.f32 %0, %1;" : "=h"(bb) : "f"(b));
        out[6 * i + 5] = (unsigned int)h | ((unsigned int)bb << 16);
    }
}

// f16/bf16 -> wider types and integer rounding in f16 (cvt.rni.f16.f16 etc.)
// out[4*i + 0] = bits of cvt.f32.f16(lo16(in[i]))
// out[4*i + 1] = bits of cvt.f32.bf16(hi16(in[i]))
// out[4*i + 2] = cvt.rni.f16.f16(lo16) | cvt.rzi.f16.f16(hi16) << 16   (round to integral, stays f16)
// out[4*i + 3] = cvt.rzi.s32.f16(lo16)
extern "C" __global__ void f16_bf16_widen_asm(const unsigned int* in, unsigned int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int w = in[i];
        unsigned short lo = (unsigned short)w, hi = (unsigned short)(w >> 16);
        float f;
        unsigned short r0, r1;
        int s;
        asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(lo));
        out[4 * i + 0] = __float_as_uint(f);
        asm("cvt.f32.bf16 %0, %1;" : "=f"(f) : "h"(hi));
        out[4 * i + 1] = __float_as_uint(f);
        asm("cvt.rni.f16.f16 %0, %1;" : "=h"(r0) : "h"(lo));
        asm("cvt.rzi.f16.f16 %0, %1;" : "=h"(r1) : "h"(hi));
        out[4 * i + 2] = (unsigned int)r0 | ((unsigned int)r1 << 16);
        asm("cvt.rzi.s32.f16 %0, %1;" : "=r"(s) : "h"(lo));
        out[4 * i + 3] = (unsigned int)s;
    }
}
