/** Generated OpenCL C reads like the tutorial's. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addDtypes, generateCode, globalArg, makeKernel, prioritizeLoops } from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';

const lines = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');

test('double a vector: the code of "Generating code"', () => {
  const knl = addDtypes(makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]'), { a: 'float32' });
  const code = generateCode(knl, openclTarget()).code;
  assert.equal(lines(code), [
    '#define lid(N) ((int) get_local_id(N))',
    '#define gid(N) ((int) get_group_id(N))',
    '__kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) loopy_kernel(__global float const *__restrict__ a, int const n, __global float *__restrict__ out)',
    '{',
    'for (int i = 0; i <= -1 + n; ++i)',
    'out[i] = 2.0f * a[i];',
    '}',
  ]);
});

test('transpose and double: argument order, row-major indices, loop nests', () => {
  let knl = makeKernel(
    '{ [i,j,ii,jj]: 0<=i,j,ii,jj<n }',
    `
    out[j,i] = a[i,j] {id=transpose}
    out[ii,jj] = 2*out[ii,jj] {dep=transpose}
    `,
    [globalArg('out', { shape: 'auto', isInput: false }), '...'],
  );
  knl = prioritizeLoops(prioritizeLoops(knl, 'i,j'), 'ii,jj');
  const code = generateCode(addDtypes(knl, { a: 'float32' }), openclTarget()).code;
  const body = lines(code).slice(2);
  assert.equal(body, [
    '__kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) loopy_kernel(__global float *__restrict__ out, __global float const *__restrict__ a, int const n)',
    '{',
    'for (int i = 0; i <= -1 + n; ++i)',
    'for (int j = 0; j <= -1 + n; ++j)',
    'out[n * j + i] = a[n * i + j];',
    'for (int ii = 0; ii <= -1 + n; ++ii)',
    'for (int jj = 0; jj <= -1 + n; ++jj)',
    'out[n * ii + jj] = 2.0f * out[n * ii + jj];',
    '}',
  ]);
});

test('zero fill with prioritizeLoops(knl, "j,i") nests j outside i', () => {
  const knl = prioritizeLoops(makeKernel('{ [i,j]: 0<=i,j<n }', 'a[i,j] = 0'), 'j,i');
  const code = lines(generateCode(addDtypes(knl, { a: 'float32' }), openclTarget()).code);
  const start = code.indexOf('{');
  assert.equal(code.slice(start + 1, start + 4), [
    'for (int j = 0; j <= -1 + n; ++j)',
    'for (int i = 0; i <= -1 + n; ++i)',
    'a[n * i + j] = 0.0f;',
  ]);
});

test('guards appear only where the domain is not rectangular', () => {
  const tri = makeKernel('{ [i,j]: 0<=j<=i<n }', 'out[i,j] = 1', [
    globalArg('out', { shape: ['n', 'n'], dtype: 'float32' }),
    '...',
  ]);
  const code = generateCode(tri, openclTarget()).code;
  assert.not.match(code, /if \(/);
  assert.match(code, /for \(int j = 0; j <= i; \+\+j\)/);
  const strided = makeKernel('{ [i]: 0<=i<n and i mod 3 = 0 }', 'out[i] = 1', [
    globalArg('out', { shape: ['n'], dtype: 'float32' }),
    '...',
  ]);
  assert.match(generateCode(strided, openclTarget()).code, /if \(.*% 3.*== 0\)/);
});

test("float64 enables cl_khr_fp64; Loom's // and % use helpers", () => {
  const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[i] // 2 + b[i] % 3');
  const code = generateCode(addDtypes(knl, { a: 'int32', b: 'float64' }), openclTarget()).code;
  assert.match(code, /#pragma OPENCL EXTENSION cl_khr_fp64: enable/);
  assert.match(code, /loom_floor_div_int32\(a\[i\], 2\)/);
  assert.match(code, /loom_mod_float64/);
});

test.run();
