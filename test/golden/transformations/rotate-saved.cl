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

__kernel void __attribute__ ((reqd_work_group_size(16, 1, 1))) rotate_v2(__global int const *__restrict__ arr, int const n, __global int *__restrict__ tmp_save_slot)
{
  int tmp;
  tmp = arr[16 * gid(0) + lid(0)];
  if (0 <= gid(0) && gid(0) < loom_floor_div_int32(n + 15, 16))
    tmp_save_slot[16 * gid(0) + lid(0)] = tmp;
}

__kernel void __attribute__ ((reqd_work_group_size(16, 1, 1))) rotate_v2_0(__global int *__restrict__ arr, int const n, __global int const *__restrict__ tmp_save_slot)
{
  int tmp;
  tmp = 0 <= gid(0) && gid(0) < loom_floor_div_int32(n + 15, 16) ? tmp_save_slot[16 * gid(0) + lid(0)] : 0;
  if (0 <= loom_mod_int32(16 * gid(0) + lid(0) + 1, n) && loom_mod_int32(16 * gid(0) + lid(0) + 1, n) < n)
    arr[loom_mod_int32(16 * gid(0) + lid(0) + 1, n)] = tmp;
}
