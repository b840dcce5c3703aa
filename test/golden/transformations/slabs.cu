#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(1) loopy_kernel(float *__restrict__ a, int const n)
{
  /* bulk slab for 'i_outer' */
  for (int i_outer = 0; i_outer <= (n + 3) / 4 - 2; ++i_outer)
  {
    a[4 * i_outer] = 0.0f;
    a[4 * i_outer + 1] = 0.0f;
    a[4 * i_outer + 2] = 0.0f;
    a[4 * i_outer + 3] = 0.0f;
  }
  /* final slab for 'i_outer' */
  for (int i_outer = max(0, (n + 3) / 4 - 1); i_outer <= (n + 3) / 4 - 1; ++i_outer)
  {
    a[4 * i_outer] = 0.0f;
    if (4 * i_outer <= n - 2)
      a[4 * i_outer + 1] = 0.0f;
    if (4 * i_outer <= n - 3)
      a[4 * i_outer + 2] = 0.0f;
    if (4 * i_outer <= n - 4)
      a[4 * i_outer + 3] = 0.0f;
  }
}
