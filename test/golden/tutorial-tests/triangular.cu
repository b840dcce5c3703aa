#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(1) loopy_kernel(float *__restrict__ out, float const *__restrict__ a, int const n)
{
  for (int i = 0; i <= -1 + n; ++i)
    for (int j = 0; j <= i; ++j)
      out[n * i + j] = a[i] + (float) j;
}
