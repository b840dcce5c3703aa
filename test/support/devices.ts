/**
 * The devices the tests run on: the CPU device, OpenCL, WebGPU, C and CUDA when a driver (or
 * compiler) is present (required under CI=true, but for CUDA, or LOOM_REQUIRE, else skipped with a
 * notice); with
 * LOOM_BACKENDS, only those it lists (backends.ts).
 */
import type { Device, DType, GeneratedCode } from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import {
  backendLeftOut,
  cDeviceOrSkip,
  cudaDeviceOrSkip,
  noteBackendMissing,
  openclDeviceOrSkip,
  webgpuDeviceOrSkip,
} from './backends.ts';

// WebGPU adapters are created asynchronously: once per process
const webgpu = await webgpuDeviceOrSkip();
let devices: Device[] | undefined;

export function testDevices(): Device[] {
  if (!devices) {
    devices = [];
    const cpuLeftOut = backendLeftOut('cpu');
    if (cpuLeftOut) noteBackendMissing('cpu', cpuLeftOut);
    else devices.push(cpuDevice());
    const cl = openclDeviceOrSkip();
    if (cl) devices.push(cl);
    if (webgpu) devices.push(webgpu);
    const c = cDeviceOrSkip();
    if (c) devices.push(c);
    const cuda = cudaDeviceOrSkip();
    if (cuda) devices.push(cuda);
  }
  return devices;
}

/** Whether the device's target can hold `dtype` at all (WGSL has no float64). */
export const supportsDType = (device: Device, dtype: DType): boolean => !device.target.unsupportedDType?.(dtype);

/** Wraps a device to count its compilations (a cache test asserts how many happened). */
export function countingCompiles(device: Device): { device: Device; compiles: () => number } {
  let count = 0;
  const wrapped: Device = Object.create(device);
  wrapped.compile = (code: GeneratedCode, options?: { buildOptions?: readonly string[] }) => {
    count++;
    return device.compile(code, options);
  };
  return { device: wrapped, compiles: () => count };
}

/** Deterministic pseudo-random floats in [-1, 1), so failures reproduce. */
export function randomFloat32(n: number, seed = 1): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let k = 0; k < n; k++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out[k] = ((s >>> 0) / 2 ** 32) * 2 - 1;
  }
  return out;
}

export function assertClose(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  what: string,
  rtol = 1e-6,
  atol = 1e-6,
): void {
  if (actual.length !== expected.length)
    throw new Error(`${what}: length ${actual.length}, expected ${expected.length}`);
  for (let k = 0; k < expected.length; k++) {
    const a = actual[k];
    const e = expected[k];
    if (!(Math.abs(a - e) <= atol + rtol * Math.abs(e))) {
      throw new Error(`${what}: element ${k} is ${a}, expected ${e}`);
    }
  }
}
