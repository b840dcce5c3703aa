/**
 * `setOptions(knl, { fusedMultiplyAdd: true })` lets `a * b + c` round once: each target spells
 * the permission its own way (OpenCL drops its `FP_CONTRACT OFF`, CUDA its `__fmul_rn`
 * products, WGSL prints `fma`), and on every device the results are those of a fused or an
 * unfused multiply-add, within one rounding of the exact value.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateCode, globalArg, makeKernel, run, setOptions, splitIname, type LoopKernel } from '@loom/core';
import { cudaTarget } from '@loom/codegen-cuda';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { testDevices } from './support/devices.ts';

const f32 = (shape: string[]) => ({ dtype: 'float32' as const, shape });

/** Four spellings of a multiply-add, and an integer product inside a float sum (no fma: integers multiply as integers). */
function multiplyAdds(fused: boolean): LoopKernel {
  const knl = makeKernel(
    '{ [i]: 0<=i<n }',
    `
    p[i] = a[i] * b[i] + c[i]
    q[i] = c[i] + a[i] * b[i]
    r[i] = a[i] * b[i] - c[i]
    s[i] = c[i] - a[i] * b[i]
    t[i] = i * i + c[i]
    `,
    [
      ...['a', 'b', 'c'].map((x) => globalArg(x, f32(['n']))),
      ...['p', 'q', 'r', 's', 't'].map((x) => globalArg(x, { ...f32(['n']), isInput: false })),
      '...',
    ],
    { name: 'multiply_adds', assumptions: 'n >= 1' },
  );
  return setOptions(splitIname(knl, 'i', 64, { outerTag: 'g.0', innerTag: 'l.0' }), { fusedMultiplyAdd: fused });
}

test('WGSL spells a permitted multiply-add as fma, with the sign where the product or the addend is subtracted', () => {
  const code = generateCode(multiplyAdds(true), wgslTarget()).code;
  // x[...]: an element, whatever its index
  const line = (text: string) => new RegExp(`${text.replace(/[()*+-]/g, '\\$&').replace(/\[\]/g, '\\[[^\\]]+\\]')};`);
  assert.match(code, line('p[] = fma(a[], b[], c[])'));
  assert.match(code, line('q[] = fma(a[], b[], c[])'));
  assert.match(code, line('r[] = fma(a[], b[], -c[])'));
  assert.match(code, line('s[] = fma(-a[], b[], c[])'));
  assert.match(code, /t\[[^\]]+\] = f32\([^;]*\) \+ c\[[^\]]+\];/, 'an integer product is no fma');
  assert.not.match(generateCode(multiplyAdds(false), wgslTarget()).code, /fma\(/);
});

test('OpenCL and CUDA: the permission lifts what keeps products and sums apart', () => {
  assert.match(generateCode(multiplyAdds(false), openclTarget()).code, /FP_CONTRACT OFF/);
  assert.not.match(generateCode(multiplyAdds(true), openclTarget()).code, /FP_CONTRACT OFF/);
  assert.match(generateCode(multiplyAdds(false), cudaTarget()).code, /__fmul_rn/);
  assert.not.match(generateCode(multiplyAdds(true), cudaTarget()).code, /__fmul_rn/);
});

test('every device: permitted multiply-adds are within one rounding of the exact value', async () => {
  const n = 300;
  // products whose low bits a second rounding loses: a = 1 + k 2^-12, b = 1 - k 2^-12, c = -1
  const a = Float32Array.from({ length: n }, (_, k) => 1 + (k + 1) * 2 ** -12);
  const b = Float32Array.from({ length: n }, (_, k) => 1 - (k + 1) * 2 ** -12);
  const c = Float32Array.from({ length: n }, (_, k) => (k % 2 ? -1 : 0.75));
  const exact = (k: number, sign: 1 | -1, subtractProduct = false) =>
    (subtractProduct ? -1 : 1) * a[k] * b[k] + sign * c[k];
  for (const device of testDevices()) {
    const got = (await run(multiplyAdds(true), device, { a, b, c })) as Record<string, Float32Array>;
    for (let k = 0; k < n; k++) {
      const expected = { p: exact(k, 1), q: exact(k, 1), r: exact(k, -1), s: exact(k, 1, true), t: k * k + c[k] };
      for (const [name, value] of Object.entries(expected)) {
        const ulp = 2 ** (Math.floor(Math.log2(Math.max(Math.abs(value), 2 ** -126))) - 23);
        assert.ok(
          Math.abs(got[name][k] - value) <= ulp,
          `${device.name}: ${name}[${k}] is ${got[name][k]}, expected ${value} within one rounding`,
        );
      }
    }
  }
});

test.run();
