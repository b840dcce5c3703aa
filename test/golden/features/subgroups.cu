#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

inline __device__ float loom_subgroup_add_float32(float x)
{
  for (int m = 16; m >= 1; m /= 2)
  {
    float const y = __shfl_xor_sync(0xffffffffu, x, m);
    x = x + y;
  }
  return x;
}
inline __device__ float loom_subgroup_min_float32(float x)
{
  for (int m = 16; m >= 1; m /= 2)
  {
    float const y = __shfl_xor_sync(0xffffffffu, x, m);
    x = (y < x ? y : x);
  }
  return x;
}
inline __device__ float loom_subgroup_max_float32(float x)
{
  for (int m = 16; m >= 1; m /= 2)
  {
    float const y = __shfl_xor_sync(0xffffffffu, x, m);
    x = (y > x ? y : x);
  }
  return x;
}
inline __device__ float loom_subgroup_inclusive_add_float32(float x)
{
  int const lane = (((int) (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))) & 31);
  for (int d = 1; d < 32; d *= 2)
  {
    float const y = __shfl_up_sync(0xffffffffu, x, d);
    if (lane >= d) x = x + y;
  }
  return x;
}
inline __device__ float loom_subgroup_exclusive_add_float32(float x)
{
  int const lane = (((int) (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))) & 31);
  for (int d = 1; d < 32; d *= 2)
  {
    float const y = __shfl_up_sync(0xffffffffu, x, d);
    if (lane >= d) x = x + y;
  }
  float const before = __shfl_up_sync(0xffffffffu, x, 1);
  return lane == 0 ? (float) 0 : before;
}

extern "C" __global__ void __launch_bounds__(64) loopy_kernel(float const *__restrict__ a, int *__restrict__ ids, float *__restrict__ moved, int const n, float *__restrict__ scan, float *__restrict__ sum)
{
  float x;
  x = a[64 * bIdx(x) + tIdx(x)];
  sum[64 * bIdx(x) + tIdx(x)] = loom_subgroup_add_float32(x) + __fmul_rn(loom_subgroup_min_float32(x), loom_subgroup_max_float32(x));
  scan[64 * bIdx(x) + tIdx(x)] = loom_subgroup_inclusive_add_float32(x) - loom_subgroup_exclusive_add_float32(x);
  moved[64 * bIdx(x) + tIdx(x)] = __shfl_sync(0xffffffffu, x, (int) ((unsigned int) 32 - (unsigned int) 1 - (unsigned int) (((int) (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))) & 31))) + __shfl_xor_sync(0xffffffffu, x, 2) + __shfl_sync(0xffffffffu, x, 0);
  ids[64 * bIdx(x) + tIdx(x)] = (((int) (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))) / 32);
}
