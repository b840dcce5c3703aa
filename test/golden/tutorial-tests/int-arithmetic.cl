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
inline int loom_mod_int32(int a, int b)
{
  // the remainder with the divisor's sign; x % 0 and INT_MIN % -1 (undefined in C) are 0
  if (b == 0 || b == -1) return 0;
  int r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

__kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) loopy_kernel(__global int const *__restrict__ a, __global int const *__restrict__ b, int const n, __global int *__restrict__ out)
{
  for (int i = 0; i <= -1 + n; ++i)
    out[i] = (int) ((uint) 3 * (uint) a[i] - (uint) loom_floor_div_int32(b[i], 2) + (uint) loom_mod_int32(b[i], 3));
}
