#pragma OPENCL FP_CONTRACT OFF
#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) loopy_kernel(__global float4 const *__restrict__ a, __global float4 const *__restrict__ b, int const n, __global float4 *__restrict__ out)
{
  for (int i = 0; i <= -1 + n; ++i)
    out[i] = 2.0f * a[i] + b[i];
}
