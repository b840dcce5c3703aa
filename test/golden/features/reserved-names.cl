#pragma OPENCL FP_CONTRACT OFF
#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) kernel_(__global float *__restrict__ float_, __global float *__restrict__ int_, __global float const *__restrict__ kernel_, int const n, __global float const *__restrict__ this)
{
  for (int int__ = 0; int__ <= -1 + n; ++int__)
  {
    int_[int__] = 2.0f * this[int__];
    float_[int__] = int_[int__] + kernel_[int__];
  }
}
