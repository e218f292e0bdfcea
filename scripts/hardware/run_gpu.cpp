// Launches PTX kernels on the GPU as a plan says and writes the buffers it names, concatenated in
// plan order, to one file. Driver API only (link with -lcuda); no NVIDIA code is copied here.
// Built and run by scripts/hardware/run-gpu.sh on a machine with an sm_90 GPU.
//
//   run_gpu PLAN OUTPUT_FILE
//
// PLAN has one launch per line, tab-separated (lines starting with # are comments):
//   MODULE(.ptx or .cubin)  ENTRY  GX,GY,GZ  BX,BY,BZ  ARGS  SAVED  [SHARED]
// ARGS are space-separated: buf:PATH (a device buffer holding the file), zeros:N (N zero bytes),
// poison:N (N bytes of 0xA5, for outputs the kernel must overwrite: an element it failed to
// write shows up as a mismatch, not as zeros), b32:HEX or b64:HEX (a scalar). SAVED lists the
// indices of the buffer arguments whose contents are written out after the launch. SHARED, if
// present, is the launch's dynamic shared memory in bytes (`.extern .shared` arrays).
#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

static void check(CUresult r, const char* what, const std::string& context = "") {
    if (r != CUDA_SUCCESS) {
        const char* name = nullptr;
        cuGetErrorName(r, &name);
        std::fprintf(stderr, "error: %s failed (%s) %s\n", what, name ? name : "?",
                     context.c_str());
        std::exit(1);
    }
}

static std::vector<char> read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        std::fprintf(stderr, "error: cannot read %s\n", path.c_str());
        std::exit(1);
    }
    return std::vector<char>(std::istreambuf_iterator<char>(f), {});
}

static std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string item;
    while (std::getline(in, item, sep))
        if (!item.empty()) out.push_back(item);
    return out;
}

static void dims(const std::string& text, unsigned d[3]) {
    auto parts = split(text, ',');
    for (int i = 0; i < 3; i++) d[i] = i < (int)parts.size() ? std::stoul(parts[i]) : 1;
}

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: run_gpu PLAN OUTPUT_FILE\n");
        return 2;
    }
    check(cuInit(0), "cuInit");
    CUdevice dev;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    char name[256];
    check(cuDeviceGetName(name, sizeof name, dev), "cuDeviceGetName");
    int major = 0, minor = 0, driver = 0;
    cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    cuDriverGetVersion(&driver);
    std::printf("device: %s, compute capability %d.%d, driver API %d\n", name, major, minor,
                driver);
    CUcontext ctx;
    check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");

    std::map<std::string, CUmodule> modules;
    std::map<std::string, std::vector<char>> files;
    std::ifstream plan(argv[1]);
    if (!plan) {
        std::fprintf(stderr, "error: cannot read %s\n", argv[1]);
        return 1;
    }
    std::ofstream out(argv[2], std::ios::binary);
    std::string line;
    int launches = 0;
    while (std::getline(plan, line)) {
        if (line.empty() || line[0] == '#') continue;
        auto fields = split(line, '\t');
        if (fields.size() < 5) {
            std::fprintf(stderr, "error: bad plan line: %s\n", line.c_str());
            return 1;
        }
        const std::string& path = fields[0];
        const std::string& entry = fields[1];
        if (!modules.count(path)) {
            std::vector<char> image = read_file(path);
            image.push_back('\0');
            char log[8192] = {0};
            CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
            void* vals[] = {log, reinterpret_cast<void*>(sizeof log)};
            CUmodule module;
            CUresult loaded = cuModuleLoadDataEx(&module, image.data(), 2, opts, vals);
            if (loaded != CUDA_SUCCESS) std::fprintf(stderr, "%s\n", log);
            check(loaded, "cuModuleLoadDataEx", path);
            modules[path] = module;
        }
        CUfunction function;
        check(cuModuleGetFunction(&function, modules[path], entry.c_str()),
              "cuModuleGetFunction", entry);
        unsigned grid[3], block[3];
        dims(fields[2], grid);
        dims(fields[3], block);
        auto args = split(fields[4], ' ');
        std::vector<uint64_t> values(args.size());
        std::vector<size_t> sizes(args.size(), 0);
        std::vector<void*> params(args.size());
        std::vector<bool> buffer(args.size(), false);
        for (size_t i = 0; i < args.size(); i++) {
            const std::string& a = args[i];
            size_t colon = a.find(':');
            std::string kind = a.substr(0, colon), value = a.substr(colon + 1);
            if (kind == "buf" || kind == "zeros" || kind == "poison") {
                buffer[i] = true;
                CUdeviceptr p;
                if (kind == "buf") {
                    if (!files.count(value)) files[value] = read_file(value);
                    const auto& data = files[value];
                    sizes[i] = data.size();
                    check(cuMemAlloc(&p, sizes[i] ? sizes[i] : 1), "cuMemAlloc");
                    if (sizes[i]) check(cuMemcpyHtoD(p, data.data(), sizes[i]), "cuMemcpyHtoD");
                } else {
                    sizes[i] = std::stoull(value);
                    check(cuMemAlloc(&p, sizes[i] ? sizes[i] : 1), "cuMemAlloc");
                    check(cuMemsetD8(p, kind == "poison" ? 0xA5 : 0, sizes[i]), "cuMemsetD8");
                }
                values[i] = p;
            } else if (kind == "b32" || kind == "b64") {
                values[i] = std::stoull(value, nullptr, 16);
            } else {
                std::fprintf(stderr, "error: bad argument %s\n", a.c_str());
                return 1;
            }
            params[i] = &values[i];  // little-endian: a 4-byte parameter reads the low half
        }
        unsigned shared = fields.size() > 6 ? std::stoul(fields[6]) : 0;
        check(cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                             shared, nullptr, params.data(), nullptr),
              "cuLaunchKernel", entry);
        check(cuCtxSynchronize(), "cuCtxSynchronize", entry);
        for (const auto& index : split(fields.size() > 5 ? fields[5] : "", ' ')) {
            size_t i = std::stoul(index);
            std::vector<char> result(sizes[i]);
            if (sizes[i]) check(cuMemcpyDtoH(result.data(), values[i], sizes[i]), "cuMemcpyDtoH");
            out.write(result.data(), static_cast<std::streamsize>(result.size()));
        }
        for (size_t i = 0; i < args.size(); i++)
            if (buffer[i]) cuMemFree(values[i]);
        ++launches;
    }
    out.close();
    std::printf("ran %d launches\n", launches);
    return 0;
}
