/**
 * The CUDA device for the tests that need one. CUDA is not among the backends every machine
 * must have (backends.ts: CI=true requires OpenCL and WebGPU, and CI has no NVIDIA GPU): a
 * missing CUDA is an error only where `LOOM_REQUIRE` names it (`LOOM_REQUIRE=cuda` on the GPU
 * machine), and otherwise prints one line saying why its tests do not run.
 */
import { LoomError } from '@loom/core';
import { cudaDevice, cudaUnavailableReason, type CudaDevice } from '@loom/codegen-cuda';

/** Whether `LOOM_REQUIRE` names CUDA (`cuda`, or `all`). */
export function cudaRequired(): boolean {
  const named = (process.env.LOOM_REQUIRE ?? '').split(',').map((s) => s.trim().toLowerCase());
  return named.includes('cuda') || named.includes('all');
}

let reported = false;

/** Reports CUDA missing: a LoomError where it is required, else one line on stderr (once per process). */
export function noteCudaMissing(reason: string): void {
  if (cudaRequired()) throw new LoomError(`CUDA backend required (LOOM_REQUIRE=${process.env.LOOM_REQUIRE}) but unavailable: ${reason}`);
  if (reported) return;
  reported = true;
  console.warn(`loom: skipping cuda tests: ${reason}`);
}

let device: CudaDevice | undefined | null = null;

/** The CUDA device (one per process), or undefined after reporting it missing. */
export function cudaDeviceOrSkip(): CudaDevice | undefined {
  if (device === null) {
    device = cudaDevice();
    if (!device) noteCudaMissing(cudaUnavailableReason());
  }
  return device;
}
