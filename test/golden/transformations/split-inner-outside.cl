#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) loopy_kernel(__global float *__restrict__ a, int const n)
{
  for (int i_inner = 0; i_inner <= min(15, n - 1); ++i_inner)
    for (int i_outer = (-i_inner + 15) / 16; i_outer <= (n - i_inner - 1) / 16; ++i_outer)
      a[16 * i_outer + i_inner] = 0.0f;
}
