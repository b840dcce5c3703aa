#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

extern "C" __global__ void __launch_bounds__(256) sgemm(float const *__restrict__ a, float const *__restrict__ b, float *__restrict__ c)
{
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
    for (int k_inner = 0; k_inner <= 15; ++k_inner)
    {
      acc_k_outer_k_inner[0] = acc_k_outer_k_inner[0] + a[8192 * bIdx(y) + 128 * tIdx(y) + 16 * k_outer + k_inner] * b[2048 * k_outer + 128 * k_inner + 64 * bIdx(x) + tIdx(x)];
      acc_k_outer_k_inner[1] = acc_k_outer_k_inner[1] + a[8192 * bIdx(y) + 128 * tIdx(y) + 16 * k_outer + k_inner] * b[2048 * k_outer + 128 * k_inner + 64 * bIdx(x) + tIdx(x) + 16];
      acc_k_outer_k_inner[2] = acc_k_outer_k_inner[2] + a[8192 * bIdx(y) + 128 * tIdx(y) + 16 * k_outer + k_inner] * b[2048 * k_outer + 128 * k_inner + 64 * bIdx(x) + tIdx(x) + 32];
      acc_k_outer_k_inner[3] = acc_k_outer_k_inner[3] + a[8192 * bIdx(y) + 128 * tIdx(y) + 16 * k_outer + k_inner] * b[2048 * k_outer + 128 * k_inner + 64 * bIdx(x) + tIdx(x) + 48];
      acc_k_outer_k_inner[4] = acc_k_outer_k_inner[4] + a[8192 * bIdx(y) + 128 * tIdx(y) + 16 * k_outer + k_inner + 2048] * b[2048 * k_outer + 128 * k_inner + 64 * bIdx(x) + tIdx(x)];
      acc_k_outer_k_inner[5] = acc_k_outer_k_inner[5] + a[8192 * bIdx(y) + 128 * tIdx(y) + 16 * k_outer + k_inner + 2048] * b[2048 * k_outer + 128 * k_inner + 64 * bIdx(x) + tIdx(x) + 16];
      acc_k_outer_k_inner[6] = acc_k_outer_k_inner[6] + a[8192 * bIdx(y) + 128 * tIdx(y) + 16 * k_outer + k_inner + 2048] * b[2048 * k_outer + 128 * k_inner + 64 * bIdx(x) + tIdx(x) + 32];
      acc_k_outer_k_inner[7] = acc_k_outer_k_inner[7] + a[8192 * bIdx(y) + 128 * tIdx(y) + 16 * k_outer + k_inner + 2048] * b[2048 * k_outer + 128 * k_inner + 64 * bIdx(x) + tIdx(x) + 48];
      acc_k_outer_k_inner[8] = acc_k_outer_k_inner[8] + a[8192 * bIdx(y) + 128 * tIdx(y) + 16 * k_outer + k_inner + 4096] * b[2048 * k_outer + 128 * k_inner + 64 * bIdx(x) + tIdx(x)];
      acc_k_outer_k_inner[9] = acc_k_outer_k_inner[9] + a[8192 * bIdx(y) + 128 * tIdx(y) + 16 * k_outer + k_inner + 4096] * b[2048 * k_outer + 128 * k_inner + 64 * bIdx(x) + tIdx(x) + 16];
      acc_k_outer_k_inner[10] = acc_k_outer_k_inner[10] + a[8192 * bIdx(y) + 128 * tIdx(y) + 16 * k_outer + k_inner + 4096] * b[2048 * k_outer + 128 * k_inner + 64 * bIdx(x) + tIdx(x) + 32];
      acc_k_outer_k_inner[11] = acc_k_outer_k_inner[11] + a[8192 * bIdx(y) + 128 * tIdx(y) + 16 * k_outer + k_inner + 4096] * b[2048 * k_outer + 128 * k_inner + 64 * bIdx(x) + tIdx(x) + 48];
      acc_k_outer_k_inner[12] = acc_k_outer_k_inner[12] + a[8192 * bIdx(y) + 128 * tIdx(y) + 16 * k_outer + k_inner + 6144] * b[2048 * k_outer + 128 * k_inner + 64 * bIdx(x) + tIdx(x)];
      acc_k_outer_k_inner[13] = acc_k_outer_k_inner[13] + a[8192 * bIdx(y) + 128 * tIdx(y) + 16 * k_outer + k_inner + 6144] * b[2048 * k_outer + 128 * k_inner + 64 * bIdx(x) + tIdx(x) + 16];
      acc_k_outer_k_inner[14] = acc_k_outer_k_inner[14] + a[8192 * bIdx(y) + 128 * tIdx(y) + 16 * k_outer + k_inner + 6144] * b[2048 * k_outer + 128 * k_inner + 64 * bIdx(x) + tIdx(x) + 32];
      acc_k_outer_k_inner[15] = acc_k_outer_k_inner[15] + a[8192 * bIdx(y) + 128 * tIdx(y) + 16 * k_outer + k_inner + 6144] * b[2048 * k_outer + 128 * k_inner + 64 * bIdx(x) + tIdx(x) + 48];
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
