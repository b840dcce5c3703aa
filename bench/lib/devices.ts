/**
 * The devices a benchmark runs on: each backend asked for that is present here. A missing
 * one is a notice on stderr, not a failure: the same script runs on a laptop and the H100.
 *
 * `LOOM_BENCH_DAWN` (space-separated) passes options to Dawn's instance, for experiments such
 * as `enable-dawn-features=disable_robustness` (what Dawn's own bounds clamping costs); the
 * recorded figures never set it.
 */
import type { Device } from '@loom/core';
import { cDevice, cUnavailableReason, type CDevice } from '@loom/codegen-c';
import { cpuDevice } from '@loom/codegen-js';
import { cudaDevice, cudaUnavailableReason, type CudaDevice } from '@loom/codegen-cuda';
import { openclDevice, openclUnavailableReason, type OpenCLDevice } from '@loom/codegen-opencl';
import { webgpuDevice, webgpuUnavailableReason, type WebGPUDevice } from '@loom/codegen-wgsl';
import { progress, type Backend } from './records.ts';

export type BenchDevice =
  | { readonly backend: 'opencl'; readonly device: OpenCLDevice }
  | { readonly backend: 'webgpu'; readonly device: WebGPUDevice }
  | { readonly backend: 'cuda'; readonly device: CudaDevice }
  | { readonly backend: 'cpu'; readonly device: Device }
  | { readonly backend: 'c'; readonly device: CDevice };

export async function openDevices(backends: ReadonlySet<Backend>): Promise<BenchDevice[]> {
  const found: BenchDevice[] = [];
  if (backends.has('opencl')) {
    const device = openclDevice();
    if (device) found.push({ backend: 'opencl', device });
    else progress(`(OpenCL skipped: ${openclUnavailableReason()})`);
  }
  if (backends.has('webgpu')) {
    const dawnOptions = process.env.LOOM_BENCH_DAWN?.split(' ').filter(Boolean);
    const device = await webgpuDevice(dawnOptions ? { dawnOptions } : undefined);
    if (device) found.push({ backend: 'webgpu', device });
    else progress(`(WebGPU skipped: ${webgpuUnavailableReason()})`);
  }
  if (backends.has('cuda')) {
    const device = cudaDevice();
    if (device) found.push({ backend: 'cuda', device });
    else progress(`(CUDA skipped: ${cudaUnavailableReason()})`);
  }
  if (backends.has('cpu')) found.push({ backend: 'cpu', device: cpuDevice() });
  if (backends.has('c')) {
    const device = cDevice();
    if (device) found.push({ backend: 'c', device });
    else progress(`(C skipped: ${cUnavailableReason()})`);
  }
  return found;
}
