#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(1) loopy_kernel(float const *__restrict__ A, int const m, int const n, float const *__restrict__ x, float *__restrict__ y)
{
  float acc_k;
  for (int i = 0; i <= -1 + n; ++i)
  {
    if (m >= 1)
      acc_k = 0.0f;
    for (int k = 0; k <= -1 + m; ++k)
      acc_k = acc_k + __fmul_rn(A[m * i + k], x[k]);
    if (m >= 1)
      y[i] = acc_k;
  }
}
