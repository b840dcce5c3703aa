// Issue 30, TF32 on Hopper's warpgroup instructions: a probe of `wgmma ... .f32.tf32.tf32` before Loom's
// `tensorize` spells it (the WMMA TF32 kernel issues at half the rate: 0.15x cuBLAS with TF32 on). The
// questions, one kernel each, answered on the GPU:
//
//  1. core matrices of 32-bit elements: 8 rows of 16 bytes (4 floats), the descriptor's LBO the step
//     along k and SBO the step along m or n, both factors K-major (tf32 has no transpose bits);
//  2. what the instruction does with the 13 mantissa bits a float has past TF32's 10: truncated, or
//     rounded to nearest (as Loom's `precision: 'tf32'` and cvt.rna.tf32.f32 do)? b is the identity, so
//     c is a as the hardware read it;
//  3. a swizzled tile (128 bytes: 32 floats a line, one line a row, 16-byte units exchanged by the line's
//     index modulo 8), the start moved 32 bytes along a line for each k of 8, as the 16-bit kernels move it.
//
// One warpgroup computes a 64 x 8 tile (m64n8k8), k by 8 (kernels 1 and 2) or 32 (kernel 3) from shared
// memory, every entry checked against float64 sums of the factors as TF32 (truncated and rounded).
//
//   nvcc -gencode arch=compute_90a,code=sm_90a -O3 -o /tmp/tf32-probe bench/wgmma/tf32-probe.cu && /tmp/tf32-probe   (GPU machine)
//   nvcc -gencode arch=compute_90a,code=sm_90a -cubin -Xptxas -v -o /dev/null bench/wgmma/tf32-probe.cu   (here: ptxas checks it)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cudaError_t e = (call);                                                                \
    if (e != cudaSuccess) {                                                                \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e)); \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

constexpr int M = 64, N = 8;

// The matrix descriptor: address, LBO and SBO in 16-byte units, the swizzling mode in bits 62-63.
__device__ inline uint64_t descriptor(const void *smem, uint32_t lbo, uint32_t sbo, uint32_t mode) {
  uint32_t address = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  return (uint64_t)((address >> 4) & 0x3fff) | ((uint64_t)((lbo >> 4) & 0x3fff) << 16) |
         ((uint64_t)((sbo >> 4) & 0x3fff) << 32) | ((uint64_t)mode << 62);
}

// d += a * b, 64 x 8 x 8, TF32 factors from shared memory, both K-major.
__device__ inline void wgmma_m64n8k8_tf32(float (&d)[4], uint64_t da, uint64_t db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%0, %1, %2, %3}, %4, %5, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "l"(da), "l"(db));
}

// Element (r, c) of a tile whose rows hold `k` floats, in core matrices (no swizzle): 8 rows x 4 floats
// each, the core matrices along k 128 bytes apart (LBO), the groups of 8 rows 128 * k / 4 bytes apart (SBO).
__host__ __device__ inline int in_cores(int r, int c, int k) {
  return (r / 8) * (8 * k) + (c / 4) * 32 + (r % 8) * 4 + c % 4;
}

// Element (r, c) of a tile of lines of 32 floats (128 bytes, one a row), swizzled over 128 bytes: the
// 16-byte unit c / 4 of line r stored at unit (c / 4) ^ (r % 8).
__host__ __device__ inline int swizzled(int r, int c) { return r * 32 + (((c / 4) ^ (r % 8)) * 4) + c % 4; }

// c (64 x 8, row-major) = a (64 x k, row-major) * b (k x 8, stored n x k: K-major), one warpgroup.
__global__ void product(const float *a, const float *b, float *c, int k, int swizzle) {
  __shared__ __align__(1024) float sa[M * 32];
  __shared__ __align__(1024) float sb[N * 32];
  int t = threadIdx.x;
  for (int e = t; e < M * k; e += 128) sa[swizzle ? swizzled(e / k, e % k) : in_cores(e / k, e % k, k)] = a[e];
  for (int e = t; e < N * k; e += 128) sb[swizzle ? swizzled(e / k, e % k) : in_cores(e / k, e % k, k)] = b[e];
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  float d[4] = {0, 0, 0, 0};
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  for (int s = 0; s < k / 8; s++) {
    uint64_t da, db;
    if (swizzle) {
      // K-major swizzled: LBO unused (1), SBO the 8 lines of a repeat (1024 bytes); k moves the start 32 bytes
      da = descriptor(sa + 8 * s, 16, 1024, 1);
      db = descriptor(sb + 8 * s, 16, 1024, 1);
    } else {
      // the two core matrices of a k of 8 are 128 bytes apart (LBO); 8 rows on, 32 * k bytes (SBO)
      da = descriptor(sa + 64 * s, 128, 32 * k, 0);
      db = descriptor(sb + 64 * s, 128, 32 * k, 0);
    }
    wgmma_m64n8k8_tf32(d, da, db);
  }
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  // work-item t holds rows 16 (t / 32) + (t % 32) / 4 and 8 below, columns 2 (t % 4) and the next
  int row = 16 * (t / 32) + (t % 32) / 4, col = 2 * (t % 4);
  for (int e = 0; e < 4; e++) c[(row + 8 * (e / 2)) * N + col + e % 2] = d[e];
}

static float bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static uint32_t word(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
// TF32 by truncation (the low 13 bits dropped) and by rounding to nearest, ties away (cvt.rna.tf32.f32).
static float truncated(float f) { return bits(word(f) & 0xffffe000u); }
static float rounded(float f) { return bits((word(f) + 0x1000u) & 0xffffe000u); }

// Entries of c equal to the float64 sums of the factors taken as TF32 one way or the other.
static void check(const char *what, const std::vector<float> &a, const std::vector<float> &b,
                  const std::vector<float> &c, int k) {
  int asTruncated = 0, asRounded = 0, worst = -1;
  double worstError = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double t = 0, r = 0, magnitude = 0;
      for (int q = 0; q < k; q++) {
        t += (double)truncated(a[i * k + q]) * truncated(b[j * k + q]);
        r += (double)rounded(a[i * k + q]) * rounded(b[j * k + q]);
        magnitude += fabs((double)a[i * k + q] * b[j * k + q]);
      }
      double got = c[i * N + j], tolerance = 1e-6 * magnitude + 1e-30;
      asTruncated += fabs(got - t) <= tolerance;
      asRounded += fabs(got - r) <= tolerance;
      double error = std::min(fabs(got - t), fabs(got - r)) / (magnitude + 1e-30);
      if (error > worstError) worstError = error, worst = i * N + j;
    }
  printf("%s: %d of %d entries match the truncated factors, %d the rounded ones; worst relative error %.3g (entry %d)\n",
         what, asTruncated, M * N, asRounded, worstError, worst);
}

static void run(const char *what, const std::vector<float> &a, const std::vector<float> &b, int k, int swizzle) {
  float *da, *db, *dc;
  CHECK(cudaMalloc(&da, a.size() * 4));
  CHECK(cudaMalloc(&db, b.size() * 4));
  CHECK(cudaMalloc(&dc, M * N * 4));
  CHECK(cudaMemcpy(da, a.data(), a.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dc, 0xff, M * N * 4));
  product<<<1, 128>>>(da, db, dc, k, swizzle);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> c(M * N);
  CHECK(cudaMemcpy(c.data(), dc, M * N * 4, cudaMemcpyDeviceToHost));
  check(what, a, b, c, k);
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
}

int main() {
  srand(7);
  auto uniform = [] { return (float)rand() / RAND_MAX - 0.5f; };
  // 1. core matrices, factors exact in TF32: both rules agree, so every entry matches both or the layout is wrong
  {
    std::vector<float> a(M * 8), b(N * 8);
    for (auto &x : a) x = truncated(uniform());
    for (auto &x : b) x = truncated(uniform());
    run("1. core matrices, k 8, exact TF32 factors", a, b, 8, 0);
  }
  // 2. b the identity (b[n][k] = n == k), a with its low 13 bits set past half a TF32 unit: c is a as read
  {
    std::vector<float> a(M * 8), b(N * 8);
    for (int e = 0; e < M * 8; e++) a[e] = bits((word(truncated(uniform())) & 0xffffe000u) | (0x1000u + (e % 0xfff) + 1));
    for (int n = 0; n < N; n++)
      for (int q = 0; q < 8; q++) b[n * 8 + q] = n == q ? 1.0f : 0.0f;
    run("2. rounding: a past half a unit, b the identity", a, b, 8, 0);
  }
  // 3. swizzled over 128 bytes, k 32: four instructions, each start 32 bytes further along the lines
  {
    std::vector<float> a(M * 32), b(N * 32);
    for (auto &x : a) x = truncated(uniform());
    for (auto &x : b) x = truncated(uniform());
    run("3. swizzled 128 bytes, k 32, exact TF32 factors", a, b, 32, 1);
  }
  return 0;
}
