/**
 * User functions that return nothing (loopy's `NoRetFunction` of test/library_for_test.py), for the
 * ports of loopy's calls with no returned value (test_loopy.py.void-calls.test.ts). Each is seen
 * through its side effect, as each target allows one:
 * - OpenCL C, CUDA and C print a line with `printf` (as loopy's does), naming the device by its
 *   index in `testDevices()`; the lines are read from a child process (`printCFamilyCalls`);
 * - the CPU device calls a JavaScript function, which counts or records;
 * - WGSL has no printing: the function writes private state of the module (`var<private>`), which
 *   a second function reads back into an output, after the call (a dependency orders them).
 */
import {
  addDtypes,
  callInstruction,
  defineFunction,
  expr,
  makeKernel,
  registerFunction,
  run,
  type Device,
  type UserFunction,
} from '@loom/core';
import { testDevices } from './devices.ts';

/** Whether the device's code is C (OpenCL C, CUDA, C): its user functions can print. */
export const printsWithPrintf = (device: Device): boolean =>
  (device.target.functionDialects ?? []).some((d) => d === 'opencl' || d === 'cuda' || d === 'c');

/** WGSL state that the functions below share: how many calls of `f()`, the last value `f(s)` took. */
const WGSL_STATE = [
  'var<private> void_calls_hits: i32;',
  'var<private> void_calls_seen: f32;',
  'fn f() { void_calls_hits += 1; }',
  'fn f_of(s: f32) { void_calls_seen = s; }',
  'fn hits() -> i32 { return void_calls_hits; }',
  'fn seen() -> f32 { return void_calls_seen; }',
].join('\n');

/** C-family definitions of a function named `name`: the same body, as each language qualifies it. */
function cFamily(name: string, definition: (qualifier: string) => string) {
  return {
    opencl: { name, preamble: definition('') },
    cuda: { name, preamble: definition('__device__ ') },
    c: { name, preamble: `#include <stdio.h>\n${definition('static ')}` },
  };
}

/** `f()`: prints `Hi! (device N)` (C family), calls `onCall` (CPU), counts for `hits()` (WGSL). */
export function noRetFunction(device: number, onCall: () => void = () => {}): UserFunction {
  return defineFunction({
    name: 'f',
    signature: { args: [], result: 'void' },
    ...cFamily('f', (q) => `${q}void f() { printf("Hi! (device ${device})\\n"); }`),
    wgsl: { name: 'f', preamble: WGSL_STATE },
    js: onCall,
  });
}

/** loopy's kernel of test_call_with_no_returned_value: `f()` as an instruction made from nodes. */
export const noRetKernel = () => makeKernel('{:}', [callInstruction(expr.call('f', []))]);

/** `hits()`: how many times `f()` ran in this work-item (WGSL only). */
export const hitsFunction = defineFunction({
  name: 'hits',
  signature: { args: [], result: 'int32' },
  wgsl: { name: 'hits', preamble: WGSL_STATE },
});

/** `f(s)` of a float32: prints `f(s) (device N) = S` (C family), calls `onCall` (CPU), keeps it for `seen()` (WGSL). */
export function valueFunction(device: number, onCall: (s: number) => void = () => {}): UserFunction {
  return defineFunction({
    name: 'f',
    signature: { args: ['float32'], result: 'void' },
    ...cFamily('f_of', (q) => `${q}void f_of(float s) { printf("f(s) (device ${device}) = %g\\n", s); }`),
    wgsl: { name: 'f_of', preamble: WGSL_STATE },
    js: (s: number) => onCall(s),
  });
}

/** `seen()`: the value the last `f(s)` took in this work-item (WGSL only). */
export const seenFunction = defineFunction({
  name: 'seen',
  signature: { args: [], result: 'float32' },
  wgsl: { name: 'seen', preamble: WGSL_STATE },
});

/** test_regression_no_ret_call_removal's `x`: its sum, 4.75, prints exactly with `%g`. */
export const SUM_INPUT = Float32Array.of(1, 2.5, -3, 4, 0.25);

/** loopy's kernel of test_regression_no_ret_call_removal, `f` registered, `x` typed. */
export const sumCallKernel = (f: UserFunction, more: readonly string[] = []) =>
  addDtypes(registerFunction(makeKernel('{[i] : 0<=i<n}', ['f(sum(i, x[i])) {id=call}', ...more]), f), {
    x: 'float32',
  });

/**
 * Run in a child process (child-stdout.ts): calls `f()` and `f(sum(i, x[i]))` on each device whose
 * code is C, which print what the tests read back.
 */
export async function printCFamilyCalls(): Promise<void> {
  for (const [k, device] of testDevices().entries()) {
    if (!printsWithPrintf(device)) continue;
    await run(registerFunction(noRetKernel(), noRetFunction(k)), device, {});
    await run(sumCallKernel(valueFunction(k)), device, { x: SUM_INPUT });
  }
}
