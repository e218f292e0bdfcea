// Native reference for scripts/bench/kernel-vs-native.sh: the loop the f32_to_e4m3 kernel of
// ptx-samples/cuda/fp8_convert.cu performs, on the host, with NVIDIA's host conversion function
// (cuda_fp8.h, not committed: installed by scripts/install-nvidia-tools.sh).
//
// Usage: kernel_native IN.f32 OUT.e4m3 REPEAT
// Prints the best wall-clock seconds of REPEAT runs of the loop and writes the output bytes.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_fp8.h>

int main(int argc, char** argv) {
    if (argc != 4) { std::fprintf(stderr, "usage: kernel_native IN OUT REPEAT\n"); return 2; }
    FILE* f = std::fopen(argv[1], "rb");
    if (!f) { std::perror(argv[1]); return 2; }
    std::vector<float> in;
    float v;
    while (std::fread(&v, sizeof v, 1, f) == 1) in.push_back(v);
    std::fclose(f);
    std::vector<__nv_fp8_storage_t> out(in.size());
    int repeat = std::atoi(argv[3]);
    double best = 1e30;
    for (int r = 0; r < repeat; ++r) {
        auto start = std::chrono::steady_clock::now();
        for (size_t i = 0; i < in.size(); ++i)
            out[i] = __nv_cvt_float_to_fp8(in[i], __NV_SATFINITE, __NV_E4M3);
        auto end = std::chrono::steady_clock::now();
        double s = std::chrono::duration<double>(end - start).count();
        if (s < best) best = s;
    }
    FILE* o = std::fopen(argv[2], "wb");
    if (!o) { std::perror(argv[2]); return 2; }
    std::fwrite(out.data(), 1, out.size(), o);
    std::fclose(o);
    std::printf("%.6f\n", best);
    return 0;
}
