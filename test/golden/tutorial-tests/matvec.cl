#pragma OPENCL FP_CONTRACT OFF
#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) loopy_kernel(__global float const *__restrict__ A, int const m, int const n, __global float const *__restrict__ x, __global float *__restrict__ y)
{
  float acc_k;
  for (int i = 0; i <= -1 + n; ++i)
  {
    if (m >= 1)
      acc_k = 0.0f;
    for (int k = 0; k <= -1 + m; ++k)
      acc_k = acc_k + A[m * i + k] * x[k];
    if (m >= 1)
      y[i] = acc_k;
  }
}
