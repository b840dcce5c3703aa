#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(1) loopy_kernel(float4 const *__restrict__ a, float4 const *__restrict__ b, int const n, float4 *__restrict__ out)
{
  for (int i = 0; i <= -1 + n; ++i)
    out[i] = make_float4(__fmul_rn(2.0f, a[i].x) + b[i].x, __fmul_rn(2.0f, a[i].y) + b[i].y, __fmul_rn(2.0f, a[i].z) + b[i].z, __fmul_rn(2.0f, a[i].w) + b[i].w);
}
