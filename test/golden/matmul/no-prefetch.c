#include <stdint.h>
#include <math.h>

#define gid(N) ((int) loom_group_ids_int32[N])
static inline float loom_rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double loom_rsqrt(double x) { return 1.0 / sqrt(x); }

static void sgemm(float const *__restrict__ a, float const *__restrict__ b, float *__restrict__ c, int const *__restrict__ loom_group_ids_int32)
{
  float acc_k_outer_k_inner[16];
  for (int lid_1 = 0; lid_1 <= 15; ++lid_1)
    for (int lid_0 = 0; lid_0 <= 15; ++lid_0)
    {
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
          acc_k_outer_k_inner[0] = acc_k_outer_k_inner[0] + a[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 16 * k_outer + k_inner] * b[(int64_t) (2048 * k_outer) + 128 * k_inner + 64 * gid(0) + lid_0];
          acc_k_outer_k_inner[1] = acc_k_outer_k_inner[1] + a[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 16 * k_outer + k_inner] * b[(int64_t) (2048 * k_outer) + 128 * k_inner + 64 * gid(0) + lid_0 + 16];
          acc_k_outer_k_inner[2] = acc_k_outer_k_inner[2] + a[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 16 * k_outer + k_inner] * b[(int64_t) (2048 * k_outer) + 128 * k_inner + 64 * gid(0) + lid_0 + 32];
          acc_k_outer_k_inner[3] = acc_k_outer_k_inner[3] + a[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 16 * k_outer + k_inner] * b[(int64_t) (2048 * k_outer) + 128 * k_inner + 64 * gid(0) + lid_0 + 48];
          acc_k_outer_k_inner[4] = acc_k_outer_k_inner[4] + a[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 16 * k_outer + k_inner + 2048] * b[(int64_t) (2048 * k_outer) + 128 * k_inner + 64 * gid(0) + lid_0];
          acc_k_outer_k_inner[5] = acc_k_outer_k_inner[5] + a[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 16 * k_outer + k_inner + 2048] * b[(int64_t) (2048 * k_outer) + 128 * k_inner + 64 * gid(0) + lid_0 + 16];
          acc_k_outer_k_inner[6] = acc_k_outer_k_inner[6] + a[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 16 * k_outer + k_inner + 2048] * b[(int64_t) (2048 * k_outer) + 128 * k_inner + 64 * gid(0) + lid_0 + 32];
          acc_k_outer_k_inner[7] = acc_k_outer_k_inner[7] + a[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 16 * k_outer + k_inner + 2048] * b[(int64_t) (2048 * k_outer) + 128 * k_inner + 64 * gid(0) + lid_0 + 48];
          acc_k_outer_k_inner[8] = acc_k_outer_k_inner[8] + a[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 16 * k_outer + k_inner + 4096] * b[(int64_t) (2048 * k_outer) + 128 * k_inner + 64 * gid(0) + lid_0];
          acc_k_outer_k_inner[9] = acc_k_outer_k_inner[9] + a[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 16 * k_outer + k_inner + 4096] * b[(int64_t) (2048 * k_outer) + 128 * k_inner + 64 * gid(0) + lid_0 + 16];
          acc_k_outer_k_inner[10] = acc_k_outer_k_inner[10] + a[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 16 * k_outer + k_inner + 4096] * b[(int64_t) (2048 * k_outer) + 128 * k_inner + 64 * gid(0) + lid_0 + 32];
          acc_k_outer_k_inner[11] = acc_k_outer_k_inner[11] + a[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 16 * k_outer + k_inner + 4096] * b[(int64_t) (2048 * k_outer) + 128 * k_inner + 64 * gid(0) + lid_0 + 48];
          acc_k_outer_k_inner[12] = acc_k_outer_k_inner[12] + a[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 16 * k_outer + k_inner + 6144] * b[(int64_t) (2048 * k_outer) + 128 * k_inner + 64 * gid(0) + lid_0];
          acc_k_outer_k_inner[13] = acc_k_outer_k_inner[13] + a[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 16 * k_outer + k_inner + 6144] * b[(int64_t) (2048 * k_outer) + 128 * k_inner + 64 * gid(0) + lid_0 + 16];
          acc_k_outer_k_inner[14] = acc_k_outer_k_inner[14] + a[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 16 * k_outer + k_inner + 6144] * b[(int64_t) (2048 * k_outer) + 128 * k_inner + 64 * gid(0) + lid_0 + 32];
          acc_k_outer_k_inner[15] = acc_k_outer_k_inner[15] + a[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 16 * k_outer + k_inner + 6144] * b[(int64_t) (2048 * k_outer) + 128 * k_inner + 64 * gid(0) + lid_0 + 48];
        }
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0] = acc_k_outer_k_inner[0];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 16] = acc_k_outer_k_inner[1];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 32] = acc_k_outer_k_inner[2];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 48] = acc_k_outer_k_inner[3];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 2048] = acc_k_outer_k_inner[4];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 2064] = acc_k_outer_k_inner[5];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 2080] = acc_k_outer_k_inner[6];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 2096] = acc_k_outer_k_inner[7];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 4096] = acc_k_outer_k_inner[8];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 4112] = acc_k_outer_k_inner[9];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 4128] = acc_k_outer_k_inner[10];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 4144] = acc_k_outer_k_inner[11];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 6144] = acc_k_outer_k_inner[12];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 6160] = acc_k_outer_k_inner[13];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 6176] = acc_k_outer_k_inner[14];
      c[(int64_t) (8192 * gid(1)) + 128 * lid_1 + 64 * gid(0) + lid_0 + 6192] = acc_k_outer_k_inner[15];
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
