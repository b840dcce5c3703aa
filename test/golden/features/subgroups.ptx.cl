#pragma OPENCL FP_CONTRACT OFF
#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

inline uint loom_shfl_bfly_b32(uint x, int a)
{
  uint r;
  asm volatile ("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(x), "r"(a));
  return r;
}
inline float loom_subgroup_add_float32(float x)
{
  for (int m = 16; m >= 1; m /= 2)
  {
    float const y = as_float(loom_shfl_bfly_b32(as_uint(x), m));
    x = x + y;
  }
  return x;
}
inline float loom_subgroup_min_float32(float x)
{
  for (int m = 16; m >= 1; m /= 2)
  {
    float const y = as_float(loom_shfl_bfly_b32(as_uint(x), m));
    x = (y < x ? y : x);
  }
  return x;
}
inline float loom_subgroup_max_float32(float x)
{
  for (int m = 16; m >= 1; m /= 2)
  {
    float const y = as_float(loom_shfl_bfly_b32(as_uint(x), m));
    x = (y > x ? y : x);
  }
  return x;
}
inline uint loom_shfl_up_b32(uint x, int a)
{
  uint r;
  asm volatile ("shfl.sync.up.b32 %0, %1, %2, 0x0, 0xffffffff;" : "=r"(r) : "r"(x), "r"(a));
  return r;
}
inline float loom_subgroup_inclusive_add_float32(float x)
{
  int const lane = (((int) (get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)))) & 31);
  for (int d = 1; d < 32; d *= 2)
  {
    float const y = as_float(loom_shfl_up_b32(as_uint(x), d));
    if (lane >= d) x = x + y;
  }
  return x;
}
inline float loom_subgroup_exclusive_add_float32(float x)
{
  int const lane = (((int) (get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)))) & 31);
  for (int d = 1; d < 32; d *= 2)
  {
    float const y = as_float(loom_shfl_up_b32(as_uint(x), d));
    if (lane >= d) x = x + y;
  }
  float const before = as_float(loom_shfl_up_b32(as_uint(x), 1));
  return lane == 0 ? (float) 0 : before;
}
inline uint loom_shfl_idx_b32(uint x, int a)
{
  uint r;
  asm volatile ("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(x), "r"(a));
  return r;
}

__kernel void __attribute__ ((reqd_work_group_size(64, 1, 1))) loopy_kernel(__global float const *__restrict__ a, __global int *__restrict__ ids, __global float *__restrict__ moved, int const n, __global float *__restrict__ scan, __global float *__restrict__ sum)
{
  float x;
  x = a[64 * gid(0) + lid(0)];
  sum[64 * gid(0) + lid(0)] = loom_subgroup_add_float32(x) + loom_subgroup_min_float32(x) * loom_subgroup_max_float32(x);
  scan[64 * gid(0) + lid(0)] = loom_subgroup_inclusive_add_float32(x) - loom_subgroup_exclusive_add_float32(x);
  moved[64 * gid(0) + lid(0)] = as_float(loom_shfl_idx_b32(as_uint(x), (int) ((uint) 32 - (uint) 1 - (uint) (((int) (get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)))) & 31)))) + as_float(loom_shfl_bfly_b32(as_uint(x), 2)) + as_float(loom_shfl_idx_b32(as_uint(x), 0));
  ids[64 * gid(0) + lid(0)] = (((int) (get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)))) / 32);
}
