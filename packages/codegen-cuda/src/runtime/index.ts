/** The CUDA host runtime: a context on one device, NVRTC-compiled modules, buffers and launches. */
export { CudaContext, type CudaContextOptions } from './context.ts';
export { CudaModule, type CudaFunction } from './module.ts';
export { CudaBuffer } from './buffer.ts';
export type { CudaKernelArgument } from './arguments.ts';
export type { CudaDeviceInfo } from './info.ts';
export { CudaError, NvrtcError, CudaCompileError } from './errors.ts';
export { nvrtcCandidates } from './nvrtc.ts';
export { driverLibraryCandidates } from './driver.ts';
