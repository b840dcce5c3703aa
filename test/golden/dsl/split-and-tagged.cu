#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(128) loopy_kernel(float const *__restrict__ a, float *__restrict__ out, int const n)
{
  if (128 * bIdx(x) <= n - tIdx(x) - 1)
    out[128 * bIdx(x) + tIdx(x)] = __fmul_rn(2.0f, a[128 * bIdx(x) + tIdx(x)]);
}
