/**
 * Memory safety by construction (issue 11): an index read from data can never make a
 * kernel touch memory outside its arrays, on any device. Out of bounds, a write is
 * dropped and a read gives 0 of the array's dtype (README, "Out-of-bounds accesses");
 * with `checkBounds` (default on the CPU device, or LOOM_DEBUG) `run` also raises a
 * LoomError naming the array, the instruction and the index.
 *
 * Every case is compared with plain JS implementing those semantics. The canary tests
 * surround the kernel's arrays with memory the test can see (a device buffer larger
 * than the array, a host view inside a larger allocation) and check it stays intact.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  DeviceArray,
  generateCode,
  globalArg,
  LoomError,
  makeKernel,
  parseExpression,
  prepareLaunch,
  run,
  setDebugMode,
  tagArrayAxes,
  type LoopKernel,
} from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { openclTarget } from '@loom/codegen-opencl';
import { testDevices } from './support/devices.ts';

// the reproductions of the issue: far past the end (a segfault on PoCL), inside the
// allocator's heap (a silent write there), just before the start, exactly the length
const BAD = [2 ** 28, 2 ** 20, -1];
const N = 8;

/** `<int32> t = idx[i]`, then `out[t] = 2*a[i]`: the index goes through a temporary. */
const scatter = makeKernel(
  '{ [i]: 0<=i<n }',
  ['<int32> t = idx[i] {id=t}', 'out[t] = 2*a[i] {id=w, dep=t}'],
  [globalArg('out', { shape: ['m'], dtype: 'float32', isInput: true }), '...'],
);
const gather = makeKernel('{ [i]: 0<=i<n }', 'out[i] = a[idx[i]] {id=g}', [
  globalArg('a', { shape: ['m'], dtype: 'float32' }),
  '...',
]);

/**
 * A private array `w[4]` written and read at `idx[i]`. A temporary's shape is inferred
 * from its affine accesses, so the kernel is made with stand-ins (`w[3]`) that the data
 * indices then replace.
 */
function privateScatter(): LoopKernel {
  const knl = makeKernel('{ [i,k]: 0<=i<n and 0<=k<4 }', [
    '<float32> w[k] = k + 1 {id=fill}',
    'w[3] = 100 + 0*idx[i] {id=set, dep=fill}',
    'out[i] = w[0] + w[1] + w[2] + w[3] + w[3] {id=sum, dep=set}',
  ]);
  return replaced(knl, {
    set: ['w[idx[i]]', '100'],
    sum: ['out[i]', 'w[0] + w[1] + w[2] + w[3] + w[idx[i]]'],
  });
}

/** The kernel with instructions' assignee and expression replaced, by id. */
function replaced(knl: LoopKernel, by: Record<string, [string, string]>): LoopKernel {
  return knl.with({
    instructions: knl.instructions.map((insn) =>
      by[insn.id]
        ? { ...insn, assignees: [parseExpression(by[insn.id][0])], expression: parseExpression(by[insn.id][1]) }
        : insn,
    ),
  });
}

const inRange = (k: number, n: number) => k >= 0 && k < n;
const indices = (m: number) => Int32Array.from([3, BAD[0], 0, BAD[1], m - 1, BAD[2], m, 5]);
const floats = (n: number, scale = 1) => Float32Array.from({ length: n }, (_, k) => (k + 1) * scale);
const unchecked = { checkBounds: false };

/** LoomError whose message matches every pattern. */
async function raises(work: () => Promise<unknown>, ...patterns: RegExp[]): Promise<void> {
  try {
    await work();
  } catch (e) {
    assert.instance(e, LoomError);
    for (const p of patterns) assert.match((e as Error).message, p);
    return;
  }
  assert.unreachable('expected a LoomError');
}

for (const device of testDevices()) {
  const on = device.name;

  test(`${on}: writes through a temporary index: bad indices are dropped`, async () => {
    const idx = indices(N);
    const a = floats(N);
    const out = floats(N, -1);
    const expected = out.slice();
    idx.forEach((t, i) => inRange(t, N) && (expected[t] = 2 * a[i]));
    await run(scatter, device, { idx, a, out, m: N }, unchecked);
    assert.equal(Array.from(out), Array.from(expected));
  });

  test(`${on}: reads through a data index: bad indices read 0`, async () => {
    const idx = indices(N);
    const a = floats(N);
    const { out } = await run(gather, device, { idx, a, m: N }, unchecked);
    assert.equal(
      Array.from(out as Float32Array),
      Array.from(idx, (k) => (inRange(k, N) ? a[k] : 0)),
    );
  });

  test(`${on}: 2-D: each axis is guarded, also where the flat offset stays inside the buffer`, async () => {
    const [R, C] = [3, 4];
    // (1, 5) is flat 9 and (2, -1) flat 7: inside the buffer, outside the array
    const r = Int32Array.from([0, 1, 2, -1, 3, 2, BAD[1]]);
    const c = Int32Array.from([1, 5, -1, 2, 0, 3, 0]);
    const a = floats(r.length);
    const write = makeKernel('{ [i]: 0<=i<n }', 'out[r[i], c[i]] = a[i] {id=w2}', [
      globalArg('out', { shape: [R, C], dtype: 'float32' }),
      '...',
    ]);
    const out = floats(R * C, -1);
    const expected = out.slice();
    r.forEach((row, i) => inRange(row, R) && inRange(c[i], C) && (expected[row * C + c[i]] = a[i]));
    await run(write, device, { r, c, a, out }, unchecked);
    assert.equal(Array.from(out), Array.from(expected));

    const read = makeKernel('{ [i]: 0<=i<n }', 'out[i] = b[r[i], c[i]] {id=g2}', [
      globalArg('b', { shape: [R, C], dtype: 'float32' }),
      '...',
    ]);
    const b = floats(R * C);
    const { out: got } = await run(read, device, { r, c, b }, unchecked);
    assert.equal(
      Array.from(got as Float32Array),
      Array.from(r, (row, i) => (inRange(row, R) && inRange(c[i], C) ? b[row * C + c[i]] : 0)),
    );
  });

  test(`${on}: integer arrays read 0 of their dtype`, async () => {
    const knl = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[idx[i]] {id=g}', [
      globalArg('a', { shape: ['m'], dtype: 'int32' }),
      '...',
    ]);
    const idx = indices(N);
    const a = Int32Array.from({ length: N }, (_, k) => 10 * k + 1);
    const { out } = await run(knl, device, { idx, a, m: N }, unchecked);
    assert.equal(
      Array.from(out as Int32Array),
      Array.from(idx, (k) => (inRange(k, N) ? 2 * a[k] : 0)),
    );
  });

  test(`${on}: private temporaries indexed by data are guarded too`, async () => {
    // w starts as [1, 2, 3, 4]; each i sets w[idx[i]] = 100 and sums w
    const idx = Int32Array.from([1, 4, BAD[1], -1, 3, 2 ** 20 + 2]);
    const w = [1, 2, 3, 4];
    const expected = Array.from(idx, (k) => {
      if (inRange(k, 4)) w[k] = 100;
      return w[0] + w[1] + w[2] + w[3] + (inRange(k, 4) ? w[k] : 0);
    });
    const { out } = await run(privateScatter(), device, { idx }, unchecked);
    assert.equal(Array.from(out as Float32Array), expected);
    await raises(
      () => run(privateScatter(), device, { idx }, { checkBounds: true }),
      /instruction 'set' writes 'w' at index idx\[i\]/,
      /instruction 'sum' reads 'w'/,
    );
  });

  test(`${on}: canary: a device buffer larger than the array keeps its tail`, async () => {
    const guard = 64;
    const canary = -12345;
    const fill = Float32Array.from({ length: N + guard }, (_, k) => (k < N ? 0 : canary));
    // the kernel's 'out' is the first N elements; the rest is a guard region it must not touch
    const buffer = device.allocate(fill.byteLength);
    await device.write(buffer, fill);
    const out = new DeviceArray(device, buffer, 'float32', [N]);
    // every index of the guard region, and those of the issue
    const idx = Int32Array.from([...Array.from({ length: guard }, (_, k) => N + k), ...BAD]);
    await run(scatter, device, { idx, a: floats(idx.length), out, m: N }, unchecked);
    // reads from that region give 0, not the canary (the region holds it when unguarded)
    const a = new DeviceArray(device, buffer, 'float32', [N]);
    const { out: read } = await run(gather, device, { idx, a, m: N }, unchecked);
    const after = new Float32Array(N + guard);
    await device.read(buffer, after);
    device.release(buffer);
    assert.equal(Array.from(after), Array.from(fill));
    assert.equal(
      Array.from(read as Float32Array),
      Array.from(idx, () => 0),
    );
  });

  test(`${on}: canary: host views inside a larger allocation keep the bytes around them`, async () => {
    const big = new Float32Array(3 * N).fill(-777);
    const out = new Float32Array(big.buffer, N * 4, N).fill(0);
    const idx = Int32Array.from([N, -1, N + 1, -N, 2 ** 20, 2]);
    await run(scatter, device, { idx, a: floats(idx.length), out, m: N }, unchecked);
    assert.equal(Array.from(big.subarray(0, N)), new Array(N).fill(-777));
    assert.equal(Array.from(big.subarray(2 * N)), new Array(N).fill(-777));
    assert.equal(Array.from(out), [0, 0, 12, 0, 0, 0, 0, 0]);
  });

  test(`${on}: checkBounds: a LoomError names the array, the instruction and the index`, async () => {
    const args = () => ({ idx: Int32Array.from([1, 2 ** 28, 0]), a: floats(3), out: new Float32Array(N), m: N });
    await raises(
      () => run(scatter, device, args(), { checkBounds: true }),
      /instruction 'w' writes 'out' at index t = 268435456, outside its extent m = 8/,
    );
    await raises(
      () => run(gather, device, { idx: Int32Array.from([0, -1]), a: floats(N), m: N }, { checkBounds: true }),
      /instruction 'g' reads 'a' at index idx\[i\] = -1, outside its extent m = 8/,
    );
    const grid = makeKernel('{ [i]: 0<=i<n }', 'out[r[i], c[i]] = 1 {id=w2}', [
      globalArg('out', { shape: [3, 4], dtype: 'float32' }),
      '...',
    ]);
    await raises(
      () =>
        run(
          grid,
          device,
          { r: Int32Array.from([1]), c: Int32Array.from([5]), out: new Float32Array(12) },
          { checkBounds: true },
        ),
      /writes 'out' at index c\[i\] = 5 on axis 1, outside its extent 4/,
    );
    // good indices raise nothing, and the flags start clean on every call
    const { out } = await run(
      scatter,
      device,
      { idx: Int32Array.from([2, 0]), a: floats(2), out: new Float32Array(N), m: N },
      { checkBounds: true },
    );
    assert.equal(Array.from(out as Float32Array), [4, 0, 2, 0, 0, 0, 0, 0]);
  });

  test(`${on}: checkBounds by default: on the CPU device, elsewhere with LOOM_DEBUG`, async () => {
    const bad = () => run(scatter, device, { idx: Int32Array.from([N]), a: floats(1), out: new Float32Array(N), m: N });
    const debug = process.env.LOOM_DEBUG;
    try {
      delete process.env.LOOM_DEBUG;
      setDebugMode();
      if (device.checksBoundsByDefault) await raises(bad, /writes 'out'/);
      else assert.equal(Array.from((await bad()).out as Float32Array), new Array(N).fill(0));
      process.env.LOOM_DEBUG = '1';
      setDebugMode();
      await raises(bad, /writes 'out' at index t = 8/);
      // and with debug mode turned on by the program, whatever the environment says
      delete process.env.LOOM_DEBUG;
      setDebugMode(true);
      await raises(bad, /writes 'out' at index t = 8/);
    } finally {
      if (debug === undefined) delete process.env.LOOM_DEBUG;
      else process.env.LOOM_DEBUG = debug;
      setDebugMode();
    }
  });

  test(`${on}: prepareLaunch with checkBounds reports each launch`, async () => {
    const idx = await DeviceArray.from(device, Int32Array.from([1, -1]), 'int32');
    const a = await DeviceArray.from(device, floats(2), 'float32');
    const out = await DeviceArray.from(device, new Float32Array(N), 'float32');
    const launch = await prepareLaunch(scatter, device, { idx, a, out, m: N }, { checkBounds: true });
    try {
      await raises(() => launch.launch(), /index t = -1/);
      await raises(() => launch.launch(), /index t = -1/);
      assert.equal(Array.from((await out.toHost()) as Float32Array), [0, 2, 0, 0, 0, 0, 0, 0]);
    } finally {
      launch.release();
      for (const x of [idx, a, out]) x.release();
    }
  });

  test(`${on}: padded layouts: buffers must hold the largest offset`, async () => {
    // rows 5 apart, 4 columns: (2, 4) needs 9 elements, not 8
    const padded = tagArrayAxes(
      makeKernel('{ [i]: 0<=i<n }', 'out[r[i], c[i]] = a[i] {id=w2}', [
        globalArg('out', { shape: [2, 4], dtype: 'float32' }),
        '...',
      ]),
      'out',
      'stride:5,stride:1',
    );
    const r = Int32Array.from([1, 0, 1]);
    const c = Int32Array.from([3, 4, 0]);
    await raises(
      () => run(padded, device, { r, c, a: floats(3), out: new Float32Array(8) }, unchecked),
      /'out' has 8 elements, but the kernel lays 'out' out with strides \(5, 1\) for shape \(2, 4\), so a flat array is its buffer with those gaps: pass 9 to 10 elements/,
    );
    const buffer = device.allocate(10 * 4);
    await device.write(buffer, new Float32Array(10).fill(-1));
    await run(
      padded,
      device,
      { r, c, a: floats(3), out: new DeviceArray(device, buffer, 'float32', [2, 4]) },
      unchecked,
    );
    const memory = new Float32Array(10);
    await device.read(buffer, memory);
    device.release(buffer);
    // (1, 3) at 8 and (1, 0) at 5; (0, 4) would be the padding at 4, and is dropped
    assert.equal(Array.from(memory), [-1, -1, -1, -1, -1, 3, -1, -1, 1, -1]);
  });
}

test('the hot path: affine accesses proven in bounds get no guard and no flag buffer', () => {
  const knl = addDtypes(makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]'), { a: 'float32' });
  for (const device of testDevices()) {
    const plain = generateCode(knl, device.target).code;
    assert.is(generateCode(knl, device.target, { checkBounds: true }).code, plain, device.name);
    assert.not.match(plain, /loom_bounds|select|\?/);
  }
  // OpenCL's own spelling, which needs no OpenCL device
  assert.match(
    generateCode(knl, openclTarget()).code,
    '{\n  for (int i = 0; i <= -1 + n; ++i)\n    out[i] = 2.0f * a[i];\n}\n',
  );
});

test('guards appear only where the sets cannot prove an index', () => {
  const js = cpuDevice().target;
  const code = (k: LoopKernel, dtypes: Record<string, 'float32' | 'int32'>) =>
    generateCode(addDtypes(k, dtypes), js).code;
  // a private temporary indexed affinely within its extent: proven, no guard
  const proven = makeKernel('{ [i,k]: 0<=i<n and 0<=k<4 }', [
    '<float32> w[k] = a[i] {id=fill}',
    'out[i] = w[3 - k] {id=use, dep=fill}',
  ]);
  assert.not.match(code(proven, { a: 'float32' }), /\?/);
  // ... and one reaching past it (w has 4 elements, k + 1 reaches 4): guarded
  const beyond = replaced(proven, { use: ['out[i]', 'w[k + 1]'] });
  assert.match(code(beyond, { a: 'float32' }), /out\[i\] = 0 <= .+ && .+ < 4 \? w\[k \+ 1\] : 0;/);
  // data indices: the write and the read at idx[i] are guarded, w[0] is not
  const data = code(privateScatter(), { idx: 'int32' });
  assert.match(data, /if \(0 <= idx\[i\] && idx\[i\] < 4\) \{?\s*w\[idx\[i\]\] = 100/);
  assert.match(data, /w\[0\] \+ w\[1\]/);
});

test.run();
