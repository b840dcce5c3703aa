/**
 * pointwise() on every device present, against plain-JS broadcasting: the seed's
 * examples, ranks 0 to 5, every kind of view as input (transposed, sliced, stepped,
 * flipped, expanded, internally overlapping), pre-allocated and in-place outputs,
 * the errors PyTorch users expect, rank reduction and the variant cache.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LoomError, type Device } from '@loom/core';
import { empty, pointwise, Tensor, tensor } from '@loom/elementwise';
import { countingCompiles as counting, testDevices } from './support/devices.ts';
import { assertNumbers, broadcastApply, numbers, sample, toDType } from './support/elementwise-reference.ts';

const f32 = Math.fround;

const add = pointwise(
  { isTensor: [true, true, false], dtypes: [null, null, 'float'], promotionMethods: [[0, 1, 'DEFAULT']], name: 'add' },
  (x: number, y: number, alpha: number) => x + y * alpha,
);
const copy = pointwise({ promotionMethods: [[0, 'DEFAULT']], name: 'copy' }, (x: number) => x);
const fma = pointwise({ name: 'fma' }, (x: number, y: number, z: number) => x * y + z);

/** The values of a float32 tensor, and the reference for `fn` over host operands. */
async function values(t: Tensor): Promise<number[]> {
  return numbers(await t.toArray(), t.dtype);
}

/** A float32 tensor of `shape` with deterministic values, and those values. */
function floats(device: Device, shape: number[], seed: number): { t: Tensor; v: number[] } {
  const v = sample(
    'float32',
    shape.reduce((a, b) => a * b, 1),
    seed,
  );
  return { t: tensor(Float32Array.from(v), shape, { device }), v };
}

for (const device of testDevices()) {
  const on = { device };

  // -- the seed's examples ------------------------------------------------------

  test(`${device.name}: add(x, y, alpha) with a scalar alpha and a broadcast y`, async () => {
    const a = floats(device, [16, 32], 1);
    const b = floats(device, [32], 2);
    const c = await add(a.t, b.t, 0.2);
    assert.equal(c.shape, [16, 32]);
    assert.is(c.dtype, 'float32');
    const expected = broadcastApply(
      [
        { values: a.v, shape: [16, 32] },
        { values: b.v, shape: [32] },
      ],
      (x: number, y: number) => f32(x + f32(y * f32(0.2))),
    );
    assertNumbers(await values(c), expected.values, 'add', 1e-6); // a device may fuse x + y*alpha
  });

  test(`${device.name}: abs with COMPLEX_TO_FLOAT: complex64 in, float32 out`, async () => {
    const abs = pointwise({ promotionMethods: [[0, 'COMPLEX_TO_FLOAT']] }, (x: number) => Math.abs(x));
    const z = tensor(
      [
        { re: 3, im: 4 },
        { re: -1, im: 0 },
        { re: 0, im: -2 },
        { re: 1.5, im: -2 },
      ],
      undefined,
      on,
    );
    assert.is(z.dtype, 'complex64');
    const r = await abs(z);
    assert.is(r.dtype, 'float32');
    assertNumbers(await values(r), [5, 1, 2, 2.5], 'abs', 1e-6);
    const i = await abs(tensor([-3, 4, -5], undefined, { device, dtype: 'int32' }));
    assert.is(i.dtype, 'int32');
    assertNumbers(await values(i), [3, 4, 5], 'abs of int32');
  });

  test(`${device.name}: polar: two outputs`, async () => {
    const polar = pointwise(
      {
        promotionMethods: [
          [[0, 1], 'DEFAULT'],
          [[0, 1], 'DEFAULT'],
        ],
        numOutputs: 2,
      },
      (abs: number, angle: number) => [abs * Math.cos(angle), abs * Math.sin(angle)],
    );
    const r = floats(device, [3, 4], 3);
    const theta = floats(device, [4], 4);
    const [re, im] = await polar(r.t, theta.t);
    const ops = [
      { values: r.v, shape: [3, 4] },
      { values: theta.v, shape: [4] },
    ];
    assertNumbers(
      await values(re),
      broadcastApply(ops, (m: number, t: number) => m * Math.cos(t)).values,
      'real',
      1e-5,
    );
    assertNumbers(
      await values(im),
      broadcastApply(ops, (m: number, t: number) => m * Math.sin(t)).values,
      'imag',
      1e-5,
    );
  });

  test(`${device.name}: add_ in place through out0`, async () => {
    const a = floats(device, [4, 6], 5);
    const b = floats(device, [6], 6);
    const same = await add(a.t, b.t, 2, { out0: a.t });
    assert.is(same, a.t);
    const expected = broadcastApply(
      [
        { values: a.v, shape: [4, 6] },
        { values: b.v, shape: [6] },
      ],
      (x: number, y: number) => f32(x + f32(y * 2)),
    );
    assertNumbers(await values(a.t), expected.values, 'a after add_', 1e-6);
  });

  test(`${device.name}: in place on a view: only the viewed elements change`, async () => {
    const base = floats(device, [4, 6], 8);
    const every2nd = base.t.slice(1, null, null, 2).transpose(0, 1); // [3, 4], strides [2, 6]
    await add(every2nd, 1, 10, { out0: every2nd });
    assertNumbers(
      await values(base.t),
      base.v.map((v, k) => (k % 2 === 0 ? f32(v + 10) : v)),
      'base after x += 10 on every other column',
    );
  });

  test(`${device.name}: flip through instantiate(rank) and negative strides`, async () => {
    const a = floats(device, [3, 4, 5], 7);
    const flip = async (A: Tensor, dims: number[]) => {
      const out = empty(A.shape, { dtype: A.dtype, device: A.device });
      return copy.instantiate(A.ndim)(A.flip(...dims), { out0: out });
    };
    const flipped = await flip(a.t, [0, 2]);
    const expected: number[] = [];
    for (let i = 0; i < 3; i++)
      for (let j = 0; j < 4; j++) for (let k = 0; k < 5; k++) expected.push(a.v[(2 - i) * 20 + j * 5 + (4 - k)]);
    assertNumbers(await values(flipped), expected, 'flip');
    assert.throws(() => copy.instantiate(2)(a.t, { out0: empty([3, 4, 5], on) }), /rank-2|rank 3/);
    assert.throws(() => copy.instantiate(3)(a.t), /needs every output/);
  });

  // -- ranks and layouts ----------------------------------------------------------

  test(`${device.name}: ranks 0 to 5, broadcasting along every axis`, async () => {
    const shapes = [[], [5], [3, 4], [2, 3, 4], [2, 3, 1, 2], [2, 2, 3, 1, 2]];
    for (const [r, shape] of shapes.entries()) {
      const x = floats(device, shape, 10 + r);
      // y: one axis kept, the others broadcast (size 1 or missing), axis by axis
      for (let axis = 0; axis < Math.max(r, 1); axis++) {
        const yShape = shape.map((s, d) => (d === axis ? s : 1)).slice(axis > 0 && r > 2 ? 1 : 0);
        const y = floats(device, yShape, 20 + axis);
        const z = tensor(0.5, undefined, { device, dtype: 'float32' }); // a 0-d tensor
        const out = await fma(x.t, y.t, z);
        assert.equal(out.shape, shape, `rank ${r}`);
        const expected = broadcastApply(
          [
            { values: x.v, shape },
            { values: y.v, shape: yShape },
            { values: [0.5], shape: [] },
          ],
          (a: number, b: number, c: number) => f32(f32(a * b) + c),
        );
        assertNumbers(await values(out), expected.values, `rank ${r}, y ${JSON.stringify(yShape)}`, 1e-6);
      }
    }
  });

  test(`${device.name}: transposed, sliced, stepped, flipped and expanded inputs`, async () => {
    const base = floats(device, [6, 8], 30);
    const at = (i: number, j: number) => base.v[i * 8 + j];
    const cases: [string, Tensor, (i: number, j: number) => number][] = [
      ['transposed', base.t.transpose(0, 1).slice(0, 0, 4), (i, j) => at(j, i)], // [4, 6]
      ['sliced with offsets', base.t.slice(0, 1, 5).slice(1, 2, 8), (i, j) => at(i + 1, j + 2)], // [4, 6]
      ['stepped', base.t.slice(0, 0, 8, 2).slice(1, 1, 7), (i, j) => at(2 * i, j + 1)], // [3, 6] -> take 3 rows
      ['flipped', base.t.flip(0, 1).slice(0, 0, 4).slice(1, 0, 6), (i, j) => at(5 - i, 7 - j)],
      ['negative steps', base.t.slice(0, null, null, -2).slice(1, 6, 0, -1), (i, j) => at(5 - 2 * i, 6 - j)], // [3, 6]
      ['expanded', base.t.slice(0, 2, 3).slice(1, 0, 6).expand(4, 6), (_i, j) => at(2, j)],
    ];
    for (const [what, x, ref] of cases) {
      const [rows, cols] = x.shape;
      const out = await add(x, 1, 1);
      const expected: number[] = [];
      for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) expected.push(f32(ref(i, j) + 1));
      assertNumbers(await values(out), expected, what);
    }
  });

  test(`${device.name}: inputs whose elements overlap in memory (a sliding window) are fine`, async () => {
    const data = floats(device, [10], 31);
    const windows = new Tensor(data.t.storage, 'float32', [7, 4], [1, 1], 0); // rows share elements
    const out = await add(windows, 1, 1);
    const expected: number[] = [];
    for (let i = 0; i < 7; i++) for (let j = 0; j < 4; j++) expected.push(f32(data.v[i + j] + 1));
    assertNumbers(await values(out), expected, 'windows');
  });

  test(`${device.name}: outputs follow the inputs' stride order`, async () => {
    const x = floats(device, [3, 4], 32);
    const t = await add(x.t.transpose(0, 1), 1, 1);
    assert.equal(t.shape, [4, 3]);
    assert.equal(t.strides, [1, 4]); // laid out as x.T, as PyTorch does
    const expected: number[] = [];
    for (let i = 0; i < 4; i++) for (let j = 0; j < 3; j++) expected.push(f32(x.v[j * 4 + i] + 1));
    assertNumbers(await values(t), expected, 'x.T + 1');
    const p = await add(floats(device, [2, 3, 4], 33).t.permute(2, 0, 1), 1, 1);
    assert.equal(p.strides, [1, 12, 4]);
  });

  test(`${device.name}: a contiguous 4-D add is one rank-1 kernel; a transposed one keeps two axes`, async () => {
    const x = floats(device, [2, 3, 4, 5], 40);
    const y = floats(device, [2, 3, 4, 5], 41);
    const plan = add.plan(x.t, y.t, 1);
    assert.is(plan.rank, 1);
    assert.equal(plan.taskShape, [120]);
    assert.not.match(plan.kernel.toString(), /span0|i0/);
    assert.ok(!plan.code().includes('span'), 'no index arithmetic in the generated code');
    // y transposed in its last two axes: those cannot merge, the leading two still do
    const yT = floats(device, [2, 3, 5, 4], 42).t.permute(0, 1, 3, 2);
    const mixed = add.plan(x.t, yT, 1);
    assert.is(mixed.rank, 3);
    assert.equal(mixed.taskShape, [6, 4, 5]);
    assert.match(mixed.kernel.toString(), /q0 = .* \/ size1/);
  });

  // -- outputs ----------------------------------------------------------------------

  test(`${device.name}: pre-allocated outputs, also non-contiguous ones`, async () => {
    const x = floats(device, [3, 4], 50);
    const target = empty([4, 3], { device, dtype: 'float32' }).transpose(0, 1); // [3, 4], strides [1, 3]
    const out = await add(x.t, 1, 2, { out0: target });
    assert.is(out, target);
    assertNumbers(
      await values(target),
      x.v.map((v) => f32(v + 2)),
      'into a transposed out0',
    );
    // a float32 result into a float64 out: computed in float32, stored as float64
    if (device.target.unsupportedDType?.('float64') === undefined) {
      const wide = empty([3, 4], { device, dtype: 'float64' });
      await add(x.t, 1, 0.5, { out0: wide });
      assertNumbers(
        await values(wide),
        x.v.map((v) => f32(v + 0.5)),
        'into float64',
      );
    }
  });

  test(`${device.name}: wrong pre-allocated outputs are refused with the reason`, () => {
    const x = floats(device, [3, 4], 51).t;
    const y = floats(device, [4], 52).t;
    const err = (f: () => unknown, pattern: RegExp) => {
      try {
        f();
      } catch (e) {
        assert.instance(e, LoomError);
        assert.match((e as Error).message, pattern);
        return;
      }
      assert.unreachable(`expected ${pattern}`);
    };
    err(
      () => add(x, y, 1, { out0: empty([4, 3], on) }),
      /out0 has shape \[4, 3\], but the inputs broadcast to \[3, 4\]/,
    );
    err(
      () => add(x, y, 1, { out0: empty([3, 4], { device, dtype: 'int32' }) }),
      /result type float32 can't be cast to the desired output type int32/,
    );
    err(
      () => add(x, y, 1, { out0: empty([4], on).expand(3, 4) }),
      /more than one element of the written-to tensor out0/,
    );
    err(
      () => add(x, x.flip(0), 1, { out0: x }),
      /some elements of the input tensor input 1 \(y\) and the written-to tensor out0/,
    );
    err(
      () => add(x, tensor([1, 2], [2, 1], { dtype: 'float32', device }), 1),
      /input 0 \(x\) has shape \[3, 4\] and input 1 \(y\) has shape \[2, 1\]; sizes 3 and 2 differ at axis -2/,
    );
    err(
      () => add(x, tensor([1, 2, 3], undefined, { dtype: 'float32', device }), 1),
      /input 0 \(x\) has shape \[3, 4\] and input 1 \(y\) has shape \[3\]/,
    );
    err(() => add(x, y), /expected 3 input\(s\) \(x, y, alpha\)/);
    err(() => add(x, y, 1, { out1: x }), /unknown output keyword 'out1'/);
    err(() => add(x, y, x), /input 2 \(alpha\) is not a tensor argument/);
    // the default device is a CPU device of its own, so this mixes devices everywhere
    err(() => add(x, tensor([1, 2, 3, 4], undefined, { dtype: 'float32' }), 1), /all tensors must be on one device/);
  });

  // -- the variant cache -------------------------------------------------------------

  test(`${device.name}: new shapes of the same rank reuse the variant: no new code`, async () => {
    const { device: d, compiles } = counting(device);
    const scale = pointwise({ name: 'scale' }, (x: number, y: number) => x * y);
    const run = async (shape: number[]) => {
      const a = tensor(Float32Array.from(sample('float32', shape[0] * shape[1], 60)), shape, { device: d });
      const b = tensor(Float32Array.from(sample('float32', shape[1], 61)), [shape[1]], { device: d });
      const out = await scale(a, b);
      const expected = broadcastApply(
        [
          { values: sample('float32', shape[0] * shape[1], 60), shape },
          { values: sample('float32', shape[1], 61), shape: [shape[1]] },
        ],
        (p: number, q: number) => f32(p * q),
      );
      assertNumbers(await values(out), expected.values, `shape ${shape}`);
    };
    await run([3, 5]);
    assert.is(scale.variants.size, 1);
    const first = compiles();
    await run([7, 2]);
    await run([1000, 3]);
    assert.is(scale.variants.size, 1, 'one variant for rank 2, float32');
    assert.is(compiles(), first, 'no compilation for new shapes');
  });

  test(`${device.name}: a 0-element call allocates and launches nothing, and releasing frees storage`, async () => {
    const x = tensor(new Float32Array(0), [0, 3], on);
    const out = await add(x, 1, 1);
    assert.equal(out.shape, [0, 3]);
    assert.equal(await values(out), []);
    out.release();
    assert.throws(() => add(out, 1, 1), /released/);
  });

  test(`${device.name}: toDType reference sanity (ints wrap as C casts)`, () => {
    assert.is(toDType(300, 'int8'), 44);
    assert.is(toDType(-1, 'uint8'), 255);
  });
}

test.run();
