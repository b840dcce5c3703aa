#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(256) matmul(float const *__restrict__ a, float const *__restrict__ b, float *__restrict__ c, int const n, int const l, int const m)
{
  __shared__ float a_fetch[256];
  __shared__ float b_fetch[256];
  float acc_k_outer_k_inner;
  if (16 * bIdx(y) <= n - tIdx(y) - 1 && 16 * bIdx(x) <= m - tIdx(x) - 1)
    acc_k_outer_k_inner = 0.0f;
  for (int k_outer = 0; k_outer <= (l - 1) / 16; ++k_outer)
  {
    if (16 * k_outer <= l - tIdx(y) - 1 && 16 * bIdx(x) <= m - tIdx(x) - 1)
      b_fetch[16 * tIdx(y) + tIdx(x)] = b[m * (16 * k_outer + tIdx(y)) + (16 * bIdx(x) + tIdx(x))];
    if (16 * bIdx(y) <= n - tIdx(y) - 1 && 16 * k_outer <= l - tIdx(x) - 1)
      a_fetch[16 * tIdx(y) + tIdx(x)] = a[l * (16 * bIdx(y) + tIdx(y)) + (16 * k_outer + tIdx(x))];
    __syncthreads() /* for b_fetch (insn_acc_k_outer_k_inner_update depends on b_fetch_rule) */;
    if (16 * bIdx(y) <= n - tIdx(y) - 1 && 16 * bIdx(x) <= m - tIdx(x) - 1)
      for (int k_inner = 0; k_inner <= min(l - 16 * k_outer - 1, 15); ++k_inner)
        acc_k_outer_k_inner = acc_k_outer_k_inner + __fmul_rn(a_fetch[16 * tIdx(y) + k_inner], b_fetch[16 * k_inner + tIdx(x)]);
    __syncthreads() /* for b_fetch (insn_acc_k_outer_k_inner_update depends on b_fetch_rule) across iterations of 'k_outer' */;
  }
  if (16 * bIdx(y) <= n - tIdx(y) - 1 && 16 * bIdx(x) <= m - tIdx(x) - 1)
    c[m * (16 * bIdx(y) + tIdx(y)) + (16 * bIdx(x) + tIdx(x))] = acc_k_outer_k_inner;
}
