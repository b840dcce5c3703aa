#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(128) loopy_kernel(float *__restrict__ a, int const n)
{
  if (128 * bIdx(x) <= n - tIdx(x) - 1)
    a[128 * bIdx(x) + tIdx(x)] = 0.0f;
}
