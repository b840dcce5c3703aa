#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(128, 1, 1))) loopy_kernel(__global float const *__restrict__ a, __global float *__restrict__ out, int const n)
{
  if (128 * gid(0) <= n - lid(0) - 1)
    out[128 * gid(0) + lid(0)] = 2.0f * a[128 * gid(0) + lid(0)];
}
