// Native reference for scripts/bench/warp-vs-native.sh: what the warp_sum_down kernel of
// ptx-samples/cuda/warp.cu computes, as a host loop: per warp of 32 inputs, the shfl.sync.down
// tree (offsets 16, 8, 4, 2, 1; an out-of-range lane adds its own value, PTX ISA 9.7.9.6), one
// IEEE f32 addition at a time, lane 0's sum written. No NVIDIA code needed.
//
// Usage: warp_native IN.f32 OUT.f32 REPEAT
// Prints the best wall-clock seconds of REPEAT runs of the loop and writes the sums.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
    if (argc != 4) { std::fprintf(stderr, "usage: warp_native IN OUT REPEAT\n"); return 2; }
    FILE* f = std::fopen(argv[1], "rb");
    if (!f) { std::perror(argv[1]); return 2; }
    std::vector<float> in;
    float v;
    while (std::fread(&v, sizeof v, 1, f) == 1) in.push_back(v);
    std::fclose(f);
    size_t warps = in.size() / 32;
    std::vector<float> out(warps);
    int repeat = std::atoi(argv[3]);
    double best = 1e30;
    for (int r = 0; r < repeat; ++r) {
        auto start = std::chrono::steady_clock::now();
        for (size_t w = 0; w < warps; ++w) {
            float lane[32], next[32];
            std::memcpy(lane, &in[w * 32], sizeof lane);
            for (int offset = 16; offset > 0; offset >>= 1) {
                for (int l = 0; l < 32; ++l) next[l] = lane[l] + (l + offset < 32 ? lane[l + offset] : lane[l]);
                std::memcpy(lane, next, sizeof lane);
            }
            out[w] = lane[0];
        }
        auto end = std::chrono::steady_clock::now();
        double s = std::chrono::duration<double>(end - start).count();
        if (s < best) best = s;
    }
    FILE* o = std::fopen(argv[2], "wb");
    if (!o) { std::perror(argv[2]); return 2; }
    std::fwrite(out.data(), sizeof(float), out.size(), o);
    std::fclose(o);
    std::printf("%.6f\n", best);
    return 0;
}
