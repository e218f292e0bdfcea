// The f32 GEMM of scripts/bench/gemm-vs-native.sh: C = A * B for N x N row-major matrices, in
// 16 x 16 tiles through shared memory (the textbook kernel, as the CUDA programming guide's
// "Shared Memory" section writes it), one thread per element of C. Each element is summed with
// fmaf in order of k, which sgemm_native.cpp repeats on the host, so the results are identical.
extern "C" __global__ void sgemm_tiled(const float* a, const float* b, float* c, int n) {
    __shared__ float as[16][16];
    __shared__ float bs[16][16];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    float sum = 0.0f;
    for (int t = 0; t < n; t += 16) {
        as[ty][tx] = a[row * n + t + tx];
        bs[ty][tx] = b[(t + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < 16; ++k) sum = fmaf(as[ty][k], bs[k][tx], sum);
        __syncthreads();
    }
    c[row * n + col] = sum;
}
