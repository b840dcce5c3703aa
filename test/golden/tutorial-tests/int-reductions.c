#include <stdint.h>
#include <math.h>

#define gid(N) ((int) loom_group_ids_int32[N])
static inline float loom_rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double loom_rsqrt(double x) { return 1.0 / sqrt(x); }

static inline int loom_max_int32(int a, int b)
{
  return a > b ? a : b;
}
static inline int loom_min_int32(int a, int b)
{
  return a < b ? a : b;
}

static void loopy_kernel(int const *__restrict__ a, int *__restrict__ mn, int *__restrict__ mx, int const n, int *__restrict__ pr, int const *__restrict__ loom_group_ids_int32)
{
  int acc_k;
  int acc_k_0;
  int acc_k_1;
  for (int i = 0; i <= -1 + n; ++i)
  {
    acc_k = 1;
    acc_k_0 = (-2147483647 - 1);
    acc_k_1 = 2147483647;
    for (int k = 0; k <= 3; ++k)
    {
      acc_k = (int) ((unsigned int) acc_k * (unsigned int) a[(int64_t) (4 * i) + k]);
      acc_k_0 = loom_max_int32(acc_k_0, a[(int64_t) (4 * i) + k]);
      acc_k_1 = loom_min_int32(acc_k_1, a[(int64_t) (4 * i) + k]);
    }
    pr[i] = acc_k;
    mx[i] = acc_k_0;
    mn[i] = acc_k_1;
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
        loopy_kernel((int *) args[0], (int *) args[1], (int *) args[2], *(const int *) args[3], (int *) args[4], group);
      }
}
