// Streams NVIDIA's host reference results for every f32 input in [start, end) to stdout, for
// the f32-source conversions the CUDA headers implement. One record per input, in input order:
// the outputs of the conversions listed in kNames, little-endian, 2 bytes for f16/bf16 and 1
// byte for the others. Used by scripts/golden/exhaustive-f32.sh with the
// `exhaustive_f32` example of crates/softfloat. Not part of CI.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static float u2f(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
static uint16_t hraw(__half h) { return static_cast<__half_raw>(h).x; }
static uint16_t braw(__nv_bfloat16 h) { return static_cast<__nv_bfloat16_raw>(h).x; }

int main(int argc, char** argv) {
    if (argc < 3) { std::fprintf(stderr, "usage: %s <start hex> <end hex, exclusive>\n", argv[0]); return 2; }
    uint64_t start = std::strtoull(argv[1], nullptr, 16), end = std::strtoull(argv[2], nullptr, 16);
    const size_t kRec = 38, kChunk = 1 << 16;
    std::vector<unsigned char> buf(kRec * kChunk);
    const cudaRoundMode m4[4] = {cudaRoundNearest, cudaRoundZero, cudaRoundMinInf, cudaRoundPosInf};
    for (uint64_t base = start; base < end; base += kChunk) {
        size_t n = (size_t)((end - base) < kChunk ? (end - base) : kChunk);
        unsigned char* p = buf.data();
        for (size_t i = 0; i < n; i++) {
            float f = u2f((uint32_t)(base + i));
            uint16_t h[8] = {hraw(__float2half_rn(f)), hraw(__float2half_rz(f)), hraw(__float2half_rd(f)), hraw(__float2half_ru(f)),
                             braw(__float2bfloat16_rn(f)), braw(__float2bfloat16_rz(f)), braw(__float2bfloat16_rd(f)), braw(__float2bfloat16_ru(f))};
            std::memcpy(p, h, 16);
            p += 16;
            *p++ = __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E4M3);
            *p++ = __nv_cvt_float_to_fp8(f, __NV_NOSAT, __NV_E4M3);
            *p++ = __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E5M2);
            *p++ = __nv_cvt_float_to_fp8(f, __NV_NOSAT, __NV_E5M2);
            for (int m = 0; m < 4; m++) *p++ = __nv_cvt_float_to_fp6(f, __NV_E2M3, m4[m]);
            for (int m = 0; m < 4; m++) *p++ = __nv_cvt_float_to_fp6(f, __NV_E3M2, m4[m]);
            for (int m = 0; m < 4; m++) *p++ = __nv_cvt_float_to_fp4(f, __NV_E2M1, m4[m]);
            *p++ = __nv_cvt_float_to_e8m0(f, __NV_SATFINITE, cudaRoundZero);
            *p++ = __nv_cvt_float_to_e8m0(f, __NV_NOSAT, cudaRoundZero);
            *p++ = __nv_cvt_float_to_e8m0(f, __NV_SATFINITE, cudaRoundPosInf);
            *p++ = __nv_cvt_float_to_e8m0(f, __NV_NOSAT, cudaRoundPosInf);
            *p++ = __nv_cvt_float_to_e8m0(f, __NV_SATFINITE, cudaRoundNearest);
            *p++ = __nv_cvt_float_to_e8m0(f, __NV_NOSAT, cudaRoundNearest);
        }
        if (std::fwrite(buf.data(), kRec, n, stdout) != n) return 1;
    }
    return 0;
}
