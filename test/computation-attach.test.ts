/**
 * `attach` on plain Loom kernels (@loom/computation): a transformation fused into the loads
 * or stores of any kernel — a hand-written one, the DSL's builder (`.attach`), a pointwise()
 * variant, the tuned matmul of examples/matmul.ts — checked on every device against plain JS;
 * and what cannot be fused correctly, refused with a LoomError saying why.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  DeviceArray,
  fixParameters,
  generateCode,
  globalArg,
  LoomError,
  makeKernel,
  run,
  type LoopKernel,
} from '@loom/core';
import { kernel, f32 } from '@loom/dsl';
import { cpuDevice } from '@loom/codegen-js';
import { openclTarget } from '@loom/codegen-opencl';
import { attach, cast, ignore, mulConst, mulParam, pureParallel, transformation } from '@loom/computation';
import { pointwise, tensor } from '@loom/elementwise';
import { DEFAULT_MATMUL, matmulKernel } from '../examples/matmul.ts';
import { assertClose, randomFloat32, testDevices } from './support/devices.ts';

function refused(make: () => unknown, message: string | RegExp): void {
  try {
    make();
    assert.unreachable(`expected a LoomError matching ${message}`);
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    assert.match(e.message, message);
  }
}

/** The seed's transformation: out1 = in1; out2 (80 elements) = in2 reversed * param. */
const seed = transformation({
  name: 'seed',
  params: [
    { name: 'out1', dtype: 'float32', shape: [100], role: 'o' },
    { name: 'out2', dtype: 'float32', shape: [80], role: 'o' },
    { name: 'in1', dtype: 'float32', shape: [100], role: 'i' },
    { name: 'in2', dtype: 'float32', shape: [100], role: 'i' },
    { name: 'param', dtype: 'float32', role: 's' },
  ],
  body: `
    i1 = loadSame(in1)
    i2 = loadIdx(in2, 99 - idx0) * param
    storeSame(out1, i1)
    if idx0 < 80
      storeIdx(out2, idx0, i2)
    end
  `,
  connectors: ['in1', 'out1'],
});

const double = (): LoopKernel =>
  makeKernel('{ [i]: 0<=i<n }', 'y[i] = 2*x[i]', [globalArg('x', { dtype: 'float32' }), '...']);

test('a matrix product with a scaling on its output and a cast on one input is ONE kernel, and matches plain JS', async () => {
  const n = 128;
  let knl = matmulKernel(DEFAULT_MATMUL, n);
  knl = attach(knl, 'a', cast({ dtype: 'int32' }, 'float32'), 'output', { input: 'a_int' });
  knl = attach(knl, 'c', mulConst({ dtype: 'float32' }, 0.5), 'input', { output: 'c_scaled' });
  knl = addDtypes(knl, { b: 'float32' });
  const code = generateCode(knl, openclTarget());
  assert.is(code.kernels.length, 1, 'one device kernel');
  assert.is(code.code.match(/__kernel/g)?.length, 1, 'one __kernel in the code');
  assert.match(code.code, '= (float) a_int[', 'the cast happens as the tile of a is fetched');
  assert.match(code.code, /c_scaled\[[^\]]+\] = acc\w*\[0\] \* 0\.5f/, 'the scaling happens as c is stored');

  const a = Int32Array.from({ length: n * n }, (_, x) => ((x * 7) % 13) - 6);
  const b = randomFloat32(n * n, 3);
  const expected = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let k = 0; k < n; k++) for (let j = 0; j < n; j++) expected[i * n + j] += a[i * n + k] * b[k * n + j];
  for (const device of testDevices()) {
    const { c_scaled } = await run(knl, device, { a_int: a, b });
    assertClose(
      c_scaled as Float32Array,
      expected.map((x) => x * 0.5),
      device.name,
      1e-5,
      1e-4,
    );
  }
});

test("the seed's transformation on a kernel's output: out1 of 100 and out2 of 80, guarded", async () => {
  const knl = attach(fixParameters(double(), { n: 100 }), 'y', seed, 'in1', {
    out1: 'y1',
    out2: 'y2',
    in2: 'z',
    param: 'p',
  });
  assert.equal(knl.args.map((a) => a.name).sort(), ['p', 'x', 'y1', 'y2', 'z']);
  const x = randomFloat32(100, 1);
  const z = randomFloat32(100, 2);
  for (const device of testDevices()) {
    const { y1, y2 } = await run(knl, device, { x, z, p: 0.5 });
    assertClose(
      y1 as Float32Array,
      Array.from(x, (v) => 2 * v),
      device.name,
    );
    assertClose(
      y2 as Float32Array,
      Array.from({ length: 80 }, (_, i) => Math.fround(z[99 - i] * 0.5)),
      device.name,
    );
  }
});

test('a transformation on what a kernel reads: every read becomes its value, at the read index', async () => {
  const reversed = transformation({
    params: [
      { name: 'o', dtype: 'float32', role: 'o' },
      { name: 'i', dtype: 'float32', role: 'i' },
      { name: 'k', dtype: 'float32', role: 's' },
    ],
    body: 'storeSame(o, loadIdx(i, 99 - idx0) * k)',
  });
  const knl = attach(fixParameters(double(), { n: 100 }), 'x', reversed, 'o', { i: 'src', k: 'k' });
  const src = randomFloat32(100, 4);
  for (const device of testDevices()) {
    const { y } = await run(knl, device, { src, k: 3 });
    assertClose(
      y as Float32Array,
      Array.from({ length: 100 }, (_, i) => 2 * Math.fround(src[99 - i] * 3)),
      device.name,
      1e-6,
    );
  }
});

test('attaching again to a new argument grows a tree; the arguments are its leaves', async () => {
  let knl = attach(double(), 'x', mulConst({ dtype: 'float32' }, 3), 'output', { input: 'x1' });
  knl = attach(knl, 'x1', mulParam({ dtype: 'float32' }), 'output', { input: 'x2', param: 'k' });
  knl = attach(knl, 'y', ignore({ dtype: 'float32' }), 'input', {});
  const knl2 = attach(double(), 'y', cast({ dtype: 'float32' }, 'float64'), 'input', { output: 'y64' });
  assert.equal(knl.args.map((a) => a.name).sort(), ['k', 'n', 'x2'].sort());
  const x2 = randomFloat32(10, 5);
  for (const device of testDevices()) {
    const out = await run(knl, device, { x2, k: 2 });
    assert.equal(Object.keys(out), [], 'ignore: nothing is stored');
  }
  assert.is(knl2.arg('y64')?.dtype, 'float64');
});

test("the DSL's .attach: run() is typed by the leaves and the result matches", async () => {
  const k = kernel('{ [i]: 0<=i<n }', 'y[i] = 2*x[i]')
    .args({ x: f32('n'), y: f32.out('n') })
    .attach('y', mulParam({ dtype: 'float32' }), 'input', { output: 'scaled', param: 'alpha' })
    .split('i', 64, { outer: 'g.0', inner: 'l.0' });
  const x = randomFloat32(200, 6);
  for (const device of testDevices()) {
    const { scaled } = await k.run(device, { x, alpha: 0.25 });
    assertClose(
      scaled,
      Array.from(x, (v) => 2 * v * 0.25),
      device.name,
    );
  }
});

test('a pointwise() variant takes fused pre- and post-processing', async () => {
  // the flat variant (the CPU device's), whose scalars below are its own, run on every device
  const device = cpuDevice();
  const add = pointwise({}, (x: number, y: number) => x + y * 2);
  const a = Float32Array.from([1, 2, 3, 4]);
  const plan = add.plan(tensor(a, [4], { device }), tensor(new Float32Array(4), [4], { device }));
  let knl = attach(plan.kernel, 'buf1', cast({ dtype: 'int32' }, 'float32'), 'output', { input: 'ints' });
  knl = attach(knl, 'buf2', mulConst({ dtype: 'float32' }, 10), 'input', { output: 'out' });
  const ints = Int32Array.from([10, 20, 30, 40]);
  for (const d of testDevices()) {
    const { out } = await run(knl, d, {
      buf0: a,
      ints,
      n: 4,
      in0_offset: 0,
      in1_offset: 0,
      out0_offset: 0,
      buf2_size: 4,
    });
    assert.equal([...(out as Float32Array)], [210, 420, 630, 840], d.name);
  }
});

test('refused: a kernel that reads back what it writes, atomics, wrong directions and types, unknown names', () => {
  const readBack = makeKernel('{ [i]: 0<=i<n }', ['y[i] = 2*x[i] {id=w}', 'z[i] = y[i] + 1 {id=r, dep=w}']);
  refused(
    () => attach(readBack, 'y', mulConst({ dtype: 'float32' }, 2), 'input', { output: 'y2' }),
    "reads 'y' as well as writing it, in instruction 'r'",
  );
  const accumulate = makeKernel('{ [i, k]: 0<=i,k<n }', 'y[i] = y[i] + x[i, k]');
  refused(
    () => attach(accumulate, 'y', mulConst({ dtype: 'float32' }, 2), 'input', { output: 'y2' }),
    'writes the same element more than once',
  );
  // an elementwise update (each element read, then written once) is fine
  const update = makeKernel('{ [i]: 0<=i<n }', 'y[i] = y[i] + x[i]');
  assert.ok(attach(update, 'y', mulConst({ dtype: 'float32' }, 2), 'input', { output: 'y2' }).arg('y')?.isInput);
  refused(
    () => attach(double(), 'x', mulConst({ dtype: 'float32' }, 2), 'input', { output: 'x2' }),
    "the kernel never writes 'x'",
  );
  refused(
    () => attach(double(), 'y', mulConst({ dtype: 'float32' }, 2), 'output', { input: 'y2' }),
    "the kernel never reads 'y'",
  );
  refused(
    () => attach(double(), 'x', mulConst({ dtype: 'float64' }, 2), 'output', { input: 'x2' }),
    "connector 'output' is float64, but argument 'x' is float32",
  );
  refused(
    () => attach(double(), 'x', seed, 'out1', { out2: 'a', in1: 'b', in2: 'c', param: 'd' }),
    "has shape (100), but argument 'x' has (n): fix the kernel's parameters first",
  );
  refused(
    () => attach(fixParameters(double(), { n: 100 }), 'x', seed, 'out1', { out2: 'a', in1: 'b', in2: 'c', param: 'd' }),
    "it also stores 'out2'",
  );
  refused(
    () => attach(double(), 'q', mulConst({ dtype: 'float32' }, 2), 'output', { input: 'x2' }),
    "the kernel has no argument 'q'",
  );
  refused(
    () => attach(double(), 'x', mulConst({ dtype: 'float32' }, 2), 'output', {} as never),
    "the mapping names [], but the transformation's other parameters are [input]",
  );
  refused(
    () => attach(double(), 'x', mulConst({ dtype: 'float32' }, 2), 'output', { input: 'i' }),
    "'i' (for parameter 'input') is already an iname",
  );
  refused(
    () => attach(double(), 'x', mulConst({ dtype: 'float32' }, 2), 'output', { input: 'y' }),
    "the transformation would read 'y' (parameter 'input'), which the kernel writes",
  );
  const atomic = makeKernel('{ [i]: 0<=i<n }', 'y[0] = y[0] + x[i] {atomic}', [
    globalArg('y', { dtype: 'float32', forAtomic: true, shape: [1] }),
    '...',
  ]);
  refused(
    () => attach(atomic, 'y', mulConst({ dtype: 'float32' }, 2), 'input', { output: 'y2' }),
    /reads 'y' as well as writing it|atomically/,
  );
});

test('refused when the transformation is made: bodies that read memory directly, misuse connectors, or name unknown things', () => {
  const make = (body: string, connectors?: readonly ('o' | 'i')[]) =>
    transformation({
      params: [
        { name: 'o', dtype: 'float32', role: 'o' },
        { name: 'i', dtype: 'float32', role: 'i' },
        { name: 's', dtype: 'float32', role: 's' },
      ],
      body,
      connectors,
    });
  refused(() => make('storeSame(o, i[idx0])'), "'i[...]' reads memory directly; use loadIdx(i, ...)");
  refused(() => make('storeSame(o, loadSame(i) + q)'), "unknown name 'q'");
  refused(
    () => make('storeSame(o, loadSame(o))'),
    "loadSame(o, ...): 'o' is an output; only inputs (role i) are loaded",
  );
  refused(() => make('storeSame(i, 1)'), "'i' is an input; only outputs (role o) are stored");
  refused(() => make('storeIdx(o, idx0 + 1, loadSame(i))', ['o']), "connector 'o' is stored with storeIdx");
  refused(() => make('if idx0 < 3\n  storeSame(o, loadSame(i))\nend', ['o']), "connector 'o' is stored inside an 'if'");
  refused(() => make('storeSame(o, loadIdx(i, idx0 + 1))', ['i']), "connector 'i' is read with loadIdx");
  refused(() => make('storeSame(o, sum(k, loadSame(i)))'), 'it cannot reduce');
  refused(() => make('if idx0 < 3\n  storeSame(o, 1)'), "this 'if' has no 'end'");
  refused(() => make('storeSame(o, loadSame(i) @ 2)'), "unexpected character '@'");
  // and with no connectors given, the parameters that qualify
  assert.equal(make('storeSame(o, loadIdx(i, idx0 + 1) * s)').connectors, ['o']);
});

test("a computation's attach: a new output named like an existing input is a LoomError, not an in-out parameter that overwrites the caller's input (issue 24)", async () => {
  const n = 37;
  const twice = () =>
    pureParallel({
      params: [
        { name: 'y', dtype: 'float32', shape: [n], role: 'o' },
        { name: 'x', dtype: 'float32', shape: [n], role: 'i' },
      ] as const,
      body: 'y[idx0] = 2 * x[idx0]',
    });
  const half = mulConst({ dtype: 'float32', shape: [n] }, 0.5);
  const x = randomFloat32(n, 24);
  // y is written through half into a new output named like the input x
  refused(
    () => twice().attach('y', half, 'input', { output: 'x' }),
    /the transformation's output 'output' is mapped to 'x', an existing input .*overwrite the caller's 'x'.*\{ output: 'x_out' \}.*\{ inOut: \['x'\] \}/,
  );
  // and an input-path transformation reading a new input named like the output y
  refused(
    () => twice().attach('x', mulConst({ dtype: 'float32', shape: [n] }, 3), 'output', { input: 'y' }),
    /the transformation's input 'input' is mapped to 'y', an existing output/,
  );
  // an inOut naming no join is an option that cannot be honoured
  refused(
    () => twice().attach('y', half, 'input', { output: 'y_half' }, { inOut: ['x'] }),
    "inOut names 'x', but no input and output of this attach meet there",
  );
  refused(() => twice().attach('y', half, 'input', { output: 'y_half' }, { inout: ['x'] } as never), 'inout');

  const renamed = twice().attach('y', half, 'input', { output: 'x_out' });
  assert.equal(
    renamed.signature.map((p) => `${p.name}:${p.role}`),
    ['x_out:o', 'x:i'],
  );
  // asked for, the join is made (test_transformation.py's test_io_merge runs one on every device)
  const inOut = twice().attach('y', half, 'input', { output: 'x' }, { inOut: ['x'] });
  assert.equal(
    inOut.signature.map((p) => `${p.name}:${p.role}`),
    ['x:io'],
  );
  for (const device of testDevices()) {
    // renamed: the caller's input stays as it was
    const given = x.slice();
    const { x_out } = await (await renamed.compile(device))(undefined, given);
    assert.equal([...given], [...x], `${device.name}: the input is left alone`);
    assertClose(x_out as Float32Array, x, `${device.name}: x_out`);
    // the join runs in place on every device (WebGPU refused one buffer bound read and written: aliasing.ts)
    const io = await inOut.compile(device);
    const inPlace = x.slice();
    await io(inPlace);
    assertClose(inPlace, x, `${device.name}: inOut, a host array`);
    const onDevice = await DeviceArray.from(device, x, 'float32');
    await io(onDevice);
    const prepared = await io.prepare(onDevice);
    await prepared.launch();
    assertClose(
      (await onDevice.toHost()) as Float32Array,
      x,
      `${device.name}: inOut, a DeviceArray, called and prepared`,
    );
    prepared.release();
    onDevice.release();
  }
});

test.run();
