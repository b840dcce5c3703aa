#pragma OPENCL FP_CONTRACT OFF
#pragma OPENCL EXTENSION cl_khr_subgroup_shuffle: enable
#pragma OPENCL EXTENSION cl_khr_subgroups: enable
#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(64, 1, 1))) loopy_kernel(__global float const *__restrict__ a, __global int *__restrict__ ids, __global float *__restrict__ moved, int const n, __global float *__restrict__ scan, __global float *__restrict__ sum)
{
  float x;
  x = a[64 * gid(0) + lid(0)];
  sum[64 * gid(0) + lid(0)] = sub_group_reduce_add(x) + sub_group_reduce_min(x) * sub_group_reduce_max(x);
  scan[64 * gid(0) + lid(0)] = sub_group_scan_inclusive_add(x) - sub_group_scan_exclusive_add(x);
  moved[64 * gid(0) + lid(0)] = sub_group_shuffle(x, (uint) ((int) ((uint) ((int) get_sub_group_size()) - (uint) 1 - (uint) ((int) get_sub_group_local_id())))) + sub_group_shuffle_xor(x, (uint) (2)) + sub_group_broadcast(x, (uint) (0));
  ids[64 * gid(0) + lid(0)] = ((int) get_sub_group_id());
}
