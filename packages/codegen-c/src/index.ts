/**
 * @loom/codegen-c: C99 for Loom kernels (the C dialect of the C-family printer,
 * @loom/codegen-cfamily), and the C device that compiles it with the system's C
 * compiler and runs it on the CPU's cores (OpenMP).
 *
 * @module @loom/codegen-c
 */
export { cTarget, generateC, MAX_GROUP_STACK_BYTES, type CExtra, type CTargetOptions } from './target.ts';
export { cDialect } from './dialect.ts';
export { LAUNCH_SUFFIX } from './launchers.ts';
export { cDevice, cUnavailableReason, CProgram, type CDevice, type CDeviceOptions } from './device.ts';
export type { CCompiler } from './runtime/compiler.ts';
