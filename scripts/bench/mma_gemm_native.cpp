// Native reference for scripts/bench/mma-gemm-vs-native.sh: C = A B for N x N bf16 matrices A
// (row major) and B (given column major, as the kernel mma_gemm.cu reads it), f32 results, as
// a host loop in i-k-j order (the j loop vectorizes without reordering any sum). The inputs
// are small integers, so every partial sum is exact and any order of summation gives the
// kernel's results bit for bit. No NVIDIA code needed.
//
// Usage: mma_gemm_native A.bf16 BT.bf16 OUT.f32 N REPEAT
// Prints the best wall-clock seconds of REPEAT runs of the loop and writes C.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static float bf16(uint16_t bits) {
    uint32_t word = uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &word, sizeof f);
    return f;
}

static std::vector<uint16_t> read(const char* path, size_t count) {
    std::vector<uint16_t> v(count);
    FILE* f = std::fopen(path, "rb");
    if (!f || std::fread(v.data(), 2, count, f) != count) { std::perror(path); std::exit(2); }
    std::fclose(f);
    return v;
}

int main(int argc, char** argv) {
    if (argc != 6) { std::fprintf(stderr, "usage: mma_gemm_native A BT OUT N REPEAT\n"); return 2; }
    size_t n = std::strtoul(argv[4], nullptr, 10);
    int repeat = std::atoi(argv[5]);
    std::vector<uint16_t> a16 = read(argv[1], n * n), bt16 = read(argv[2], n * n);
    std::vector<float> a(n * n), b(n * n), c(n * n);
    for (size_t i = 0; i < n * n; ++i) a[i] = bf16(a16[i]);
    for (size_t j = 0; j < n; ++j)
        for (size_t k = 0; k < n; ++k) b[k * n + j] = bf16(bt16[j * n + k]);
    double best = 1e30;
    for (int r = 0; r < repeat; ++r) {
        auto start = std::chrono::steady_clock::now();
        std::fill(c.begin(), c.end(), 0.0f);
        for (size_t i = 0; i < n; ++i)
            for (size_t k = 0; k < n; ++k) {
                float x = a[i * n + k];
                const float* brow = &b[k * n];
                float* crow = &c[i * n];
                for (size_t j = 0; j < n; ++j) crow[j] += x * brow[j];
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
