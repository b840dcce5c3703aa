// Lets nvcc compile the OpenCL C that Loom generates, so that Nsight Compute (which profiles CUDA
// kernels only) can profile the very same kernel. Only what Loom's SGEMM uses is spelled here.
#pragma once
#include <cuda_runtime.h>

#define __kernel extern "C" __global__
#define __global
#define __local __shared__
#define CLK_LOCAL_MEM_FENCE 0
#define barrier(fence) __syncthreads()

__device__ inline unsigned get_local_id(int d) { return d == 0 ? threadIdx.x : d == 1 ? threadIdx.y : threadIdx.z; }
__device__ inline unsigned get_group_id(int d) { return d == 0 ? blockIdx.x : d == 1 ? blockIdx.y : blockIdx.z; }

// OpenCL's float4: components as .x… and .s0…, arithmetic lane by lane, a scalar broadcast.
struct __align__(16) cl_float4 {
  union {
    struct { float x, y, z, w; };
    struct { float s0, s1, s2, s3; };
  };
  __device__ cl_float4() {}
  __device__ cl_float4(float v) : x(v), y(v), z(v), w(v) {}
  __device__ cl_float4(float a, float b, float c, float d) : x(a), y(b), z(c), w(d) {}
};
__device__ inline cl_float4 operator+(cl_float4 p, cl_float4 q) { return cl_float4(p.x + q.x, p.y + q.y, p.z + q.z, p.w + q.w); }
__device__ inline cl_float4 operator*(cl_float4 p, cl_float4 q) { return cl_float4(p.x * q.x, p.y * q.y, p.z * q.z, p.w * q.w); }
__device__ inline cl_float4 operator*(float s, cl_float4 q) { return cl_float4(s * q.x, s * q.y, s * q.z, s * q.w); }
__device__ inline cl_float4 operator*(cl_float4 q, float s) { return s * q; }
#define float4 cl_float4
