#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(1) loopy_kernel(float4 const *__restrict__ a, int const n, float4 *__restrict__ out)
{
  for (int i = 0; i <= -1 + n; ++i)
  {
    out[i].x = __fmul_rn(2.0f, a[i].x) + a[i].w;
    out[i].y = __fmul_rn(2.0f, a[i].y) + a[i].z;
    out[i].z = __fmul_rn(2.0f, a[i].z) + a[i].y;
    out[i].w = __fmul_rn(2.0f, a[i].w) + a[i].x;
  }
}
