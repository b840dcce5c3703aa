#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void loopy_kernel(__global float const *__restrict__ a, int const m, int const n, __global float *__restrict__ out)
{
  out[n * gid(0) + lid(0)] = 2.0f * a[n * gid(0) + lid(0)];
}
