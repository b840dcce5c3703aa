#include <stdint.h>
#include <math.h>

#define gid(N) ((int) loom_group_ids_int32[N])
static inline float loom_rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double loom_rsqrt(double x) { return 1.0 / sqrt(x); }

static inline int loom_min_int32(int a, int b)
{
  return a < b ? a : b;
}

static void loopy_kernel(float const *__restrict__ a, int const n, float *__restrict__ out, int const *__restrict__ loom_group_ids_int32)
{
  float a_fetch[4 * n];
  float acc_j[4];
  for (int lid_0 = 0; lid_0 <= 3; ++lid_0)
    if (4 * gid(0) <= n - lid_0 - 1)
      acc_j[lid_0] = 0.0f;
  for (int a_dim_1 = 0; a_dim_1 <= -1 + n; ++a_dim_1)
    for (int lid_0 = 0; lid_0 <= 3; ++lid_0)
      if (4 * gid(0) <= n - lid_0 - 1)
        a_fetch[(int64_t) (n * lid_0) + a_dim_1] = a[(int64_t) (n * (4 * gid(0) + lid_0)) + a_dim_1];
  if (n - 4 * gid(0) - 1 >= 3)
  {
    for (int j = 0; j <= -1 + n; ++j)
      for (int lid_0 = 0; lid_0 <= 3; ++lid_0)
        acc_j[lid_0] = acc_j[lid_0] + a_fetch[(int64_t) (n * lid_0) + j];
    for (int lid_0 = 0; lid_0 <= 3; ++lid_0)
      out[(int64_t) (4 * gid(0)) + lid_0] = acc_j[lid_0];
  }
  if (!(n - 4 * gid(0) - 1 >= 3))
  {
    for (int j = 0; j <= -1 + n; ++j)
      for (int lid_0 = 0; lid_0 <= loom_min_int32(3, n - 4 * gid(0) - 1); ++lid_0)
        acc_j[lid_0] = acc_j[lid_0] + a_fetch[(int64_t) (n * lid_0) + j];
    for (int lid_0 = 0; lid_0 <= loom_min_int32(3, n - 4 * gid(0) - 1); ++lid_0)
      out[(int64_t) (4 * gid(0)) + lid_0] = acc_j[lid_0];
  }
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
        loopy_kernel((float *) args[0], *(const int *) args[1], (float *) args[2], group);
      }
}
