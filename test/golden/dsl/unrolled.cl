#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

inline int loom_floor_div_int32(int a, int b)
{
  // the quotient rounded down (C truncates); x // 0 is 0, INT_MIN // -1 wraps
  if (b == 0) return 0;
  if (b == -1) return (int) (0 - (uint) a);
  int q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

__kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) loopy_kernel(__global float const *__restrict__ a, __global float *__restrict__ out, int const n)
{
  for (int i_outer = 0; i_outer <= loom_floor_div_int32(n - 1, 4); ++i_outer)
  {
    out[4 * i_outer] = 2.0f * a[4 * i_outer];
    out[4 * i_outer + 1] = 2.0f * a[4 * i_outer + 1];
    out[4 * i_outer + 2] = 2.0f * a[4 * i_outer + 2];
    out[4 * i_outer + 3] = 2.0f * a[4 * i_outer + 3];
  }
}
