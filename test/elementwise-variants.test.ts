/**
 * pointwise()'s kernel variants (packages/elementwise/src/variants.ts) on every device
 * present, against plain-JS references: which variant each kind of call gets (and why),
 * and the results of each variant for shapes that are not multiples of its tile or
 * vector, broadcasts, sliced and strided operands, in-place outputs, and every dtype the
 * variant admits.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DTYPES as ALL_DTYPES, holdsVectors, isComplex, targetFacts, type Device } from '@loom/core';
import { empty, pointwise, supportsDType, tensor, type Tensor, type TensorDType } from '@loom/elementwise';
import { testDevices } from './support/devices.ts';
import { assertNumbers, indices, numbers, sample, toDType } from './support/elementwise-reference.ts';

const add = pointwise({ name: 'add' }, (x: number, y: number) => x + y);
const fma = pointwise({ name: 'fma' }, (x: number, y: number, z: number) => x * y + z);
const sumDiff = pointwise({ name: 'sum_diff', numOutputs: 2 }, (x: number, y: number) => [x + y, x - y]);

/** A tensor of `shape` over fresh storage holding `extra` more numbers than it needs, and its storage's values. */
function make(
  device: Device,
  shape: number[],
  seed: number,
  dtype: TensorDType = 'float32',
): { t: Tensor; host: number[] } {
  const n = shape.reduce((a, b) => a * b, 1);
  const host = sample(dtype, n, seed);
  return { t: tensor(host, shape, { device, dtype }), host };
}

/** The row-major values of view `t` of a storage holding `host`. */
function logical(t: Tensor, host: readonly number[]): number[] {
  return [...indices(t.shape)].map((index) => host[index.reduce((at, i, d) => at + i * t.strides[d], t.offset)]);
}

/** Eight numbers of a storage of their own. */
const q8 = (device: Device) => make(device, [8], 24);

async function values(t: Tensor): Promise<number[]> {
  return numbers(await t.toArray(), t.dtype);
}

for (const device of testDevices()) {
  // the variants depend on what the target states (target-contract.test.ts checks each target's facts);
  // its name only says which spelling of the code to look for
  const target = device.target.name;
  const facts = targetFacts(device.target);
  const gpu = !facts.sequentialWorkItems;
  /** The dtypes whose aligned contiguous calls get vector4 on this target. */
  const vectorDTypes: readonly TensorDType[] = gpu
    ? ALL_DTYPES.filter((t) => !isComplex(t) && holdsVectors(facts, t, 4))
    : [];

  test(`${device.name}: each kind of call gets its variant, with the reason`, () => {
    const x = make(device, [64, 96], 1).t;
    const row = make(device, [96], 2).t;
    const yT = make(device, [96, 64], 3).t.transpose(0, 1);
    const cases: [string, ReturnType<typeof add.plan>, string][] = [
      ['contiguous', add.plan(x, x), gpu ? 'vector4' : 'flat'],
      ['broadcast row', add.plan(x, row), gpu ? 'vector4' : 'flat'],
      ['transposed', add.plan(x, yT), gpu ? 'tiled' : 'flat'],
      ['misaligned slice', add.plan(x.slice(1, 1, 93), x.slice(1, 2, 94)), 'flat'],
      ['odd inner extent', add.plan(make(device, [5, 7], 4).t, make(device, [5, 7], 5).t), 'flat'],
      ['x + x.T (one storage)', add.plan(x.slice(1, 0, 64), x.slice(1, 0, 64).transpose(0, 1)), 'flat'],
    ];
    for (const [what, plan, expected] of cases) {
      assert.is(plan.variant, expected, `${what}: ${plan.reason}`);
      assert.ok(plan.reason.length > 0, what);
    }
    // deterministic: the same kind of call on other storages gets the same variant and code
    const again = add.plan(make(device, [64, 96], 6).t, make(device, [96, 64], 7).t.transpose(0, 1));
    assert.is(again.variant, cases[2][1].variant);
    assert.is(again.code(), cases[2][1].code());
    assert.match(add.plan(x, yT).reason, gpu ? /local memory/ : /one after another/);
    if (gpu) assert.match(add.plan(x.slice(1, 1, 93), x.slice(1, 2, 94)).reason, /offset/);
  });

  test(`${device.name}: the generated code is the variant's: float4 lanes, a padded local tile`, () => {
    const x = make(device, [64, 96], 1).t;
    const yT = make(device, [96, 64], 3).t.transpose(0, 1);
    const tiled = add.plan(x, yT).code();
    if (target === 'opencl') {
      const vector = add.plan(x, x).code();
      assert.match(vector, /__global float4 const \*__restrict__ buf0/);
      for (const lane of ['s0', 's1', 's2', 's3']) assert.match(vector, new RegExp(`buf0\\[at_in0\\]\\.${lane}`));
      assert.match(tiled, /__local float buf1_tile\[1055\]/); // 33 words a row, 32 rows
      assert.match(tiled, /barrier\(CLK_LOCAL_MEM_FENCE\)/);
      assert.match(tiled, /reqd_work_group_size\(32, 8, 1\)/);
      // x and the output are rows of the task (`buf[i0, offset + i1]`), proven in bounds: no guard
      // against their storages' lengths, as in the hand-written kernel
      assert.not.match(tiled, /buf0_size|buf2_size/);
      assert.match(
        tiled,
        /buf2\[out0_stride0 \* \(32 \* gid\(1\) \+ lid\(1\)\) \+ \(out0_offset \+ 32 \* gid\(0\) \+ lid\(0\)\)\] = /,
      );
    } else if (target === 'wgsl') {
      // whole vec4s: one load per input, one store per output
      const vector = add.plan(x, x).code();
      assert.match(vector, /var<storage, read> buf0: array<vec4<f32>>;/);
      assert.match(vector, /var<storage, read_write> buf1: array<vec4<f32>>;/);
      // rank 1: the vector index is affine (checked before launch), so no guard per access,
      // as the hand-written kernel (bench/elementwise-kernels.ts): loads, one sum, one store
      assert.match(vector, 'in0[0i] = buf0[in0_offset + 256i * group_id.x + local_id.x];');
      assert.match(vector, 'buf1[out0_offset + 256i * group_id.x + local_id.x] = in0[0i] + in1[0i];');
      assert.not.match(vector, /select|at_in0|_size &&/);
      assert.is((vector.match(/\bif \(/g) ?? []).length, 1, vector);
      assert.not.match(vector, /\]\.[xyzw]/);
      assert.match(tiled, /var<workgroup> buf1_tile: array<f32, 1055>/);
      assert.match(tiled, /workgroupBarrier\(\)/);
      assert.match(tiled, /@workgroup_size\(32, 8\)/);
    } else if (target === 'cuda') {
      const vector = add.plan(x, x).code();
      assert.match(vector, /float4 const \*__restrict__ buf0/);
      for (const lane of ['x', 'y', 'z', 'w']) assert.match(vector, new RegExp(`buf0\\[at_in0\\]\\.${lane}`));
      assert.match(tiled, /__shared__ float buf1_tile\[1055\]/);
      assert.match(tiled, /__syncthreads\(\)/);
      assert.match(tiled, /__launch_bounds__\(256\)/);
    } else {
      assert.not.match(tiled, /tile/);
    }
  });

  test(`${device.name}: x + y.T for shapes that are not multiples of the tile`, async () => {
    for (const [rows, cols] of [
      [37, 45],
      [1, 1],
      [2, 33],
      [33, 2],
      [64, 32],
      [100, 7],
      [31, 129],
    ]) {
      const x = make(device, [rows, cols], rows);
      const y = make(device, [cols, rows], cols + 1);
      const yT = y.t.transpose(0, 1);
      const out = await add(x.t, yT);
      const expected = logical(x.t, x.host).map((v, k) => Math.fround(v + logical(yT, y.host)[k]));
      assertNumbers(await values(out), expected, `${rows} x ${cols}`);
      if (gpu && rows > 1 && cols > 1) assert.is(add.plan(x.t, yT).variant, 'tiled', `${rows} x ${cols}`);
    }
  });

  test(`${device.name}: tiled: sliced and strided transposed inputs, a broadcast row, a given output, in place`, async () => {
    const base = make(device, [50, 90], 7); // y is a window of it, transposed: offset and a row stride of 90
    const yT = base.t.slice(0, 3, 43).slice(1, 5, 78).transpose(0, 1); // [73, 40]
    const x = make(device, [73, 40], 8);
    const ref = (a: Tensor, ha: number[], b: Tensor, hb: number[]) =>
      logical(a, ha).map((v, k) => Math.fround(v + logical(b, hb)[k]));
    assertNumbers(await values(await add(x.t, yT)), ref(x.t, x.host, yT, base.host), 'window');
    if (gpu) assert.is(add.plan(x.t, yT).variant, 'tiled');

    // a row broadcast down the columns beside a transposed input, into a given contiguous output
    const row = make(device, [40], 9);
    const out = empty([73, 40], { device });
    await add(row.t, yT, { out0: out });
    if (gpu) assert.is(add.plan(row.t, yT, { out0: out }).variant, 'tiled');
    assertNumbers(await values(out), ref(row.t.expand(73, 40), row.host, yT, base.host), 'broadcast row');

    // stepped: every other column of the storage
    const stepped = base.t.slice(1, 0, 90, 2).transpose(0, 1); // [45, 50], stride (2, 90)
    const x2 = make(device, [45, 50], 10);
    assertNumbers(await values(await add(x2.t, stepped)), ref(x2.t, x2.host, stepped, base.host), 'stepped');

    // rows walked backwards (a negative row stride), into an output whose rows run backwards too
    const flipped = x.t.flip(0);
    const backwards = empty([73, 40], { device });
    await add(flipped, yT, { out0: backwards.flip(0) });
    if (gpu) assert.is(add.plan(flipped, yT, { out0: backwards.flip(0) }).variant, 'tiled');
    assertNumbers(await values(backwards.flip(0)), ref(flipped, x.host, yT, base.host), 'flipped rows, in and out');

    // in place: out0 is x, y transposed beside it
    const expected = ref(x.t, x.host, yT, base.host);
    await add(x.t, yT, { out0: x.t });
    assertNumbers(await values(x.t), expected, 'in place');
  });

  test(`${device.name}: tiled with two outputs and three inputs, two of them transposed`, async () => {
    const [rows, cols] = [41, 35];
    const a = make(device, [rows, cols], 11);
    const b = make(device, [cols, rows], 12);
    const c = make(device, [cols, rows], 13);
    const [bT, cT] = [b.t.transpose(0, 1), c.t.transpose(0, 1)];
    if (gpu) assert.is(fma.plan(a.t, bT, cT).variant, 'tiled');
    const [av, bv, cv] = [logical(a.t, a.host), logical(bT, b.host), logical(cT, c.host)];
    assertNumbers(
      await values(await fma(a.t, bT, cT)),
      av.map((v, k) => Math.fround(Math.fround(v * bv[k]) + cv[k])),
      'fma',
      1e-6, // a device may fuse x*y + z
    );
    const [s, d] = await sumDiff(a.t, bT);
    assertNumbers(
      await values(s),
      av.map((v, k) => Math.fround(v + bv[k])),
      'sum',
    );
    assertNumbers(
      await values(d),
      av.map((v, k) => Math.fround(v - bv[k])),
      'difference',
    );
  });

  test(`${device.name}: vector4: aligned slices, row strides, a broadcast row, in place`, async () => {
    const base = make(device, [12, 20], 20);
    const window = base.t.slice(1, 4, 16); // [12, 12], offset 4, row stride 20
    const other = make(device, [12, 12], 21);
    const row = make(device, [12], 22);
    const ref = (a: number[], b: number[]) => a.map((v, k) => Math.fround(v + b[k]));
    const [wv, ov] = [logical(window, base.host), logical(other.t, other.host)];
    if (gpu) {
      assert.is(add.plan(window, other.t).variant, 'vector4');
      assert.is(add.plan(other.t, row.t).variant, 'vector4');
    }
    assertNumbers(await values(await add(window, other.t)), ref(wv, ov), 'window');
    assertNumbers(
      await values(await add(other.t, row.t)),
      ref(ov, logical(row.t.expand(12, 12), row.host)),
      'broadcast row',
    );
    // a flat contiguous tensor whose length is a multiple of 4, and one that is not (flat)
    for (const n of [4, 1024, 4 * 257, 1023]) {
      const p = make(device, [n], n);
      const q = make(device, [n], n + 1);
      if (gpu) assert.is(add.plan(p.t, q.t).variant, n % 4 === 0 ? 'vector4' : 'flat', `${n}`);
      assertNumbers(await values(await add(p.t, q.t)), ref(p.host, q.host), `n = ${n}`);
    }
    // aligned views of a storage that is not whole vectors: WGSL binds storages whole, as vectors
    const ten = make(device, [10], 23);
    const [head, tail] = [ten.t.slice(0, 0, 8), ten.t.slice(0, 2, 10)];
    const ragged = add.plan(head, q8(device).t);
    if (facts.wholeVectorStorage) assert.match(ragged.reason, /storage has 10 elements, not a multiple of 4/);
    if (gpu) assert.is(ragged.variant, facts.wholeVectorStorage ? 'flat' : 'vector4');
    assertNumbers(
      await values(await add(head, tail)),
      ref(ten.host.slice(0, 8), ten.host.slice(2, 10)),
      'ragged storage',
    );
    await add(window, other.t, { out0: window });
    assertNumbers(await values(window), ref(wv, ov), 'in place on a window');
    // the storage around the window is untouched
    const all = await values(base.t);
    for (let i = 0; i < 12; i++)
      for (const j of [0, 3, 16, 19]) assert.is(all[i * 20 + j], base.host[i * 20 + j], `(${i}, ${j})`);
  });

  test(`${device.name}: mixed dtypes through each variant (promoted, cast per lane or per tile)`, async () => {
    const pairs: [TensorDType, TensorDType, TensorDType][] = [
      ['int8', 'float32', 'float32'],
      ['uint8', 'int16', 'int16'],
      ['int32', 'int64', 'int64'],
      ['bool', 'float32', 'float32'],
      ['float16', 'float32', 'float32'],
    ];
    for (const [da, db, result] of pairs) {
      if (![da, db].every((t) => supportsDType(device, t))) {
        console.log(
          `  (${device.name} has no ${[da, db].find((t) => !supportsDType(device, t))}: ${da} + ${db} skipped)`,
        );
        continue;
      }
      const a = make(device, [9, 16], 40, da);
      const b = make(device, [9, 16], 41, db);
      const c = make(device, [16, 9], 42, db);
      for (const [what, other, host] of [
        ['contiguous', b.t, b.host],
        ['transposed', c.t.transpose(0, 1), c.host],
      ] as const) {
        const out = await add(a.t, other);
        assert.is(out.dtype, result, `${da} + ${db}`);
        const expected = logical(a.t, a.host).map((v, k) => toDType(v + logical(other, host)[k], result));
        assertNumbers(await values(out), expected, `${da} + ${db}, ${what} (${add.plan(a.t, other).variant})`);
      }
    }
  });

  const DTYPES: TensorDType[] = [
    'float32',
    'float64',
    'float16',
    'int32',
    'uint32',
    'int64',
    'int16',
    'int8',
    'uint8',
    'bool',
  ];
  for (const dtype of DTYPES) {
    test(`${device.name}: ${dtype}: every variant's results`, async () => {
      if (!supportsDType(device, dtype)) {
        console.log(`  (${device.name} has no ${dtype}: skipped)`);
        return;
      }
      const expected = (a: number[], b: number[]) => a.map((v, k) => toDType(v + b[k], dtype));
      // contiguous (vector4 where admitted), transposed (tiled), neither
      const x = make(device, [19, 24], 30, dtype);
      const y = make(device, [19, 24], 31, dtype);
      const z = make(device, [24, 19], 32, dtype);
      const zT = z.t.transpose(0, 1);
      for (const [what, a, ha, b, hb] of [
        ['contiguous', x.t, x.host, y.t, y.host],
        ['transposed', x.t, x.host, zT, z.host],
        ['odd slice', x.t.slice(1, 1, 22), x.host, y.t.slice(1, 2, 23), y.host],
      ] as const) {
        const out = await add(a, b);
        assert.is(out.dtype, dtype);
        const variant = add.plan(a, b).variant;
        if (what === 'transposed') assert.is(variant, gpu ? 'tiled' : 'flat', what);
        if (what === 'contiguous') assert.is(variant, vectorDTypes.includes(dtype) ? 'vector4' : 'flat', what);
        assertNumbers(
          await values(out),
          expected(logical(a, ha), logical(b, hb)),
          `${dtype} ${what} (${add.plan(a, b).variant})`,
        );
      }
    });
  }
}

test.run();
