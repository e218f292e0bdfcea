// An n-body step as the GPU Gems / cuda-samples nbody kernel writes it: float4 positions with the
// mass in w, bodies loaded tile by tile into shared memory, the softened interaction with
// rsqrtf, `#pragma unroll`, __restrict__ pointers and __ldg loads, then a leapfrog integration
// step; several steps, compared with a double-precision CPU reference within a tolerance.
#include <vector>
#include "check.h"

constexpr int N = 1024, TILE = 128, STEPS = 3;
constexpr float SOFT2 = 0.01f, DT = 0.001f;

__device__ float3 interact(float4 bi, float4 bj, float3 a) {
  float3 r = make_float3(bj.x - bi.x, bj.y - bi.y, bj.z - bi.z);
  float d2 = r.x * r.x + r.y * r.y + r.z * r.z + SOFT2;
  float inv = rsqrtf(d2);
  float s = bj.w * inv * inv * inv;
  a.x += r.x * s;
  a.y += r.y * s;
  a.z += r.z * s;
  return a;
}

__global__ void accelerations(const float4 *__restrict__ pos, float3 *__restrict__ acc, int n) {
  __shared__ float4 tile[TILE];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 me = i < n ? __ldg(&pos[i]) : make_float4(0, 0, 0, 0);
  float3 a = make_float3(0, 0, 0);
  for (int base = 0; base < n; base += TILE) {
    tile[threadIdx.x] = __ldg(&pos[base + threadIdx.x]);
    __syncthreads();
#pragma unroll 8
    for (int j = 0; j < TILE; ++j) a = interact(me, tile[j], a);
    __syncthreads();
  }
  if (i < n) acc[i] = a;
}

__global__ void integrate(float4 *__restrict__ pos, float4 *__restrict__ vel, const float3 *__restrict__ acc, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 v = vel[i], p = pos[i];
  float3 a = acc[i];
  v.x += a.x * dt;
  v.y += a.y * dt;
  v.z += a.z * dt;
  p.x += v.x * dt;
  p.y += v.y * dt;
  p.z += v.z * dt;
  vel[i] = v;
  pos[i] = p;
}

int main() {
  std::vector<float4> pos(N), vel(N);
  unsigned s = 7;
  auto uni = [&] { return float(lcg(s) >> 8) / float(1 << 24) * 2.0f - 1.0f; };
  for (int i = 0; i < N; ++i) {
    pos[i] = make_float4(uni(), uni(), uni(), 0.5f + 0.5f * (uni() + 1.0f) / 2.0f);
    vel[i] = make_float4(0.1f * uni(), 0.1f * uni(), 0.1f * uni(), 0.0f);
  }
  // the CPU reference in double
  std::vector<double> px(N), py(N), pz(N), m(N), vx(N), vy(N), vz(N);
  for (int i = 0; i < N; ++i) {
    px[i] = pos[i].x, py[i] = pos[i].y, pz[i] = pos[i].z, m[i] = pos[i].w;
    vx[i] = vel[i].x, vy[i] = vel[i].y, vz[i] = vel[i].z;
  }
  float4 *d_pos, *d_vel;
  float3 *d_acc;
  CUDA(cudaMalloc(&d_pos, N * sizeof(float4)));
  CUDA(cudaMalloc(&d_vel, N * sizeof(float4)));
  CUDA(cudaMalloc(&d_acc, N * sizeof(float3)));
  CUDA(cudaMemcpy(d_pos, pos.data(), N * sizeof(float4), cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(d_vel, vel.data(), N * sizeof(float4), cudaMemcpyHostToDevice));
  std::vector<float3> acc_gpu(N);
  std::vector<double> ax(N), ay(N), az(N), absum(N), vtol(N, 1e-6), ptol(N, 1e-6);
  for (int step = 0; step < STEPS; ++step) {
    accelerations<<<N / TILE, TILE>>>(d_pos, d_acc, N);
    CUDA(cudaGetLastError());
    if (step == 0) CUDA(cudaMemcpy(acc_gpu.data(), d_acc, N * sizeof(float3), cudaMemcpyDeviceToHost));
    integrate<<<(N + 255) / 256, 256>>>(d_pos, d_vel, d_acc, N, DT);
    CUDA(cudaGetLastError());
    for (int i = 0; i < N; ++i) {
      double a0 = 0, a1 = 0, a2 = 0, sum = 0;
      for (int j = 0; j < N; ++j) {
        double rx = px[j] - px[i], ry = py[j] - py[i], rz = pz[j] - pz[i];
        double d2 = rx * rx + ry * ry + rz * rz + SOFT2;
        double sc = m[j] / (d2 * std::sqrt(d2));
        a0 += rx * sc, a1 += ry * sc, a2 += rz * sc;
        sum += (std::fabs(rx) + std::fabs(ry) + std::fabs(rz)) * sc;
      }
      // float summation of N terms: error below N * 2^-24 of the sum of their magnitudes
      ax[i] = a0, ay[i] = a1, az[i] = a2, absum[i] = 1e-4 * sum + 1e-6;
    }
    if (step == 0) {
      for (int i = 0; i < N; ++i) {
        double err = std::fabs(acc_gpu[i].x - ax[i]) + std::fabs(acc_gpu[i].y - ay[i]) + std::fabs(acc_gpu[i].z - az[i]);
        CHECK(err <= absum[i], "acc[%d] (%g %g %g) vs (%g %g %g)", i, acc_gpu[i].x, acc_gpu[i].y,
              acc_gpu[i].z, ax[i], ay[i], az[i]);
      }
    }
    for (int i = 0; i < N; ++i) {
      vx[i] += ax[i] * DT, vy[i] += ay[i] * DT, vz[i] += az[i] * DT;
      px[i] += vx[i] * DT, py[i] += vy[i] * DT, pz[i] += vz[i] * DT;
      vtol[i] += absum[i] * DT + 1e-6, ptol[i] += vtol[i] * DT + 1e-6;
    }
  }
  CUDA(cudaMemcpy(pos.data(), d_pos, N * sizeof(float4), cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(vel.data(), d_vel, N * sizeof(float4), cudaMemcpyDeviceToHost));
  for (int i = 0; i < N; ++i) {
    CHECK(std::fabs(pos[i].x - px[i]) + std::fabs(pos[i].y - py[i]) + std::fabs(pos[i].z - pz[i]) <= ptol[i],
          "pos[%d] (%g %g %g) vs (%g %g %g)", i, pos[i].x, pos[i].y, pos[i].z, px[i], py[i], pz[i]);
    CHECK(std::fabs(vel[i].x - vx[i]) + std::fabs(vel[i].y - vy[i]) + std::fabs(vel[i].z - vz[i]) <= vtol[i],
          "vel[%d] (%g %g %g) vs (%g %g %g)", i, vel[i].x, vel[i].y, vel[i].z, vx[i], vy[i], vz[i]);
    CHECK(pos[i].w == float(m[i]), "mass[%d] kept", i);
  }
  CUDA(cudaFree(d_pos));
  CUDA(cudaFree(d_vel));
  CUDA(cudaFree(d_acc));
  return report("nbody");
}
