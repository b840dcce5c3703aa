/**
 * @loom/codegen-opencl: OpenCL C for Loom kernels, and the host runtime that runs it.
 *
 * @module @loom/codegen-opencl
 */
export { openclTarget, generateOpenCL, type OpenCLTargetOptions } from './target.ts';
export { openclDevice, openclUnavailableReason, type OpenCLDevice } from './device.ts';
export * from './runtime/index.ts';
