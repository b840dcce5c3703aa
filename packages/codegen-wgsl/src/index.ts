/**
 * @loom/codegen-wgsl: WGSL for Loom kernels (`wgslTarget`), and the WebGPU device that runs it
 * (`webgpuDevice`: Dawn in Node, or a browser's `navigator.gpu`). Importing it loads nothing native.
 */
export { wgslTarget, generateWgsl, type WgslTargetOptions, type WgslModuleOptions, type WgslModule, type WgslExtra } from './target.ts';
export { webgpuDevice, webgpuDeviceOrSkip, webgpuUnavailableReason, type WebGPUDevice, type WebGPUDeviceOptions, type WgslProgram } from './device.ts';
export { DEFAULT_LIMITS, type WgslLimits } from './limits.ts';
export { isReservedInWgsl } from './names.ts';
