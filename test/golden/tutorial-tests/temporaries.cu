#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(1) loopy_kernel(float const *__restrict__ a, int const n, float *__restrict__ out)
{
  float t;
  float u;
  for (int i = 0; i <= -1 + n; ++i)
  {
    t = __fmul_rn(a[i], a[i]);
    u = t + 1.0f;
    out[i] = u / 2.0f;
  }
}
