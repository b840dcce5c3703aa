#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(64) loopy_kernel(float *__restrict__ out, float const *__restrict__ a, int const n)
{
  if (64 * bIdx(x) <= n - tIdx(x) - 1)
    atomicAdd(&out[(64 * bIdx(x) + tIdx(x)) % 20], __fmul_rn(2.0f, a[64 * bIdx(x) + tIdx(x)]));
}
