#include <stdint.h>
#include <math.h>

#define gid(N) ((int) loom_group_ids_int32[N])
static inline float loom_rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double loom_rsqrt(double x) { return 1.0 / sqrt(x); }

static inline int loom_min_int32(int a, int b)
{
  return a < b ? a : b;
}

static void loopy_kernel(float const *__restrict__ a, float const *__restrict__ b, float *__restrict__ c, int const n, int const *__restrict__ loom_group_ids_int32)
{
  float a_fetch[256];
  float b_fetch[256];
  float acc_k_outer_k_inner[256];
  if (n - 16 * gid(1) - 1 >= 15 && n - 16 * gid(0) - 1 >= 15)
    for (int lid_1 = 0; lid_1 <= 15; ++lid_1)
      for (int lid_0 = 0; lid_0 <= 15; ++lid_0)
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = 0.0f;
  if (!(n - 16 * gid(1) - 1 >= 15 && n - 16 * gid(0) - 1 >= 15))
    for (int lid_1 = 0; lid_1 <= loom_min_int32(15, n - 16 * gid(1) - 1); ++lid_1)
      for (int lid_0 = 0; lid_0 <= loom_min_int32(15, n - 16 * gid(0) - 1); ++lid_0)
        acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = 0.0f;
  for (int k_outer = 0; k_outer <= (n - 1) / 16; ++k_outer)
  {
    if (n - 16 * k_outer - 1 >= 15 && n - 16 * gid(0) - 1 >= 15)
      for (int lid_1 = 0; lid_1 <= 15; ++lid_1)
        for (int lid_0 = 0; lid_0 <= 15; ++lid_0)
          b_fetch[(int64_t) (16 * lid_1) + lid_0] = b[(int64_t) (n * (16 * k_outer + lid_1)) + 16 * gid(0) + lid_0];
    if (!(n - 16 * k_outer - 1 >= 15 && n - 16 * gid(0) - 1 >= 15))
      for (int lid_1 = 0; lid_1 <= loom_min_int32(15, n - 16 * k_outer - 1); ++lid_1)
        for (int lid_0 = 0; lid_0 <= loom_min_int32(15, n - 16 * gid(0) - 1); ++lid_0)
          b_fetch[(int64_t) (16 * lid_1) + lid_0] = b[(int64_t) (n * (16 * k_outer + lid_1)) + 16 * gid(0) + lid_0];
    if (n - 16 * gid(1) - 1 >= 15 && n - 16 * k_outer - 1 >= 15)
      for (int lid_1 = 0; lid_1 <= 15; ++lid_1)
        for (int lid_0 = 0; lid_0 <= 15; ++lid_0)
          a_fetch[(int64_t) (16 * lid_1) + lid_0] = a[(int64_t) (n * (16 * gid(1) + lid_1)) + 16 * k_outer + lid_0];
    if (!(n - 16 * gid(1) - 1 >= 15 && n - 16 * k_outer - 1 >= 15))
      for (int lid_1 = 0; lid_1 <= loom_min_int32(15, n - 16 * gid(1) - 1); ++lid_1)
        for (int lid_0 = 0; lid_0 <= loom_min_int32(15, n - 16 * k_outer - 1); ++lid_0)
          a_fetch[(int64_t) (16 * lid_1) + lid_0] = a[(int64_t) (n * (16 * gid(1) + lid_1)) + 16 * k_outer + lid_0];
    if (n - 16 * k_outer - 1 >= 15 && n - 16 * gid(1) - 1 >= 15 && n - 16 * gid(0) - 1 >= 15)
      for (int k_inner = 0; k_inner <= 15; ++k_inner)
        for (int lid_1 = 0; lid_1 <= 15; ++lid_1)
          for (int lid_0 = 0; lid_0 <= 15; ++lid_0)
            acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] + a_fetch[(int64_t) (16 * lid_1) + k_inner] * b_fetch[(int64_t) (16 * k_inner) + lid_0];
    if (!(n - 16 * k_outer - 1 >= 15 && n - 16 * gid(1) - 1 >= 15 && n - 16 * gid(0) - 1 >= 15))
      for (int k_inner = 0; k_inner <= loom_min_int32(n - 16 * k_outer - 1, 15); ++k_inner)
        for (int lid_1 = 0; lid_1 <= loom_min_int32(15, n - 16 * gid(1) - 1); ++lid_1)
          for (int lid_0 = 0; lid_0 <= loom_min_int32(15, n - 16 * gid(0) - 1); ++lid_0)
            acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1] + a_fetch[(int64_t) (16 * lid_1) + k_inner] * b_fetch[(int64_t) (16 * k_inner) + lid_0];
  }
  if (n - 16 * gid(1) - 1 >= 15 && n - 16 * gid(0) - 1 >= 15)
    for (int lid_1 = 0; lid_1 <= 15; ++lid_1)
      for (int lid_0 = 0; lid_0 <= 15; ++lid_0)
        c[(int64_t) (n * (16 * gid(1) + lid_1)) + 16 * gid(0) + lid_0] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1];
  if (!(n - 16 * gid(1) - 1 >= 15 && n - 16 * gid(0) - 1 >= 15))
    for (int lid_1 = 0; lid_1 <= loom_min_int32(15, n - 16 * gid(1) - 1); ++lid_1)
      for (int lid_0 = 0; lid_0 <= loom_min_int32(15, n - 16 * gid(0) - 1); ++lid_0)
        c[(int64_t) (n * (16 * gid(1) + lid_1)) + 16 * gid(0) + lid_0] = acc_k_outer_k_inner[(int64_t) lid_0 + 16 * lid_1];
}

void loopy_kernel__launch(void *const *args, const int32_t *group_count)
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
        loopy_kernel((float *) args[0], (float *) args[1], (float *) args[2], *(const int *) args[3], group);
      }
}
