/**
 * The subgroup functions (core's expr/subgroup-functions.ts) on every device: where the device
 * has subgroups (WebGPU with the 'subgroups' feature, CUDA, OpenCL with cl_khr_subgroups or
 * NVIDIA's PTX shuffles), their values against plain JavaScript computed with the subgroup size
 * the device reports at run time (`subgroupSize()` written out: lavapipe's is not NVIDIA's 32);
 * elsewhere the LoomError naming the function and why, before anything runs. Then the refusals
 * of code generation: a call reached by only some work-items, a dtype the target lacks.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  collectWarnings,
  generateCode,
  globalArg,
  LoomError,
  makeKernel,
  run,
  splitIname,
  tagInames,
  targetFacts,
  temporaryVariable,
  valueArg,
  type Device,
  type DType,
  type HostArray,
  type Target,
} from '@loom/core';
import { wgslTarget } from '@loom/codegen-wgsl';
import { cudaTarget } from '@loom/codegen-cuda';
import { openclTarget } from '@loom/codegen-opencl';
import { testDevices } from './support/devices.ts';

const GROUP = 64;
const GROUPS = 2;
const N = GROUP * GROUPS;

/** Every subgroup function, one output each, over work-groups of 64 (l.0) along a 1-D grid (g.0). */
function functionsKernel(dtype: DType) {
  return tagInames(
    makeKernel(
      `{ [g, l]: 0<=g<${GROUPS} and 0<=l<${GROUP} }`,
      `
      size[${GROUP}*g + l] = subgroupSize()
      lane[${GROUP}*g + l] = subgroupLocalId()
      sub[${GROUP}*g + l] = subgroupId()
      total[${GROUP}*g + l] = subgroupAdd(a[${GROUP}*g + l])
      least[${GROUP}*g + l] = subgroupMin(a[${GROUP}*g + l])
      most[${GROUP}*g + l] = subgroupMax(a[${GROUP}*g + l])
      incl[${GROUP}*g + l] = subgroupInclusiveAdd(a[${GROUP}*g + l])
      excl[${GROUP}*g + l] = subgroupExclusiveAdd(a[${GROUP}*g + l])
      next[${GROUP}*g + l] = subgroupShuffle(a[${GROUP}*g + l], (subgroupLocalId() + 1) % subgroupSize())
      pair[${GROUP}*g + l] = subgroupShuffleXor(a[${GROUP}*g + l], 1)
      first[${GROUP}*g + l] = subgroupBroadcast(a[${GROUP}*g + l], 0)
      kth[${GROUP}*g + l] = subgroupBroadcast(a[${GROUP}*g + l], k)
      `,
      [
        globalArg('a', { dtype, shape: N }),
        valueArg('k', 'int32'),
        ...['size', 'lane', 'sub'].map((name) => globalArg(name, { dtype: 'int32', shape: N })),
        ...['total', 'least', 'most', 'incl', 'excl', 'next', 'pair', 'first', 'kth'].map((name) =>
          globalArg(name, { dtype, shape: N }),
        ),
      ],
    ),
    { g: 'g.0', l: 'l.0' },
  );
}

/** The members of each work-item's subgroup: consecutive local ids, `size` of them (the last one cut at the group's end). */
function subgroupsOf(size: number) {
  return Array.from({ length: N }, (_, i) => {
    const g = Math.floor(i / GROUP);
    const l = i % GROUP;
    const start = Math.floor(l / size) * size;
    const end = Math.min(start + size, GROUP);
    return { base: g * GROUP, start, end, lane: l - start, sub: Math.floor(l / size) };
  });
}

/** Small integers (exact in every dtype), of both signs where the dtype has them. */
function input(dtype: DType): HostArray {
  const values = Array.from({ length: N }, (_, i) => ((i * 37 + 11) % 23) - (dtype === 'uint32' ? 0 : 9));
  return dtype === 'float32'
    ? Float32Array.from(values)
    : dtype === 'uint32'
      ? Uint32Array.from(values)
      : Int32Array.from(values);
}

const hasSubgroups = (device: Device) => !('refused' in targetFacts(device.target).subgroups);

for (const device of testDevices()) {
  test(`${device.name}: subgroup functions`, async () => {
    if (!hasSubgroups(device)) {
      const facts = targetFacts(device.target).subgroups as { refused: string };
      try {
        await run(functionsKernel('float32'), device, { a: input('float32'), k: 1 });
        assert.unreachable('a device without subgroups ran subgroup functions');
      } catch (e) {
        assert.instance(e, LoomError);
        assert.match((e as Error).message, 'subgroupSize: ');
        assert.match((e as Error).message, 'cannot call subgroup functions');
        assert.match((e as Error).message, facts.refused);
      }
      return;
    }
    for (const dtype of ['int32', 'uint32', 'float32'] as const) {
      const a = input(dtype);
      const k = 1;
      const out = await run(functionsKernel(dtype), device, { a, k });
      const size = Number((out.size as Int32Array)[0]);
      assert.ok(size >= 1 && (size & (size - 1)) === 0, `subgroup size ${size}: a power of two`);
      const members = subgroupsOf(size);
      const values = (i: number, from = members[i].start, to = members[i].end) =>
        Array.from({ length: to - from }, (_, j) => Number(a[members[i].base + from + j]));
      const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
      const expected: Record<string, (i: number) => number> = {
        size: () => size,
        lane: (i) => members[i].lane,
        sub: (i) => members[i].sub,
        total: (i) => sum(values(i)),
        least: (i) => Math.min(...values(i)),
        most: (i) => Math.max(...values(i)),
        incl: (i) => sum(values(i, members[i].start, members[i].start + members[i].lane + 1)),
        excl: (i) => sum(values(i, members[i].start, members[i].start + members[i].lane)),
        next: (i) => Number(a[members[i].base + members[i].start + ((members[i].lane + 1) % size)]),
        pair: (i) => Number(a[members[i].base + members[i].start + (members[i].lane ^ 1)]),
        first: (i) => Number(a[members[i].base + members[i].start]),
        kth: (i) => Number(a[members[i].base + members[i].start + k]),
      };
      for (const [name, f] of Object.entries(expected)) {
        const want = Array.from({ length: N }, (_, i) => f(i));
        assert.equal(
          Array.from(out[name] as ArrayLike<number>, Number),
          want,
          `${dtype} ${name} (subgroups of ${size})`,
        );
      }
    }
  });
}

/** `out[g] = op(l, a[n*g + l])` over work-groups of `n` work-items. */
function reductionKernel(op: 'sum' | 'max' | 'min', dtype: DType, n: number, groups: number) {
  return tagInames(
    makeKernel(`{ [g, l]: 0<=g<${groups} and 0<=l<${n} }`, `out[g] = ${op}(l, a[${n}*g + l])`, [
      globalArg('a', { dtype, shape: n * groups }),
      globalArg('out', { dtype, shape: groups }),
    ]),
    { g: 'g.0', l: 'l.0' },
  );
}

for (const device of testDevices()) {
  test(`${device.name}: sums and integer maxima over l.0 by subgroups where the device has them, as the tree has them`, async () => {
    const cases = [
      ['sum', 'float32', 64],
      ['sum', 'int32', 64],
      ['max', 'int32', 64],
      ['min', 'uint32', 64],
      ['sum', 'float32', 256],
      // a float max keeps Loom's NaN propagation: combined by Loom's max across lanes (shuffles)
      ['max', 'float32', 64],
      ['max', 'float32', 256],
      // a work-group of one subgroup (32 on CUDA, 8 on lavapipe): the result in every lane's register
      ['sum', 'float32', 32],
      ['max', 'float32', 32],
      ['sum', 'float32', 8],
      ['max', 'float32', 8],
      ['max', 'int32', 8],
    ] as const;
    for (const [op, dtype, n] of cases) {
      const groups = 3;
      const knl = reductionKernel(op, dtype, n, groups);
      const values = Array.from({ length: n * groups }, (_, i) => ((i * 29 + 5) % 41) - (dtype === 'uint32' ? 0 : 20));
      const a =
        dtype === 'float32'
          ? Float32Array.from(values)
          : dtype === 'uint32'
            ? Uint32Array.from(values)
            : Int32Array.from(values);
      const { out } = await run(knl, device, { a });
      const want = Array.from({ length: groups }, (_, g) => {
        const row = values.slice(g * n, (g + 1) * n);
        return op === 'sum' ? row.reduce((x, y) => x + y, 0) : op === 'max' ? Math.max(...row) : Math.min(...row);
      });
      assert.equal(Array.from(out as ArrayLike<number>, Number), want, `${op} of ${n} ${dtype} values`);
      // where the device has subgroups wide and narrow enough, the code uses them, and only there
      const support = targetFacts(device.target).subgroups;
      const sizes =
        'refused' in support
          ? undefined
          : typeof support.size === 'number'
            ? { min: support.size, max: support.size }
            : support.size;
      const expected = sizes !== undefined && n % sizes.max === 0 && n <= sizes.min * sizes.min;
      const code = generateCode(knl, device.target).code;
      assert.is(/subgroup|sub_group|shfl/.test(code), expected, `${op} of ${n} ${dtype} values by subgroups`);
    }
  });

  test(`${device.name}: a reduction every work-item reads from its own register (a private result), over one or several subgroups`, async () => {
    for (const n of [8, 32, 64]) {
      // every work-item subtracts its row's maximum: the result read by all, not stored by one
      const knl = tagInames(
        makeKernel(
          `{ [g, l, j]: 0<=g<3 and 0<=l,j<${n} }`,
          `<float32> t = max(l, a[${n}*g + l]) {id=t}
           out[${n}*g + j] = a[${n}*g + j] - t {dep=t}`,
          [globalArg('a', { dtype: 'float32', shape: 3 * n }), globalArg('out', { dtype: 'float32', shape: 3 * n })],
        ),
        { g: 'g.0', l: 'l.0', j: 'l.0' },
      );
      const a = Float32Array.from({ length: 3 * n }, (_, i) => ((i * 37 + 11) % 53) - 26);
      const { out } = await run(knl, device, { a });
      const want = Array.from(a, (v, i) => {
        const g = Math.floor(i / n);
        return v - Math.max(...a.subarray(g * n, (g + 1) * n));
      });
      assert.equal(Array.from(out as Float32Array), want, `rows of ${n}`);
    }
  });

  test(`${device.name}: rows side by side along l.1, a subgroup each, reduce in registers; stored by one lane or read by all`, async () => {
    const facts = targetFacts(device.target).subgroups;
    // a row a subgroup where the width is fixed (8 on lavapipe), else 32: the tree then, the same values
    const width =
      !('refused' in facts) && typeof facts.size === 'object' && facts.size.min === facts.size.max
        ? facts.size.min
        : 32;
    for (const [op, dtype] of [
      ['max', 'float32'],
      ['sum', 'int32'],
      ['min', 'int32'],
    ] as const) {
      const rows = 4;
      const groups = 3;
      const values = Array.from({ length: groups * rows * width }, (_, i) => ((i * 29 + 7) % 61) - 30);
      const a = dtype === 'float32' ? Float32Array.from(values) : Int32Array.from(values);
      const reduce = (row: number[]) =>
        op === 'sum' ? row.reduce((x, y) => x + y, 0) : op === 'max' ? Math.max(...row) : Math.min(...row);
      const rowOf = (k: number) => values.slice(k * width, (k + 1) * width);
      // one lane stores each row's total
      const stored = tagInames(
        makeKernel(
          `{ [g, r, l]: 0<=g<${groups} and 0<=r<${rows} and 0<=l<${width} }`,
          `out[${rows}*g + r] = ${op}(l, a[${rows * width}*g + ${width}*r + l])`,
          [globalArg('a', { dtype, shape: values.length }), globalArg('out', { dtype, shape: groups * rows })],
        ),
        { g: 'g.0', r: 'l.1', l: 'l.0' },
      );
      const { out } = await run(stored, device, { a });
      assert.equal(
        Array.from(out as ArrayLike<number>, Number),
        Array.from({ length: groups * rows }, (_, k) => reduce(rowOf(k))),
        `${op} of rows of ${width} ${dtype}, stored`,
      );
      // every work-item of a row reads its row's total
      const read = tagInames(
        makeKernel(
          `{ [g, r, l, j]: 0<=g<${groups} and 0<=r<${rows} and 0<=l,j<${width} }`,
          `<${dtype}> t = ${op}(l, a[${rows * width}*g + ${width}*r + l]) {id=t}
           out[${rows * width}*g + ${width}*r + j] = a[${rows * width}*g + ${width}*r + j] - t {dep=t}`,
          [globalArg('a', { dtype, shape: values.length }), globalArg('out', { dtype, shape: values.length })],
        ),
        { g: 'g.0', r: 'l.1', l: 'l.0', j: 'l.0' },
      );
      const got = (await run(read, device, { a })).out as ArrayLike<number>;
      assert.equal(
        Array.from(got, Number),
        values.map((v, i) => v - reduce(rowOf(Math.floor(i / width)))),
        `${op} of rows of ${width} ${dtype}, read by all`,
      );
    }
  });

  test(`${device.name}: rows side by side with the last group partly past them reduce correctly`, async () => {
    // 7 rows, 4 a group: the second group's last row is absent, skipped by its whole subgroup where a
    // row is one (lavapipe's 8), by the tree's work-items elsewhere
    const width = 8;
    const a = Float32Array.from({ length: 7 * width }, (_, i) => ((i * 13 + 5) % 29) - 14);
    const knl = splitIname(
      makeKernel('{ [r, l]: 0<=r<7 and 0<=l<8 }', 'out[r] = max(l, a[8*r + l])', [
        globalArg('a', { dtype: 'float32', shape: a.length }),
        globalArg('out', { dtype: 'float32', shape: 7 }),
      ]),
      'r',
      4,
      { outerTag: 'g.0', innerTag: 'l.1' },
    );
    const { out } = await run(tagInames(knl, { l: 'l.0' }), device, { a });
    assert.equal(
      Array.from(out as Float32Array),
      Array.from({ length: 7 }, (_, r) => Math.max(...a.subarray(r * width, (r + 1) * width))),
    );
  });

  test(`${device.name}: a float max across lanes propagates NaN as the tree does, from any lane`, async () => {
    for (const at of [0, 37, 255]) {
      const knl = reductionKernel('max', 'float32', 256, 2);
      const a = Float32Array.from({ length: 512 }, (_, i) => (i % 97) - 40);
      a[256 + at] = Number.NaN;
      const { out } = await run(knl, device, { a });
      assert.equal(Array.from(out as Float32Array), [56, Number.NaN], `NaN at ${at}`);
    }
  });
}

test('a float max by shuffles: a butterfly of Loom max over subgroupShuffleXor, no write-race warning', () => {
  const { warnings } = collectWarnings(() => generateCode(reductionKernel('max', 'float32', 256, 2), cudaTarget()));
  const code = generateCode(reductionKernel('max', 'float32', 256, 2), cudaTarget()).code;
  // five offsets a warp, twice (the lanes, then the warps' totals)
  assert.is(code.match(/__shfl_xor_sync/g)?.length, 10, code);
  assert.match(code, 'loom_maximum_float32');
  assert.equal(warnings.map(String), []);
});

test('warps side by side along l.1, a row each, reduce in registers: no barrier where one lane stores a row', () => {
  const knl = tagInames(
    makeKernel('{ [g, r, l]: 0<=g<4 and 0<=r<8 and 0<=l<32 }', 'out[8*g + r] = max(l, a[256*g + 32*r + l])', [
      globalArg('a', { dtype: 'float32', shape: 1024 }),
      globalArg('out', { dtype: 'float32', shape: 32 }),
    ]),
    { g: 'g.0', r: 'l.1', l: 'l.0' },
  );
  const code = generateCode(knl, cudaTarget()).code;
  assert.is(code.match(/__shfl_xor_sync/g)?.length, 5, code);
  assert.not.match(code, '__syncthreads', code);
});

test('a work-group of one subgroup reduces in registers: no local memory, no barrier', () => {
  for (const op of ['sum', 'max'] as const) {
    const code = generateCode(reductionKernel(op, 'float32', 32, 2), cudaTarget()).code;
    assert.match(code, '__shfl_xor_sync');
    assert.not.match(code, '__syncthreads', code);
    assert.not.match(code, '__shared__', code);
  }
});

test('a reduction by subgroups writes its partials and total without a write-race warning', () => {
  // each subgroup's first lane stores its partial at the subgroup's id; one work-item stores the total
  const { warnings } = collectWarnings(() => generateCode(reductionKernel('sum', 'float32', 256, 2), cudaTarget()));
  assert.match(generateCode(reductionKernel('sum', 'float32', 256, 2), cudaTarget()).code, '__shfl_xor_sync');
  assert.equal(warnings.map(String), []);
});

test("a subgroup's partial written by one lane (the first, the last) at the subgroup's id is no write race; by lanes chosen per work-item it is", () => {
  const partials = (lane: string) =>
    tagInames(
      makeKernel(
        '{ [l]: 0<=l<64 }',
        `<float32> v = subgroupAdd(a[l]) {id=v}
if subgroupLocalId() == ${lane}
  part[subgroupId()] = v {id=partial, dep=v}
end
out[l] = part[0] + part[1] {dep=partial}`,
        [
          globalArg('a', { dtype: 'float32', shape: [64] }),
          globalArg('out', { dtype: 'float32', shape: [64] }),
          temporaryVariable('part', { dtype: 'float32', shape: [2], addressSpace: 'local' }),
        ],
      ),
      { l: 'l.0' },
    );
  const races = (lane: string) =>
    collectWarnings(() => generateCode(partials(lane), cudaTarget())).warnings.filter(
      (w) => w.category === 'WriteRaceConditionWarning',
    ).length;
  assert.is(races('0'), 0);
  assert.is(races('subgroupSize() - 1'), 0);
  assert.is(races('l % 32'), 1);
});

test('a subgroup function under a condition on the local ids is refused', () => {
  const guarded = tagInames(
    makeKernel('{ [l]: 0<=l<64 }', 'out[l] = subgroupAdd(a[l]) {if=l < 20}', [
      globalArg('a', { dtype: 'float32', shape: 64 }),
      '...',
    ]),
    { l: 'l.0' },
  );
  const ternary = tagInames(
    makeKernel('{ [l]: 0<=l<64 }', 'out[l] = if(l < 20, subgroupMax(a[l]), 0)', [
      globalArg('a', { dtype: 'float32', shape: 64 }),
      '...',
    ]),
    { l: 'l.0' },
  );
  // a parametric domain split over the work-group: its guard leaves some work-items out of the last group
  const parametric = splitIname(
    makeKernel('{ [i]: 0<=i<n }', 'out[i] = subgroupAdd(a[i])', [
      globalArg('a', { dtype: 'float32', shape: 'n' }),
      '...',
    ]),
    'i',
    64,
    { outerTag: 'g.0', innerTag: 'l.0' },
  );
  for (const [knl, fn] of [
    [guarded, 'subgroupAdd'],
    [ternary, 'subgroupMax'],
    [parametric, 'subgroupAdd'],
  ] as const) {
    assert.throws(
      () => generateCode(knl, wgslTarget()),
      (e: Error) =>
        e instanceof LoomError &&
        e.message.startsWith(`${fn}: `) &&
        e.message.includes('depends on the local ids') &&
        e.message.includes('every work-item of a subgroup must reach'),
    );
  }
  // a condition the whole work-group shares is no reason to refuse
  const uniform = tagInames(
    makeKernel('{ [g, l]: 0<=g<4 and 0<=l<64 }', 'out[64*g + l] = subgroupAdd(a[64*g + l]) {if=g < 2}', [
      globalArg('a', { dtype: 'float32', shape: 256 }),
      '...',
    ]),
    { g: 'g.0', l: 'l.0' },
  );
  assert.match(generateCode(uniform, wgslTarget()).code, 'subgroupAdd(');
  // the ids need no other work-item: read under any condition
  const ids = tagInames(
    makeKernel('{ [l]: 0<=l<64 }', 'out[l] = subgroupLocalId() + 100*subgroupId() {if=l < 20}', [
      globalArg('out', { dtype: 'int32', shape: 64 }),
    ]),
    { l: 'l.0' },
  );
  assert.match(generateCode(ids, wgslTarget()).code, 'subgroup_invocation_id');
  // rows side by side along l.1, l.0 a whole number of warps: a condition on the row is a warp's own
  const rows = (width: number) =>
    splitIname(
      tagInames(
        makeKernel(`{ [r, l]: 0<=r<7 and 0<=l<${width} }`, `out[${width}*r + l] = subgroupAdd(a[${width}*r + l])`, [
          globalArg('a', { dtype: 'float32', shape: 7 * width }),
          '...',
        ]),
        { l: 'l.0' },
      ),
      'r',
      4,
      { outerTag: 'g.0', innerTag: 'l.1' },
    );
  assert.match(generateCode(rows(32), cudaTarget()).code, '__shfl_xor_sync');
  // rows of 16 share a warp of 32: the last group's missing row would leave half a warp out
  assert.throws(
    () => generateCode(rows(16), cudaTarget()),
    (e: Error) => e instanceof LoomError && e.message.includes('depends on the local ids'),
  );
});

test('subgroup functions refuse dtypes their target lacks, and work-groups that are no whole warps', () => {
  const knl = (dtype: DType, size = 64) =>
    tagInames(
      makeKernel(`{ [l]: 0<=l<${size} }`, 'out[l] = subgroupAdd(a[l])', [
        globalArg('a', { dtype, shape: size }),
        globalArg('out', { dtype, shape: size }),
      ]),
      { l: 'l.0' },
    );
  // WGSL has no int64 at all; a target whose subgroup functions take fewer dtypes than it stores says so
  assert.throws(() => generateCode(knl('int64'), wgslTarget()), /int64/);
  const floatsOnly: Target = { ...cudaTarget(), subgroups: { dtypes: ['float32'], size: 32 } };
  assert.throws(
    () => generateCode(knl('int32'), floatsOnly),
    /subgroupAdd: the cuda target's subgroup functions take float32 values, not int32/,
  );
  assert.throws(() => generateCode(knl('int8'), cudaTarget()), /subgroupAdd.*not int8/);
  assert.match(generateCode(knl('float64'), cudaTarget()).code, '__shfl_xor_sync');
  assert.throws(
    () => generateCode(knl('float32', 48), cudaTarget()),
    /work-groups of 48 work-items, not a whole number of subgroups of 32/,
  );
  assert.throws(
    () => generateCode(knl('float32'), openclTarget({ subgroups: 'none' })),
    /subgroupAdd: the opencl target cannot call subgroup functions/,
  );
  assert.throws(() => makeKernel('{ [l]: 0<=l<4 }', 'out[l] = subgroupShuffle(a[l])'), /subgroupShuffle.*2 arguments/);
});

test.run();
