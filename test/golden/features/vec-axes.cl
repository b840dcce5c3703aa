#pragma OPENCL FP_CONTRACT OFF
#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) loopy_kernel(__global float4 const *__restrict__ a, int const n, __global float4 *__restrict__ out)
{
  for (int i = 0; i <= -1 + n; ++i)
  {
    ((__global float *) out)[4 * i] = 2.0f * a[i].s0 + a[i].s3;
    ((__global float *) out)[4 * i + 1] = 2.0f * a[i].s1 + a[i].s2;
    ((__global float *) out)[4 * i + 2] = 2.0f * a[i].s2 + a[i].s1;
    ((__global float *) out)[4 * i + 3] = 2.0f * a[i].s3 + a[i].s0;
  }
}
