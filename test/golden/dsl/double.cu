#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(1) loopy_kernel(float const *__restrict__ a, float *__restrict__ out, int const n)
{
  for (int i = 0; i <= -1 + n; ++i)
    out[i] = __fmul_rn(2.0f, a[i]);
}
