/**
 * @loom/codegen-cuda: CUDA C for Loom kernels, and the device that runs it on NVIDIA GPUs
 * (NVRTC and the CUDA driver API, through koffi).
 *
 * @module @loom/codegen-cuda
 */
export { cudaTarget, type CudaExtra } from './target.ts';
export { cudaDevice, cudaUnavailableReason, type CudaDevice } from './device.ts';
export * from './runtime/index.ts';
