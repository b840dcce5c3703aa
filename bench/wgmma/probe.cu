// Issue 30, tensor cores at Hopper's rate: a probe of the warpgroup matrix instructions (`wgmma`,
// sm_90a) before Loom's `tensorize` spells them. WMMA (what Loom emits today) compiles to HMMA.16816 with
// ldmatrix loads and issues at about half the rate that `wgmma` reaches (BENCHMARKS.md, twenty-second
// session); cuBLAS's 650-760 TFLOP/s come from `wgmma`. What Loom must get right, and what this probe
// checks on the GPU, one kernel per question:
//
//  1. the shared-memory layout of an operand without swizzling: 8 x 8 "core matrices" of halves, each
//     128 contiguous bytes (8 rows of 16 bytes), and the matrix descriptor's two strides between them
//     (LBO: the next core matrix along k; SBO: along m or n);
//  2. where each element of the m64nNk16 float accumulator lives (warp w of the warpgroup holds rows
//     16w..16w+15, as mma.m16n8's fragment, one n8 block after the other);
//  3. the order of fences: generic stores to shared memory made visible to the async proxy
//     (fence.proxy.async), a barrier, wgmma.fence, the products, commit_group, wait_group;
//  4. b stored k-major (b transposed, "TN") and b stored n-major as Loom's b[k, j] is (the transpose bit of
//     16-bit operands), with LBO and SBO each way round, to learn which the n-major layout takes.
//
// Answered on the H200 (2026-12-05, bench/results/wgmma-probe-h200-2026-12-05.txt): k-major and n-major b
// with LBO along k are right (110.7 and 109.4 TFLOP/s unpipelined); LBO along n faults (an illegal
// address: the process ends there). So LBO is the step along k and SBO the step along m or n, whichever
// axis a core matrix's lines run along: what tensorize's wgmma spelling prints (warpgroup-matrix.ts).
//
// Each kernel computes C = A * B (A: m x k row-major halves; B: k x n halves, stored as `b_kmajor` n x k or
// `b_nmajor` k x n; C: m x n row-major floats) with one warpgroup (128 threads) per 64 x 128 block of C,
// k by 64 a step through shared memory, no pipelining. 256 entries of C are checked against float64
// dot products of the same halves; then the 4096^3 product is timed.
//
//   nvcc -gencode arch=compute_90a,code=sm_90a -O3 -o /tmp/wgmma-probe bench/wgmma/probe.cu && /tmp/wgmma-probe   (GPU machine)
//   nvcc -gencode arch=compute_90a,code=sm_90a -cubin -Xptxas -v -o /dev/null bench/wgmma/probe.cu   (here: ptxas checks it)
#include <cuda_fp16.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

constexpr int BM = 64, BN = 128, BK = 64;  // a block of C, and k a step
constexpr int CORE = 128;                  // bytes of a core matrix: 8 rows of 8 halves

// The 64-bit matrix descriptor of an operand in shared memory: start address, LBO and SBO (each in
// units of 16 bytes, 14 bits), no swizzling (bits 62-63 zero), base offset 0.
__device__ inline uint64_t descriptor(const void *smem, uint32_t lbo, uint32_t sbo) {
  uint32_t address = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  return (uint64_t)((address >> 4) & 0x3fff) | ((uint64_t)((lbo >> 4) & 0x3fff) << 16) |
         ((uint64_t)((sbo >> 4) & 0x3fff) << 32);
}

// d += a * b for a 64 x 128 x 16 product; transB: b is n-major (its rows of 8 halves run along n).
template <int transB>
__device__ inline void wgmma_m64n128k16(float (&d)[64], uint64_t da, uint64_t db) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, 1, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, p, 1, 1, 0, %66;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(da), "l"(db), "n"(transB));
}

// Layouts of the staged operands (byte offsets of element (row, col) of a tile whose rows run along the
// operand's contiguous axis in global memory, 8 halves a 16-byte piece):
//   k-major (a, and b stored n x k): core matrix (row / 8, col / 8) of BK/8 a row of core matrices,
//     so the next along k is CORE bytes on (LBO) and the next along m or n is BK/8 * CORE on (SBO);
//   n-major (b stored k x n): core matrix (k / 8, n / 8), BN/8 of them a row of k: the next along n is CORE
//     bytes on, the next along k BN/8 * CORE.
__device__ inline uint32_t kMajorOffset(int row, int col) { return ((row / 8) * (BK / 8) + col / 8) * CORE + (row % 8) * 16 + (col % 8) * 2; }
__device__ inline uint32_t nMajorOffset(int k, int n) { return ((k / 8) * (BN / 8) + n / 8) * CORE + (k % 8) * 16 + (n % 8) * 2; }

// C = A * B, one warpgroup a 64 x 128 block. nMajorB: B is k x n (else n x k); swapB: b's descriptor
// takes its two strides the other way round (the question 4 asks).
template <bool nMajorB, bool swapB>
__global__ void __launch_bounds__(128) probe(const __half *__restrict__ a, const __half *__restrict__ b,
                                              float *__restrict__ c, int m, int n, int k) {
  __shared__ __align__(128) unsigned char sa[BM * BK * 2];
  __shared__ __align__(128) unsigned char sb[BN * BK * 2];
  const int t = threadIdx.x;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  float d[64];
  for (int e = 0; e < 64; e++) d[e] = 0.0f;

  for (int k0 = 0; k0 < k; k0 += BK) {
    // a's 64 x 64 tile, 16 bytes (8 halves along k) a thread a round
    for (int p = t; p < BM * BK / 8; p += 128) {
      const int r = p / (BK / 8), c8 = (p % (BK / 8)) * 8;
      *reinterpret_cast<uint4 *>(sa + kMajorOffset(r, c8)) =
          *reinterpret_cast<const uint4 *>(a + (size_t)(row0 + r) * k + k0 + c8);
    }
    if (nMajorB) {
      // b's 64 x 128 tile (k x n), 8 halves along n a piece
      for (int p = t; p < BK * BN / 8; p += 128) {
        const int kk = p / (BN / 8), n8 = (p % (BN / 8)) * 8;
        *reinterpret_cast<uint4 *>(sb + nMajorOffset(kk, n8)) =
            *reinterpret_cast<const uint4 *>(b + (size_t)(k0 + kk) * n + col0 + n8);
      }
    } else {
      // b's 128 x 64 tile (n x k), 8 halves along k a piece
      for (int p = t; p < BN * BK / 8; p += 128) {
        const int nn = p / (BK / 8), k8 = (p % (BK / 8)) * 8;
        *reinterpret_cast<uint4 *>(sb + kMajorOffset(nn, k8)) =
            *reinterpret_cast<const uint4 *>(b + (size_t)(col0 + nn) * k + k0 + k8);
      }
    }
    // the stores above are the generic proxy's; wgmma reads through the async proxy
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    for (int s = 0; s < BK / 16; s++) {
      // a step of 16 along k is two core matrices on
      const uint64_t da = descriptor(sa + s * 2 * CORE, CORE, (BK / 8) * CORE);
      uint64_t db;
      if (nMajorB) {
        const uint32_t alongN = CORE, alongK = (BN / 8) * CORE;
        db = descriptor(sb + s * 2 * alongK, swapB ? alongN : alongK, swapB ? alongK : alongN);
      } else {
        db = descriptor(sb + s * 2 * CORE, CORE, (BK / 8) * CORE);
      }
      wgmma_m64n128k16<nMajorB ? 1 : 0>(d, da, db);
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    __syncthreads();  // the tiles are overwritten next step
  }
  // the accumulator: warp w rows 16w.., lane l row l/4 (and + 8), columns 2(l%4), +1 of each n8 block
  const int w = t / 32, l = t % 32;
  for (int j = 0; j < BN / 8; j++) {
    const int r = row0 + 16 * w + l / 4, cc = col0 + 8 * j + 2 * (l % 4);
    c[(size_t)r * n + cc] = d[4 * j];
    c[(size_t)r * n + cc + 1] = d[4 * j + 1];
    c[(size_t)(r + 8) * n + cc] = d[4 * j + 2];
    c[(size_t)(r + 8) * n + cc + 1] = d[4 * j + 3];
  }
}

template <bool nMajorB, bool swapB>
static void measure(const char *name, int size, const std::vector<__half> &ha, const std::vector<__half> &hbKN,
                    const std::vector<__half> &hbNK) {
  const int m = size, n = size, k = size;
  __half *a, *b;
  float *c;
  CHECK(cudaMalloc(&a, ha.size() * sizeof(__half)));
  CHECK(cudaMalloc(&b, hbKN.size() * sizeof(__half)));
  CHECK(cudaMalloc(&c, (size_t)m * n * sizeof(float)));
  const std::vector<__half> &hb = nMajorB ? hbKN : hbNK;
  CHECK(cudaMemcpy(a, ha.data(), ha.size() * sizeof(__half), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, hb.data(), hb.size() * sizeof(__half), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(c, 0xff, (size_t)m * n * sizeof(float)));  // NaN where nothing is written
  const dim3 grid(n / BN, m / BM);
  probe<nMajorB, swapB><<<grid, 128>>>(a, b, c, m, n, k);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> hc((size_t)m * n);
  CHECK(cudaMemcpy(hc.data(), c, hc.size() * sizeof(float), cudaMemcpyDeviceToHost));
  // 256 entries against float64 dot products of the same halves (b as k x n)
  int wrong = 0;
  double worst = 0;
  uint32_t seed = 12345;
  for (int q = 0; q < 256; q++) {
    seed = seed * 1664525u + 1013904223u;
    const int i = (seed >> 8) % m;
    seed = seed * 1664525u + 1013904223u;
    const int j = (seed >> 8) % n;
    double want = 0;
    for (int kk = 0; kk < k; kk++) want += (double)__half2float(ha[(size_t)i * k + kk]) * __half2float(hbKN[(size_t)kk * n + j]);
    const double got = hc[(size_t)i * n + j];
    const double err = std::fabs(got - want) / (1 + std::fabs(want));
    worst = std::fmax(worst, std::isnan(err) ? INFINITY : err);
    if (!(err < 1e-3) && wrong++ < 3) printf("  %s: c[%d, %d] is %g, want %g\n", name, i, j, got, want);
  }
  float ms = 0;
  if (wrong == 0) {
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    for (int w = 0; w < 3; w++) probe<nMajorB, swapB><<<grid, 128>>>(a, b, c, m, n, k);
    const int reps = 20;
    CHECK(cudaEventRecord(start));
    for (int r = 0; r < reps; r++) probe<nMajorB, swapB><<<grid, 128>>>(a, b, c, m, n, k);
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    ms /= reps;
  }
  printf("%-34s %5d: %s (worst relative error %.2g)%s", name, size, wrong ? "WRONG" : "right", worst, wrong ? "\n" : "");
  if (!wrong) printf(", %.3f ms, %.1f TFLOP/s\n", ms, 2.0 * m * n * k / (ms * 1e-3) / 1e12);
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
}

int main(int argc, char **argv) {
  const int size = argc > 1 ? atoi(argv[1]) : 4096;
  std::vector<__half> ha((size_t)size * size), hbKN((size_t)size * size), hbNK((size_t)size * size);
  uint32_t seed = 7;
  auto next = [&]() {
    seed = seed * 1664525u + 1013904223u;
    return (float)((seed >> 9) % 2001) / 1000.0f - 1.0f;  // -1..1 in steps of 1/1000
  };
  for (auto &x : ha) x = __float2half(next());
  for (int kk = 0; kk < size; kk++)
    for (int j = 0; j < size; j++) hbNK[(size_t)j * size + kk] = hbKN[(size_t)kk * size + j] = __float2half(next());
  measure<false, false>("b k-major (TN)", size, ha, hbKN, hbNK);
  measure<true, false>("b n-major, LBO along k", size, ha, hbKN, hbNK);
  measure<true, true>("b n-major, LBO along n", size, ha, hbKN, hbNK);
  return 0;
}
