/**
 * @loom/codegen-cuda: CUDA C for Loom kernels, the CUDA dialect of the C-family printer
 * (@loom/codegen-cfamily), and the device that runs it on NVIDIA GPUs (NVRTC and the CUDA
 * driver API, through koffi).
 *
 * @module @loom/codegen-cuda
 */
export { cudaTarget, generateCuda, type CudaExtra } from './target.ts';
export { cudaDialect } from './dialect.ts';
export { cudaDevice, cudaUnavailableReason, type CudaDevice } from './device.ts';
export * from './runtime/index.ts';
