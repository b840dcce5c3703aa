#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(16) loopy_kernel(float const *__restrict__ a, int const n, float *__restrict__ out)
{
  float a_fetch;
  float acc_k;
  if (16 * bIdx(x) <= n - tIdx(x) - 1)
  {
    a_fetch = a[16 * bIdx(x) + tIdx(x)];
    acc_k = 0.0f;
    for (int k = 0; k <= 15; ++k)
      acc_k = acc_k + a_fetch;
    out[16 * bIdx(x) + tIdx(x)] = acc_k;
  }
}
