/** @loom/codegen-opencl: OpenCL C for Loom kernels, and the host runtime that runs it. */
export { openclTarget, generateOpenCL, type OpenCLTargetOptions } from './target.ts';
export { openclDevice, openclUnavailableReason, type OpenCLDevice } from './device.ts';
export * from './runtime/index.ts';
