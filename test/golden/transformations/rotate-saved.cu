#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

inline __device__ int loom_floor_div_int32(int a, int b)
{
  // the quotient rounded down (C truncates); x // 0 is 0, INT_MIN // -1 wraps
  if (b == 0) return 0;
  if (b == -1) return (int) (0 - (unsigned int) a);
  int q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline __device__ int loom_mod_int32(int a, int b)
{
  // the remainder with the divisor's sign; x % 0 and INT_MIN % -1 (undefined in C) are 0
  if (b == 0 || b == -1) return 0;
  int r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

extern "C" __global__ void __launch_bounds__(16) rotate_v2(int const *__restrict__ arr, int const n, int *__restrict__ tmp_save_slot)
{
  int tmp;
  tmp = arr[16 * bIdx(x) + tIdx(x)];
  if (0 <= bIdx(x) && bIdx(x) < loom_floor_div_int32(n + 15, 16))
    tmp_save_slot[16 * bIdx(x) + tIdx(x)] = tmp;
}

extern "C" __global__ void __launch_bounds__(16) rotate_v2_0(int *__restrict__ arr, int const n, int const *__restrict__ tmp_save_slot)
{
  int tmp;
  tmp = 0 <= bIdx(x) && bIdx(x) < loom_floor_div_int32(n + 15, 16) ? tmp_save_slot[16 * bIdx(x) + tIdx(x)] : 0;
  if (0 <= loom_mod_int32(16 * bIdx(x) + tIdx(x) + 1, n) && loom_mod_int32(16 * bIdx(x) + tIdx(x) + 1, n) < n)
    arr[loom_mod_int32(16 * bIdx(x) + tIdx(x) + 1, n)] = tmp;
}
