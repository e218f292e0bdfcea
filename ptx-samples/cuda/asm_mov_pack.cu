// Inline PTX: mov pack / unpack of every size (.b16, .b32, .b64, .b128).
// .b128 needs sm_70+ and PTX ISA 8.3+ (nvcc 13 emits 9.x).

// For each i with w = in[i] (a uint4 = four 32-bit words x,y,z,w):
// out[i].x = mov.b32 {lo16(w.x), lo16(w.y)}   (pack two 16-bit values: lo16(w.x) | lo16(w.y) << 16)
// out[i].y = byte-swap of w.z                 (mov.b32 unpack into four .b8 regs, repack reversed)
// out[i].z = w.w, out[i].w = w.x              (mov.b64 pack {w.x, w.w}, unpack {lo, hi})
extern "C" __global__ void mov_pack_unpack(const uint4* in, uint4* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        uint4 w = in[i];
        unsigned int r0, r1, r2, r3;
        unsigned short hx = (unsigned short)w.x, hy = (unsigned short)w.y;
        // pack two 16-bit values: r0 = hx | hy << 16
        asm("mov.b32 %0, {%1, %2};" : "=r"(r0) : "h"(hx), "h"(hy));
        // unpack four bytes of w.z and repack in reverse order (byte swap)
        asm("{\n\t"
            ".reg .b8 b0, b1, b2, b3;\n\t"
            "mov.b32 {b0, b1, b2, b3}, %1;\n\t"
            "mov.b32 %0, {b3, b2, b1, b0};\n\t"
            "}" : "=r"(r1) : "r"(w.z));
        // pack two 32-bit words into .b64, unpack as (hi, lo) swapped
        unsigned long long p;
        asm("mov.b64 %0, {%1, %2};" : "=l"(p) : "r"(w.x), "r"(w.w));
        asm("mov.b64 {%0, %1}, %2;" : "=r"(r3), "=r"(r2) : "l"(p));
        out[i] = make_uint4(r0, r1, r2, r3);
    }
}

// Unpack a double into its two 32-bit halves (mov.b64 {lo,hi}, %fd) and
// unpack the low half into two 16-bit halves with a sink: mov.b32 {_, hi16}
// lo[i] = low word of bits(in[i]), hi[i] = high word, top16[i] = bits 16..31 of the low word
extern "C" __global__ void unpack_double(const double* in, unsigned int* lo, unsigned int* hi,
                                         unsigned short* top16, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int l, h;
        unsigned short t;
        asm("mov.b64 {%0, %1}, %2;" : "=r"(l), "=r"(h) : "d"(in[i]));
        asm("mov.b32 {_, %0}, %1;" : "=h"(t) : "r"(l));
        lo[i] = l;
        hi[i] = h;
        top16[i] = t;
    }
}

// .b128 round trip: pack two u64 into a .b128 register, unpack as four u32 in
// reversed word order, and pack as two u64 again with halves swapped.
// out[2*i+0] = in[2*i+1], out[2*i+1] = in[2*i+0] (as u64); words[i] = the four 32-bit words reversed
extern "C" __global__ void mov_b128_roundtrip(const unsigned long long* in, unsigned long long* out,
                                              uint4* words, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned long long a = in[2 * i + 0], b = in[2 * i + 1], x, y;
        unsigned int w0, w1, w2, w3;
        asm("{\n\t"
            ".reg .b128 q;\n\t"
            "mov.b128 q, {%6, %7};\n\t"
            "mov.b128 {%0, %1}, q;\n\t"
            "mov.b128 {%2, %3, %4, %5}, q;\n\t"
            "}"
            : "=l"(y), "=l"(x), "=r"(w0), "=r"(w1), "=r"(w2), "=r"(w3)
            : "l"(a), "l"(b));
        out[2 * i + 0] = x;
        out[2 * i + 1] = y;
        words[i] = make_uint4(w3, w2, w1, w0);
    }
}
