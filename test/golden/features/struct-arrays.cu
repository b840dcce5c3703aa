#define tIdx(N) ((int) threadIdx.N)
#define bIdx(N) ((int) blockIdx.N)

typedef struct {
  float x;
  float y;
} point;
typedef struct {
  unsigned int id;
  point at;
  int w[3];
} particle;

extern "C" __global__ void __launch_bounds__(64) loopy_kernel(particle const *__restrict__ p, particle *__restrict__ out, int const n)
{
  if (64 * bIdx(x) <= n - tIdx(x) - 1)
  {
    out[64 * bIdx(x) + tIdx(x)].at.x = __fmul_rn(p[64 * bIdx(x) + tIdx(x)].at.y, (float) p[64 * bIdx(x) + tIdx(x)].w[2]);
    out[64 * bIdx(x) + tIdx(x)].id = p[64 * bIdx(x) + tIdx(x)].id + 1u;
  }
}
