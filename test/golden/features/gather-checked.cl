#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(64, 1, 1))) loopy_kernel(__global int const *__restrict__ idx, __global float const *__restrict__ a, int const m, int const n, __global float *__restrict__ out, __global int *__restrict__ loom_bounds)
{
  if (64 * gid(0) <= n - lid(0) - 1)
  {
    if (!(0 <= idx[64 * gid(0) + lid(0)] && idx[64 * gid(0) + lid(0)] < m))
    {
      loom_bounds[0] = 1;
      loom_bounds[1] = idx[64 * gid(0) + lid(0)];
    }
    out[64 * gid(0) + lid(0)] = 0 <= idx[64 * gid(0) + lid(0)] && idx[64 * gid(0) + lid(0)] < m ? a[idx[64 * gid(0) + lid(0)]] : (float) 0;
  }
}
