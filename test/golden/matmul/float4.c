#include <stdint.h>
#include <math.h>

#define gid(N) ((int) loom_group_ids_int32[N])
static inline float loom_rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double loom_rsqrt(double x) { return 1.0 / sqrt(x); }

static void sgemm(float const *__restrict__ a, float const *__restrict__ b, float *__restrict__ c, int const *__restrict__ loom_group_ids_int32)
{
  float a_fetch[1087];
  float b_fetch[1024];
  float a_vec[1024];
  float b_vec[1024];
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
        b_vec[(int64_t) lid_0 + 16 * lid_1] = b[(int64_t) (2048 * k_outer) + 128 * lid_1 + 64 * gid(0) + 4 * lid_0];
        b_vec[(int64_t) lid_0 + 16 * lid_1 + 256] = b[(int64_t) (2048 * k_outer) + 128 * lid_1 + 64 * gid(0) + 4 * lid_0 + 1];
        b_vec[(int64_t) lid_0 + 16 * lid_1 + 512] = b[(int64_t) (2048 * k_outer) + 128 * lid_1 + 64 * gid(0) + 4 * lid_0 + 2];
        b_vec[(int64_t) lid_0 + 16 * lid_1 + 768] = b[(int64_t) (2048 * k_outer) + 128 * lid_1 + 64 * gid(0) + 4 * lid_0 + 3];
        b_fetch[(int64_t) (64 * lid_1) + 4 * lid_0] = b_vec[(int64_t) lid_0 + 16 * lid_1];
        b_fetch[(int64_t) (64 * lid_1) + 4 * lid_0 + 1] = b_vec[(int64_t) lid_0 + 16 * lid_1 + 256];
        b_fetch[(int64_t) (64 * lid_1) + 4 * lid_0 + 2] = b_vec[(int64_t) lid_0 + 16 * lid_1 + 512];
        b_fetch[(int64_t) (64 * lid_1) + 4 * lid_0 + 3] = b_vec[(int64_t) lid_0 + 16 * lid_1 + 768];
        if (16 * lid_1 <= -lid_0 + 63)
        {
          a_vec[(int64_t) lid_0 + 16 * lid_1] = a[(int64_t) (8192 * gid(1)) + 2048 * lid_1 + 128 * lid_0 + 16 * k_outer];
          a_vec[(int64_t) lid_0 + 16 * lid_1 + 256] = a[(int64_t) (8192 * gid(1)) + 2048 * lid_1 + 128 * lid_0 + 16 * k_outer + 1];
          a_vec[(int64_t) lid_0 + 16 * lid_1 + 512] = a[(int64_t) (8192 * gid(1)) + 2048 * lid_1 + 128 * lid_0 + 16 * k_outer + 2];
          a_vec[(int64_t) lid_0 + 16 * lid_1 + 768] = a[(int64_t) (8192 * gid(1)) + 2048 * lid_1 + 128 * lid_0 + 16 * k_outer + 3];
          a_fetch[(int64_t) (272 * lid_1) + 17 * lid_0] = a_vec[(int64_t) lid_0 + 16 * lid_1];
          a_fetch[(int64_t) (272 * lid_1) + 17 * lid_0 + 1] = a_vec[(int64_t) lid_0 + 16 * lid_1 + 256];
          a_fetch[(int64_t) (272 * lid_1) + 17 * lid_0 + 2] = a_vec[(int64_t) lid_0 + 16 * lid_1 + 512];
          a_fetch[(int64_t) (272 * lid_1) + 17 * lid_0 + 3] = a_vec[(int64_t) lid_0 + 16 * lid_1 + 768];
          a_vec[(int64_t) lid_0 + 16 * lid_1] = a[(int64_t) (8192 * gid(1)) + 2048 * lid_1 + 128 * lid_0 + 16 * k_outer + 4];
          a_vec[(int64_t) lid_0 + 16 * lid_1 + 256] = a[(int64_t) (8192 * gid(1)) + 2048 * lid_1 + 128 * lid_0 + 16 * k_outer + 5];
          a_vec[(int64_t) lid_0 + 16 * lid_1 + 512] = a[(int64_t) (8192 * gid(1)) + 2048 * lid_1 + 128 * lid_0 + 16 * k_outer + 6];
          a_vec[(int64_t) lid_0 + 16 * lid_1 + 768] = a[(int64_t) (8192 * gid(1)) + 2048 * lid_1 + 128 * lid_0 + 16 * k_outer + 7];
          a_fetch[(int64_t) (272 * lid_1) + 17 * lid_0 + 4] = a_vec[(int64_t) lid_0 + 16 * lid_1];
          a_fetch[(int64_t) (272 * lid_1) + 17 * lid_0 + 5] = a_vec[(int64_t) lid_0 + 16 * lid_1 + 256];
          a_fetch[(int64_t) (272 * lid_1) + 17 * lid_0 + 6] = a_vec[(int64_t) lid_0 + 16 * lid_1 + 512];
          a_fetch[(int64_t) (272 * lid_1) + 17 * lid_0 + 7] = a_vec[(int64_t) lid_0 + 16 * lid_1 + 768];
          a_vec[(int64_t) lid_0 + 16 * lid_1] = a[(int64_t) (8192 * gid(1)) + 2048 * lid_1 + 128 * lid_0 + 16 * k_outer + 8];
          a_vec[(int64_t) lid_0 + 16 * lid_1 + 256] = a[(int64_t) (8192 * gid(1)) + 2048 * lid_1 + 128 * lid_0 + 16 * k_outer + 9];
          a_vec[(int64_t) lid_0 + 16 * lid_1 + 512] = a[(int64_t) (8192 * gid(1)) + 2048 * lid_1 + 128 * lid_0 + 16 * k_outer + 10];
          a_vec[(int64_t) lid_0 + 16 * lid_1 + 768] = a[(int64_t) (8192 * gid(1)) + 2048 * lid_1 + 128 * lid_0 + 16 * k_outer + 11];
          a_fetch[(int64_t) (272 * lid_1) + 17 * lid_0 + 8] = a_vec[(int64_t) lid_0 + 16 * lid_1];
          a_fetch[(int64_t) (272 * lid_1) + 17 * lid_0 + 9] = a_vec[(int64_t) lid_0 + 16 * lid_1 + 256];
          a_fetch[(int64_t) (272 * lid_1) + 17 * lid_0 + 10] = a_vec[(int64_t) lid_0 + 16 * lid_1 + 512];
          a_fetch[(int64_t) (272 * lid_1) + 17 * lid_0 + 11] = a_vec[(int64_t) lid_0 + 16 * lid_1 + 768];
          a_vec[(int64_t) lid_0 + 16 * lid_1] = a[(int64_t) (8192 * gid(1)) + 2048 * lid_1 + 128 * lid_0 + 16 * k_outer + 12];
          a_vec[(int64_t) lid_0 + 16 * lid_1 + 256] = a[(int64_t) (8192 * gid(1)) + 2048 * lid_1 + 128 * lid_0 + 16 * k_outer + 13];
          a_vec[(int64_t) lid_0 + 16 * lid_1 + 512] = a[(int64_t) (8192 * gid(1)) + 2048 * lid_1 + 128 * lid_0 + 16 * k_outer + 14];
          a_vec[(int64_t) lid_0 + 16 * lid_1 + 768] = a[(int64_t) (8192 * gid(1)) + 2048 * lid_1 + 128 * lid_0 + 16 * k_outer + 15];
          a_fetch[(int64_t) (272 * lid_1) + 17 * lid_0 + 12] = a_vec[(int64_t) lid_0 + 16 * lid_1];
          a_fetch[(int64_t) (272 * lid_1) + 17 * lid_0 + 13] = a_vec[(int64_t) lid_0 + 16 * lid_1 + 256];
          a_fetch[(int64_t) (272 * lid_1) + 17 * lid_0 + 14] = a_vec[(int64_t) lid_0 + 16 * lid_1 + 512];
          a_fetch[(int64_t) (272 * lid_1) + 17 * lid_0 + 15] = a_vec[(int64_t) lid_0 + 16 * lid_1 + 768];
        }
      }
    for (int lid_1 = 0; lid_1 <= 15; ++lid_1)
      for (int lid_0 = 0; lid_0 <= 15; ++lid_0)
        for (int k_inner = 0; k_inner <= 15; ++k_inner)
        {
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] + a_fetch[(int64_t) (17 * lid_1) + k_inner] * b_fetch[(int64_t) (64 * k_inner) + 4 * lid_0];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256] + a_fetch[(int64_t) (17 * lid_1) + k_inner] * b_fetch[(int64_t) (64 * k_inner) + 4 * lid_0 + 1];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512] + a_fetch[(int64_t) (17 * lid_1) + k_inner] * b_fetch[(int64_t) (64 * k_inner) + 4 * lid_0 + 2];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768] + a_fetch[(int64_t) (17 * lid_1) + k_inner] * b_fetch[(int64_t) (64 * k_inner) + 4 * lid_0 + 3];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024] + a_fetch[(int64_t) (17 * lid_1) + k_inner + 272] * b_fetch[(int64_t) (64 * k_inner) + 4 * lid_0];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280] + a_fetch[(int64_t) (17 * lid_1) + k_inner + 272] * b_fetch[(int64_t) (64 * k_inner) + 4 * lid_0 + 1];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536] + a_fetch[(int64_t) (17 * lid_1) + k_inner + 272] * b_fetch[(int64_t) (64 * k_inner) + 4 * lid_0 + 2];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792] + a_fetch[(int64_t) (17 * lid_1) + k_inner + 272] * b_fetch[(int64_t) (64 * k_inner) + 4 * lid_0 + 3];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048] + a_fetch[(int64_t) (17 * lid_1) + k_inner + 544] * b_fetch[(int64_t) (64 * k_inner) + 4 * lid_0];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304] + a_fetch[(int64_t) (17 * lid_1) + k_inner + 544] * b_fetch[(int64_t) (64 * k_inner) + 4 * lid_0 + 1];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560] + a_fetch[(int64_t) (17 * lid_1) + k_inner + 544] * b_fetch[(int64_t) (64 * k_inner) + 4 * lid_0 + 2];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816] + a_fetch[(int64_t) (17 * lid_1) + k_inner + 544] * b_fetch[(int64_t) (64 * k_inner) + 4 * lid_0 + 3];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072] + a_fetch[(int64_t) (17 * lid_1) + k_inner + 816] * b_fetch[(int64_t) (64 * k_inner) + 4 * lid_0];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328] + a_fetch[(int64_t) (17 * lid_1) + k_inner + 816] * b_fetch[(int64_t) (64 * k_inner) + 4 * lid_0 + 1];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584] + a_fetch[(int64_t) (17 * lid_1) + k_inner + 816] * b_fetch[(int64_t) (64 * k_inner) + 4 * lid_0 + 2];
          acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840] + a_fetch[(int64_t) (17 * lid_1) + k_inner + 816] * b_fetch[(int64_t) (64 * k_inner) + 4 * lid_0 + 3];
        }
  }
  for (int lid_1 = 0; lid_1 <= 15; ++lid_1)
    for (int lid_0 = 0; lid_0 <= 15; ++lid_0)
    {
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + 4 * lid_0] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + 4 * lid_0 + 1] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 256];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + 4 * lid_0 + 2] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 512];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + 4 * lid_0 + 3] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 768];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + 4 * lid_0 + 2048] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1024];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + 4 * lid_0 + 2049] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1280];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + 4 * lid_0 + 2050] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1536];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + 4 * lid_0 + 2051] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 1792];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + 4 * lid_0 + 4096] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2048];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + 4 * lid_0 + 4097] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2304];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + 4 * lid_0 + 4098] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2560];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + 4 * lid_0 + 4099] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 2816];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + 4 * lid_0 + 6144] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3072];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + 4 * lid_0 + 6145] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3328];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + 4 * lid_0 + 6146] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3584];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + 4 * lid_0 + 6147] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1 + 3840];
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
