/* The vector arithmetic of the CUDA SDK's old cutil_math.h (float3/float4 operators, dot,
 * normalize, clamp...) that the ISPASS-2009 benchmarks (RAY) call, written for
 * scripts/ispass2009 with the usual component-wise definitions. Not NVIDIA's code. */
#ifndef PTXSIM_CUTIL_MATH_H
#define PTXSIM_CUTIL_MATH_H
#include <cuda_runtime.h>
#include <math.h>
typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned char uchar;
#define CM_ __host__ __device__ inline

CM_ float clamp(float f, float a, float b) { return fmaxf(a, fminf(f, b)); }
CM_ float lerp(float a, float b, float t) { return a + t * (b - a); }

CM_ float3 make_float3(float s) { return make_float3(s, s, s); }
CM_ float3 make_float3(float4 a) { return make_float3(a.x, a.y, a.z); }
CM_ float4 make_float4(float s) { return make_float4(s, s, s, s); }
CM_ float4 make_float4(float3 a, float w) { return make_float4(a.x, a.y, a.z, w); }

CM_ float3 operator-(float3 a) { return make_float3(-a.x, -a.y, -a.z); }
CM_ float3 operator+(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }
CM_ float3 operator-(float3 a, float3 b) { return make_float3(a.x - b.x, a.y - b.y, a.z - b.z); }
CM_ float3 operator*(float3 a, float3 b) { return make_float3(a.x * b.x, a.y * b.y, a.z * b.z); }
CM_ float3 operator/(float3 a, float3 b) { return make_float3(a.x / b.x, a.y / b.y, a.z / b.z); }
CM_ float3 operator+(float3 a, float s) { return make_float3(a.x + s, a.y + s, a.z + s); }
CM_ float3 operator-(float3 a, float s) { return make_float3(a.x - s, a.y - s, a.z - s); }
CM_ float3 operator*(float3 a, float s) { return make_float3(a.x * s, a.y * s, a.z * s); }
CM_ float3 operator*(float s, float3 a) { return make_float3(s * a.x, s * a.y, s * a.z); }
CM_ float3 operator/(float3 a, float s) { return a * (1.0f / s); }
CM_ void operator+=(float3 &a, float3 b) { a = a + b; }
CM_ void operator-=(float3 &a, float3 b) { a = a - b; }
CM_ void operator*=(float3 &a, float s) { a = a * s; }
CM_ void operator/=(float3 &a, float s) { a = a / s; }

CM_ float4 operator-(float4 a) { return make_float4(-a.x, -a.y, -a.z, -a.w); }
CM_ float4 operator+(float4 a, float4 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
CM_ float4 operator-(float4 a, float4 b) {
  return make_float4(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w);
}
CM_ float4 operator*(float4 a, float4 b) {
  return make_float4(a.x * b.x, a.y * b.y, a.z * b.z, a.w * b.w);
}
CM_ float4 operator*(float4 a, float s) { return make_float4(a.x * s, a.y * s, a.z * s, a.w * s); }
CM_ float4 operator*(float s, float4 a) { return a * s; }
CM_ float4 operator/(float4 a, float s) { return a * (1.0f / s); }
CM_ void operator+=(float4 &a, float4 b) { a = a + b; }
CM_ void operator*=(float4 &a, float s) { a = a * s; }

CM_ float dot(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
CM_ float dot(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
CM_ float3 cross(float3 a, float3 b) {
  return make_float3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
CM_ float length(float3 v) { return sqrtf(dot(v, v)); }
CM_ float length(float4 v) { return sqrtf(dot(v, v)); }
CM_ float3 normalize(float3 v) { return v * rsqrtf(dot(v, v)); }
CM_ float4 normalize(float4 v) { return v * rsqrtf(dot(v, v)); }
CM_ float3 clamp(float3 v, float a, float b) {
  return make_float3(clamp(v.x, a, b), clamp(v.y, a, b), clamp(v.z, a, b));
}
CM_ float4 clamp(float4 v, float a, float b) {
  return make_float4(clamp(v.x, a, b), clamp(v.y, a, b), clamp(v.z, a, b), clamp(v.w, a, b));
}
CM_ float3 fabs(float3 v) { return make_float3(fabsf(v.x), fabsf(v.y), fabsf(v.z)); }
#undef CM_
#endif
