#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

inline __device__ int loom_mod_int32(int a, int b)
{
  // the remainder with the divisor's sign; x % 0 and INT_MIN % -1 (undefined in C) are 0
  if (b == 0 || b == -1) return 0;
  int r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

extern "C" __global__ void __launch_bounds__(64) loopy_kernel(float *__restrict__ out, float const *__restrict__ a, int const n)
{
  if (64 * bIdx(x) <= n - tIdx(x) - 1)
    atomicAdd(&out[loom_mod_int32(64 * bIdx(x) + tIdx(x), 20)], __fmul_rn(2.0f, a[64 * bIdx(x) + tIdx(x)]));
}
