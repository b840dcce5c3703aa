/**
 * Ports of loopy's test_expression.py: the code generators fuzzed with random expressions,
 * literals, `indexof_vec`, integer precedence and associativity, floor division, booleans, and
 * complex functions of real arguments. test_indexof and test_complex_support are ported in
 * test_loopy.py.public-api-2. Each kernel runs on every test device against plain JavaScript.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  assignment,
  assume,
  type DType,
  type Device,
  expr,
  generateCode,
  globalArg,
  isExpressionEqual,
  makeKernel,
  parseExpression,
  run,
  tagArrayAxes,
  tagInames,
  valueArg,
} from '@loom/core';
import { cTarget } from '@loom/codegen-c';
import { openclTarget } from '@loom/codegen-opencl';
import { randomFloat32, supportsDType, testDevices } from '../support/devices.ts';
import { fuzzCase, type FuzzKind, type Value } from '../support/expression-fuzz.ts';

/** numpy's assert_allclose on plain numbers (complex values as their interleaved parts). */
function assertAllClose(got: ArrayLike<number>, want: ArrayLike<number>, what: string, rtol = 1e-7, atol = 0) {
  assert.is(got.length, want.length, `${what}: length`);
  for (let k = 0; k < want.length; k++)
    assert.ok(
      Math.abs(got[k] - want[k]) <= atol + rtol * Math.abs(want[k]),
      `${what}[${k}]: ${got[k]}, expected ${want[k]}`,
    );
}

/** The fuzzed expressions of one kind and seed, evaluated by the device, checked as loopy checks them. */
async function checkFuzzCase(device: Device, kind: FuzzKind, seed: number, intType: DType) {
  const { expressions, variables } = fuzzCase(kind, seed);
  const integer = kind === 'int' || kind === 'int_nonneg';
  // loopy's dtypes: int64 (here also int32, exact as every value is within int32), complex128 results
  const resultType: DType = integer ? intType : 'complex128';
  const declare = (complex: boolean) => (integer ? intType : complex ? 'complex128' : 'float64');
  let knl = makeKernel(
    '{ : }',
    [
      ...[...variables].map(([name, v]) => `<${declare(v.complex)}> ${name} = ${v.text}`),
      ...expressions.map((e, k) => `expr${k} = ${e.text}`),
    ],
    expressions.map((_, k) => globalArg(`expr${k}`, { dtype: resultType, shape: [] })),
    { seqDependencies: true },
  );
  if (kind === 'int_nonneg' && variables.size > 0) {
    const names = [...variables.keys()];
    knl = assume(knl, `[${names.join(', ')}] -> { : ${names.map((n) => `${n} >= 0`).join(' and ')} }`);
  }
  const out = await run(knl, device, {});
  expressions.forEach((e, k) => {
    const got = out[`expr${k}`];
    const where = `${kind}, seed ${seed}, expr${k} = ${e.text}`;
    if (typeof e.value === 'bigint') {
      assert.is(BigInt((got as ArrayLike<number | bigint>)[0]), e.value, where);
      return;
    }
    const [re, im] = got as Float64Array;
    const want = e.value as Value;
    const err = Math.hypot(re - want.re, im - want.im);
    const scale = Math.hypot(want.re, want.im);
    assert.ok(err <= 1e-10 * scale, `${where}: ${re} + ${im}j, expected ${want.re} + ${want.im}j`);
  });
}

for (const device of testDevices()) {
  test(`${device.name}: test_fuzz_expression_code_gen`, async () => {
    // loopy: seeds 0-5 of each kind, on OpenCL and C; here two seeds on every device (C is one),
    // int64 where the device has it (every value is within int32, so int32 is exact elsewhere)
    for (const seed of [0, 1]) {
      for (const kind of ['int', 'int_nonneg'] as const)
        await checkFuzzCase(device, kind, seed, supportsDType(device, 'int64') ? 'int64' : 'int32');
      // float64 and complex128 (whose parts are float64) where the device has them
      if (!supportsDType(device, 'float64')) continue;
      for (const kind of ['real', 'complex'] as const) await checkFuzzCase(device, kind, seed, 'int64');
    }
  });

  test(`${device.name}: test_sci_notation_literal`, async () => {
    // the literal makes out float64, as in loopy; where float64 is missing, float32 is asked for
    const double = supportsDType(device, 'float64');
    const knl = makeKernel(
      '{ [i]: 0<=i<12 }',
      'out[i] = 1e-12',
      double ? undefined : [globalArg('out', { dtype: 'float32', shape: 'auto' })],
    );
    const out = (await run(knl, device, {})).out as Float64Array | Float32Array;
    assert.is(out.length, 12);
    const want = double ? 1e-12 : Math.fround(1e-12);
    for (const v of out) assert.ok(Math.abs(v - want) < 1e-20, String(v));
  });

  test(`${device.name}: test_indexof_vec`, async () => {
    let knl = makeKernel('{ [i,j,k]: 0<=i,j,k<4 }', 'out[i,j,k] = indexof_vec(out[i,j,k])', [
      globalArg('out', { shape: 'auto', isInput: false }),
    ]);
    knl = tagInames(knl, { i: 'vec' });
    knl = tagArrayAxes(knl, 'out', 'vec,c,c');
    // loopy only runs it; here: each element holds its place in memory, counted in scalars
    const out = (await run(knl, device, {})).out as Int32Array;
    assert.equal(
      [...out],
      Array.from({ length: 64 }, (_, k) => k),
    );
  });

  test(`${device.name}: test_integer_associativity`, async () => {
    // loopy's u is float64; where float64 is missing, float32
    const uType = supportsDType(device, 'float64') ? 'float64' : 'float32';
    let knl = makeKernel(
      '{[i] : 0<=i<arraylen}',
      `
      e := (i // (ncomp * elemsize))
      d := ((i // elemsize) % ncomp)
      s := (i % elemsize)
      v[i] = u[ncomp * indices[(s) + elemsize*(e)] + (d)]
      `,
      [valueArg('elemsize, ncomp', 'int32'), '...'],
    );
    knl = addDtypes(knl, { u: uType, 'elemsize, ncomp, indices': 'int32' });
    knl = assume(knl, '[elemsize, ncomp] -> { : elemsize>= 0 and ncomp >= 0}');
    // the divisor stays one operand: `i // (ncomp * elemsize)`, never `i // ncomp * elemsize`
    for (const target of [openclTarget(), cTarget()])
      assert.match(generateCode(knl, target).code, /floor_div_int32\(i, ncomp \* elemsize\)/);
    const [elemsize, ncomp, nelem] = [3, 2, 4];
    const arraylen = nelem * ncomp * elemsize;
    const indices = Int32Array.from({ length: nelem * elemsize }, (_, k) => (k * 5) % (nelem * elemsize));
    const uData = Array.from({ length: ncomp * nelem * elemsize }, (_, k) => k * 0.25 - 3);
    const u = uType === 'float64' ? Float64Array.from(uData) : Float32Array.from(uData);
    const got = (await run(knl, device, { u, indices, elemsize, ncomp, arraylen })).v as Float64Array;
    const want = Array.from({ length: arraylen }, (_, i) => {
      const [e, d, s] = [Math.floor(i / (ncomp * elemsize)), Math.floor(i / elemsize) % ncomp, i % elemsize];
      return u[ncomp * indices[s + elemsize * e] + d];
    });
    assert.equal([...got], want);
  });

  test(`${device.name}: test_divide_precedence`, async () => {
    const knl = makeKernel(
      '{:}',
      `
      x[0] = c*(a/b)
      y[0] = c*(a%b)
      `,
      [valueArg('a, b, c', 'int32'), globalArg('x, y', { dtype: 'int32', shape: 'auto' })],
    );
    const { x, y } = await run(knl, device, { c: 2, b: 2, a: 5 });
    assert.equal([...(x as Int32Array)], [4]);
    assert.equal([...(y as Int32Array)], [2]);
  });

  test(`${device.name}: test_real_with_real_argument`, async () => {
    for (const dtype of ['float32', 'float64'] as const) {
      if (!supportsDType(device, dtype)) continue;
      const knl = makeKernel('{[i]: 0 <= i < nresult}', 'result[i] = real(ary[i])');
      const values = randomFloat32(128, 11);
      const ary = dtype === 'float32' ? values : Float64Array.from(values, (v) => v * Math.PI);
      const result = (await run(knl, device, { ary, nresult: 128 })).result as Float32Array | Float64Array;
      // the result keeps the argument's dtype
      assert.is(result.constructor, ary.constructor);
      assert.equal([...result], [...ary]);
    }
  });

  test(`${device.name}: test_bool_type_context`, async () => {
    const knl = makeKernel('{:}', 'k = 8.0 and 7.0', [globalArg('k', { dtype: 'bool', shape: 'auto' })]);
    const { k } = await run(knl, device, {});
    assert.equal([...(k as Uint8Array)], [1]);
  });

  test(`${device.name}: test_np_bool_handling`, async () => {
    // loopy builds `not numpy.bool_(False)`: here the IR's boolean literal
    const knl = makeKernel(
      '{:}',
      [assignment(expr.variable('y'), expr.not(expr.bool(false)), { id: 'insn' })],
      [globalArg('y', { dtype: 'bool', shape: 'auto' })],
    );
    const { y } = await run(knl, device, {});
    assert.equal([...(y as Uint8Array)], [1]);
  });

  test(`${device.name}: test_complex_functions_with_real_args`, async () => {
    // the complex128 and float64 half only where float64 is (not WebGPU)
    const double = supportsDType(device, 'float64');
    const single = `
      y1[i] = abs(c64[i])
      y2[i] = real(c64[i])
      y3[i] = imag(c64[i])
      y4[i] = conj(c64[i])
      y9[i] = abs(f32[i])
      y10[i] = real(f32[i])
      y11[i] = imag(f32[i])
      y12[i] = conj(f32[i])
    `;
    const doubles = `
      y5[i] = abs(c128[i])
      y6[i] = real(c128[i])
      y7[i] = imag(c128[i])
      y8[i] = conj(c128[i])
      y13[i] = abs(f64[i])
      y14[i] = real(f64[i])
      y15[i] = imag(f64[i])
      y16[i] = conj(f64[i])
    `;
    let knl = makeKernel('{[i]: 0<=i<10}', double ? single + doubles : single);
    knl = addDtypes(knl, {
      'y9,y10,y11,y12': 'complex64',
      c64: 'complex64',
      f32: 'float32',
      ...(double ? { 'y13,y14,y15,y16': 'complex128', c128: 'complex128', f64: 'float64' } : {}),
    });
    const n = 10;
    // complex arrays as their interleaved parts
    const c64 = randomFloat32(2 * n, 21).map((v) => (v + 1) / 2);
    const c128 = Float64Array.from(randomFloat32(2 * n, 22), (v) => (v + 1) / 2);
    const f32 = randomFloat32(n, 23).map((v) => (v + 1) / 2);
    const f64 = Float64Array.from(randomFloat32(n, 24), (v) => (v + 1) / 2);
    const out = await run(knl, device, { c64, f32, ...(double ? { c128, f64 } : {}) });
    const parts = (z: ArrayLike<number>) => Array.from({ length: n }, (_, k) => [z[2 * k], z[2 * k + 1]]);
    const asComplex = (x: ArrayLike<number>) => Array.from(x).flatMap((v) => [v, 0]);
    const get = (name: string) => out[name] as Float32Array | Float64Array;
    const checks: [string, number[]][] = [
      ['y1', parts(c64).map(([re, im]) => Math.hypot(re, im))],
      ['y2', parts(c64).map(([re]) => re)],
      ['y3', parts(c64).map(([, im]) => im)],
      ['y4', parts(c64).flatMap(([re, im]) => [re, -im])],
      ['y9', asComplex(Array.from(f32, Math.abs))],
      ['y10', asComplex(f32)],
      ['y11', asComplex(new Array(n).fill(0))],
      ['y12', asComplex(f32)],
    ];
    if (double)
      checks.push(
        ['y5', parts(c128).map(([re, im]) => Math.hypot(re, im))],
        ['y6', parts(c128).map(([re]) => re)],
        ['y7', parts(c128).map(([, im]) => im)],
        ['y8', parts(c128).flatMap(([re, im]) => [re, -im])],
        ['y13', asComplex(Array.from(f64, Math.abs))],
        ['y14', asComplex(f64)],
        ['y15', asComplex(new Array(n).fill(0))],
        ['y16', asComplex(f64)],
      );
    for (const [name, want] of checks) assertAllClose(get(name), want, name, 1e-6);
  });
}

test('test_is_expression_equal', () => {
  const e = (text: string) => parseExpression(text);
  assert.ok(isExpressionEqual(e('x+2'), e('2+x')));
  assert.ok(isExpressionEqual(e('(x+2)**2'), e('x**2 + 4*x + 4')));
  assert.ok(isExpressionEqual(e('(x+y)**2'), e('x**2 + 2*x*y + y**2')));
  // and what differs is told apart
  assert.not.ok(isExpressionEqual(e('(x+y)**2'), e('x**2 + y**2')));
  assert.not.ok(isExpressionEqual(e('a[x] + 1'), e('1 + a[x + 0] + 1')));
});

test('test_floor_div', () => {
  // (i-1)*(i-2) may be negative as far as the printer can tell: the helper that rounds down
  const mayBeNegative = makeKernel('{ [i]: 0<=i<10 }', 'out[i] = (i-1)*(i-2)//2');
  // i*(i+1) over i >= 0 is not: C's own division
  const nonNegative = makeKernel('{ [i]: 0<=i<10 }', 'out[i] = (i*(i+1))//2');
  for (const target of [openclTarget(), cTarget()]) {
    assert.ok(generateCode(mayBeNegative, target).code.includes('loom_floor_div'));
    assert.not.ok(generateCode(nonNegative, target).code.includes('loom_floor_div'));
    assert.match(generateCode(nonNegative, target).code, /i \* \(i \+ 1\) \/ 2/);
  }
});

for (const device of testDevices()) {
  test(`${device.name}: test_floor_div (run)`, async () => {
    const mayBeNegative = makeKernel('{ [i]: 0<=i<10 }', 'out[i] = (i-1)*(i-2)//2');
    const nonNegative = makeKernel('{ [i]: 0<=i<10 }', 'out[i] = (i*(i+1))//2');
    const range = Array.from({ length: 10 }, (_, i) => i);
    assert.equal(
      [...((await run(mayBeNegative, device, {})).out as Int32Array)],
      range.map((i) => Math.floor(((i - 1) * (i - 2)) / 2)),
    );
    assert.equal(
      [...((await run(nonNegative, device, {})).out as Int32Array)],
      range.map((i) => Math.floor((i * (i + 1)) / 2)),
    );
  });
}

test.run();
