// Inline PTX: cvt.pack.sat for every convert type (s16/u16 from two s32;
// s8/u8/s4/u4/s2/u2 with the .b32 "c" operand that fills the upper bits).
// Requires sm_75+ for the sub-byte forms (all archs generated here qualify).

// For each i: a = a_in[i], b = b_in[i], c = c_in[i]
// out[8*i + 0] = cvt.pack.sat.s16.s32 (a, b)
// out[8*i + 1] = cvt.pack.sat.u16.s32 (a, b)
// out[8*i + 2] = cvt.pack.sat.s8.s32.b32 (a, b, c)
// out[8*i + 3] = cvt.pack.sat.u8.s32.b32 (a, b, c)
// out[8*i + 4] = cvt.pack.sat.s4.s32.b32 (a, b, c)
// out[8*i + 5] = cvt.pack.sat.u4.s32.b32 (a, b, c)
// out[8*i + 6] = cvt.pack.sat.s2.s32.b32 (a, b, c)
// out[8*i + 7] = cvt.pack.sat.u2.s32.b32 (a, b, c)
extern "C" __global__ void cvt_pack_all(const int* a_in, const int* b_in, const unsigned int* c_in,
                                        unsigned int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int a = a_in[i];
        int b = b_in[i];
        unsigned int c = c_in[i];
        unsigned int r;
        asm("cvt.pack.sat.s16.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
        out[8 * i + 0] = r;
        asm("cvt.pack.sat.u16.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
        out[8 * i + 1] = r;
        asm("cvt.pack.sat.s8.s32.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
        out[8 * i + 2] = r;
        asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
        out[8 * i + 3] = r;
        asm("cvt.pack.sat.s4.s32.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
        out[8 * i + 4] = r;
        asm("cvt.pack.sat.u4.s32.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
        out[8 * i + 5] = r;
        asm("cvt.pack.sat.s2.s32.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
        out[8 * i + 6] = r;
        asm("cvt.pack.sat.u2.s32.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
        out[8 * i + 7] = r;
    }
}

// Chained 8-bit packing of four ints into one word, as in the PTX manual example:
// lo = cvt.pack.sat.s8.s32.b32(x2, x3, 0); out[i] = cvt.pack.sat.s8.s32.b32(x0, x1, lo)
// => bytes (msb..lsb) = sat8(x0), sat8(x1), sat8(x2), sat8(x3)
extern "C" __global__ void pack4_s8(const int4* in, unsigned int* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int4 v = in[i];
        unsigned int lo, r;
        asm("cvt.pack.sat.s8.s32.b32 %0, %1, %2, 0;" : "=r"(lo) : "r"(v.z), "r"(v.w));
        asm("cvt.pack.sat.s8.s32.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(v.x), "r"(v.y), "r"(lo));
        out[i] = r;
    }
}
