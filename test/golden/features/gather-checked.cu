#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(64) loopy_kernel(int const *__restrict__ idx, float const *__restrict__ a, int const m, int const n, float *__restrict__ out, int *__restrict__ loom_bounds)
{
  if (64 * bIdx(x) <= n - tIdx(x) - 1)
  {
    if (!(0 <= idx[64 * bIdx(x) + tIdx(x)] && idx[64 * bIdx(x) + tIdx(x)] < m))
    {
      loom_bounds[0] = 1;
      loom_bounds[1] = idx[64 * bIdx(x) + tIdx(x)];
    }
    out[64 * bIdx(x) + tIdx(x)] = 0 <= idx[64 * bIdx(x) + tIdx(x)] && idx[64 * bIdx(x) + tIdx(x)] < m ? a[idx[64 * bIdx(x) + tIdx(x)]] : (float) 0;
  }
}
