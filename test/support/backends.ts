/**
 * The tests' policy on missing backends (the library only says whether a device is there:
 * `openclDevice()` and `webgpuDevice()` return undefined, and `openclUnavailableReason()` /
 * `webgpuUnavailableReason()` say why). On a developer's machine a missing backend (no
 * OpenCL driver, no WebGPU adapter) only skips its tests, with one line saying so; in CI, or
 * wherever `LOOM_REQUIRE` names the backend, it is an error, so that a broken driver install
 * cannot pass as a green run that silently tested nothing.
 *
 *   CI=true                        every backend CI has is required (CI services set this variable):
 *                                  all but CUDA, which needs an NVIDIA GPU that CI machines lack
 *   LOOM_REQUIRE=opencl,webgpu     these are required (`all` names every backend)
 *   LOOM_BACKENDS=opencl           the tests run on these backends only (`cpu`, `c`, `opencl`, `webgpu`, `cuda`),
 *                                  the others are left out as if missing (so naming a required one
 *                                  out is an error): a backend's tests alone, while working on it
 */
import { LoomError } from '@loom/core';
import { cDevice, cUnavailableReason, type CDevice } from '@loom/codegen-c';
import { cudaDevice, cudaUnavailableReason, type CudaDevice } from '@loom/codegen-cuda';
import { openclDevice, openclUnavailableReason, type OpenCLDevice } from '@loom/codegen-opencl';
import { webgpuDevice, webgpuUnavailableReason, type WebGPUDevice, type WebGPUDeviceOptions } from '@loom/codegen-wgsl';

export type BackendName = 'opencl' | 'webgpu' | 'cpu' | 'c' | 'cuda';

const DISPLAY_NAMES: Record<BackendName, string> = {
  opencl: 'OpenCL',
  webgpu: 'WebGPU',
  cpu: 'CPU',
  c: 'C',
  cuda: 'CUDA',
};

/** The backends `CI=true` requires: those a CI machine has (no NVIDIA GPU, so not CUDA). */
const REQUIRED_IN_CI: ReadonlySet<BackendName> = new Set(['opencl', 'webgpu', 'cpu', 'c']);

/** The backends `LOOM_REQUIRE` names (lower-cased, trimmed). */
function requiredByName(): string[] {
  return (process.env.LOOM_REQUIRE ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}

/**
 * Why `name` is left out of this run, or undefined when it is in: `LOOM_BACKENDS` lists the
 * backends to test (unset or empty: all).
 */
export function backendLeftOut(name: BackendName): string | undefined {
  const chosen = (process.env.LOOM_BACKENDS ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  return chosen.length === 0 || chosen.includes(name) ? undefined : `not in LOOM_BACKENDS=${process.env.LOOM_BACKENDS}`;
}

/** Why `name` is required, for the error message; undefined when it is not. */
function requirement(name: BackendName): string | undefined {
  if (process.env.CI === 'true' && REQUIRED_IN_CI.has(name)) return 'CI=true';
  const named = requiredByName();
  if (named.includes(name) || named.includes('all')) return `LOOM_REQUIRE=${process.env.LOOM_REQUIRE}`;
  return undefined;
}

/** Whether a missing `name` backend must fail the run rather than skip its tests. */
export function backendRequired(name: BackendName): boolean {
  return requirement(name) !== undefined;
}

const reported = new Set<BackendName>();

/**
 * Reports that backend `name` cannot be used, `reason` saying why in one line: throws a LoomError
 * when the backend is required, otherwise prints `loom: skipping <name> tests: <reason>` (once per
 * backend per process, however many test files notice it).
 */
export function noteBackendMissing(name: BackendName, reason: string): void {
  const why = requirement(name);
  if (why !== undefined) {
    throw new LoomError(`${DISPLAY_NAMES[name]} backend required (${why}) but unavailable: ${reason}`);
  }
  if (reported.has(name)) return;
  reported.add(name);
  console.warn(`loom: skipping ${name} tests: ${reason}`);
}

/** The OpenCL device, or undefined after reporting it missing (which throws when the backend is required). */
export function openclDeviceOrSkip(): OpenCLDevice | undefined {
  const leftOut = backendLeftOut('opencl');
  if (leftOut) {
    noteBackendMissing('opencl', leftOut);
    return undefined;
  }
  const device = openclDevice();
  if (!device) noteBackendMissing('opencl', openclUnavailableReason());
  return device;
}

/** The WebGPU device, or undefined after reporting it missing (which throws when the backend is required). */
export async function webgpuDeviceOrSkip(options: WebGPUDeviceOptions = {}): Promise<WebGPUDevice | undefined> {
  const leftOut = backendLeftOut('webgpu');
  if (leftOut) {
    noteBackendMissing('webgpu', leftOut);
    return undefined;
  }
  const device = await webgpuDevice(options);
  if (!device) noteBackendMissing('webgpu', webgpuUnavailableReason());
  return device;
}

/** The C device (native code from the system's C compiler), or undefined after reporting it missing (which throws when the backend is required). */
export function cDeviceOrSkip(): CDevice | undefined {
  const leftOut = backendLeftOut('c');
  if (leftOut) {
    noteBackendMissing('c', leftOut);
    return undefined;
  }
  const device = cDevice();
  if (!device) noteBackendMissing('c', cUnavailableReason());
  return device;
}

let cuda: CudaDevice | undefined | null = null;

/** The CUDA device (one per process), or undefined after reporting it missing (which throws when `LOOM_REQUIRE` names cuda). */
export function cudaDeviceOrSkip(): CudaDevice | undefined {
  if (cuda === null) {
    const leftOut = backendLeftOut('cuda');
    cuda = leftOut ? undefined : cudaDevice();
    if (!cuda) noteBackendMissing('cuda', leftOut ?? cudaUnavailableReason());
  }
  return cuda;
}
