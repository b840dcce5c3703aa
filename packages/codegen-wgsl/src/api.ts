/**
 * What @loom/codegen-wgsl exports, in Node (`index.ts`) and in browsers (`browser.ts`) alike:
 * WGSL for Loom kernels (`wgslTarget`), and the WebGPU device that runs it (`webgpuDevice`).
 * The two entries differ only in where the device finds its GPU by default.
 */
export {
  wgslTarget,
  generateWgsl,
  type WgslTargetOptions,
  type WgslModuleOptions,
  type WgslModule,
  type WgslExtra,
} from './target.ts';
export {
  webgpuDevice,
  webgpuUnavailableReason,
  type WebGPUDevice,
  type WebGPUDeviceOptions,
  type WgslProgram,
} from './device.ts';
export { DEFAULT_LIMITS, foldedSize, type WgslLimits } from './limits.ts';
export { isReservedInWgsl } from './names.ts';
