// Inline PTX: Blackwell-only narrow-format cvt forms (sm_100a; generated for sm_100a only,
// since ptxas rejects them on sm_80/sm_90).
// .b8-typed results (e2m1x2) are staged in a scoped .reg .b8 and widened with cvt.u32.u8.

// For each i with a = a_in[i], b = b_in[i] (a -> high part, b -> low part of every x2 result):
// out[8*i + 0] = cvt.rn.satfinite.e2m1x2.f32            (8-bit result, zero-extended)
// out[8*i + 1] = cvt.rn.satfinite.relu.e2m1x2.f32
// out[8*i + 2] = cvt.rn.satfinite.e2m3x2.f32            (16-bit result)
// out[8*i + 3] = cvt.rn.satfinite.relu.e3m2x2.f32
// out[8*i + 4] = cvt.rz.satfinite.ue8m0x2.f32
// out[8*i + 5] = cvt.rp.ue8m0x2.f32
// out[8*i + 6] = cvt.rn.satfinite.s2f6x2.f32            (no scale = scale 0x7f7f)
// out[8*i + 7] = cvt.rn.satfinite.scaled::n2::ue8m0.s2f6x2.f32 with scale-factor lo16(sf_in[i])
extern "C" __global__ void f32_to_narrow_x2_sm100a(const float* a_in, const float* b_in,
                                                   const unsigned int* sf_in, unsigned int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float a = a_in[i], b = b_in[i];
        unsigned short sf = (unsigned short)sf_in[i];
        unsigned int r;
        unsigned short h;
        asm("{\n\t.reg .b8 t;\n\t"
            "cvt.rn.satfinite.e2m1x2.f32 t, %1, %2;\n\t"
            "cvt.u32.u8 %0, t;\n\t}" : "=r"(r) : "f"(a), "f"(b));
        out[8 * i + 0] = r;
        asm("{\n\t.reg .b8 t;\n\t"
            "cvt.rn.satfinite.relu.e2m1x2.f32 t, %1, %2;\n\t"
            "cvt.u32.u8 %0, t;\n\t}" : "=r"(r) : "f"(a), "f"(b));
        out[8 * i + 1] = r;
        asm("cvt.rn.satfinite.e2m3x2.f32 %0, %1, %2;" : "=h"(h) : "f"(a), "f"(b));
        out[8 * i + 2] = h;
        asm("cvt.rn.satfinite.relu.e3m2x2.f32 %0, %1, %2;" : "=h"(h) : "f"(a), "f"(b));
        out[8 * i + 3] = h;
        asm("cvt.rz.satfinite.ue8m0x2.f32 %0, %1, %2;" : "=h"(h) : "f"(a), "f"(b));
        out[8 * i + 4] = h;
        asm("cvt.rp.ue8m0x2.f32 %0, %1, %2;" : "=h"(h) : "f"(a), "f"(b));
        out[8 * i + 5] = h;
        asm("cvt.rn.satfinite.s2f6x2.f32 %0, %1, %2;" : "=h"(h) : "f"(a), "f"(b));
        out[8 * i + 6] = h;
        asm("cvt.rn.satfinite.scaled::n2::ue8m0.s2f6x2.f32 %0, %1, %2, %3;" : "=h"(h) : "f"(a), "f"(b), "h"(sf));
        out[8 * i + 7] = h;
    }
}

// Up-conversions and packed-16-bit-source forms. For each i with w = in[i], sf = lo16(sf_in[i]):
// out[8*i + 0] = cvt.rn.f16x2.e2m1x2 of the low byte of w
// out[8*i + 1] = cvt.rn.relu.f16x2.e2m3x2 of lo16(w)
// out[8*i + 2] = cvt.rn.f16x2.e3m2x2 of hi16(w)
// out[8*i + 3] = cvt.rn.bf16x2.ue8m0x2 of lo16(w)
// out[8*i + 4] = cvt.rn.satfinite.scaled::n2::ue8m0.bf16x2.s2f6x2 of lo16(w), scale sf
// out[8*i + 5] = cvt.rp.satfinite.ue8m0x2.bf16x2 of w                (16-bit result)
// out[8*i + 6] = cvt.rn.satfinite.e2m3x2.bf16x2 of w | cvt.rn.satfinite.relu.e4m3x2.bf16x2 of w << 16
// out[8*i + 7] = cvt.rn.satfinite.e2m1x2.f16x2 of w (8-bit) | cvt.rn.satfinite.scaled::n2::ue8m0.s2f6x2.bf16x2 of w, scale sf << 16
extern "C" __global__ void narrow_up_and_packed_sm100a(const unsigned int* in, const unsigned int* sf_in,
                                                       unsigned int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int w = in[i];
        unsigned short lo = (unsigned short)w, hi = (unsigned short)(w >> 16);
        unsigned short sf = (unsigned short)sf_in[i];
        unsigned int r;
        unsigned short h0, h1;
        asm("{\n\t.reg .b8 t;\n\t"
            "cvt.u8.u32 t, %1;\n\t"
            "cvt.rn.f16x2.e2m1x2 %0, t;\n\t}" : "=r"(r) : "r"(w));
        out[8 * i + 0] = r;
        asm("cvt.rn.relu.f16x2.e2m3x2 %0, %1;" : "=r"(r) : "h"(lo));
        out[8 * i + 1] = r;
        asm("cvt.rn.f16x2.e3m2x2 %0, %1;" : "=r"(r) : "h"(hi));
        out[8 * i + 2] = r;
        asm("cvt.rn.bf16x2.ue8m0x2 %0, %1;" : "=r"(r) : "h"(lo));
        out[8 * i + 3] = r;
        asm("cvt.rn.satfinite.scaled::n2::ue8m0.bf16x2.s2f6x2 %0, %1, %2;" : "=r"(r) : "h"(lo), "h"(sf));
        out[8 * i + 4] = r;
        asm("cvt.rp.satfinite.ue8m0x2.bf16x2 %0, %1;" : "=h"(h0) : "r"(w));
        out[8 * i + 5] = h0;
        asm("cvt.rn.satfinite.e2m3x2.bf16x2 %0, %1;" : "=h"(h0) : "r"(w));
        asm("cvt.rn.satfinite.relu.e4m3x2.bf16x2 %0, %1;" : "=h"(h1) : "r"(w));
        out[8 * i + 6] = (unsigned int)h0 | ((unsigned int)h1 << 16);
        asm("{\n\t.reg .b8 t;\n\t"
            "cvt.rn.satfinite.e2m1x2.f16x2 t, %1;\n\t"
            "cvt.u32.u8 %0, t;\n\t}" : "=r"(r) : "r"(w));
        asm("cvt.rn.satfinite.scaled::n2::ue8m0.s2f6x2.bf16x2 %0, %1, %2;" : "=h"(h1) : "r"(w), "h"(sf));
        out[8 * i + 7] = r | ((unsigned int)h1 << 16);
    }
}

// Stochastic rounding (.rs, sm_100a/sm_103a only). For each i with v = in[i] (float4) and rb = rbits[i]:
// out[6*i + 0] = cvt.rs.f16x2.f32 (v.x, v.y, rb)
// out[6*i + 1] = cvt.rs.relu.satfinite.bf16x2.f32 (v.z, v.w, rb)
// out[6*i + 2] = cvt.rs.satfinite.e4m3x4.f32 {v.x, v.y, v.z, v.w}, rb
// out[6*i + 3] = cvt.rs.relu.satfinite.e5m2x4.f32 {v.x, v.y, v.z, v.w}, rb
// out[6*i + 4] = cvt.rs.satfinite.e2m3x4.f32 {v.x, v.y, v.z, v.w}, rb
// out[6*i + 5] = cvt.rs.satfinite.e2m1x4.f32 {v.x, v.y, v.z, v.w}, rb (16-bit) | cvt.rs.satfinite.e3m2x4.f32 low 16 bits << 16
extern "C" __global__ void stochastic_round_sm100a(const float4* in, const unsigned int* rbits,
                                                   unsigned int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 v = in[i];
        unsigned int rb = rbits[i];
        unsigned int r, r2;
        unsigned short h;
        asm("cvt.rs.f16x2.f32 %0, %1, %2, %3;" : "=r"(r) : "f"(v.x), "f"(v.y), "r"(rb));
        out[6 * i + 0] = r;
        asm("cvt.rs.relu.satfinite.bf16x2.f32 %0, %1, %2, %3;" : "=r"(r) : "f"(v.z), "f"(v.w), "r"(rb));
        out[6 * i + 1] = r;
        asm("cvt.rs.satfinite.e4m3x4.f32 %0, {%1, %2, %3, %4}, %5;"
            : "=r"(r) : "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w), "r"(rb));
        out[6 * i + 2] = r;
        asm("cvt.rs.relu.satfinite.e5m2x4.f32 %0, {%1, %2, %3, %4}, %5;"
            : "=r"(r) : "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w), "r"(rb));
        out[6 * i + 3] = r;
        asm("cvt.rs.satfinite.e2m3x4.f32 %0, {%1, %2, %3, %4}, %5;"
            : "=r"(r) : "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w), "r"(rb));
        out[6 * i + 4] = r;
        asm("cvt.rs.satfinite.e2m1x4.f32 %0, {%1, %2, %3, %4}, %5;"
            : "=h"(h) : "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w), "r"(rb));
        asm("cvt.rs.satfinite.e3m2x4.f32 %0, {%1, %2, %3, %4}, %5;"
            : "=r"(r2) : "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w), "r"(rb));
        out[6 * i + 5] = (unsigned int)h | (r2 << 16);
    }
}
