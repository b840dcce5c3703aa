/**
 * @loom/codegen-js — the CPU target: kernels as generated JavaScript, run on this
 * thread. The default device when no GPU runtime is present, and the reference
 * every other backend is checked against.
 *
 *   jsTarget()   how the program AST is spelled in JavaScript (`generateCode(knl, jsTarget())`)
 *   cpuDevice()  a `Device` that compiles and runs that code
 *
 * @module @loom/codegen-js
 */
export { jsTarget, type JsExtra } from './target.ts';
export { cpuDevice, CPU_DEVICE_NAME, type CpuDevice, type CpuProgram } from './device.ts';
export { runtimeHelpers, toRepresentation } from './runtime-helpers.ts';
export { erf } from './erf.ts';
