#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(128) loopy_kernel(float *__restrict__ a, int const n)
{
  float x;
  for (int j = 0; j <= -1 + n; ++j)
  {
    if (128 * bIdx(x) <= n - tIdx(x) - 1)
    {
      {
        int const i = 128 * bIdx(x) + tIdx(x);

        x = sin((float) i*j);
      }
      a[n * (128 * bIdx(x) + tIdx(x)) + j] = x;
    }
  }
}
