// Runs Loom's generated SGEMM (OpenCL C, compiled by nvcc through opencl-in-cuda.h) on n x n
// matrices of ones and twos, checks a few entries, and prints its TFLOP/s (CUDA events): the
// program Nsight Compute profiles. Built by profile.sh with KERNEL_FILE, N, TILE_M, TILE_N, WG0, WG1.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "opencl-in-cuda.h"
#include KERNEL_FILE

// the kernel's arguments are float or float4 pointers, as the configuration chose
struct AnyPointer {
  float *p;
  template <class T> operator T *() const { return reinterpret_cast<T *>(p); }
};

int main() {
  const size_t n = N, bytes = n * n * sizeof(float);
  std::vector<float> ha(n * n, 1.0f), hb(n * n, 2.0f), hc(n * n);
  float *a, *b, *c;
  cudaMalloc(&a, bytes); cudaMalloc(&b, bytes); cudaMalloc(&c, bytes);
  cudaMemcpy(a, ha.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb.data(), bytes, cudaMemcpyHostToDevice);
  dim3 grid(n / TILE_N, n / TILE_M), block(WG0, WG1);
  cudaEvent_t start, stop; cudaEventCreate(&start); cudaEventCreate(&stop);
  sgemm<<<grid, block>>>(AnyPointer{a}, AnyPointer{b}, AnyPointer{c});
  cudaEventRecord(start);
  const int reps = 10;
  for (int r = 0; r < reps; r++) sgemm<<<grid, block>>>(AnyPointer{a}, AnyPointer{b}, AnyPointer{c});
  cudaEventRecord(stop); cudaEventSynchronize(stop);
  float ms; cudaEventElapsedTime(&ms, start, stop);
  cudaMemcpy(hc.data(), c, bytes, cudaMemcpyDeviceToHost);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) { printf("CUDA error: %s\n", cudaGetErrorString(err)); return 1; }
  for (size_t k = 0; k < n * n; k += 7919) if (hc[k] != 2.0f * n) { printf("wrong c[%zu] = %g\n", k, hc[k]); return 1; }
  printf("sgemm %zu: %.3f ms, %.2f TFLOP/s (CUDA events, mean of %d)\n", n, ms / reps, 2.0 * n * n * n / (ms / reps * 1e-3) / 1e12, reps);
  return 0;
}
