#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) loopy_kernel(__global float *__restrict__ a, int const n)
{
  for (int i_outer = 0; i_outer <= (n + 3) / 4 - 1; ++i_outer)
  {
    a[4 * i_outer] = 0.0f;
    a[4 * i_outer + 1] = 0.0f;
    a[4 * i_outer + 2] = 0.0f;
    a[4 * i_outer + 3] = 0.0f;
  }
}
