/** The OpenCL host runtime: contexts, programs, buffers and launches over the system's OpenCL driver. */
export { OpenCLContext, type OpenCLContextOptions, type OpenCLLaunch } from './context.ts';
export { OpenCLProgram } from './program.ts';
export { OpenCLBuffer } from './buffer.ts';
export type { KernelArgument } from './arguments.ts';
export type { OpenCLDeviceInfo, DeviceType } from './info.ts';
export { OpenCLError, OpenCLBuildError, errorName } from './errors.ts';
