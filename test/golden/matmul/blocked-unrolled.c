#include <stdint.h>
#include <math.h>

#define gid(N) ((int) loom_group_ids_int32[N])
static inline float loom_rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double loom_rsqrt(double x) { return 1.0 / sqrt(x); }

static void sgemm(float const *__restrict__ a, float const *__restrict__ b, float *__restrict__ c, int const *__restrict__ loom_group_ids_int32)
{
  float a_fetch[1024];
  float b_fetch[1024];
  float acc_k_outer_k_inner[4096];
  for (int lid_1 = 0; lid_1 <= 15; ++lid_1)
    for (int lid_0 = 0; lid_0 <= 15; ++lid_0)
    {
      acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = 0.0f;
      acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] = 0.0f;
      acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] = 0.0f;
      acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] = 0.0f;
      acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] = 0.0f;
      acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] = 0.0f;
      acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] = 0.0f;
      acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] = 0.0f;
      acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] = 0.0f;
      acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] = 0.0f;
      acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] = 0.0f;
      acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] = 0.0f;
      acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] = 0.0f;
      acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] = 0.0f;
      acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] = 0.0f;
      acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] = 0.0f;
    }
  for (int k_outer = 0; k_outer <= 7; ++k_outer)
  {
    for (int lid_1 = 0; lid_1 <= 15; ++lid_1)
      for (int lid_0 = 0; lid_0 <= 15; ++lid_0)
      {
        a_fetch[(int64_t) (16 * lid_1) + lid_0] = a[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 16 * k_outer + lid_0];
        a_fetch[(int64_t) (16 * lid_1) + lid_0 + 256] = a[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 16 * k_outer + lid_0 + 2048];
        a_fetch[(int64_t) (16 * lid_1) + lid_0 + 512] = a[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 16 * k_outer + lid_0 + 4096];
        a_fetch[(int64_t) (16 * lid_1) + lid_0 + 768] = a[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 16 * k_outer + lid_0 + 6144];
        b_fetch[(int64_t) (64 * lid_1) + lid_0] = b[(int64_t) (2048 * k_outer) + 128 * lid_1 + 64 * gid(0) + lid_0];
        b_fetch[(int64_t) (64 * lid_1) + lid_0 + 16] = b[(int64_t) (2048 * k_outer) + 128 * lid_1 + 64 * gid(0) + lid_0 + 16];
        b_fetch[(int64_t) (64 * lid_1) + lid_0 + 32] = b[(int64_t) (2048 * k_outer) + 128 * lid_1 + 64 * gid(0) + lid_0 + 32];
        b_fetch[(int64_t) (64 * lid_1) + lid_0 + 48] = b[(int64_t) (2048 * k_outer) + 128 * lid_1 + 64 * gid(0) + lid_0 + 48];
      }
    for (int lid_1 = 0; lid_1 <= 15; ++lid_1)
      for (int lid_0 = 0; lid_0 <= 15; ++lid_0)
      {
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] + a_fetch[64 * lid_1] * b_fetch[4 * lid_0];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] + a_fetch[64 * lid_1] * b_fetch[4 * lid_0 + 1];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] + a_fetch[64 * lid_1] * b_fetch[4 * lid_0 + 2];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] + a_fetch[64 * lid_1] * b_fetch[4 * lid_0 + 3];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] + a_fetch[64 * lid_1 + 16] * b_fetch[4 * lid_0];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] + a_fetch[64 * lid_1 + 16] * b_fetch[4 * lid_0 + 1];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] + a_fetch[64 * lid_1 + 16] * b_fetch[4 * lid_0 + 2];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] + a_fetch[64 * lid_1 + 16] * b_fetch[4 * lid_0 + 3];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] + a_fetch[64 * lid_1 + 32] * b_fetch[4 * lid_0];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] + a_fetch[64 * lid_1 + 32] * b_fetch[4 * lid_0 + 1];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] + a_fetch[64 * lid_1 + 32] * b_fetch[4 * lid_0 + 2];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] + a_fetch[64 * lid_1 + 32] * b_fetch[4 * lid_0 + 3];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] + a_fetch[64 * lid_1 + 48] * b_fetch[4 * lid_0];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] + a_fetch[64 * lid_1 + 48] * b_fetch[4 * lid_0 + 1];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] + a_fetch[64 * lid_1 + 48] * b_fetch[4 * lid_0 + 2];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] + a_fetch[64 * lid_1 + 48] * b_fetch[4 * lid_0 + 3];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] + a_fetch[64 * lid_1 + 1] * b_fetch[4 * lid_0 + 64];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] + a_fetch[64 * lid_1 + 1] * b_fetch[4 * lid_0 + 65];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] + a_fetch[64 * lid_1 + 1] * b_fetch[4 * lid_0 + 66];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] + a_fetch[64 * lid_1 + 1] * b_fetch[4 * lid_0 + 67];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] + a_fetch[64 * lid_1 + 17] * b_fetch[4 * lid_0 + 64];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] + a_fetch[64 * lid_1 + 17] * b_fetch[4 * lid_0 + 65];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] + a_fetch[64 * lid_1 + 17] * b_fetch[4 * lid_0 + 66];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] + a_fetch[64 * lid_1 + 17] * b_fetch[4 * lid_0 + 67];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] + a_fetch[64 * lid_1 + 33] * b_fetch[4 * lid_0 + 64];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] + a_fetch[64 * lid_1 + 33] * b_fetch[4 * lid_0 + 65];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] + a_fetch[64 * lid_1 + 33] * b_fetch[4 * lid_0 + 66];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] + a_fetch[64 * lid_1 + 33] * b_fetch[4 * lid_0 + 67];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] + a_fetch[64 * lid_1 + 49] * b_fetch[4 * lid_0 + 64];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] + a_fetch[64 * lid_1 + 49] * b_fetch[4 * lid_0 + 65];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] + a_fetch[64 * lid_1 + 49] * b_fetch[4 * lid_0 + 66];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] + a_fetch[64 * lid_1 + 49] * b_fetch[4 * lid_0 + 67];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] + a_fetch[64 * lid_1 + 2] * b_fetch[4 * lid_0 + 128];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] + a_fetch[64 * lid_1 + 2] * b_fetch[4 * lid_0 + 129];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] + a_fetch[64 * lid_1 + 2] * b_fetch[4 * lid_0 + 130];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] + a_fetch[64 * lid_1 + 2] * b_fetch[4 * lid_0 + 131];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] + a_fetch[64 * lid_1 + 18] * b_fetch[4 * lid_0 + 128];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] + a_fetch[64 * lid_1 + 18] * b_fetch[4 * lid_0 + 129];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] + a_fetch[64 * lid_1 + 18] * b_fetch[4 * lid_0 + 130];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] + a_fetch[64 * lid_1 + 18] * b_fetch[4 * lid_0 + 131];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] + a_fetch[64 * lid_1 + 34] * b_fetch[4 * lid_0 + 128];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] + a_fetch[64 * lid_1 + 34] * b_fetch[4 * lid_0 + 129];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] + a_fetch[64 * lid_1 + 34] * b_fetch[4 * lid_0 + 130];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] + a_fetch[64 * lid_1 + 34] * b_fetch[4 * lid_0 + 131];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] + a_fetch[64 * lid_1 + 50] * b_fetch[4 * lid_0 + 128];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] + a_fetch[64 * lid_1 + 50] * b_fetch[4 * lid_0 + 129];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] + a_fetch[64 * lid_1 + 50] * b_fetch[4 * lid_0 + 130];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] + a_fetch[64 * lid_1 + 50] * b_fetch[4 * lid_0 + 131];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] + a_fetch[64 * lid_1 + 3] * b_fetch[4 * lid_0 + 192];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] + a_fetch[64 * lid_1 + 3] * b_fetch[4 * lid_0 + 193];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] + a_fetch[64 * lid_1 + 3] * b_fetch[4 * lid_0 + 194];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] + a_fetch[64 * lid_1 + 3] * b_fetch[4 * lid_0 + 195];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] + a_fetch[64 * lid_1 + 19] * b_fetch[4 * lid_0 + 192];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] + a_fetch[64 * lid_1 + 19] * b_fetch[4 * lid_0 + 193];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] + a_fetch[64 * lid_1 + 19] * b_fetch[4 * lid_0 + 194];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] + a_fetch[64 * lid_1 + 19] * b_fetch[4 * lid_0 + 195];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] + a_fetch[64 * lid_1 + 35] * b_fetch[4 * lid_0 + 192];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] + a_fetch[64 * lid_1 + 35] * b_fetch[4 * lid_0 + 193];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] + a_fetch[64 * lid_1 + 35] * b_fetch[4 * lid_0 + 194];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] + a_fetch[64 * lid_1 + 35] * b_fetch[4 * lid_0 + 195];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] + a_fetch[64 * lid_1 + 51] * b_fetch[4 * lid_0 + 192];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] + a_fetch[64 * lid_1 + 51] * b_fetch[4 * lid_0 + 193];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] + a_fetch[64 * lid_1 + 51] * b_fetch[4 * lid_0 + 194];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] + a_fetch[64 * lid_1 + 51] * b_fetch[4 * lid_0 + 195];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] + a_fetch[64 * lid_1 + 4] * b_fetch[4 * lid_0 + 256];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] + a_fetch[64 * lid_1 + 4] * b_fetch[4 * lid_0 + 257];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] + a_fetch[64 * lid_1 + 4] * b_fetch[4 * lid_0 + 258];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] + a_fetch[64 * lid_1 + 4] * b_fetch[4 * lid_0 + 259];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] + a_fetch[64 * lid_1 + 20] * b_fetch[4 * lid_0 + 256];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] + a_fetch[64 * lid_1 + 20] * b_fetch[4 * lid_0 + 257];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] + a_fetch[64 * lid_1 + 20] * b_fetch[4 * lid_0 + 258];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] + a_fetch[64 * lid_1 + 20] * b_fetch[4 * lid_0 + 259];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] + a_fetch[64 * lid_1 + 36] * b_fetch[4 * lid_0 + 256];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] + a_fetch[64 * lid_1 + 36] * b_fetch[4 * lid_0 + 257];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] + a_fetch[64 * lid_1 + 36] * b_fetch[4 * lid_0 + 258];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] + a_fetch[64 * lid_1 + 36] * b_fetch[4 * lid_0 + 259];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] + a_fetch[64 * lid_1 + 52] * b_fetch[4 * lid_0 + 256];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] + a_fetch[64 * lid_1 + 52] * b_fetch[4 * lid_0 + 257];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] + a_fetch[64 * lid_1 + 52] * b_fetch[4 * lid_0 + 258];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] + a_fetch[64 * lid_1 + 52] * b_fetch[4 * lid_0 + 259];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] + a_fetch[64 * lid_1 + 5] * b_fetch[4 * lid_0 + 320];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] + a_fetch[64 * lid_1 + 5] * b_fetch[4 * lid_0 + 321];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] + a_fetch[64 * lid_1 + 5] * b_fetch[4 * lid_0 + 322];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] + a_fetch[64 * lid_1 + 5] * b_fetch[4 * lid_0 + 323];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] + a_fetch[64 * lid_1 + 21] * b_fetch[4 * lid_0 + 320];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] + a_fetch[64 * lid_1 + 21] * b_fetch[4 * lid_0 + 321];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] + a_fetch[64 * lid_1 + 21] * b_fetch[4 * lid_0 + 322];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] + a_fetch[64 * lid_1 + 21] * b_fetch[4 * lid_0 + 323];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] + a_fetch[64 * lid_1 + 37] * b_fetch[4 * lid_0 + 320];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] + a_fetch[64 * lid_1 + 37] * b_fetch[4 * lid_0 + 321];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] + a_fetch[64 * lid_1 + 37] * b_fetch[4 * lid_0 + 322];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] + a_fetch[64 * lid_1 + 37] * b_fetch[4 * lid_0 + 323];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] + a_fetch[64 * lid_1 + 53] * b_fetch[4 * lid_0 + 320];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] + a_fetch[64 * lid_1 + 53] * b_fetch[4 * lid_0 + 321];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] + a_fetch[64 * lid_1 + 53] * b_fetch[4 * lid_0 + 322];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] + a_fetch[64 * lid_1 + 53] * b_fetch[4 * lid_0 + 323];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] + a_fetch[64 * lid_1 + 6] * b_fetch[4 * lid_0 + 384];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] + a_fetch[64 * lid_1 + 6] * b_fetch[4 * lid_0 + 385];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] + a_fetch[64 * lid_1 + 6] * b_fetch[4 * lid_0 + 386];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] + a_fetch[64 * lid_1 + 6] * b_fetch[4 * lid_0 + 387];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] + a_fetch[64 * lid_1 + 22] * b_fetch[4 * lid_0 + 384];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] + a_fetch[64 * lid_1 + 22] * b_fetch[4 * lid_0 + 385];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] + a_fetch[64 * lid_1 + 22] * b_fetch[4 * lid_0 + 386];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] + a_fetch[64 * lid_1 + 22] * b_fetch[4 * lid_0 + 387];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] + a_fetch[64 * lid_1 + 38] * b_fetch[4 * lid_0 + 384];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] + a_fetch[64 * lid_1 + 38] * b_fetch[4 * lid_0 + 385];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] + a_fetch[64 * lid_1 + 38] * b_fetch[4 * lid_0 + 386];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] + a_fetch[64 * lid_1 + 38] * b_fetch[4 * lid_0 + 387];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] + a_fetch[64 * lid_1 + 54] * b_fetch[4 * lid_0 + 384];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] + a_fetch[64 * lid_1 + 54] * b_fetch[4 * lid_0 + 385];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] + a_fetch[64 * lid_1 + 54] * b_fetch[4 * lid_0 + 386];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] + a_fetch[64 * lid_1 + 54] * b_fetch[4 * lid_0 + 387];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] + a_fetch[64 * lid_1 + 7] * b_fetch[4 * lid_0 + 448];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] + a_fetch[64 * lid_1 + 7] * b_fetch[4 * lid_0 + 449];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] + a_fetch[64 * lid_1 + 7] * b_fetch[4 * lid_0 + 450];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] + a_fetch[64 * lid_1 + 7] * b_fetch[4 * lid_0 + 451];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] + a_fetch[64 * lid_1 + 23] * b_fetch[4 * lid_0 + 448];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] + a_fetch[64 * lid_1 + 23] * b_fetch[4 * lid_0 + 449];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] + a_fetch[64 * lid_1 + 23] * b_fetch[4 * lid_0 + 450];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] + a_fetch[64 * lid_1 + 23] * b_fetch[4 * lid_0 + 451];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] + a_fetch[64 * lid_1 + 39] * b_fetch[4 * lid_0 + 448];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] + a_fetch[64 * lid_1 + 39] * b_fetch[4 * lid_0 + 449];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] + a_fetch[64 * lid_1 + 39] * b_fetch[4 * lid_0 + 450];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] + a_fetch[64 * lid_1 + 39] * b_fetch[4 * lid_0 + 451];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] + a_fetch[64 * lid_1 + 55] * b_fetch[4 * lid_0 + 448];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] + a_fetch[64 * lid_1 + 55] * b_fetch[4 * lid_0 + 449];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] + a_fetch[64 * lid_1 + 55] * b_fetch[4 * lid_0 + 450];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] + a_fetch[64 * lid_1 + 55] * b_fetch[4 * lid_0 + 451];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] + a_fetch[64 * lid_1 + 8] * b_fetch[4 * lid_0 + 512];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] + a_fetch[64 * lid_1 + 8] * b_fetch[4 * lid_0 + 513];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] + a_fetch[64 * lid_1 + 8] * b_fetch[4 * lid_0 + 514];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] + a_fetch[64 * lid_1 + 8] * b_fetch[4 * lid_0 + 515];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] + a_fetch[64 * lid_1 + 24] * b_fetch[4 * lid_0 + 512];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] + a_fetch[64 * lid_1 + 24] * b_fetch[4 * lid_0 + 513];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] + a_fetch[64 * lid_1 + 24] * b_fetch[4 * lid_0 + 514];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] + a_fetch[64 * lid_1 + 24] * b_fetch[4 * lid_0 + 515];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] + a_fetch[64 * lid_1 + 40] * b_fetch[4 * lid_0 + 512];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] + a_fetch[64 * lid_1 + 40] * b_fetch[4 * lid_0 + 513];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] + a_fetch[64 * lid_1 + 40] * b_fetch[4 * lid_0 + 514];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] + a_fetch[64 * lid_1 + 40] * b_fetch[4 * lid_0 + 515];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] + a_fetch[64 * lid_1 + 56] * b_fetch[4 * lid_0 + 512];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] + a_fetch[64 * lid_1 + 56] * b_fetch[4 * lid_0 + 513];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] + a_fetch[64 * lid_1 + 56] * b_fetch[4 * lid_0 + 514];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] + a_fetch[64 * lid_1 + 56] * b_fetch[4 * lid_0 + 515];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] + a_fetch[64 * lid_1 + 9] * b_fetch[4 * lid_0 + 576];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] + a_fetch[64 * lid_1 + 9] * b_fetch[4 * lid_0 + 577];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] + a_fetch[64 * lid_1 + 9] * b_fetch[4 * lid_0 + 578];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] + a_fetch[64 * lid_1 + 9] * b_fetch[4 * lid_0 + 579];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] + a_fetch[64 * lid_1 + 25] * b_fetch[4 * lid_0 + 576];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] + a_fetch[64 * lid_1 + 25] * b_fetch[4 * lid_0 + 577];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] + a_fetch[64 * lid_1 + 25] * b_fetch[4 * lid_0 + 578];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] + a_fetch[64 * lid_1 + 25] * b_fetch[4 * lid_0 + 579];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] + a_fetch[64 * lid_1 + 41] * b_fetch[4 * lid_0 + 576];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] + a_fetch[64 * lid_1 + 41] * b_fetch[4 * lid_0 + 577];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] + a_fetch[64 * lid_1 + 41] * b_fetch[4 * lid_0 + 578];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] + a_fetch[64 * lid_1 + 41] * b_fetch[4 * lid_0 + 579];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] + a_fetch[64 * lid_1 + 57] * b_fetch[4 * lid_0 + 576];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] + a_fetch[64 * lid_1 + 57] * b_fetch[4 * lid_0 + 577];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] + a_fetch[64 * lid_1 + 57] * b_fetch[4 * lid_0 + 578];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] + a_fetch[64 * lid_1 + 57] * b_fetch[4 * lid_0 + 579];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] + a_fetch[64 * lid_1 + 10] * b_fetch[4 * lid_0 + 640];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] + a_fetch[64 * lid_1 + 10] * b_fetch[4 * lid_0 + 641];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] + a_fetch[64 * lid_1 + 10] * b_fetch[4 * lid_0 + 642];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] + a_fetch[64 * lid_1 + 10] * b_fetch[4 * lid_0 + 643];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] + a_fetch[64 * lid_1 + 26] * b_fetch[4 * lid_0 + 640];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] + a_fetch[64 * lid_1 + 26] * b_fetch[4 * lid_0 + 641];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] + a_fetch[64 * lid_1 + 26] * b_fetch[4 * lid_0 + 642];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] + a_fetch[64 * lid_1 + 26] * b_fetch[4 * lid_0 + 643];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] + a_fetch[64 * lid_1 + 42] * b_fetch[4 * lid_0 + 640];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] + a_fetch[64 * lid_1 + 42] * b_fetch[4 * lid_0 + 641];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] + a_fetch[64 * lid_1 + 42] * b_fetch[4 * lid_0 + 642];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] + a_fetch[64 * lid_1 + 42] * b_fetch[4 * lid_0 + 643];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] + a_fetch[64 * lid_1 + 58] * b_fetch[4 * lid_0 + 640];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] + a_fetch[64 * lid_1 + 58] * b_fetch[4 * lid_0 + 641];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] + a_fetch[64 * lid_1 + 58] * b_fetch[4 * lid_0 + 642];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] + a_fetch[64 * lid_1 + 58] * b_fetch[4 * lid_0 + 643];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] + a_fetch[64 * lid_1 + 11] * b_fetch[4 * lid_0 + 704];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] + a_fetch[64 * lid_1 + 11] * b_fetch[4 * lid_0 + 705];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] + a_fetch[64 * lid_1 + 11] * b_fetch[4 * lid_0 + 706];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] + a_fetch[64 * lid_1 + 11] * b_fetch[4 * lid_0 + 707];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] + a_fetch[64 * lid_1 + 27] * b_fetch[4 * lid_0 + 704];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] + a_fetch[64 * lid_1 + 27] * b_fetch[4 * lid_0 + 705];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] + a_fetch[64 * lid_1 + 27] * b_fetch[4 * lid_0 + 706];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] + a_fetch[64 * lid_1 + 27] * b_fetch[4 * lid_0 + 707];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] + a_fetch[64 * lid_1 + 43] * b_fetch[4 * lid_0 + 704];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] + a_fetch[64 * lid_1 + 43] * b_fetch[4 * lid_0 + 705];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] + a_fetch[64 * lid_1 + 43] * b_fetch[4 * lid_0 + 706];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] + a_fetch[64 * lid_1 + 43] * b_fetch[4 * lid_0 + 707];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] + a_fetch[64 * lid_1 + 59] * b_fetch[4 * lid_0 + 704];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] + a_fetch[64 * lid_1 + 59] * b_fetch[4 * lid_0 + 705];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] + a_fetch[64 * lid_1 + 59] * b_fetch[4 * lid_0 + 706];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] + a_fetch[64 * lid_1 + 59] * b_fetch[4 * lid_0 + 707];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] + a_fetch[64 * lid_1 + 12] * b_fetch[4 * lid_0 + 768];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] + a_fetch[64 * lid_1 + 12] * b_fetch[4 * lid_0 + 769];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] + a_fetch[64 * lid_1 + 12] * b_fetch[4 * lid_0 + 770];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] + a_fetch[64 * lid_1 + 12] * b_fetch[4 * lid_0 + 771];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] + a_fetch[64 * lid_1 + 28] * b_fetch[4 * lid_0 + 768];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] + a_fetch[64 * lid_1 + 28] * b_fetch[4 * lid_0 + 769];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] + a_fetch[64 * lid_1 + 28] * b_fetch[4 * lid_0 + 770];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] + a_fetch[64 * lid_1 + 28] * b_fetch[4 * lid_0 + 771];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] + a_fetch[64 * lid_1 + 44] * b_fetch[4 * lid_0 + 768];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] + a_fetch[64 * lid_1 + 44] * b_fetch[4 * lid_0 + 769];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] + a_fetch[64 * lid_1 + 44] * b_fetch[4 * lid_0 + 770];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] + a_fetch[64 * lid_1 + 44] * b_fetch[4 * lid_0 + 771];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] + a_fetch[64 * lid_1 + 60] * b_fetch[4 * lid_0 + 768];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] + a_fetch[64 * lid_1 + 60] * b_fetch[4 * lid_0 + 769];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] + a_fetch[64 * lid_1 + 60] * b_fetch[4 * lid_0 + 770];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] + a_fetch[64 * lid_1 + 60] * b_fetch[4 * lid_0 + 771];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] + a_fetch[64 * lid_1 + 13] * b_fetch[4 * lid_0 + 832];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] + a_fetch[64 * lid_1 + 13] * b_fetch[4 * lid_0 + 833];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] + a_fetch[64 * lid_1 + 13] * b_fetch[4 * lid_0 + 834];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] + a_fetch[64 * lid_1 + 13] * b_fetch[4 * lid_0 + 835];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] + a_fetch[64 * lid_1 + 29] * b_fetch[4 * lid_0 + 832];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] + a_fetch[64 * lid_1 + 29] * b_fetch[4 * lid_0 + 833];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] + a_fetch[64 * lid_1 + 29] * b_fetch[4 * lid_0 + 834];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] + a_fetch[64 * lid_1 + 29] * b_fetch[4 * lid_0 + 835];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] + a_fetch[64 * lid_1 + 45] * b_fetch[4 * lid_0 + 832];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] + a_fetch[64 * lid_1 + 45] * b_fetch[4 * lid_0 + 833];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] + a_fetch[64 * lid_1 + 45] * b_fetch[4 * lid_0 + 834];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] + a_fetch[64 * lid_1 + 45] * b_fetch[4 * lid_0 + 835];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] + a_fetch[64 * lid_1 + 61] * b_fetch[4 * lid_0 + 832];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] + a_fetch[64 * lid_1 + 61] * b_fetch[4 * lid_0 + 833];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] + a_fetch[64 * lid_1 + 61] * b_fetch[4 * lid_0 + 834];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] + a_fetch[64 * lid_1 + 61] * b_fetch[4 * lid_0 + 835];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] + a_fetch[64 * lid_1 + 14] * b_fetch[4 * lid_0 + 896];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] + a_fetch[64 * lid_1 + 14] * b_fetch[4 * lid_0 + 897];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] + a_fetch[64 * lid_1 + 14] * b_fetch[4 * lid_0 + 898];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] + a_fetch[64 * lid_1 + 14] * b_fetch[4 * lid_0 + 899];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] + a_fetch[64 * lid_1 + 30] * b_fetch[4 * lid_0 + 896];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] + a_fetch[64 * lid_1 + 30] * b_fetch[4 * lid_0 + 897];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] + a_fetch[64 * lid_1 + 30] * b_fetch[4 * lid_0 + 898];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] + a_fetch[64 * lid_1 + 30] * b_fetch[4 * lid_0 + 899];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] + a_fetch[64 * lid_1 + 46] * b_fetch[4 * lid_0 + 896];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] + a_fetch[64 * lid_1 + 46] * b_fetch[4 * lid_0 + 897];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] + a_fetch[64 * lid_1 + 46] * b_fetch[4 * lid_0 + 898];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] + a_fetch[64 * lid_1 + 46] * b_fetch[4 * lid_0 + 899];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] + a_fetch[64 * lid_1 + 62] * b_fetch[4 * lid_0 + 896];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] + a_fetch[64 * lid_1 + 62] * b_fetch[4 * lid_0 + 897];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] + a_fetch[64 * lid_1 + 62] * b_fetch[4 * lid_0 + 898];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] + a_fetch[64 * lid_1 + 62] * b_fetch[4 * lid_0 + 899];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] + a_fetch[64 * lid_1 + 15] * b_fetch[4 * lid_0 + 960];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] + a_fetch[64 * lid_1 + 15] * b_fetch[4 * lid_0 + 961];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] + a_fetch[64 * lid_1 + 15] * b_fetch[4 * lid_0 + 962];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] + a_fetch[64 * lid_1 + 15] * b_fetch[4 * lid_0 + 963];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] + a_fetch[64 * lid_1 + 31] * b_fetch[4 * lid_0 + 960];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] + a_fetch[64 * lid_1 + 31] * b_fetch[4 * lid_0 + 961];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] + a_fetch[64 * lid_1 + 31] * b_fetch[4 * lid_0 + 962];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] + a_fetch[64 * lid_1 + 31] * b_fetch[4 * lid_0 + 963];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] + a_fetch[64 * lid_1 + 47] * b_fetch[4 * lid_0 + 960];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] + a_fetch[64 * lid_1 + 47] * b_fetch[4 * lid_0 + 961];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] + a_fetch[64 * lid_1 + 47] * b_fetch[4 * lid_0 + 962];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] + a_fetch[64 * lid_1 + 47] * b_fetch[4 * lid_0 + 963];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] + a_fetch[64 * lid_1 + 63] * b_fetch[4 * lid_0 + 960];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] + a_fetch[64 * lid_1 + 63] * b_fetch[4 * lid_0 + 961];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] + a_fetch[64 * lid_1 + 63] * b_fetch[4 * lid_0 + 962];
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] + a_fetch[64 * lid_1 + 63] * b_fetch[4 * lid_0 + 963];
      }
  }
  for (int lid_1 = 0; lid_1 <= 15; ++lid_1)
    for (int lid_0 = 0; lid_0 <= 15; ++lid_0)
    {
      c[(int64_t) (8192 * gid(1)) + 512 * lid_1 + 64 * gid(0) + 4 * lid_0] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1];
      c[(int64_t) (8192 * gid(1)) + 512 * lid_1 + 64 * gid(0) + 4 * lid_0 + 1] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256];
      c[(int64_t) (8192 * gid(1)) + 512 * lid_1 + 64 * gid(0) + 4 * lid_0 + 2] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512];
      c[(int64_t) (8192 * gid(1)) + 512 * lid_1 + 64 * gid(0) + 4 * lid_0 + 3] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768];
      c[(int64_t) (8192 * gid(1)) + 512 * lid_1 + 64 * gid(0) + 4 * lid_0 + 128] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024];
      c[(int64_t) (8192 * gid(1)) + 512 * lid_1 + 64 * gid(0) + 4 * lid_0 + 129] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280];
      c[(int64_t) (8192 * gid(1)) + 512 * lid_1 + 64 * gid(0) + 4 * lid_0 + 130] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536];
      c[(int64_t) (8192 * gid(1)) + 512 * lid_1 + 64 * gid(0) + 4 * lid_0 + 131] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792];
      c[(int64_t) (8192 * gid(1)) + 512 * lid_1 + 64 * gid(0) + 4 * lid_0 + 256] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048];
      c[(int64_t) (8192 * gid(1)) + 512 * lid_1 + 64 * gid(0) + 4 * lid_0 + 257] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304];
      c[(int64_t) (8192 * gid(1)) + 512 * lid_1 + 64 * gid(0) + 4 * lid_0 + 258] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560];
      c[(int64_t) (8192 * gid(1)) + 512 * lid_1 + 64 * gid(0) + 4 * lid_0 + 259] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816];
      c[(int64_t) (8192 * gid(1)) + 512 * lid_1 + 64 * gid(0) + 4 * lid_0 + 384] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072];
      c[(int64_t) (8192 * gid(1)) + 512 * lid_1 + 64 * gid(0) + 4 * lid_0 + 385] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328];
      c[(int64_t) (8192 * gid(1)) + 512 * lid_1 + 64 * gid(0) + 4 * lid_0 + 386] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584];
      c[(int64_t) (8192 * gid(1)) + 512 * lid_1 + 64 * gid(0) + 4 * lid_0 + 387] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840];
    }
}

void sgemm__launch(void *const *args, const int32_t *group_count)
{
  const int32_t count0 = group_count[0], count1 = group_count[1], count2 = group_count[2];
#ifdef _OPENMP
  #pragma omp parallel for collapse(3) schedule(static) if ((int64_t) count0 * count1 * count2 > 1)
#endif
  for (int32_t g2 = 0; g2 < count2; ++g2)
    for (int32_t g1 = 0; g1 < count1; ++g1)
      for (int32_t g0 = 0; g0 < count0; ++g0)
      {
        const int32_t group[3] = { g0, g1, g2 };
        sgemm((float *) args[0], (float *) args[1], (float *) args[2], group);
      }
}
