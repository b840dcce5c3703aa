/**
 * @loom/codegen-wgsl in Node (the package's `node` export): WGSL for Loom kernels (`wgslTarget`),
 * and the WebGPU device that runs it (`webgpuDevice`), on Dawn through the `webgpu` package by
 * default. Importing it loads nothing native: Dawn is loaded when a device is first asked for.
 * Browsers get `browser.ts` instead, the same API without Dawn.
 *
 * @module @loom/codegen-wgsl
 */
import { dawnGpu, disposeAtExit, isNode } from './dawn.ts';
import { navigatorGpu, setDefaultGpu } from './device.ts';

export * from './api.ts';

// Under the `node` condition yet not in Node (Deno, Bun): their own navigator.gpu, if any.
setDefaultGpu(
  (options) => (isNode() ? dawnGpu(options.dawnOptions) : navigatorGpu(options)),
  (device) => {
    if (isNode()) disposeAtExit(device);
  },
);
