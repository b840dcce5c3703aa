#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

typedef struct {
  float x;
  float y;
} point;
typedef struct {
  uint id;
  point at;
  int w[3];
} particle;

__kernel void __attribute__ ((reqd_work_group_size(64, 1, 1))) loopy_kernel(__global particle const *__restrict__ p, __global particle *__restrict__ out, int const n)
{
  if (64 * gid(0) <= n - lid(0) - 1)
  {
    out[64 * gid(0) + lid(0)].at.x = p[64 * gid(0) + lid(0)].at.y * (float) p[64 * gid(0) + lid(0)].w[2];
    out[64 * gid(0) + lid(0)].id = p[64 * gid(0) + lid(0)].id + 1u;
  }
}
