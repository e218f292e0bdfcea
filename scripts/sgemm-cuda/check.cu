// Runs siboehm/SGEMM_CUDA's kernels 1-12 (through its src/runner.cu's run_kernel, with the
// launch configurations it chooses) on square matrices and checks each result against a host
// computation of C = alpha*A*B + beta*C in double precision, with the repository's own
// verify_matrix (every element within 0.01). The repository's sgemm.cu compares with cuBLAS
// instead, at sizes 128 to 4096, 50 timed runs each; this driver replaces it for
// scripts/sgemm-cuda. Matrices as sgemm.cu fills them (randomize_matrix: values in -4.04..4.04
// with two decimals), the seed fixed after it.
//
//   check KERNEL SIZE...      e.g. check 10 128 256
#include "runner.cuh"
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s KERNEL(1-12) SIZE...\n", argv[0]);
    return 2;
  }
  int kernel = atoi(argv[1]);
  float alpha = 0.5f, beta = 3.0f;  // sgemm.cu's
  int failures = 0;
  for (int a = 2; a < argc; a++) {
    long n = atol(argv[a]);
    std::vector<float> A(n * n), B(n * n), C(n * n), out(n * n), ref(n * n);
    randomize_matrix(A.data(), n * n);
    randomize_matrix(B.data(), n * n);
    randomize_matrix(C.data(), n * n);
    for (long i = 0; i < n; i++)
      for (long j = 0; j < n; j++) {
        double sum = 0;
        for (long k = 0; k < n; k++) sum += (double)A[i * n + k] * B[k * n + j];
        ref[i * n + j] = (float)(alpha * sum + beta * (double)C[i * n + j]);
      }
    float *dA, *dB, *dC;
    size_t bytes = sizeof(float) * n * n;
    cudaCheck(cudaMalloc(&dA, bytes), __FILE__, __LINE__);
    cudaCheck(cudaMalloc(&dB, bytes), __FILE__, __LINE__);
    cudaCheck(cudaMalloc(&dC, bytes), __FILE__, __LINE__);
    cudaCheck(cudaMemcpy(dA, A.data(), bytes, cudaMemcpyHostToDevice), __FILE__, __LINE__);
    cudaCheck(cudaMemcpy(dB, B.data(), bytes, cudaMemcpyHostToDevice), __FILE__, __LINE__);
    cudaCheck(cudaMemcpy(dC, C.data(), bytes, cudaMemcpyHostToDevice), __FILE__, __LINE__);
    run_kernel(kernel, n, n, n, alpha, dA, dB, beta, dC, nullptr);
    cudaCheck(cudaGetLastError(), __FILE__, __LINE__);
    cudaCheck(cudaDeviceSynchronize(), __FILE__, __LINE__);
    cudaCheck(cudaMemcpy(out.data(), dC, bytes, cudaMemcpyDeviceToHost), __FILE__, __LINE__);
    bool ok = verify_matrix(ref.data(), out.data(), n * n);
    printf("kernel %d size %ld: %s\n", kernel, n, ok ? "PASS" : "FAIL");
    failures += !ok;
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
  }
  return failures ? 1 : 0;
}
