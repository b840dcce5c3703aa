#pragma OPENCL EXTENSION cl_khr_fp64: enable
#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) loopy_kernel(__global double const *__restrict__ a, int const n, __global double *__restrict__ out)
{
  for (int i = 0; i <= -1 + n; ++i)
    out[i] = sqrt(a[i]) * 0.1;
}
