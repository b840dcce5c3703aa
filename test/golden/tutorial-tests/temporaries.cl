#pragma OPENCL FP_CONTRACT OFF
#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) loopy_kernel(__global float const *__restrict__ a, int const n, __global float *__restrict__ out)
{
  float t;
  float u;
  for (int i = 0; i <= -1 + n; ++i)
  {
    t = a[i] * a[i];
    u = t + 1.0f;
    out[i] = u / 2.0f;
  }
}
