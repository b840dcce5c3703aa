#pragma OPENCL FP_CONTRACT OFF
#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) loopy_kernel(__global half const *__restrict__ a, __global half const *__restrict__ b, int const n, __global half *__restrict__ out)
{
  half t;
  for (int i = 0; i <= -1 + n; ++i)
  {
    t = a[i] * b[i] + (half) 1.0f;
    out[i] = sqrt(t) + floor(a[i] / b[i]);
  }
}
