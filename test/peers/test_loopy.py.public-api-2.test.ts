/**
 * Ports of loopy's tests of the second half of the public API its users call (issue 27,
 * "Public API loopy users call"): unsigned `%` and `{dup=i}` (test_apps.py), `NoOpInstruction`
 * with predicates, `make_tuple` (test_target.py), `indexof` and `**` on complex values
 * (test_expression.py), a user function named like a built-in (test_callables.py),
 * `collect_common_factors_on_increment` (test_transform.py) and `CInstruction`
 * (test_loopy.py). Names are the originals'; each runs on every test device, against plain
 * JavaScript or the kernel before the transformation (loopy's `auto_test_vs_ref`).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  defineFunction,
  generateCode,
  globalArg,
  isComplex,
  LoomError,
  makeKernel,
  noOp,
  registerFunction,
  run,
  printExpr,
  splitIname,
  collectCommonFactorsOnIncrement,
  tagArrayAxes,
} from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { supportsDType, testDevices } from '../support/devices.ts';

for (const device of testDevices()) {
  test(`${device.name}: test_unsigned_types_to_mod`, async () => {
    const knl = makeKernel(
      '{[i]: 0<=i<10}',
      `
      <> c = b[i] {id=init,dup=i}
      a[i] = i % c {dep=init}
      `,
      [globalArg('a', { shape: [10], dtype: 'uint32' }), globalArg('b', { shape: [10], dtype: 'uint32' })],
    );
    if (!supportsDType(device, 'int64')) {
      // `i % c` is int64 (numpy's promotion of int32 with uint32), which WGSL lacks: refused, saying so
      assert.throws(() => generateCode(knl, device.target), /int64/);
      return;
    }
    // loopy leaves out loopy_mod when both operands are non-negative: Loom's signed helper
    // (which moves the remainder into the divisor's sign) is left out the same way
    assert.not.match(generateCode(knl, device.target).code, /loom_mod_int/);
    // `{dup=i}`: `init` runs over its own copy of `i` first, so every `a[i]` reads the last `c`
    const b = Uint32Array.from({ length: 10 }, (_, k) => 3 + k);
    const a = (await run(knl, device, { b })).a as Uint32Array;
    assert.equal(
      [...a],
      [...b].map((_, i) => i % b[9]),
    );
  });
}

for (const device of testDevices()) {
  test(`${device.name}: test_no_op_with_predicate`, async () => {
    // loopy builds the code: here it also runs, as text (`if=a > 0`) and as a built instruction
    const built = makeKernel([], ['<> a = 1', noOp({ predicates: ['a > 0'] })]);
    const text = makeKernel([], ['<> a = 1', '... nop {if=a > 0}']);
    for (const knl of [built, text]) {
      assert.is(knl.instructions[1].kind, 'nop');
      assert.is(knl.instructions[1].predicates.length, 1);
      assert.equal(await run(knl, device, {}), {});
    }
    // a predicated nop is a point others depend on: what depends on it still runs everywhere
    const x = Float32Array.of(1, -2, 3, -4);
    const knl = makeKernel(
      '{[i]: 0<=i<4}',
      ['<> a = x[i] {id=a}', noOp({ predicates: ['a > 0'], id: 'n', dependsOn: ['a'] }), 'out[i] = 2*a {dep=n}'],
      [globalArg('x', { shape: [4], dtype: 'float32' }), '...'],
    );
    const out = (await run(knl, device, { x })).out as Float32Array;
    assert.equal(
      [...out],
      [...x].map((v) => 2 * v),
    );
  });
}

/**
 * testlib.py's Log2Callable: float32 or float64 in and out (integers as float32), calling the
 * target's log2. Loom's targets keep their built-ins' names to themselves (a user function's
 * code is called by a name of its own), so each implementation is a one-line wrapper.
 */
let jsCalls = 0;
const wrapper = (qualifier: string, t: 'float' | 'double', log2: string) =>
  `${qualifier} ${t} user_log2_${t}(${t} x) { return ${log2}(x); }`;
const log2Callable = defineFunction({
  name: 'log2',
  signature: ([x]) => {
    if (x === undefined || isComplex(x)) throw new LoomError(`log2: unexpected type ${x}`);
    const t = x === 'float64' ? 'float64' : 'float32';
    return { args: [t], result: t };
  },
  opencl: (s) => {
    const t = s.result === 'float32' ? 'float' : 'double';
    return { name: `user_log2_${t}`, preamble: wrapper('inline', t, 'log2') };
  },
  cuda: (s) => {
    const t = s.result === 'float32' ? 'float' : 'double';
    return { name: `user_log2_${t}`, preamble: wrapper('__device__ inline', t, t === 'float' ? 'log2f' : 'log2') };
  },
  c: (s) => {
    const t = s.result === 'float32' ? 'float' : 'double';
    return { name: `user_log2_${t}`, preamble: wrapper('static inline', t, t === 'float' ? 'log2f' : 'log2') };
  },
  wgsl: { name: 'user_log2', preamble: 'fn user_log2(x: f32) -> f32 { return log2(x); }' },
  js: (x) => {
    jsCalls++;
    return Math.log2(x as number);
  },
});

for (const device of testDevices()) {
  test(`${device.name}: test_register_function_lookup`, async () => {
    const prog = registerFunction(makeKernel('{[i]: 0<=i<10}', 'y[i] = log2(x[i])'), log2Callable);
    const dtype = supportsDType(device, 'float64') ? 'float64' : 'float32';
    const knl = addDtypes(prog, { x: dtype });
    const values = Array.from({ length: 10 }, (_, k) => 0.05 + k / 10.5);
    const x = dtype === 'float64' ? Float64Array.from(values) : Float32Array.from(values);
    const callsBefore = jsCalls;
    const out = (await run(knl, device, { x })).y as Float64Array;
    // the user's log2 is called, not the built-in one of the same name
    assert.ok(generateCode(knl, device.target).code.includes('user_log2') || jsCalls > callsBefore);
    assert.is(out.constructor, x.constructor);
    const ref = [...x].map(Math.log2);
    const err = Math.hypot(...ref.map((v, k) => v - out[k])) / Math.hypot(...ref);
    assert.ok(err < (dtype === 'float64' ? 1e-15 : 1e-6), `relative error ${err}`);
  });
}

for (const device of testDevices()) {
  test(`${device.name}: test_indexof`, async () => {
    const knl = makeKernel('{ [i,j]: 0<=i,j<5 }', 'out[i,j] = indexof(out[i,j])', [
      globalArg('out', { isInput: false, shape: 'auto' }),
    ]);
    const out = (await run(knl, device, {})).out as Int32Array;
    assert.equal(
      [...out],
      Array.from({ length: 25 }, (_, k) => k),
    );
    // the index is where the layout puts the element: in Fortran order, out[i,j] lies at i + 5*j
    const fortran = (await run(tagArrayAxes(knl, 'out', 'f,f'), device, {})).out as Int32Array;
    assert.equal(
      [...fortran],
      Array.from({ length: 25 }, (_, k) => k),
    );
  });
}

test('indexof takes one array element', () => {
  const knl = makeKernel('{ [i]: 0<=i<5 }', 'out[i] = indexof(i)', [globalArg('out', { shape: 5, dtype: 'int32' })]);
  assert.throws(() => generateCode(knl, testDevices()[0].target), /indexof takes one argument, an array element/);
});

for (const device of testDevices()) {
  test(`${device.name}: test_tuple`, async () => {
    const knl = makeKernel('[] -> {[]: }', 'a, b = make_tuple(1, 2.)');
    const { a, b } = await run(knl, device, {});
    assert.equal([...(a as Int32Array)], [1]);
    assert.equal([...(b as Float32Array)], [2]);
  });

  test(`${device.name}: make_tuple in a loop, its id depended on`, async () => {
    const knl = makeKernel(
      '{[i]: 0<=i<4}',
      ['<> s, <> t = make_tuple(x[i], 2*x[i]) {id=tup}', 'out[i] = s + t {dep=tup}'],
      [globalArg('x', { shape: 4, dtype: 'float32' }), '...'],
    );
    const x = Float32Array.of(1, -2, 3.5, 4);
    const out = (await run(knl, device, { x })).out as Float32Array;
    assert.equal(
      [...out],
      [...x].map((v) => 3 * v),
    );
    assert.throws(() => makeKernel('[] -> {[]: }', 'a, b = make_tuple(1)'), /make_tuple gives 1 value to 2 assignees/);
  });
}

/** numpy's assert_allclose: |got - want| <= atol + rtol * |want|, for complex values as [re, im] pairs too. */
function assertAllClose(got: ArrayLike<number>, want: ArrayLike<number>, rtol: number, atol = 0, what = '') {
  assert.is(got.length, want.length, what);
  for (let k = 0; k < want.length; k++) {
    const ok = Math.abs(got[k] - want[k]) <= atol + rtol * Math.abs(want[k]);
    assert.ok(ok, `${what}[${k}]: ${got[k]} is not close to ${want[k]}`);
  }
}

/** Interleaved complex values [re0, im0, re1, im1, ...] from a function of the index. */
const complexes = (n: number, f: (k: number) => [number, number]) => Array.from({ length: n }, (_, k) => f(k)).flat();

for (const device of testDevices()) {
  test(`${device.name}: test_complex_support`, async () => {
    const double = supportsDType(device, 'float64');
    const dtype = double ? 'float64' : 'float32';
    const knl = makeKernel(
      '{[i, i1, i2]: 0<=i,i1,i2<10}',
      `
      euler1[i]  = exp(3.14159265359j)
      euler2[i] = (2.7182818284 ** (3.14159265359j))
      euler1_real[i] = real(euler1[i])
      euler1_imag[i] = imag(euler1[i])
      real_times_complex[i] = in1[i]*(in2[i]*1j)
      real_plus_complex[i] = in1[i] + (in2[i]*1j)
      abs_complex[i] = abs(real_plus_complex[i])
      complex_div_complex[i] = (2jf + 7*in1[i])/(32jf + 37*in1[i])
      complex_div_real[i] = (2jf + 7*in1[i])/in1[i]
      real_div_complex[i] = in1[i]/(2jf + 7*in1[i])
      out_sum = sum(i1, 1.0*i1 + i1*1jf)*sum(i2, 1.0*i2 + i2*1jf)
      conj_out_sum = conj(out_sum)
      `,
      [
        globalArg('out_sum, euler1, real_plus_complex', { isInput: false, shape: 'auto' }),
        globalArg('in1, in2', { dtype, shape: 10 }),
        '...',
      ],
      { seqDependencies: true },
    );
    if (!double) {
      // loopy's complex literals are complex128 (numpy's), as Loom's are: refused where float64 is missing
      assert.throws(() => generateCode(knl, device.target), /float64/);
      return;
    }
    const n = 10;
    const values = (seed: number) =>
      Array.from({ length: n }, (_, k) => ((k * 7919 + seed * 104729) % 1000) / 1000 + 0.01);
    const Array_ = double ? Float64Array : Float32Array;
    const [in1, in2] = [Array_.from(values(1)), Array_.from(values(2))];
    const out = await run(knl, device, { in1, in2 });
    const rtol = double ? 1e-7 : 1e-5;
    const get = (name: string) => out[name] as Float64Array;
    const div = ([a, b]: number[], [c, d]: number[]): [number, number] => {
      const q = c * c + d * d;
      return [(a * c + b * d) / q, (b * c - a * d) / q];
    };
    assertAllClose(
      get('euler1'),
      complexes(n, () => [-1, 0]),
      rtol,
      1e-10,
      'euler1',
    );
    assertAllClose(
      get('euler2'),
      complexes(n, () => [-1, 0]),
      rtol,
      1e-6,
      'euler2',
    );
    assertAllClose(get('euler1_real'), Array(n).fill(-1), rtol, 0, 'euler1_real');
    assertAllClose(get('euler1_imag'), Array(n).fill(0), 0, 1e-10, 'euler1_imag');
    assertAllClose(
      get('real_times_complex'),
      complexes(n, (k) => [0, in1[k] * in2[k]]),
      rtol,
      0,
      'real_times_complex',
    );
    assertAllClose(
      get('real_plus_complex'),
      complexes(n, (k) => [in1[k], in2[k]]),
      rtol,
      0,
      'real_plus_complex',
    );
    assertAllClose(
      get('abs_complex'),
      [...in1].map((v, k) => Math.hypot(v, in2[k])),
      rtol,
      0,
      'abs_complex',
    );
    assertAllClose(
      get('complex_div_complex'),
      complexes(n, (k) => div([7 * in1[k], 2], [37 * in1[k], 32])),
      rtol,
      0,
      'complex_div_complex',
    );
    assertAllClose(
      get('complex_div_real'),
      complexes(n, (k) => [7, 2 / in1[k]]),
      rtol,
      0,
      'complex_div_real',
    );
    assertAllClose(
      get('real_div_complex'),
      complexes(n, (k) => div([in1[k], 0], [7 * in1[k], 2])),
      rtol,
      0,
      'real_div_complex',
    );
    // (s + s*1j)**2 with s = n(n-1)/2 is 2j*s**2
    const s = 0.5 * n * (n - 1);
    assertAllClose(get('out_sum'), [0, 2 * s * s], rtol, 0, 'out_sum');
    assertAllClose(get('conj_out_sum'), [0, -2 * s * s], rtol, 0, 'conj_out_sum');
  });

  test(`${device.name}: ** on complex values, against plain JavaScript`, async () => {
    const knl = makeKernel(
      '{[i]: 0<=i<4}',
      ['sq[i] = z[i]**2', 'inv[i] = z[i]**-3', 'gen[i] = z[i]**w[i]', 'zero[i] = (0*z[i])**w[i]'],
      [globalArg('z, w', { shape: 4, dtype: 'complex64' }), '...'],
    );
    const z = Float32Array.of(1, 1, 2, 0, 0, 1, 1, -1);
    const w = Float32Array.of(0.5, 0, 2, 1, 0, 0, -1, 0.25);
    const out = await run(knl, device, { z, w });
    const pairs = (a: Float32Array) => Array.from({ length: a.length / 2 }, (_, k) => [a[2 * k], a[2 * k + 1]]);
    const mul = ([a, b]: number[], [c, d]: number[]) => [a * c - b * d, a * d + b * c];
    const pow = ([a, b]: number[], [c, d]: number[]) => {
      if (a === 0 && b === 0) return c === 0 && d === 0 ? [1, 0] : [0, 0];
      const [lr, th] = [Math.log(Math.hypot(a, b)), Math.atan2(b, a)];
      const [re, im] = [c * lr - d * th, c * th + d * lr];
      return [Math.exp(re) * Math.cos(im), Math.exp(re) * Math.sin(im)];
    };
    const want = {
      sq: pairs(z).map((v) => mul(v, v)),
      inv: pairs(z).map((v) => {
        const [a, b] = mul(mul(v, v), v);
        const q = a * a + b * b;
        return [a / q, -b / q];
      }),
      gen: pairs(z).map((v, k) => pow(v, pairs(w)[k])),
      zero: pairs(w).map((v) => pow([0, 0], v)),
    };
    for (const [name, expected] of Object.entries(want))
      assertAllClose(out[name] as Float32Array, expected.flat(), 1e-5, 1e-6, name);
  });
}

for (const device of testDevices()) {
  test(`${device.name}: test_collect_common_factors`, async () => {
    const knlText = `
      <float32> out_tmp = 0 {id=out_init,inames=i}
      out_tmp = out_tmp + alpha[i]*a[i,j]*b1[j] {id=out_up1,dep=out_init}
      out_tmp = out_tmp + alpha[i]*a[j,i]*b2[j] {id=out_up2,dep=out_init,nosync=out_up1}
      out[i] = out_tmp {dep=out_up1:out_up2}
      `;
    let knl = makeKernel('{[i,j]: 0<=i,j<n}', knlText);
    knl = addDtypes(knl, { a: 'float32', alpha: 'float32', b1: 'float32', b2: 'float32' });
    const refKnl = knl;
    knl = splitIname(knl, 'i', 256, { outerTag: 'g.0', innerTag: 'l.0' });
    knl = collectCommonFactorsOnIncrement(knl, 'out_tmp');
    // alpha[i] left the updates for the read
    assert.not.match(printExpr(knl.instructions.find((insn) => insn.id === 'out_up1')!.expression!), /alpha/);
    // the builder's verb is the same transformation
    const { kernel } = await import('@loom/dsl');
    const built = kernel('{[i,j]: 0<=i,j<n}', knlText)
      .dtypes({ a: 'float32', alpha: 'float32', b1: 'float32', b2: 'float32' })
      .split('i', 256, { outer: 'g.0', inner: 'l.0' })
      .collectCommonFactorsOnIncrement('out_tmp');
    assert.is(built.kernel.toString(), knl.toString());
    const n = 13;
    const data = (len: number, seed: number) =>
      Float32Array.from({ length: len }, (_, k) => ((k * 37 + seed * 11) % 17) / 8 - 1);
    const inputs = { n, a: data(n * n, 1), alpha: data(n, 2), b1: data(n, 3), b2: data(n, 4) };
    const ref = (await run(refKnl, cpuDevice(), inputs)).out as Float32Array;
    const got = (await run(knl, device, inputs)).out as Float32Array;
    assertAllClose(got, ref, 1e-5, 1e-6, 'out');
  });
}

test('collectCommonFactorsOnIncrement refuses what it cannot do', () => {
  const knl = makeKernel('{[i,j]: 0<=i,j<4}', [
    '<> acc = 0 {id=init,inames=i}',
    'acc = acc + a[i]*b[j] {id=up,dep=init}',
    'out[i] = acc {dep=up}',
  ]);
  assert.throws(() => collectCommonFactorsOnIncrement(knl, 'acc', 'x'), /varyByAxes .* is not supported/);
  assert.throws(() => collectCommonFactorsOnIncrement(knl, 'nothing'), /'nothing' is not an array or temporary/);
  const none = makeKernel('{[i]: 0<=i<4}', [
    '<> acc = 0 {id=init}',
    'acc = acc + a[i] {id=up1,dep=init}',
    'acc = acc + b[i] {id=up2,dep=up1}',
    'out[0] = acc {dep=up2}',
  ]);
  assert.throws(() => collectCommonFactorsOnIncrement(none, 'acc'), /no common factors found/);
  // b[j] is common to every increment, but the read of acc is outside loop j
  const outside = makeKernel('{[i,j]: 0<=i,j<4}', [
    '<> acc = 0 {id=init,inames=i}',
    'acc = acc + a[i,j]*b[j] {id=up,dep=init}',
    'out[i] = acc {dep=up}',
  ]);
  assert.throws(() => collectCommonFactorsOnIncrement(outside, 'acc'), /depends on 'j'.*outside loop 'j'/);
});

test.run();
