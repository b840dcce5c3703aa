import * as assert from 'uvu/assert';
import {
  generateCode,
  inlineCallableKernel,
  LoomError,
  targetFacts,
  type DType,
  type Device,
  type Program,
} from '@loom/core';
import { supportsDType } from './devices.ts';

/**
 * The program as merged, and with `names` inlined in order: loopy's `inline` parameter. Each
 * way's code for `device` is checked first: merged, every callee of `names` is a device function
 * where the target calls functions (`functions` lists them where only some can be); inlined, none is.
 */
export function bothWays(
  prog: Program,
  device: Device,
  names: readonly string[],
  functions: readonly string[] = names,
): [string, Program][] {
  const ways: [string, Program][] = [
    ['inline=False', prog],
    ['inline=True', names.reduce(inlineCallableKernel, prog)],
  ];
  for (const [how, p] of ways) assertCalleeFunctions(how, p, device, how === 'inline=False' ? functions : [], names);
  return ways;
}

/**
 * Of the callees `names`, exactly `expected` are device functions of the code generated for
 * `device` (none where its target inlines every callee), each defined and called in the code.
 * A program the target refuses (C code where no C compiles) is the test's own business.
 */
export function assertCalleeFunctions(
  how: string,
  p: Program,
  device: Device,
  expected: readonly string[],
  names: readonly string[],
): void {
  let generated: ReturnType<typeof generateCode>;
  try {
    generated = generateCode(p, device.target);
  } catch (e) {
    if (e instanceof LoomError) return;
    throw e;
  }
  const made = new Set((generated.program.deviceFunctions ?? []).map((f) => f.name.replace(/_\d+$/, '')));
  const want = targetFacts(device.target).deviceFunctions ? expected : [];
  for (const n of names) {
    assert.is(made.has(n), want.includes(n), `${how}: '${n}' ${want.includes(n) ? 'is' : 'is not'} a device function`);
    if (want.includes(n)) assert.match(generated.code, new RegExp(`\\b${n}(_\\d+)?\\(`), `${how}: '${n}' called`);
  }
}

export const floatType = (device: Device): DType => (supportsDType(device, 'float64') ? 'float64' : 'float32');
export const arrayOf = (dtype: DType, values: number[]) =>
  dtype === 'float64' ? Float64Array.from(values) : Float32Array.from(values);

export function random(n: number, seed: number): number[] {
  let s = seed;
  return Array.from({ length: n }, () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  });
}

export function assertNear(actual: ArrayLike<number>, expected: ArrayLike<number>, what: string, tol = 1e-5): void {
  assert.is(actual.length, expected.length, `${what}: length`);
  for (let k = 0; k < expected.length; k++)
    if (!(Math.abs(actual[k] - expected[k]) <= tol * Math.max(1, Math.abs(expected[k]))))
      assert.unreachable(`${what}: element ${k} is ${actual[k]}, expected ${expected[k]}`);
}

/** The instructions of loopy's FFT callee in test_inlining_does_not_require_barrier (loopy issue 578). */
export const FFT_INSTRUCTIONS = `
  exp_table[i] = exp((-0.004749195243521985j)*i) {id=exp_table}
  temp[i_0] = x[i_0] {id=copy_0, dep=exp_table}
  x[i2_0] = 0 {id=reset_0, dep=copy_0}
  table_idx_0 = 189*iN1_sum_0*(iN2_0 + iN1_0) {id=idx_0, dep=reset_0}
  exp_0 = exp_table[table_idx_0 % 1323] {id=exp_0, dep=idx_0:exp_table}
  x[ifft_0 + 189*(iN1_0 + iN2_0)] = x[ifft_0 + 189*(iN1_0 + iN2_0)] + exp_0*temp[ifft_0 + 189*(iN2_0*7 + iN1_sum_0)] {id=update_0, dep=exp_0}
  temp[i_1] = x[i_1] {id=copy_1, dep=update_0}
  x[i2_1] = 0 {id=reset_1, dep=copy_1}
  table_idx_1 = 27*iN1_sum_1*(iN2_1 + 7*iN1_1) {id=idx_1, dep=reset_1}
  exp_1 = exp_table[table_idx_1 % 1323] {id=exp_1, dep=idx_1:exp_table}
  x[ifft_1 + 27*(iN1_1*7 + iN2_1)] = x[ifft_1 + 27*(iN1_1*7 + iN2_1)] + exp_1*temp[ifft_1 + 27*(iN2_1*7 + iN1_sum_1)] {id=update_1, dep=exp_1}
  temp[i_2] = x[i_2] {id=copy_2, dep=update_1}
  x[i2_2] = 0 {id=reset_2, dep=copy_2}
  table_idx_2 = 9*iN1_sum_2*(iN2_2 + 49*iN1_2) {id=idx_2, dep=reset_2}
  exp_2 = exp_table[table_idx_2 % 1323] {id=exp_2, dep=exp_table:idx_2}
  x[ifft_2 + 9*(iN1_2*49 + iN2_2)] = x[ifft_2 + 9*(iN1_2*49 + iN2_2)] + exp_2*temp[ifft_2 + 9*(iN2_2*3 + iN1_sum_2)] {id=update_2, dep=exp_2}
  temp[i_3] = x[i_3] {id=copy_3, dep=update_2}
  x[i2_3] = 0 {id=reset_3, dep=copy_3}
  table_idx_3 = 3*iN1_sum_3*(iN2_3 + 147*iN1_3) {id=idx_3, dep=reset_3}
  exp_3 = exp_table[table_idx_3 % 1323] {id=exp_3, dep=exp_table:idx_3}
  x[ifft_3 + 3*(iN1_3*147 + iN2_3)] = x[ifft_3 + 3*(iN1_3*147 + iN2_3)] + exp_3*temp[ifft_3 + 3*(iN2_3*3 + iN1_sum_3)] {id=update_3, dep=exp_3}
  temp[i_4] = x[i_4] {id=copy_4, dep=update_3}
  x[i2_4] = 0 {id=reset_4, dep=copy_4}
  table_idx_4 = iN1_sum_4*(iN2_4 + 441*iN1_4) {id=idx_4, dep=reset_4}
  exp_4 = exp_table[table_idx_4 % 1323] {id=exp_4, dep=exp_table:idx_4}
  x[ifft_4 + iN1_4*441 + iN2_4] = x[ifft_4 + iN1_4*441 + iN2_4] + exp_4*temp[ifft_4 + iN2_4*3 + iN1_sum_4] {id=update_4, dep=exp_4}
`;

/** Its domains: `[name, last]` for `0 <= name <= last`, `[name]` for `name = 0`. */
export const FFT_DOMAINS: readonly (readonly [string, number?])[] = [
  ['i', 1322],
  ['ifft_0', 188],
  ['iN1_0', 6],
  ['iN1_sum_0', 6],
  ['iN2_0'],
  ['i_0', 1322],
  ['i2_0', 1322],
  ['ifft_1', 26],
  ['iN1_1', 6],
  ['iN1_sum_1', 6],
  ['iN2_1', 6],
  ['i_1', 1322],
  ['i2_1', 1322],
  ['ifft_2', 8],
  ['iN1_2', 2],
  ['iN1_sum_2', 2],
  ['iN2_2', 48],
  ['i_2', 1322],
  ['i2_2', 1322],
  ['ifft_3', 2],
  ['iN1_3', 2],
  ['iN1_sum_3', 2],
  ['iN2_3', 146],
  ['i_3', 1322],
  ['i2_3', 1322],
  ['ifft_4'],
  ['iN1_4', 2],
  ['iN1_sum_4', 2],
  ['iN2_4', 440],
  ['i_4', 1322],
  ['i2_4', 1322],
];
