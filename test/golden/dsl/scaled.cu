#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(1) scaled(float const *__restrict__ a, int const n, float *__restrict__ out)
{
  for (int i = 0; i <= -1 + n; ++i)
    out[i] = __fmul_rn(2.0f, a[i]);
}
