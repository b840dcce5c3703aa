/**
 * @loom/codegen-cuda: CUDA C for Loom kernels, the CUDA dialect of the C-family printer
 * (@loom/codegen-cfamily).
 *
 * @module @loom/codegen-cuda
 */
export { cudaTarget, generateCuda, type CudaExtra } from './target.ts';
export { cudaDialect } from './dialect.ts';
