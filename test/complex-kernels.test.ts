/**
 * Complex values in kernels: complex64 and complex128 arguments (interleaved parts, as
 * `pointwise()` tensors have them), complex temporaries and literals (`1j`, `5jf`), complex
 * arithmetic and functions (pow too), on every device against plain JavaScript complex arithmetic in
 * doubles; and the LoomErrors for what has no complex meaning (ordering, a complex value
 * stored into a real array, complex128 on WebGPU).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateCode, globalArg, LoomError, makeKernel, run, splitIname, type Device } from '@loom/core';
import { wgslTarget } from '@loom/codegen-wgsl';
import { supportsDType, testDevices } from './support/devices.ts';

type C = readonly [number, number];

const mul = ([a, b]: C, [c, d]: C): C => [a * c - b * d, a * d + b * c];
const div = ([a, b]: C, [c, d]: C): C => {
  const m = c * c + d * d;
  return [(a * c + b * d) / m, (b * c - a * d) / m];
};
const add = ([a, b]: C, [c, d]: C): C => [a + c, b + d];
const cexp = ([a, b]: C): C => [Math.exp(a) * Math.cos(b), Math.exp(a) * Math.sin(b)];
const clog = ([a, b]: C): C => [Math.log(Math.hypot(a, b)), Math.atan2(b, a)];
const csqrt = ([a, b]: C): C => {
  const r = Math.hypot(a, b);
  const y = Math.sqrt((r - a) / 2);
  return [Math.sqrt((r + a) / 2), b < 0 ? -y : y];
};

const X: readonly C[] = [
  [1, 2],
  [-3, 0.5],
  [0.25, -4],
  [2, 0],
  [0, -1.5],
  [-1, -1],
];
const Y: readonly C[] = [
  [0.5, -1],
  [2, 3],
  [-1, 0.25],
  [0, 1],
  [1.5, 0],
  [3, -2],
];

const interleaved = (values: readonly C[], dtype: 'complex64' | 'complex128') =>
  (dtype === 'complex64' ? Float32Array : Float64Array).from(values.flat());
const pairs = (a: ArrayLike<number>): C[] =>
  Array.from({ length: a.length / 2 }, (_, k) => [a[2 * k], a[2 * k + 1]] as const);

function assertComplexClose(got: ArrayLike<number>, expected: readonly C[], rtol: number, what: string): void {
  assert.is(got.length, 2 * expected.length, `${what}: two numbers per element`);
  pairs(got).forEach(([re, im], k) => {
    const [er, ei] = expected[k];
    const scale = Math.max(Math.hypot(er, ei), 1e-30);
    const close = Math.abs(re - er) <= rtol * scale && Math.abs(im - ei) <= rtol * scale;
    assert.ok(close, `${what}: element ${k} is ${re} + ${im}j, expected ${er} + ${ei}j`);
  });
}

const complexDtypes = (device: Device) =>
  (['complex64', 'complex128'] as const).filter((t) =>
    supportsDType(device, t === 'complex64' ? 'float32' : 'float64'),
  );

for (const device of testDevices()) {
  for (const dtype of complexDtypes(device)) {
    const rtol = dtype === 'complex64' ? 2e-6 : 1e-14;

    test(`${device.name}: ${dtype} arithmetic, literals and functions against plain JavaScript`, async () => {
      const knl = makeKernel(
        '{ [i]: 0<=i<n }',
        [
          'prod[i] = x[i]*y[i]',
          'quot[i] = x[i]/y[i]',
          'mixed[i] = 2*x[i] - 0.5j + re[i]',
          'ex[i] = exp(x[i])',
          'lg[i] = log(x[i])',
          'rt[i] = sqrt(x[i])',
          'cj[i] = conj(x[i]) + 1',
          'modulus[i] = abs(x[i])',
          'parts[i] = real(x[i]) - 3*imag(y[i])',
          'same[i] = if(x[i] == conj(conj(x[i])), 1, 0)',
          'sq[i] = pow(x[i], 2)',
          'half[i] = pow(x[i], 0.5)',
          'zw[i] = pow(x[i], y[i])',
        ],
        [
          globalArg('x', { dtype, shape: ['n'] }),
          globalArg('y', { dtype, shape: ['n'] }),
          globalArg('re', { dtype: dtype === 'complex64' ? 'float32' : 'float64', shape: ['n'] }),
          '...',
        ],
      );
      const re = (dtype === 'complex64' ? Float32Array : Float64Array).from(X.map((_, k) => k - 2));
      const out = await run(knl, device, { x: interleaved(X, dtype), y: interleaved(Y, dtype), re });
      assertComplexClose(
        out.prod as Float32Array,
        X.map((x, k) => mul(x, Y[k])),
        rtol,
        'x*y',
      );
      assertComplexClose(
        out.quot as Float32Array,
        X.map((x, k) => div(x, Y[k])),
        rtol * 4,
        'x/y',
      );
      assertComplexClose(
        out.mixed as Float32Array,
        X.map((x, k) => add(mul([2, 0], x), [k - 2, -0.5])),
        rtol,
        '2*x - 0.5j + re',
      );
      const loose = dtype === 'complex64' ? 1e-5 : 1e-13;
      assertComplexClose(out.ex as Float32Array, X.map(cexp), loose, 'exp');
      assertComplexClose(out.lg as Float32Array, X.map(clog), loose, 'log');
      assertComplexClose(out.rt as Float32Array, X.map(csqrt), loose, 'sqrt');
      // pow of complex values is `**`: an integer exponent by products, any other exp(w log z)
      assertComplexClose(
        out.sq as Float32Array,
        X.map((x) => mul(x, x)),
        rtol,
        'pow(x, 2)',
      );
      assertComplexClose(out.half as Float32Array, X.map(csqrt), loose * 4, 'pow(x, 0.5)');
      assertComplexClose(
        out.zw as Float32Array,
        X.map((x, k) => cexp(mul(Y[k], clog(x)))),
        loose * 8,
        'pow(x, y)',
      );
      assertComplexClose(
        out.cj as Float32Array,
        X.map(([a, b]) => [a + 1, -b] as const),
        rtol,
        'conj + 1',
      );
      Array.from(out.modulus as Float32Array).forEach((m, k) =>
        assert.ok(Math.abs(m - Math.hypot(...X[k])) <= loose * m, `abs ${k}`),
      );
      assert.equal(
        Array.from(out.parts as Float32Array),
        X.map(([a], k) => a - 3 * Y[k][1]),
      );
      assert.equal(
        Array.from(out.same as Int32Array),
        X.map(() => 1),
      );
      assert.is(
        out.prod.constructor,
        dtype === 'complex64' ? Float32Array : Float64Array,
        'stored as parts of the part dtype',
      );
    });

    test(`${device.name}: ${dtype} temporaries, an in-place update and a sum reduction`, async () => {
      const knl = makeKernel(
        '{ [i, k]: 0<=i<n and 0<=k<n }',
        [
          `<${dtype}> t = y[i]*y[i] {id=sq}`,
          'x[i] = x[i]*y[i] + t {id=update, dep=sq}',
          'dot[i] = sum(k, y[k]*conj(y[k])) + 0j',
        ],
        [globalArg('x', { dtype, shape: ['n'] }), globalArg('y', { dtype, shape: ['n'] }), '...'],
      );
      const x = interleaved(X, dtype);
      const { dot } = await run(knl, device, { x, y: interleaved(Y, dtype) });
      assertComplexClose(
        x,
        X.map((v, k) => add(mul(v, Y[k]), mul(Y[k], Y[k]))),
        rtol * 4,
        'x*y + y*y, in place',
      );
      const norm = Y.reduce((s, [a, b]) => s + a * a + b * b, 0);
      assertComplexClose(
        dot as Float32Array,
        X.map(() => [norm, 0] as const),
        rtol * 4,
        'sum of |y|^2',
      );
    });
  }
}

test('the types of complex expressions follow the promotion rules', async () => {
  const { cpuDevice } = await import('@loom/codegen-js');
  const knl = makeKernel('{ [i]: 0<=i<n }', [
    'a[i] = f[i]*1j', //  float32 data with a weak 1j: complex64
    'b[i] = d[i]*1j', //  float64: complex128
    'c[i] = k[i] + 1j', // int32 meets 1j in complex128
    'e[i] = f[i] + 1jd', // a sized complex128 literal widens
  ]);
  const out = await run(knl, cpuDevice(), {
    f: new Float32Array([1, 2]),
    d: new Float64Array([1, 2]),
    k: new Int32Array([1, 2]),
  });
  assert.instance(out.a, Float32Array);
  assert.instance(out.b, Float64Array);
  assert.instance(out.c, Float64Array);
  assert.instance(out.e, Float64Array);
  assert.equal(Array.from(out.a as Float32Array), [0, 1, 0, 2]);
  assert.equal(Array.from(out.c as Float64Array), [1, 1, 2, 1]);
});

test('what has no complex meaning is a LoomError naming it', () => {
  const cx = [
    globalArg('z', { dtype: 'complex64', shape: ['n'] }),
    globalArg('w', { dtype: 'complex64', shape: ['n'] }),
    '...',
  ] as const;
  const fails = (insn: string, message: RegExp, args: readonly unknown[] = cx) => {
    const knl = makeKernel('{ [i, k]: 0<=i,k<n }', insn, [...args] as never);
    assert.throws(
      () => generateCode(knl, wgslTarget()),
      (e: unknown) => e instanceof LoomError && message.test(e.message),
      insn,
    );
  };
  fails('out[i] = if(z[i] < w[i], 1, 0)', /complex values cannot be ordered/);
  fails('out[i] = z[i] // w[i]', /\/\/ is not defined for complex values/);
  fails('r[i] = z[i]*2 {id=store}', /instruction 'store': assigns a complex value to the real 'r\[i\]'/, [
    ...cx,
    globalArg('r', { dtype: 'float32', shape: ['n'] }),
  ]);
  fails('r[i] = float32(z[i])', /would drop its imaginary part/, [
    ...cx,
    globalArg('r', { dtype: 'float32', shape: ['n'] }),
  ]);
  fails('out[i] = z[i] & 1', /bitwise operators take integers, not complex64/);
  fails('out[i] = product(k, z[k]) + w[i]', /a product reduction of complex values is not supported/);
  fails(
    'out[i] = z[i] + w[i]',
    /argument 'z' has dtype complex128, whose parts are float64: WGSL has no 64-bit floats/,
    [globalArg('z', { dtype: 'complex128', shape: ['n'] }), '...'],
  );
});

test('complex values in a split, parallel loop on every device', async () => {
  for (const device of testDevices()) {
    let knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = z[i]*z[i] - 1j', [
      globalArg('z', { dtype: 'complex64', shape: ['n'] }),
      '...',
    ]);
    knl = splitIname(knl, 'i', 4, { outerTag: 'g.0', innerTag: 'l.0' });
    const out = await run(knl, device, { z: interleaved(X, 'complex64') });
    assertComplexClose(
      out.out as Float32Array,
      X.map((x) => add(mul(x, x), [0, -1])),
      2e-6,
      device.name,
    );
  }
});

test.run();
