/**
 * Ports of loopy's test/test_c_execution.py (its `ExecutableCTarget`: C compiled and run on the
 * CPU), each on the C device (`@loom/codegen-c`) against plain JavaScript, and the tests of
 * test/test_target.py that print or run loopy's `CTarget` (the ones that run on every device,
 * NaN, infinities, the ternary and fma, are in test_target.py.test.ts, which runs on the C
 * device too). Names are the originals'. loopy's test_missing_compilers wipes PATH; Loom finds
 * its compiler by `LOOM_CC`, so the port names a compiler that is not there.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  constantArg,
  fixParameters,
  generateCode,
  globalArg,
  makeKernel,
  prioritizeLoops,
  run,
  splitIname,
  tagArrayAxes,
  temporaryVariable,
  valueArg,
  type LoopKernel,
} from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { cDevice, cTarget, cUnavailableReason } from '@loom/codegen-c';
import { cDeviceOrSkip } from '../support/backends.ts';
import { assertClose, randomFloat32 } from '../support/devices.ts';

const device = cDeviceOrSkip();
const cCode = (knl: LoopKernel) => generateCode(knl, cTarget()).code;

/** `0, 1, ..., n-1` as float32, numpy's `arange`. */
const arange = (n: number) => Float32Array.from({ length: n }, (_, k) => k);

/** A seeded generator of integers in [low, high) (numpy's `integers`): the sizes reproduce. */
function integers(seed: number): (low: number, high: number) => number {
  const random = randomFloat32(64, seed);
  let k = 0;
  return (low, high) => low + Math.floor(((random[k++ % random.length] + 1) / 2) * (high - low));
}

/** `out[...] = 2*a[...]` over `sizes`, one iname per axis, in row-major (`'C'`) or column-major (`'F'`) layout. */
function doubling(sizes: readonly (number | string)[], order: 'C' | 'F', name?: string): LoopKernel {
  const inames = ['i', 'j', 'k'].slice(0, sizes.length);
  const domains = inames.map((n, k) => `{ [${n}]: 0 <= ${n} < ${sizes[k]} }`);
  const indexed = inames.join(', ');
  let knl = makeKernel(
    domains,
    `out[${indexed}] = 2 * a[${indexed}]`,
    [globalArg('out', { dtype: 'float32', shape: sizes }), globalArg('a', { dtype: 'float32', shape: sizes }), '...'],
    name ? { name } : {},
  );
  if (order === 'F') knl = tagArrayAxes(knl, 'out,a', sizes.map(() => 'f').join(','));
  return knl;
}

/** Runs the doubling kernel on the C device and checks every element, whatever the layout: out = 2a elementwise. */
async function checkDoubling(knl: LoopKernel, count: number): Promise<void> {
  if (!device) return;
  const a = arange(count);
  const { out } = await run(knl, device, { a });
  assert.equal(
    Array.from(out as Float32Array),
    Array.from(a, (x) => 2 * x),
  );
}

test('test_c_target', async () => {
  const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]', [
    globalArg('out', { dtype: 'float32', shape: 'auto' }),
    globalArg('a', { dtype: 'float32', shape: 'auto' }),
    '...',
  ]);
  assert.match(cCode(knl), /static void loopy_kernel\(/);
  await checkDoubling(knl, 16);
});

test('test_c_target_strides', async () => {
  for (const order of ['C', 'F'] as const) {
    const knl = doubling(['n', 'n'], order);
    // the layouts index the arrays differently: row-major a[n * i + j], column-major a[i + n * j]
    // (summed in 64 bits from the first term: the C dialect's wideIndexSums)
    const index = order === 'C' ? /a\[\(int64_t\) \(n \* i\) \+ j\]/ : /a\[\(int64_t\) i \+ n \* j\]/;
    assert.match(cCode(knl), index, order);
    if (!device) continue;
    const a = arange(16 * 16);
    const { out } = await run(knl, device, { a, n: 16 });
    assert.equal(
      Array.from(out as Float32Array),
      Array.from(a, (x) => 2 * x),
      order,
    );
  }
});

test('test_c_target_strides_nonsquare', async () => {
  const draw = integers(42);
  for (const order of ['C', 'F'] as const) {
    const sizes = [draw(1, 11), draw(1, 11), draw(1, 11)];
    await checkDoubling(doubling(sizes, order, 'nonsquare_strides'), sizes[0] * sizes[1] * sizes[2]);
  }
});

test('test_c_optimizations', async () => {
  const draw = integers(42);
  for (const innerTag of ['ilp', 'unr'] as const) {
    const sizes = [draw(1, 11), draw(1, 11), draw(1, 11)];
    const knl = splitIname(doubling(sizes, 'C'), 'i', 4, { innerTag });
    await checkDoubling(knl, sizes[0] * sizes[1] * sizes[2]);
  }
});

test('test_function_decl_extractor', async () => {
  // a pointer to written data, a pointer to read-only data and a value: each declared as it is
  const knl = makeKernel('{[i]: 0 <= i < 10}', 'a[i] = b[i] + v', [
    globalArg('a', { shape: [10], dtype: 'int32' }),
    constantArg('b', { shape: [10], dtype: 'int32' }),
    valueArg('v', 'int32'),
  ]);
  const code = cCode(knl);
  assert.match(code, /int \*__restrict__ a/);
  assert.match(code, /int const \*__restrict__ b/);
  assert.match(code, /int const v/);
  if (!device) return;
  const { a } = await run(knl, device, { b: Int32Array.from(arange(10)), v: -1 });
  assert.equal(
    Array.from(a as Int32Array),
    Array.from(arange(10), (x) => x - 1),
  );
});

test('test_c_caching', async () => {
  // loopy checks its log for "retrieved from cache"; here: the device compiles the program
  // once (the same program object), and the disk cache holds one library, not written again
  if (!device) return;
  const saved = process.env.LOOM_CACHE_DIR;
  const folder = mkdtempSync(path.join(tmpdir(), 'loom-c-caching-'));
  process.env.LOOM_CACHE_DIR = folder;
  const fresh = cDevice()!;
  try {
    const knl = makeKernel(
      '{[i]: 0 <= i < 10}',
      'a[i] = b[i]',
      [globalArg('a', { shape: [10], dtype: 'int32' }), constantArg('b', { shape: [10], dtype: 'int32' })],
      {
        name: 'cache_test',
      },
    );
    const code = generateCode(knl, fresh.target);
    const first = await fresh.compile(code);
    const { a } = await run(knl, fresh, { b: Int32Array.from(arange(10)) });
    assert.equal(Array.from(a as Int32Array), Array.from(arange(10)));
    const [library] = readdirSync(path.join(folder, 'c'));
    const written = statSync(path.join(folder, 'c', library)).mtimeMs;
    // other arguments: the same code, so the same program
    const again = await run(knl, fresh, { b: Int32Array.from(arange(10), (x) => x + 1) });
    assert.equal(
      Array.from(again.a as Int32Array),
      Array.from(arange(10), (x) => x + 1),
    );
    assert.is(await fresh.compile(code), first, 'compiled once');
    assert.equal(readdirSync(path.join(folder, 'c')), [library]);
    assert.is(statSync(path.join(folder, 'c', library)).mtimeMs, written, 'the library was not written again');
  } finally {
    fresh.dispose();
    if (saved === undefined) delete process.env.LOOM_CACHE_DIR;
    else process.env.LOOM_CACHE_DIR = saved;
    rmSync(folder, { recursive: true, force: true });
  }
});

test('test_c_execution_with_global_temporaries', async () => {
  // loopy checks that its host code declares no `int b[10]`: here the global table is a buffer
  // that the run fills from the initializer and passes as a read-only argument
  const n = 10;
  let knl = makeKernel('{[i]: 0 <= i < n}', 'a[i] = b[i]', [
    globalArg('a', { shape: [n], dtype: 'int32' }),
    temporaryVariable('b', {
      shape: [n],
      initializer: Int32Array.from(arange(n)),
      dtype: 'int32',
      readOnly: true,
      addressSpace: 'global',
    }),
    '...',
  ]);
  knl = fixParameters(knl, { n });
  const code = cCode(knl);
  assert.not.match(code, /int b\[10\]/);
  assert.match(code, /int const \*__restrict__ b/);
  if (!device) return;
  const { a } = await run(knl, device, { a: new Int32Array(10) });
  assert.equal(Array.from(a as Int32Array), Array.from(arange(n)));
});

test('test_missing_compilers', async () => {
  const knl = fixParameters(
    makeKernel('{[i]: 0 <= i < n}', 'a[i] = b[i]', [
      globalArg('a', { shape: [10], dtype: 'int32' }),
      globalArg('b', { shape: [10], dtype: 'int32' }),
      '...',
    ]),
    { n: 10 },
  );
  // code is generated without a compiler
  assert.match(cCode(knl), /a\[i\] = b\[i\];/);
  const saved = process.env.LOOM_CC;
  process.env.LOOM_CC = 'foo';
  try {
    // a made-up compiler: no device, and the reason names it
    assert.is(cDevice(), undefined);
    assert.match(cUnavailableReason(), /no C compiler: tried foo .*LOOM_CC/);
  } finally {
    if (saved === undefined) delete process.env.LOOM_CC;
    else process.env.LOOM_CC = saved;
  }
  // with the compiler found again, the kernel runs
  if (!device) return;
  const b = Int32Array.from(arange(10));
  const { a } = await run(knl, device, { a: new Int32Array(10), b });
  assert.equal(Array.from(a as Int32Array), Array.from(b));
});

test('test_one_length_loop', async () => {
  // loopy issue 239: a loop of one trip
  const knl = makeKernel('{[i]: 0<=i<1}', 'a[i] = 42.0');
  if (!device) return;
  const { a } = await run(knl, device);
  assert.equal(Array.from(a as Float64Array), [42]);
});

test('test_scalar_global_args', async () => {
  const n = integers(7)(30, 100);
  const knl = makeKernel('{[i]: 0<=i<n}', 'res = sum(i, i)');
  if (!device) return;
  const { res } = await run(knl, device, { n });
  assert.equal(Array.from(res as ArrayLike<number>), [(n * (n - 1)) / 2]);
});

// --- test_target.py's tests of CTarget and ExecutableCTarget ---

test('test_target.py::test_generate_c_snippet', async () => {
  let knl = makeKernel(
    '{[I, k]: 0<=I<nSpace and 0<=k<nQuad}',
    ['f[I] = sum(k, q_v[k, I]*u)', 'df[I] = sum(k, q_v[k, I])'],
    [
      globalArg('q_v', { dtype: 'float64', shape: ['nQuad', 'nSpace'] }),
      globalArg('f', { dtype: 'float64', shape: ['nSpace'] }),
      globalArg('df', { dtype: 'float64', shape: ['nSpace'] }),
      valueArg('u', 'float64'),
      '...',
    ],
    { assumptions: 'nQuad>=1' },
  );
  knl = splitIname(knl, 'k', 4, { innerTag: 'unr', slabs: [0, 1] });
  knl = prioritizeLoops(knl, 'I,k_outer,k_inner');
  // loopy prints it; here it is also compiled and run, against the CPU device
  assert.match(cCode(knl), /for \(int I = 0; I <= -1 \+ nSpace; \+\+I\)/);
  if (!device) return;
  const [nQuad, nSpace] = [7, 5];
  const data = { q_v: Float64Array.from(randomFloat32(nQuad * nSpace, 3)), u: 1.5, nQuad, nSpace };
  const expected = await run(knl, cpuDevice(), data);
  const actual = await run(knl, device, data);
  for (const out of ['f', 'df'])
    assertClose(actual[out] as Float64Array, expected[out] as Float64Array, out, 1e-14, 1e-14);
});

for (const tp of ['float32', 'float64'] as const) {
  test(`test_target.py::test_math_function (C, ${tp})`, () => {
    // loopy's C target prints fminf for float32: Loom's C prints C's names by precision, and its
    // min/max (NaN-propagating) and fmin/fmax (zeros ordered) are helpers on every C-family target
    const data = ['x', 'y', 'z'].map((name) => globalArg(name, { dtype: tp, shape: [100] }));
    const code = (insn: string) => cCode(makeKernel('{[i]: 0<=i<100}', insn, data));
    assert.match(code('x[i] = min(y[i], z[i])'), new RegExp(`loom_minimum_${tp}\\(y\\[i\\], z\\[i\\]\\)`));
    assert.match(code('x[i] = fmax(y[i], z[i])'), new RegExp(`loom_fmax_${tp}\\(y\\[i\\], z\\[i\\]\\)`));
    assert.match(
      code('x[i] = fmod(y[i], z[i])'),
      new RegExp(`${tp === 'float32' ? 'fmodf' : 'fmod'}\\(y\\[i\\], z\\[i\\]\\)`),
    );
  });
}

test('test_target.py::test_fma_codegen (C)', () => {
  for (const dtype of ['float32', 'float64'] as const) {
    const knl = makeKernel('{[i]: 0<=i<n}', 'out[i] = fma(a[i], b[i], c[i])', [
      ...['a', 'b', 'c', 'out'].map((name) => globalArg(name, { dtype, shape: ['n'] })),
      valueArg('n', 'int32'),
    ]);
    assert.match(
      cCode(knl),
      dtype === 'float32' ? /fmaf\(a\[i\], b\[i\], c\[i\]\)/ : /[^a-z]fma\(a\[i\], b\[i\], c\[i\]\)/,
      dtype,
    );
  }
});

test('test_target.py::test_argmax_ctarget_floating_point', async () => {
  for (const dtype of ['float32', 'float64'] as const) {
    const knl = addDtypes(makeKernel('{[i]: 0<=i<n}', 'max_val[0], max_ind[0] = argmax(i, a[i], i)'), { a: dtype });
    if (!device) return;
    const a = dtype === 'float32' ? new Float32Array([1, 3, 70, 5, 4]) : new Float64Array([1, 3, 70, 5, 4]);
    const { max_val, max_ind } = await run(knl, device, { a });
    assert.equal(Array.from(max_val as ArrayLike<number>), [70], dtype);
    assert.equal(Array.from(max_ind as ArrayLike<number>), [2], dtype);
  }
});

test.run();
