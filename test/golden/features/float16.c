#include <stdint.h>
#include <math.h>

#define gid(N) ((int) loom_group_ids_int32[N])
static inline float loom_rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double loom_rsqrt(double x) { return 1.0 / sqrt(x); }

#include <string.h>

static inline float loom_half_to_float(uint16_t h)
{
  uint32_t sign = (uint32_t) (h & 0x8000) << 16, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff, bits;
  if (exponent == 0x1f) bits = sign | 0x7f800000 | (mantissa << 13);
  else if (exponent != 0) bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  else if (mantissa == 0) bits = sign;
  else
  {
    /* a subnormal half is a normal float */
    float value = (float) mantissa * 0x1p-24f;
    return sign ? -value : value;
  }
  float out;
  memcpy(&out, &bits, 4);
  return out;
}

/* x rounded once to the nearest half (ties to even), as its bits: a float converts to double exactly */
static inline uint16_t loom_half_bits(double x)
{
  uint64_t bits;
  memcpy(&bits, &x, 8);
  uint16_t sign = (uint16_t) ((bits >> 48) & 0x8000);
  double a = fabs(x);
  if (a != a) return sign | 0x7e00;
  if (a >= 65520.0) return sign | 0x7c00; /* rounds past the largest half, 65504 */
  if (a < 0x1p-14)
  {
    /* subnormal: a multiple of 2^-24, rounded to nearest even by the FPU's default mode */
    return sign | (uint16_t) nearbyint(a * 0x1p24);
  }
  int exponent;
  double m = frexp(a, &exponent); /* a = m * 2^exponent, 0.5 <= m < 1 */
  double scaled = nearbyint(m * 2048.0); /* 11 significant bits, ties to even */
  if (scaled == 2048.0) { scaled = 1024.0; exponent += 1; }
  return sign | (uint16_t) ((exponent + 14) << 10) | ((uint16_t) scaled - 1024);
}

static inline float loom_to_half(float x)
{
  // rounded to the nearest float16 (ties to even) once, read back as a float
  return loom_half_to_float(loom_half_bits(x));
}

static void loopy_kernel(uint16_t const *__restrict__ a, uint16_t const *__restrict__ b, int const n, uint16_t *__restrict__ out, int const *__restrict__ loom_group_ids_int32)
{
  float t;
  for (int i = 0; i <= -1 + n; ++i)
  {
    t = loom_to_half(loom_to_half(loom_half_to_float(a[i]) * loom_half_to_float(b[i])) + 1.0f);
    out[i] = loom_half_bits(loom_to_half(loom_to_half(sqrtf(t)) + floorf(loom_to_half(loom_half_to_float(a[i]) / loom_half_to_float(b[i])))));
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
        loopy_kernel((uint16_t *) args[0], (uint16_t *) args[1], *(const int *) args[2], (uint16_t *) args[3], group);
      }
}
