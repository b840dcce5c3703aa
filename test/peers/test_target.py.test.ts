/**
 * Ports of loopy's test/test_target.py, the parts about the expression language and what
 * targets make of it: math functions, clamp, sized integers, bools, NaN and infinities,
 * Python's conditional expression, empty arrays, fma, casts to complex. Each runs on every
 * test device against plain JavaScript (loopy checks its C and OpenCL targets; Loom checks
 * the CPU device, OpenCL and WebGPU), skipped per test only where a dtype does not exist on a
 * device, saying why. Names are the originals'.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  assignment,
  expr,
  generateCode,
  globalArg,
  makeKernel,
  run,
  setTemporaryAddressSpace,
  splitIname,
  valueArg,
  type Device,
  type DType,
  type Target,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { jsTarget } from '@loom/codegen-js';
import { randomFloat32, supportsDType, testDevices } from '../support/devices.ts';

const { variable, float, call, cast, subscript } = expr;

/** The widest float the device holds: float64, or float32 on WebGPU (which says so). */
function widestFloat(device: Device, test: string): 'float32' | 'float64' {
  if (supportsDType(device, 'float64')) return 'float64';
  console.log(`${device.name}: ${test} in float32: WGSL has no float64`);
  return 'float32';
}

for (const tp of ['float32', 'float64'] as const) {
  test(`test_math_function (${tp})`, () => {
    // loopy's min/max print C's fmin/fmax; Loom's min/max propagate NaN (torch.minimum), so
    // they print helpers, and fmin/fmax are C's (a NaN argument ignored) on every target
    const data = ['x', 'y', 'z'].map((name) => globalArg(name, { dtype: tp, shape: [100] }));
    const code = (insn: string, target: Target = openclTarget()) =>
      generateCode(makeKernel('{[i]: 0<=i<100}', insn, data), target).code;
    assert.match(code('x[i] = min(y[i], z[i])'), new RegExp(`loom_minimum_${tp}\\(y\\[i\\], z\\[i\\]\\)`));
    assert.match(code('x[i] = max(y[i], z[i])'), new RegExp(`loom_maximum_${tp}\\(y\\[i\\], z\\[i\\]\\)`));
    assert.match(code('x[i] = fmin(y[i], z[i])'), new RegExp(`loom_fmin_${tp}\\(y\\[i\\], z\\[i\\]\\)`));
    assert.match(code('x[i] = fmax(y[i], z[i])', jsTarget()), /loom\.fmax\(y\[i\], z\[i\]\)/);
    if (tp === 'float32') assert.match(code('x[i] = fmin(y[i], z[i])', wgslTarget()), /fmin_f32\(/);
  });
}

for (const device of testDevices()) {
  test(`${device.name}: test_clamp`, async () => {
    let knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = clamp(x[i], a, b)');
    knl = splitIname(knl, 'i', 128, { outerTag: 'g.0', innerTag: 'l.0' });
    const x = Float32Array.from(randomFloat32(1000, 3), (v) => Math.fround(14 + 4 * v));
    const { out } = await run(knl, device, { x, a: 12, b: 15 });
    assert.equal(
      Array.from(out as Float32Array),
      Array.from(x, (v) => Math.min(Math.max(v, 12), 15)),
    );
  });

  test(`${device.name}: test_sized_integer_c_codegen`, async () => {
    if (!supportsDType(device, 'int64')) {
      console.log(`${device.name}: test_sized_integer_c_codegen skipped: WGSL has no int64`);
      return;
    }
    const knl = makeKernel('{[i]: 0<=i<n}', 'a[i] = int64(1) << i');
    const { a } = await run(knl, device, { n: 40 });
    assert.equal(
      Array.from(a as BigInt64Array),
      Array.from({ length: 40 }, (_, i) => 1n << BigInt(i)),
    );
  });

  test(`${device.name}: test_opencl_support_for_bool`, async () => {
    const knl = makeKernel('{[i]: 0<=i<10}', 'y[i] = i%2', [globalArg('y', { dtype: 'bool', shape: 'auto' })]);
    const { y } = await run(knl, device, {});
    assert.equal(Array.from(y as Uint8Array), [0, 1, 0, 1, 0, 1, 0, 1, 0, 1]);
  });

  test(`${device.name}: test_nan_support`, async () => {
    // loopy assigns numpy NaNs; Loom's instruction text has no NaN literal, so the instructions are built from nodes
    const t = widestFloat(device, 'test_nan_support');
    const complex = supportsDType(device, 'float64');
    const v = variable;
    const knl = makeKernel(
      '{:}',
      [
        assignment(v('a'), float(NaN), { id: 'a' }),
        assignment(v('b'), call('isnan', [v('a')]), { id: 'b' }),
        assignment(v('c'), call('isnan', [float(3.14)]), { id: 'c' }),
        assignment(v('d'), call('isnan', [float(0)]), { id: 'd' }),
        assignment(v('e'), float(NaN, 'float32'), { id: 'e' }),
        assignment(v('f'), call('isnan', [cast(t, float(NaN))]), { id: 'f' }),
        ...(complex
          ? [
              assignment(v('g'), cast('complex64', float(NaN)), { id: 'g' }),
              assignment(v('h'), cast('complex128', float(NaN)), { id: 'h' }),
            ]
          : []),
      ],
      [globalArg('a', { dtype: t, shape: [], isInput: false }), '...'],
      { seqDependencies: true },
    );
    if (!complex) console.log(`${device.name}: test_nan_support without the complex NaNs: complex128 needs float64`);
    const out = await run(knl, device, {});
    assert.ok(Number.isNaN((out.a as Float64Array)[0]));
    assert.equal(
      [out.b, out.c, out.d, out.f].map((x) => (x as Uint8Array)[0]),
      [1, 0, 0, 1],
    );
    assert.instance(out.e, Float32Array);
    assert.ok(Number.isNaN((out.e as Float32Array)[0]));
    if (complex) {
      assert.instance(out.g, Float32Array);
      assert.instance(out.h, Float64Array);
      assert.ok(Number.isNaN((out.g as Float32Array)[0]) && (out.g as Float32Array)[1] === 0);
      assert.ok(Number.isNaN((out.h as Float64Array)[0]));
    }
  });

  test(`${device.name}: test_emits_ternary_operators_correctly`, async () => {
    const t = widestFloat(device, 'test_emits_ternary_operators_correctly');
    const knl = makeKernel(
      '{:}',
      `
      <${t}> tmp1 = 3.1416
      <${t}> tmp2 = 0.000
      y1 = 1729 if tmp1 else 1.414
      y2 = 42   if 2.7183 else 13
      y3 = 127 if tmp2 else 128
    `,
      [globalArg('y1', { dtype: t, shape: [] }), '...'],
      { seqDependencies: true },
    );
    const { y1, y2, y3 } = await run(knl, device, {});
    assert.equal(
      [y1, y2, y3].map((y) => Number((y as Float32Array)[0])),
      [1729, 42, 128],
    );
  });

  test(`${device.name}: test_inf_support`, async () => {
    for (const dtype of ['float32', 'float64'] as const) {
      if (!supportsDType(device, dtype)) {
        console.log(`${device.name}: test_inf_support(${dtype}) skipped: WGSL has no ${dtype}`);
        continue;
      }
      const knl = makeKernel(
        '{:}',
        [
          assignment(variable('out_inf'), float(Infinity), { id: 'inf' }),
          assignment(variable('out_neginf'), float(-Infinity), { id: 'neginf' }),
        ],
        [globalArg('out_inf', { shape: 'auto', dtype }), globalArg('out_neginf', { shape: 'auto', dtype })],
      );
      const out = await run(knl, device, {});
      assert.equal(
        [(out.out_inf as Float32Array)[0], (out.out_neginf as Float32Array)[0]],
        [Infinity, -Infinity],
        dtype,
      );
    }
  });

  test(`${device.name}: test_zero_size_temporaries`, async () => {
    const knl = setTemporaryAddressSpace(
      makeKernel(
        '{[i]: i > 0 and i < 0}',
        ['<float32> tmp[i] = i', 'a[i] = tmp[i]'],
        [globalArg('a', { shape: [0], dtype: 'float32' }), '...'],
      ),
      'tmp',
      'global',
    );
    const { a } = await run(knl, device, {});
    assert.is((a as Float32Array).length, 0);
  });

  test(`${device.name}: test_empty_array_output`, async () => {
    const knl = makeKernel(
      '{[i]: i > 0 and i < 0}',
      [],
      [globalArg('a', { shape: [0], dtype: 'float32', isInput: false, isOutput: true })],
    );
    const { a } = await run(knl, device, {});
    assert.is((a as Float32Array).length, 0);
  });

  test(`${device.name}: test_fma_correctness`, async () => {
    for (const dtype of ['float32', 'float64'] as const) {
      if (!supportsDType(device, dtype)) {
        console.log(`${device.name}: test_fma_correctness(${dtype}) skipped: WGSL has no ${dtype}`);
        continue;
      }
      const knl = makeKernel('{[i]: 0<=i<n}', 'out[i] = fma(a[i], b[i], c[i])', [
        ...['a', 'b', 'c', 'out'].map((name) => globalArg(name, { dtype, shape: ['n'] })),
        valueArg('n', 'int32'),
      ]);
      const n = 1729;
      const data = (seed: number) => {
        const values = Array.from(randomFloat32(n, seed), (x) => (x + 1) / 2);
        return dtype === 'float32' ? Float32Array.from(values) : Float64Array.from(values);
      };
      const [a, b, c] = [data(1), data(2), data(3)];
      const { out } = await run(knl, device, { a, b, c, n });
      const rtol = dtype === 'float32' ? 1e-5 : 1e-12;
      Array.from(out as Float64Array).forEach((x, k) => {
        const expected = a[k] * b[k] + c[k];
        assert.ok(Math.abs(x - expected) <= rtol * Math.abs(expected), `${dtype} ${k}: ${x} vs ${expected}`);
      });
    }
  });

  test(`${device.name}: test_to_complex_casts`, async () => {
    if (!supportsDType(device, 'float64')) {
      console.log(`${device.name}: test_to_complex_casts skipped: complex128 needs float64, which WGSL lacks`);
      return;
    }
    // numpy's 'bhilqpBHILQPfdFD': every arithmetic dtype, as a scalar array, cast to complex128 plus complex64(7)
    const dtypes: DType[] = [
      'int8',
      'int16',
      'int32',
      'int64',
      'uint8',
      'uint16',
      'uint32',
      'uint64',
      'float32',
      'float64',
      'complex64',
      'complex128',
    ];
    const knl = makeKernel(
      [],
      dtypes.map((t) =>
        assignment(
          variable(`out_${t}`),
          expr.add(cast('complex128', subscript(`in_${t}`, [])), cast('complex128', cast('complex64', float(7)))),
          { id: `cast_${t}` },
        ),
      ),
      [...dtypes.map((t) => globalArg(`in_${t}`, { dtype: t, shape: [] })), '...'],
    );
    const host = (t: DType) => {
      switch (t) {
        case 'int64':
          return BigInt64Array.from([5n]);
        case 'uint64':
          return BigUint64Array.from([5n]);
        case 'complex64':
          return Float32Array.from([5, 2]);
        case 'complex128':
          return Float64Array.from([5, 2]);
        case 'int8':
          return Int8Array.from([5]);
        case 'int16':
          return Int16Array.from([5]);
        case 'int32':
          return Int32Array.from([5]);
        case 'uint8':
          return Uint8Array.from([5]);
        case 'uint16':
          return Uint16Array.from([5]);
        case 'uint32':
          return Uint32Array.from([5]);
        case 'float32':
          return Float32Array.from([5]);
        default:
          return Float64Array.from([5]);
      }
    };
    const out = await run(knl, device, Object.fromEntries(dtypes.map((t) => [`in_${t}`, host(t)])));
    for (const t of dtypes) {
      const imaginary = t.startsWith('complex') ? 2 : 0;
      assert.equal(Array.from(out[`out_${t}`] as Float64Array), [12, imaginary], t);
    }
  });
}

test('test_fma_codegen', () => {
  for (const dtype of ['float32', 'float64'] as const) {
    const knl = makeKernel('{[i]: 0<=i<n}', 'out[i] = fma(a[i], b[i], c[i])', [
      ...['a', 'b', 'c', 'out'].map((name) => globalArg(name, { dtype, shape: ['n'] })),
      valueArg('n', 'int32'),
    ]);
    assert.match(generateCode(knl, openclTarget()).code, /fma\(a\[i\], b\[i\], c\[i\]\)/, dtype);
    // JavaScript has no fused multiply-add: the CPU device's helper rounds once
    assert.match(
      generateCode(knl, jsTarget()).code,
      new RegExp(`loom\\.${dtype === 'float32' ? 'fma32' : 'fma'}\\(`),
      dtype,
    );
    if (dtype === 'float32') assert.match(generateCode(knl, wgslTarget()).code, /fma\(a\[i\], b\[i\], c\[i\]\)/);
  }
});

test.run();
