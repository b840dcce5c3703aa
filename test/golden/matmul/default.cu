#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(256) sgemm(float const *__restrict__ a, float const *__restrict__ b, float *__restrict__ c)
{
  __shared__ float a_fetch[1024];
  __shared__ float b_fetch[1024];
  float acc_k_outer_k_inner[16];
  acc_k_outer_k_inner[0] = 0.0f;
  acc_k_outer_k_inner[1] = 0.0f;
  acc_k_outer_k_inner[2] = 0.0f;
  acc_k_outer_k_inner[3] = 0.0f;
  acc_k_outer_k_inner[4] = 0.0f;
  acc_k_outer_k_inner[5] = 0.0f;
  acc_k_outer_k_inner[6] = 0.0f;
  acc_k_outer_k_inner[7] = 0.0f;
  acc_k_outer_k_inner[8] = 0.0f;
  acc_k_outer_k_inner[9] = 0.0f;
  acc_k_outer_k_inner[10] = 0.0f;
  acc_k_outer_k_inner[11] = 0.0f;
  acc_k_outer_k_inner[12] = 0.0f;
  acc_k_outer_k_inner[13] = 0.0f;
  acc_k_outer_k_inner[14] = 0.0f;
  acc_k_outer_k_inner[15] = 0.0f;
  for (int k_outer = 0; k_outer <= 7; ++k_outer)
  {
    a_fetch[16 * tIdx(y) + tIdx(x)] = a[8192 * bIdx(y) + 128 * tIdx(y) + 16 * k_outer + tIdx(x)];
    a_fetch[16 * tIdx(y) + tIdx(x) + 256] = a[8192 * bIdx(y) + 128 * tIdx(y) + 16 * k_outer + tIdx(x) + 2048];
    a_fetch[16 * tIdx(y) + tIdx(x) + 512] = a[8192 * bIdx(y) + 128 * tIdx(y) + 16 * k_outer + tIdx(x) + 4096];
    a_fetch[16 * tIdx(y) + tIdx(x) + 768] = a[8192 * bIdx(y) + 128 * tIdx(y) + 16 * k_outer + tIdx(x) + 6144];
    b_fetch[64 * tIdx(y) + tIdx(x)] = b[2048 * k_outer + 128 * tIdx(y) + 64 * bIdx(x) + tIdx(x)];
    b_fetch[64 * tIdx(y) + tIdx(x) + 16] = b[2048 * k_outer + 128 * tIdx(y) + 64 * bIdx(x) + tIdx(x) + 16];
    b_fetch[64 * tIdx(y) + tIdx(x) + 32] = b[2048 * k_outer + 128 * tIdx(y) + 64 * bIdx(x) + tIdx(x) + 32];
    b_fetch[64 * tIdx(y) + tIdx(x) + 48] = b[2048 * k_outer + 128 * tIdx(y) + 64 * bIdx(x) + tIdx(x) + 48];
    __syncthreads() /* for a_fetch (insn_acc_k_outer_k_inner_update depends on a_fetch_rule) */;
    for (int k_inner = 0; k_inner <= 15; ++k_inner)
    {
      acc_k_outer_k_inner[0] = acc_k_outer_k_inner[0] + a_fetch[16 * tIdx(y) + k_inner] * b_fetch[64 * k_inner + tIdx(x)];
      acc_k_outer_k_inner[1] = acc_k_outer_k_inner[1] + a_fetch[16 * tIdx(y) + k_inner] * b_fetch[64 * k_inner + tIdx(x) + 16];
      acc_k_outer_k_inner[2] = acc_k_outer_k_inner[2] + a_fetch[16 * tIdx(y) + k_inner] * b_fetch[64 * k_inner + tIdx(x) + 32];
      acc_k_outer_k_inner[3] = acc_k_outer_k_inner[3] + a_fetch[16 * tIdx(y) + k_inner] * b_fetch[64 * k_inner + tIdx(x) + 48];
      acc_k_outer_k_inner[4] = acc_k_outer_k_inner[4] + a_fetch[16 * tIdx(y) + k_inner + 256] * b_fetch[64 * k_inner + tIdx(x)];
      acc_k_outer_k_inner[5] = acc_k_outer_k_inner[5] + a_fetch[16 * tIdx(y) + k_inner + 256] * b_fetch[64 * k_inner + tIdx(x) + 16];
      acc_k_outer_k_inner[6] = acc_k_outer_k_inner[6] + a_fetch[16 * tIdx(y) + k_inner + 256] * b_fetch[64 * k_inner + tIdx(x) + 32];
      acc_k_outer_k_inner[7] = acc_k_outer_k_inner[7] + a_fetch[16 * tIdx(y) + k_inner + 256] * b_fetch[64 * k_inner + tIdx(x) + 48];
      acc_k_outer_k_inner[8] = acc_k_outer_k_inner[8] + a_fetch[16 * tIdx(y) + k_inner + 512] * b_fetch[64 * k_inner + tIdx(x)];
      acc_k_outer_k_inner[9] = acc_k_outer_k_inner[9] + a_fetch[16 * tIdx(y) + k_inner + 512] * b_fetch[64 * k_inner + tIdx(x) + 16];
      acc_k_outer_k_inner[10] = acc_k_outer_k_inner[10] + a_fetch[16 * tIdx(y) + k_inner + 512] * b_fetch[64 * k_inner + tIdx(x) + 32];
      acc_k_outer_k_inner[11] = acc_k_outer_k_inner[11] + a_fetch[16 * tIdx(y) + k_inner + 512] * b_fetch[64 * k_inner + tIdx(x) + 48];
      acc_k_outer_k_inner[12] = acc_k_outer_k_inner[12] + a_fetch[16 * tIdx(y) + k_inner + 768] * b_fetch[64 * k_inner + tIdx(x)];
      acc_k_outer_k_inner[13] = acc_k_outer_k_inner[13] + a_fetch[16 * tIdx(y) + k_inner + 768] * b_fetch[64 * k_inner + tIdx(x) + 16];
      acc_k_outer_k_inner[14] = acc_k_outer_k_inner[14] + a_fetch[16 * tIdx(y) + k_inner + 768] * b_fetch[64 * k_inner + tIdx(x) + 32];
      acc_k_outer_k_inner[15] = acc_k_outer_k_inner[15] + a_fetch[16 * tIdx(y) + k_inner + 768] * b_fetch[64 * k_inner + tIdx(x) + 48];
    }
    __syncthreads() /* for a_fetch (insn_acc_k_outer_k_inner_update depends on a_fetch_rule) across iterations of 'k_outer' */;
  }
  c[8192 * bIdx(y) + 128 * tIdx(y) + 64 * bIdx(x) + tIdx(x)] = acc_k_outer_k_inner[0];
  c[8192 * bIdx(y) + 128 * tIdx(y) + 64 * bIdx(x) + tIdx(x) + 16] = acc_k_outer_k_inner[1];
  c[8192 * bIdx(y) + 128 * tIdx(y) + 64 * bIdx(x) + tIdx(x) + 32] = acc_k_outer_k_inner[2];
  c[8192 * bIdx(y) + 128 * tIdx(y) + 64 * bIdx(x) + tIdx(x) + 48] = acc_k_outer_k_inner[3];
  c[8192 * bIdx(y) + 128 * tIdx(y) + 64 * bIdx(x) + tIdx(x) + 2048] = acc_k_outer_k_inner[4];
  c[8192 * bIdx(y) + 128 * tIdx(y) + 64 * bIdx(x) + tIdx(x) + 2064] = acc_k_outer_k_inner[5];
  c[8192 * bIdx(y) + 128 * tIdx(y) + 64 * bIdx(x) + tIdx(x) + 2080] = acc_k_outer_k_inner[6];
  c[8192 * bIdx(y) + 128 * tIdx(y) + 64 * bIdx(x) + tIdx(x) + 2096] = acc_k_outer_k_inner[7];
  c[8192 * bIdx(y) + 128 * tIdx(y) + 64 * bIdx(x) + tIdx(x) + 4096] = acc_k_outer_k_inner[8];
  c[8192 * bIdx(y) + 128 * tIdx(y) + 64 * bIdx(x) + tIdx(x) + 4112] = acc_k_outer_k_inner[9];
  c[8192 * bIdx(y) + 128 * tIdx(y) + 64 * bIdx(x) + tIdx(x) + 4128] = acc_k_outer_k_inner[10];
  c[8192 * bIdx(y) + 128 * tIdx(y) + 64 * bIdx(x) + tIdx(x) + 4144] = acc_k_outer_k_inner[11];
  c[8192 * bIdx(y) + 128 * tIdx(y) + 64 * bIdx(x) + tIdx(x) + 6144] = acc_k_outer_k_inner[12];
  c[8192 * bIdx(y) + 128 * tIdx(y) + 64 * bIdx(x) + tIdx(x) + 6160] = acc_k_outer_k_inner[13];
  c[8192 * bIdx(y) + 128 * tIdx(y) + 64 * bIdx(x) + tIdx(x) + 6176] = acc_k_outer_k_inner[14];
  c[8192 * bIdx(y) + 128 * tIdx(y) + 64 * bIdx(x) + tIdx(x) + 6192] = acc_k_outer_k_inner[15];
}
