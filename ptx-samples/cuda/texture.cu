// Texture and surface objects (bindless): the tex/tld4/suld/sust forms nvcc emits for
// cudaTextureObject_t and cudaSurfaceObject_t. Every kernel reads its coordinates from a buffer
// and writes what it fetched, so that a test can give any texture and any coordinates.
#include <cuda_runtime.h>

// out[i] = tex1Dfetch<float4>(t, x[i]) (integer coordinates: tex.1d.v4.f32.s32)
extern "C" __global__ void tex_fetch_1d(cudaTextureObject_t t, const int* x, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float4>(t, x[i]);
}

// out[i] = tex1Dfetch<int4>(t, x[i]) (tex.1d.v4.s32.s32)
extern "C" __global__ void tex_fetch_1d_int(cudaTextureObject_t t, const int* x, int4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<int4>(t, x[i]);
}

// out[i] = tex1D<float4>(t, x[i]) (tex.1d.v4.f32.f32)
extern "C" __global__ void tex_sample_1d(cudaTextureObject_t t, const float* x, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1D<float4>(t, x[i]);
}

// out[i] = tex2D<float4>(t, c[i].x, c[i].y) (tex.2d.v4.f32.f32)
extern "C" __global__ void tex_sample_2d(cudaTextureObject_t t, const float2* c, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float4>(t, c[i].x, c[i].y);
}

// out[i] = tex2D<uint4>(t, c[i].x, c[i].y) (tex.2d.v4.u32.f32)
extern "C" __global__ void tex_sample_2d_uint(cudaTextureObject_t t, const float2* c, uint4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<uint4>(t, c[i].x, c[i].y);
}

// out[i] = tex3D<float4>(t, c[i].x, c[i].y, c[i].z) (tex.3d.v4.f32.f32)
extern "C" __global__ void tex_sample_3d(cudaTextureObject_t t, const float4* c, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex3D<float4>(t, c[i].x, c[i].y, c[i].z);
}

// out[i] = tex2DLayered<float4>(t, c[i].x, c[i].y, layer[i]) (tex.a2d.v4.f32.f32)
extern "C" __global__ void tex_sample_layered(cudaTextureObject_t t, const float2* c, const int* layer,
                                              float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2DLayered<float4>(t, c[i].x, c[i].y, layer[i]);
}

// out[i] = texCubemap<float4>(t, c[i].x, c[i].y, c[i].z) (tex.cube.v4.f32.f32)
extern "C" __global__ void tex_sample_cube(cudaTextureObject_t t, const float4* c, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = texCubemap<float4>(t, c[i].x, c[i].y, c[i].z);
}

// out[i] = tex2Dgather<float4>(t, c[i].x, c[i].y, 0) (tld4.r.2d.v4.f32.f32)
extern "C" __global__ void tex_gather_2d(cudaTextureObject_t t, const float2* c, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2Dgather<float4>(t, c[i].x, c[i].y, 0);
}

// Surface round trip over a w x h array of floats: out(x, y) = 2 * in(x, y) (suld/sust .b32
// .trap), and the uchar4 forms with .clamp and .zero at byte offset 4x + dx.
extern "C" __global__ void surf_scale_2d(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x < w && y < h) {
        float v;
        surf2Dread(&v, in, x * 4, y);
        surf2Dwrite(2.0f * v, out, x * 4, y);
    }
}

// uchar4 surface: out(x, y) = in(x + dx, y) read with cudaBoundaryModeClamp, written with
// cudaBoundaryModeZero at x + dx2 (out-of-range writes dropped).
extern "C" __global__ void surf_shift_uchar4(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int w, int dx,
                                             int dx2) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x < w) {
        uchar4 v;
        surf2Dread(&v, in, (x + dx) * 4, y, cudaBoundaryModeClamp);
        surf2Dwrite(v, out, (x + dx2) * 4, y, cudaBoundaryModeZero);
    }
}
