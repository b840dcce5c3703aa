/**
 * WebGPU in Node: Dawn, through the `webgpu` package, loaded only when a device is asked
 * for (generating WGSL never needs the native module, and machines without it can still
 * import this package).
 *
 * Dawn's instance (the `GPU` object `create()` returns) must stay alive as long as any
 * adapter or device made from it is used: if it is garbage-collected, Dawn's event processing
 * crashes later, far from the cause. It is therefore created once per process and kept here
 * for good, whatever happens to the devices.
 */
/// <reference types="@webgpu/types" />

/** Never reset: the instance lives as long as the process. */
let instance: Promise<GPU> | undefined;

/** The process's Dawn instance, or a rejection saying why there is none. */
export function dawnGpu(options: readonly string[] = []): Promise<GPU> {
  instance ??= (async () => {
    let webgpu: { create(options: string[]): GPU };
    try {
      webgpu = await import('webgpu');
    } catch (e) {
      throw new Error(`the 'webgpu' package (Dawn) cannot be loaded: ${(e as Error).message.split('\n')[0]}`);
    }
    return webgpu.create([...options]);
  })();
  return instance;
}

/** Whether this is Node (where Dawn is the way to WebGPU) rather than a browser. */
export function isNode(): boolean {
  const p = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return typeof p?.versions?.node === 'string';
}
