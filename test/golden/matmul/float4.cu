#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(256) sgemm(float4 const *__restrict__ a, float4 const *__restrict__ b, float4 *__restrict__ c)
{
  __shared__ float a_fetch[1087];
  __shared__ float4 b_fetch[256];
  float4 a_vec[1];
  float4 b_vec[1];
  float4 acc_k_outer_k_inner[4];
  acc_k_outer_k_inner[0] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  acc_k_outer_k_inner[1] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  acc_k_outer_k_inner[2] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  acc_k_outer_k_inner[3] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (int k_outer = 0; k_outer <= 7; ++k_outer)
  {
    b_vec[0] = make_float4(b[512 * k_outer + 32 * tIdx(y) + 16 * bIdx(x) + tIdx(x)].x, b[512 * k_outer + 32 * tIdx(y) + 16 * bIdx(x) + tIdx(x)].y, b[512 * k_outer + 32 * tIdx(y) + 16 * bIdx(x) + tIdx(x)].z, b[512 * k_outer + 32 * tIdx(y) + 16 * bIdx(x) + tIdx(x)].w);
    b_fetch[16 * tIdx(y) + tIdx(x)] = make_float4(b_vec[0].x, b_vec[0].y, b_vec[0].z, b_vec[0].w);
    if (16 * tIdx(y) <= -tIdx(x) + 63)
    {
      a_vec[0] = make_float4(a[2048 * bIdx(y) + 512 * tIdx(y) + 32 * tIdx(x) + 4 * k_outer].x, a[2048 * bIdx(y) + 512 * tIdx(y) + 32 * tIdx(x) + 4 * k_outer].y, a[2048 * bIdx(y) + 512 * tIdx(y) + 32 * tIdx(x) + 4 * k_outer].z, a[2048 * bIdx(y) + 512 * tIdx(y) + 32 * tIdx(x) + 4 * k_outer].w);
      a_fetch[272 * tIdx(y) + 17 * tIdx(x)] = a_vec[0].x;
      a_fetch[272 * tIdx(y) + 17 * tIdx(x) + 1] = a_vec[0].y;
      a_fetch[272 * tIdx(y) + 17 * tIdx(x) + 2] = a_vec[0].z;
      a_fetch[272 * tIdx(y) + 17 * tIdx(x) + 3] = a_vec[0].w;
      a_vec[0] = make_float4(a[2048 * bIdx(y) + 512 * tIdx(y) + 32 * tIdx(x) + 4 * k_outer + 1].x, a[2048 * bIdx(y) + 512 * tIdx(y) + 32 * tIdx(x) + 4 * k_outer + 1].y, a[2048 * bIdx(y) + 512 * tIdx(y) + 32 * tIdx(x) + 4 * k_outer + 1].z, a[2048 * bIdx(y) + 512 * tIdx(y) + 32 * tIdx(x) + 4 * k_outer + 1].w);
      a_fetch[272 * tIdx(y) + 17 * tIdx(x) + 4] = a_vec[0].x;
      a_fetch[272 * tIdx(y) + 17 * tIdx(x) + 5] = a_vec[0].y;
      a_fetch[272 * tIdx(y) + 17 * tIdx(x) + 6] = a_vec[0].z;
      a_fetch[272 * tIdx(y) + 17 * tIdx(x) + 7] = a_vec[0].w;
      a_vec[0] = make_float4(a[2048 * bIdx(y) + 512 * tIdx(y) + 32 * tIdx(x) + 4 * k_outer + 2].x, a[2048 * bIdx(y) + 512 * tIdx(y) + 32 * tIdx(x) + 4 * k_outer + 2].y, a[2048 * bIdx(y) + 512 * tIdx(y) + 32 * tIdx(x) + 4 * k_outer + 2].z, a[2048 * bIdx(y) + 512 * tIdx(y) + 32 * tIdx(x) + 4 * k_outer + 2].w);
      a_fetch[272 * tIdx(y) + 17 * tIdx(x) + 8] = a_vec[0].x;
      a_fetch[272 * tIdx(y) + 17 * tIdx(x) + 9] = a_vec[0].y;
      a_fetch[272 * tIdx(y) + 17 * tIdx(x) + 10] = a_vec[0].z;
      a_fetch[272 * tIdx(y) + 17 * tIdx(x) + 11] = a_vec[0].w;
      a_vec[0] = make_float4(a[2048 * bIdx(y) + 512 * tIdx(y) + 32 * tIdx(x) + 4 * k_outer + 3].x, a[2048 * bIdx(y) + 512 * tIdx(y) + 32 * tIdx(x) + 4 * k_outer + 3].y, a[2048 * bIdx(y) + 512 * tIdx(y) + 32 * tIdx(x) + 4 * k_outer + 3].z, a[2048 * bIdx(y) + 512 * tIdx(y) + 32 * tIdx(x) + 4 * k_outer + 3].w);
      a_fetch[272 * tIdx(y) + 17 * tIdx(x) + 12] = a_vec[0].x;
      a_fetch[272 * tIdx(y) + 17 * tIdx(x) + 13] = a_vec[0].y;
      a_fetch[272 * tIdx(y) + 17 * tIdx(x) + 14] = a_vec[0].z;
      a_fetch[272 * tIdx(y) + 17 * tIdx(x) + 15] = a_vec[0].w;
    }
    __syncthreads() /* for b_fetch (insn_acc_k_outer_k_inner_update depends on b_fetch_rule) */;
    for (int k_inner = 0; k_inner <= 15; ++k_inner)
    {
      acc_k_outer_k_inner[0] = make_float4(acc_k_outer_k_inner[0].x + a_fetch[17 * tIdx(y) + k_inner] * b_fetch[16 * k_inner + tIdx(x)].x, acc_k_outer_k_inner[0].y + a_fetch[17 * tIdx(y) + k_inner] * b_fetch[16 * k_inner + tIdx(x)].y, acc_k_outer_k_inner[0].z + a_fetch[17 * tIdx(y) + k_inner] * b_fetch[16 * k_inner + tIdx(x)].z, acc_k_outer_k_inner[0].w + a_fetch[17 * tIdx(y) + k_inner] * b_fetch[16 * k_inner + tIdx(x)].w);
      acc_k_outer_k_inner[1] = make_float4(acc_k_outer_k_inner[1].x + a_fetch[17 * tIdx(y) + k_inner + 272] * b_fetch[16 * k_inner + tIdx(x)].x, acc_k_outer_k_inner[1].y + a_fetch[17 * tIdx(y) + k_inner + 272] * b_fetch[16 * k_inner + tIdx(x)].y, acc_k_outer_k_inner[1].z + a_fetch[17 * tIdx(y) + k_inner + 272] * b_fetch[16 * k_inner + tIdx(x)].z, acc_k_outer_k_inner[1].w + a_fetch[17 * tIdx(y) + k_inner + 272] * b_fetch[16 * k_inner + tIdx(x)].w);
      acc_k_outer_k_inner[2] = make_float4(acc_k_outer_k_inner[2].x + a_fetch[17 * tIdx(y) + k_inner + 544] * b_fetch[16 * k_inner + tIdx(x)].x, acc_k_outer_k_inner[2].y + a_fetch[17 * tIdx(y) + k_inner + 544] * b_fetch[16 * k_inner + tIdx(x)].y, acc_k_outer_k_inner[2].z + a_fetch[17 * tIdx(y) + k_inner + 544] * b_fetch[16 * k_inner + tIdx(x)].z, acc_k_outer_k_inner[2].w + a_fetch[17 * tIdx(y) + k_inner + 544] * b_fetch[16 * k_inner + tIdx(x)].w);
      acc_k_outer_k_inner[3] = make_float4(acc_k_outer_k_inner[3].x + a_fetch[17 * tIdx(y) + k_inner + 816] * b_fetch[16 * k_inner + tIdx(x)].x, acc_k_outer_k_inner[3].y + a_fetch[17 * tIdx(y) + k_inner + 816] * b_fetch[16 * k_inner + tIdx(x)].y, acc_k_outer_k_inner[3].z + a_fetch[17 * tIdx(y) + k_inner + 816] * b_fetch[16 * k_inner + tIdx(x)].z, acc_k_outer_k_inner[3].w + a_fetch[17 * tIdx(y) + k_inner + 816] * b_fetch[16 * k_inner + tIdx(x)].w);
    }
    __syncthreads() /* for b_fetch (insn_acc_k_outer_k_inner_update depends on b_fetch_rule) across iterations of 'k_outer' */;
  }
  c[2048 * bIdx(y) + 32 * tIdx(y) + 16 * bIdx(x) + tIdx(x)] = make_float4(acc_k_outer_k_inner[0].x, acc_k_outer_k_inner[0].y, acc_k_outer_k_inner[0].z, acc_k_outer_k_inner[0].w);
  c[2048 * bIdx(y) + 32 * tIdx(y) + 16 * bIdx(x) + tIdx(x) + 512] = make_float4(acc_k_outer_k_inner[1].x, acc_k_outer_k_inner[1].y, acc_k_outer_k_inner[1].z, acc_k_outer_k_inner[1].w);
  c[2048 * bIdx(y) + 32 * tIdx(y) + 16 * bIdx(x) + tIdx(x) + 1024] = make_float4(acc_k_outer_k_inner[2].x, acc_k_outer_k_inner[2].y, acc_k_outer_k_inner[2].z, acc_k_outer_k_inner[2].w);
  c[2048 * bIdx(y) + 32 * tIdx(y) + 16 * bIdx(x) + tIdx(x) + 1536] = make_float4(acc_k_outer_k_inner[3].x, acc_k_outer_k_inner[3].y, acc_k_outer_k_inner[3].z, acc_k_outer_k_inner[3].w);
}
