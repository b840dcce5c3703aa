#include <stdint.h>
#include <math.h>

#define gid(N) ((int) loom_group_ids_int32[N])
static inline float loom_rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double loom_rsqrt(double x) { return 1.0 / sqrt(x); }

static inline int loom_min_int32(int a, int b)
{
  return a < b ? a : b;
}

static void loopy_kernel(float *__restrict__ a, int const n, int const *__restrict__ loom_group_ids_int32)
{
  if (n - 1 >= 15)
    for (int i_inner = 0; i_inner <= 15; ++i_inner)
      for (int i_outer = (-i_inner + 15) / 16; i_outer <= (n - i_inner - 1) / 16; ++i_outer)
        a[(int64_t) (16 * i_outer) + i_inner] = 0.0f;
  if (!(n - 1 >= 15))
    for (int i_inner = 0; i_inner <= loom_min_int32(15, n - 1); ++i_inner)
      for (int i_outer = (-i_inner + 15) / 16; i_outer <= (n - i_inner - 1) / 16; ++i_outer)
        a[(int64_t) (16 * i_outer) + i_inner] = 0.0f;
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
        loopy_kernel((float *) args[0], *(const int *) args[1], group);
      }
}
