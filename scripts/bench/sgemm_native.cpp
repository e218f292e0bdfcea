// Native reference for scripts/bench/gemm-vs-native.sh: what sgemm_tiled (sgemm.cu) computes,
// as a host loop: c[i][j] = fmaf(a[i][k], b[k][j], ...) in order of k from 0. No NVIDIA code.
//
// Usage: sgemm_native A.f32 B.f32 OUT.f32 N REPEAT
// Prints the best wall-clock seconds of REPEAT runs of the loop and writes C.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

static std::vector<float> read(const char* path, size_t count) {
    std::vector<float> v(count);
    FILE* f = std::fopen(path, "rb");
    if (!f || std::fread(v.data(), sizeof(float), count, f) != count) {
        std::perror(path);
        std::exit(2);
    }
    std::fclose(f);
    return v;
}

int main(int argc, char** argv) {
    if (argc != 6) { std::fprintf(stderr, "usage: sgemm_native A B OUT N REPEAT\n"); return 2; }
    size_t n = std::strtoul(argv[4], nullptr, 10);
    std::vector<float> a = read(argv[1], n * n), b = read(argv[2], n * n), c(n * n);
    int repeat = std::atoi(argv[5]);
    double best = 1e30;
    for (int r = 0; r < repeat; ++r) {
        auto start = std::chrono::steady_clock::now();
        for (size_t i = 0; i < n; ++i) {
            for (size_t j = 0; j < n; ++j) {
                float sum = 0.0f;
                for (size_t k = 0; k < n; ++k) sum = std::fmaf(a[i * n + k], b[k * n + j], sum);
                c[i * n + j] = sum;
            }
        }
        auto end = std::chrono::steady_clock::now();
        double s = std::chrono::duration<double>(end - start).count();
        if (s < best) best = s;
    }
    FILE* o = std::fopen(argv[3], "wb");
    if (!o) { std::perror(argv[3]); return 2; }
    std::fwrite(c.data(), sizeof(float), c.size(), o);
    std::fclose(o);
    std::printf("%.6f\n", best);
    return 0;
}
