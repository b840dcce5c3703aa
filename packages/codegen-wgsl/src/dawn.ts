/**
 * WebGPU in Node: Dawn, through the `webgpu` package, loaded only when a device is asked
 * for (generating WGSL never needs the native module, and machines without it can still
 * import this package). `webgpu` is an optional peer dependency: when it is not installed,
 * loading Dawn fails with a MissingPackageError saying `npm install webgpu`, which
 * `webgpuDevice()` turns into `undefined` and its unavailable reason.
 *
 * Dawn's instance (the `GPU` object `create()` returns) must stay alive as long as any
 * adapter or device made from it is used: if it is garbage-collected, Dawn's event processing
 * crashes later, far from the cause. It is therefore created once per process and kept here
 * for good, whatever happens to the devices.
 */
/// <reference types="@webgpu/types" preserve="true" />
import { isPackageNotFound, MissingPackageError } from '@loom/core';
import { withStderrFiltered } from './stderr-filter.ts';

/**
 * What Dawn prints on stderr, unasked, while it looks for adapters: on drivers that offer more
 * dynamic buffers than it supports (lavapipe among them), one line per clamped limit. Only these
 * exact lines are kept off stderr (unless LOOM_DEBUG is set); anything else Dawn says still shows.
 */
const LIMIT_NOTICE =
  /^Warning: maxDynamic(Uniform|Storage)BuffersPerPipelineLayout artificially reduced from \d+ to \d+ to fit dynamic offset allocation limit\.$/;

/** Never reset: the instance lives as long as the process. */
let instance: Promise<GPU> | undefined;

/** The process's Dawn instance, or a rejection saying why there is none. */
export function dawnGpu(options: readonly string[] = []): Promise<GPU> {
  instance ??= (async () => {
    const webgpu = await loadWebgpu();
    const gpu = webgpu.create([...options]);
    // Dawn looks for its adapters (and prints its notices) in the first requestAdapter() call, before it
    // returns: made here, that call is where the notices can be told from everything else on stderr.
    const quiet = process.env.LOOM_DEBUG ? undefined : LIMIT_NOTICE;
    await withStderrFiltered(() => gpu.requestAdapter(), quiet).catch(() => null);
    return gpu;
  })();
  return instance;
}

async function loadWebgpu(): Promise<{ create(options: string[]): GPU }> {
  try {
    return await import('webgpu');
  } catch (e) {
    if (isPackageNotFound(e, 'webgpu')) throw new MissingPackageError('webgpu', 'the WebGPU device in Node (Dawn)');
    throw new Error(`the 'webgpu' package (Dawn) cannot be loaded: ${(e as Error).message.split('\n')[0]}`);
  }
}

/** Dawn's devices, destroyed as the process exits (see `disposeAtExit`); held weakly, so that they can be collected. */
const alive = new Set<WeakRef<{ dispose(): void }>>();

/**
 * Destroys the device (and with it the driver's queues and threads) as the process exits, before
 * Node tears down what Dawn's objects point to: left to exit, Dawn's buffers were freed while a
 * thread of Mesa's lavapipe still ran code already unloaded, and the process ended in a
 * segmentation fault about one exit in ten, after everything had run (a test file that passed,
 * reported as failed). Disposing twice is harmless: a device disposed before is left as it is.
 */
export function disposeAtExit(device: { dispose(): void }): void {
  if (alive.size === 0) process.once('exit', () => alive.forEach((d) => d.deref()?.dispose()));
  alive.add(new WeakRef(device));
}

/** Whether this is Node (where Dawn is the way to WebGPU) rather than a browser. */
export function isNode(): boolean {
  const p = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return typeof p?.versions?.node === 'string';
}
