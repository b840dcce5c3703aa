#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(128, 1, 1))) loopy_kernel(__global float *__restrict__ a, int const n)
{
  float x;
  for (int j = 0; j <= -1 + n; ++j)
  {
    if (128 * gid(0) <= n - lid(0) - 1)
    {
      {
        int const i = 128 * gid(0) + lid(0);

        x = sin((float) i*j);
      }
      a[n * (128 * gid(0) + lid(0)) + j] = x;
    }
  }
}
