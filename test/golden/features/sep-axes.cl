#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) loopy_kernel(__global float const *__restrict__ a_s0, __global float const *__restrict__ a_s1, int const n, __global float *__restrict__ out_s0, __global float *__restrict__ out_s1, __global float *__restrict__ swapped_s0, __global float *__restrict__ swapped_s1)
{
  for (int i = 0; i <= -1 + n; ++i)
  {
    out_s0[i] = a_s0[i] + a_s1[i];
    out_s1[i] = a_s0[i] - a_s1[i];
    for (int j = 0; j <= 1; ++j)
    {
      if (j == 0)
        swapped_s0[i] = 1 - j == 0 ? a_s0[i] : a_s1[i];
      if (j == 1)
        swapped_s1[i] = 1 - j == 0 ? a_s0[i] : a_s1[i];
    }
  }
}
