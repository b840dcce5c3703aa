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

extern "C" __global__ void __launch_bounds__(1) loopy_kernel(float const *__restrict__ a, float *__restrict__ out, int const n)
{
  for (int i_outer = 0; i_outer <= loom_floor_div_int32(n - 1, 4); ++i_outer)
  {
    out[4 * i_outer] = __fmul_rn(2.0f, a[4 * i_outer]);
    out[4 * i_outer + 1] = __fmul_rn(2.0f, a[4 * i_outer + 1]);
    out[4 * i_outer + 2] = __fmul_rn(2.0f, a[4 * i_outer + 2]);
    out[4 * i_outer + 3] = __fmul_rn(2.0f, a[4 * i_outer + 3]);
  }
}
