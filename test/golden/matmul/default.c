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
        for (int k_inner = 0; k_inner <= 15; ++k_inner)
        {
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] + a_fetch[(int64_t) (16 * lid_1) + k_inner] * b_fetch[(int64_t) (64 * k_inner) + lid_0];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] + a_fetch[(int64_t) (16 * lid_1) + k_inner] * b_fetch[(int64_t) (64 * k_inner) + lid_0 + 16];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] + a_fetch[(int64_t) (16 * lid_1) + k_inner] * b_fetch[(int64_t) (64 * k_inner) + lid_0 + 32];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] + a_fetch[(int64_t) (16 * lid_1) + k_inner] * b_fetch[(int64_t) (64 * k_inner) + lid_0 + 48];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] + a_fetch[(int64_t) (16 * lid_1) + k_inner + 256] * b_fetch[(int64_t) (64 * k_inner) + lid_0];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] + a_fetch[(int64_t) (16 * lid_1) + k_inner + 256] * b_fetch[(int64_t) (64 * k_inner) + lid_0 + 16];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] + a_fetch[(int64_t) (16 * lid_1) + k_inner + 256] * b_fetch[(int64_t) (64 * k_inner) + lid_0 + 32];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] + a_fetch[(int64_t) (16 * lid_1) + k_inner + 256] * b_fetch[(int64_t) (64 * k_inner) + lid_0 + 48];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] + a_fetch[(int64_t) (16 * lid_1) + k_inner + 512] * b_fetch[(int64_t) (64 * k_inner) + lid_0];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] + a_fetch[(int64_t) (16 * lid_1) + k_inner + 512] * b_fetch[(int64_t) (64 * k_inner) + lid_0 + 16];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] + a_fetch[(int64_t) (16 * lid_1) + k_inner + 512] * b_fetch[(int64_t) (64 * k_inner) + lid_0 + 32];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] + a_fetch[(int64_t) (16 * lid_1) + k_inner + 512] * b_fetch[(int64_t) (64 * k_inner) + lid_0 + 48];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] + a_fetch[(int64_t) (16 * lid_1) + k_inner + 768] * b_fetch[(int64_t) (64 * k_inner) + lid_0];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] + a_fetch[(int64_t) (16 * lid_1) + k_inner + 768] * b_fetch[(int64_t) (64 * k_inner) + lid_0 + 16];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] + a_fetch[(int64_t) (16 * lid_1) + k_inner + 768] * b_fetch[(int64_t) (64 * k_inner) + lid_0 + 32];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] + a_fetch[(int64_t) (16 * lid_1) + k_inner + 768] * b_fetch[(int64_t) (64 * k_inner) + lid_0 + 48];
        }
  }
  for (int lid_1 = 0; lid_1 <= 15; ++lid_1)
    for (int lid_0 = 0; lid_0 <= 15; ++lid_0)
    {
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 16] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 32] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 48] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 2048] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 2064] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 2080] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 2096] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 4096] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 4112] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 4128] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 4144] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 6144] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 6160] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 6176] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 6192] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840];
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
