#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(1) loopy_kernel(double const *__restrict__ a, int const n, double *__restrict__ out)
{
  for (int i = 0; i <= -1 + n; ++i)
    out[i] = __dmul_rn(sqrt(a[i]), 0.1);
}
