#include <stdint.h>
#include <math.h>

#define gid(N) ((int) loom_group_ids_int32[N])
static inline float loom_rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double loom_rsqrt(double x) { return 1.0 / sqrt(x); }

static inline int loom_floor_div_int32(int a, int b)
{
  // the quotient rounded down (C truncates); x // 0 is 0, INT_MIN // -1 wraps
  if (b == 0) return 0;
  if (b == -1) return (int) (0 - (unsigned int) a);
  int q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int loom_mod_int32(int a, int b)
{
  // the remainder with the divisor's sign; x % 0 and INT_MIN % -1 (undefined in C) are 0
  if (b == 0 || b == -1) return 0;
  int r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

static void rotate_v2(int const *__restrict__ arr, int const n, int *__restrict__ tmp_save_slot, int const *__restrict__ loom_group_ids_int32)
{
  int tmp;
  for (int lid_0 = 0; lid_0 <= 15; ++lid_0)
  {
    tmp = arr[(int64_t) (16 * gid(0)) + lid_0];
    if (0 <= gid(0) && gid(0) < loom_floor_div_int32(n + 15, 16))
      tmp_save_slot[(int64_t) (16 * gid(0)) + lid_0] = tmp;
  }
}

static void rotate_v2_0(int *__restrict__ arr, int const n, int const *__restrict__ tmp_save_slot, int const *__restrict__ loom_group_ids_int32)
{
  int tmp;
  for (int lid_0 = 0; lid_0 <= 15; ++lid_0)
  {
    tmp = 0 <= gid(0) && gid(0) < loom_floor_div_int32(n + 15, 16) ? tmp_save_slot[(int64_t) (16 * gid(0)) + lid_0] : 0;
    if (0 <= loom_mod_int32(16 * gid(0) + lid_0 + 1, n) && loom_mod_int32(16 * gid(0) + lid_0 + 1, n) < n)
      arr[loom_mod_int32(16 * gid(0) + lid_0 + 1, n)] = tmp;
  }
}

void rotate_v2__launch(void *const *args, const int32_t *group_count)
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
        rotate_v2((int *) args[0], *(const int *) args[1], (int *) args[2], group);
      }
}

void rotate_v2_0__launch(void *const *args, const int32_t *group_count)
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
        rotate_v2_0((int *) args[0], *(const int *) args[1], (int *) args[2], group);
      }
}
