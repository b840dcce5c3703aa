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

extern "C" __global__ void __launch_bounds__(1) loopy_kernel(int const *__restrict__ a, int const *__restrict__ b, int const n, int *__restrict__ out)
{
  for (int i = 0; i <= -1 + n; ++i)
    out[i] = (int) ((unsigned int) 3 * (unsigned int) a[i] - (unsigned int) loom_floor_div_int32(b[i], 2) + (unsigned int) loom_mod_int32(b[i], 3));
}
