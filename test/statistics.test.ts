// Statistics beyond the tutorial and loopy's tests: counts checked against what kernels do
// when they run on every device, strides of indices that are not affine, global barriers,
// footprints, and the errors (no sub-group size, parameters outside the assumptions, ...).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  collectWarnings,
  gatherAccessFootprintBytes,
  gatherAccessFootprints,
  getMemAccessMap,
  getOpMap,
  getStatistics,
  getSynchronizationMap,
  globalArg,
  LoomError,
  makeKernel,
  prioritizeLoops,
  run,
  splitIname,
  tagInames,
  chunkIname,
  type LoopKernel,
} from '@loom/core';
import { testDevices } from './support/devices.ts';
import { goldenKernels } from './support/golden-kernels.ts';

const refuses = (f: () => unknown, message: RegExp) =>
  assert.throws(f, (e: unknown) => e instanceof LoomError && message.test((e as Error).message));

/** `out[i, j] = 1` over a triangle, i split with slabs and spread over the grid, j split into loops. */
function triangleOfOnes(): LoopKernel {
  let knl = makeKernel('[n] -> { [i, j] : 0 <= i < n and 0 <= j <= i }', 'out[i, j] = 1', [
    globalArg('out', { dtype: 'float32', shape: ['n', 'n'] }),
    '...',
  ]);
  knl = splitIname(knl, 'i', 16, { outerTag: 'g.0', innerTag: 'l.0', slabs: [0, 1] });
  return prioritizeLoops(splitIname(knl, 'j', 3, { slabs: [1, 1] }), 'j_outer,j_inner');
}

for (const device of testDevices()) {
  test(`${device.name}: the stores counted are the elements written when the kernel runs`, async () => {
    const knl = triangleOfOnes();
    const stores = getMemAccessMap(knl, { subgroupSize: 32 }).filterBy({ direction: ['store'] });
    assert.is(stores.keys()[0]!.countGranularity, 'workitem');
    for (const n of [1, 15, 16, 37]) {
      const { out } = await run(knl, device, { out: new Float32Array(n * n), n });
      const written = (out as Float32Array).reduce((s, v) => s + v, 0);
      assert.is(stores.evalAndSum({ n }), written, `n = ${n}`);
      assert.is(written, (n * (n + 1)) / 2);
    }
  });
}

test('an index that is not affine has no stride (None), and is counted per work-item', () => {
  let knl = makeKernel('{ [i, j] : 0 <= i < n and 0 <= j < 64 }', 'out[i, (j + 1) % 16] = a[i, j]', [
    globalArg('a', { dtype: 'float32', shape: ['n', 64] }),
    globalArg('out', { dtype: 'float32', shape: ['n', 16] }),
    '...',
  ]);
  knl = splitIname(knl, 'j', 16, { innerTag: 'l.0' });
  const memMap = getMemAccessMap(knl, { subgroupSize: 32 });
  const store = memMap.filterBy({ direction: ['store'] }).keys()[0]!;
  assert.equal(store.lidStrides, { 0: null });
  assert.is(store.countGranularity, 'workitem');
  assert.match(store.toString(), /\{0: None\}/);
  const load = memMap.filterBy({ direction: ['load'] }).keys()[0]!;
  assert.equal(load.lidStrides, { 0: 1 });
});

test('a stride that is a power of a parameter (a batch of matrices on a group axis) is counted and filtered', () => {
  // the stride of l in m[l, i, j] is n^2: its key's text, read back by filterBy, was refused
  let knl = makeKernel('{ [l, i, j]: 0<=l<nb and 0<=i,j<n }', 'y[l, i] = sum(j, m[l, i, j]*x[l, j])');
  knl = tagInames(splitIname(addDtypes(knl, { m: 'float32', x: 'float32' }), 'i', 16, { innerTag: 'l.0' }), {
    l: 'g.1',
  });
  const memMap = getMemAccessMap(knl, { subgroupSize: 32 });
  const loads = memMap.filterBy({ direction: ['load'], variable: ['m'] });
  const key = loads.keys()[0]!;
  assert.equal(key.gidStrides, { 1: 'n^2' });
  assert.equal(key.lidStrides, { 0: 'n' });
  assert.is(
    loads.filterBy({ gidStrides: { 1: 'n**2' } }).evalAndSum({ nb: 2, n: 32 }),
    loads.evalAndSum({ nb: 2, n: 32 }),
  );
  assert.is(loads.evalAndSum({ nb: 2, n: 32 }), 2 * 32 * 32);
});

test('a global barrier: two kernel launches, one global barrier', () => {
  const knl = addDtypes(
    makeKernel(
      '{ [i, ii] : 0 <= i, ii < n }',
      `
    out[i] = 2*a[i] {id=first}
    ... gbarrier {id=gb, dep=first}
    b[ii] = out[ii] + 1 {dep=gb}
  `,
    ),
    { a: 'float32' },
  );
  const sync = getSynchronizationMap(knl);
  assert.is(
    sync.toString(),
    'Sync(barrier_global, loopy_kernel): [n] -> { 1 }\nSync(kernel_launch, loopy_kernel): [n] -> { 2 }',
  );
});

test('counting redundant work multiplies by the sizes of the unused hardware axes', () => {
  let knl = addDtypes(
    makeKernel('{ [i, j] : 0 <= i < n and 0 <= j < m }', 'out[i] = 2*a[i] {id=w}\nc[i, j] = 3*b[i, j] {id=v}'),
    { a: 'float32', b: 'float32' },
  );
  knl = splitIname(knl, 'j', 8, { outerTag: 'g.0', innerTag: 'l.0' });
  const plain = getOpMap(knl, { subgroupSize: 4, within: 'w' }).evalAndSum({ n: 10, m: 20 });
  const redundant = getOpMap(knl, { subgroupSize: 4, within: 'w', countRedundantWork: true }).evalAndSum({
    n: 10,
    m: 20,
  });
  // w runs once per i per sub-group of its one work-group; redundantly on each of the 3 groups
  assert.is(plain, 10 * 2);
  assert.is(redundant, 10 * 2 * 3);
});

test('a work-group sized at launch (l.0 over n): ceil(n / subgroupSize) sub-groups per group, and n work-items redundantly', () => {
  const knl = tagInames(
    addDtypes(
      makeKernel('{ [i, j] : 0 <= i < n and 0 <= j < m }', 'out[i] = 2*a[i] {id=w}\nc[i, j] = 3*b[i, j] {id=v}'),
      { a: 'float32', b: 'float32' },
    ),
    { i: 'l.0', j: 'g.0' },
  );
  // w runs on every work-item of each of the m groups: per sub-group, ceil(n/4) times per group
  const per = (options: Parameters<typeof getOpMap>[1]) =>
    getOpMap(knl, { subgroupSize: 4, within: 'w', ...options }).evalAndSum({ n: 10, m: 20 });
  assert.is(per({}), Math.ceil(10 / 4));
  assert.is(per({ countRedundantWork: true }), Math.ceil(10 / 4) * 20);
  // a chunk of ceil(n/3): not affine, so its sub-groups cannot be counted
  const chunked = chunkIname(
    addDtypes(makeKernel('{ [i] : 0 <= i < n }', 'out[i] = 2*a[i]'), { a: 'float32' }),
    'i',
    3,
    {
      innerTag: 'l.0',
    },
  );
  refuses(() => getOpMap(chunked, { subgroupSize: 4 }).evalAndSum({ n: 10 }), /known only at launch and is not affine/);
});

test('footprints: what is read and written, each element once; a non-affine index is an error unless ignored', () => {
  const knl = addDtypes(
    makeKernel('{ [i, j] : 0 <= i, j < n }', 'out[i] = out[i] + a[i + j] + b[i*j]', [
      globalArg('b', { shape: ['n*n'] }),
      '...',
    ]),
    {
      a: 'float32',
      b: 'float64',
      out: 'float32',
    },
  );
  refuses(() => gatherAccessFootprints(knl), /footprint of b\[i\*j\]/);
  const fp = gatherAccessFootprints(knl, { ignoreUncountable: true });
  assert.is(fp.get('a', 'read').count().toString(), '[n] -> { (2 * n - 1) : n > 0 }');
  assert.is(fp.get('out', 'write').count().evalWithDict({ n: 9 }), 9);
  assert.not.ok(fp.has('b', 'read'));
  assert.is(gatherAccessFootprintBytes(knl, { ignoreUncountable: true }).get('a:read')!.evalWithDict({ n: 9 }), 4 * 17);
});

test('errors: no sub-group size, a count outside the assumptions, a missing parameter, a bad groupBy', () => {
  const knl = addDtypes(makeKernel('{ [i] : 0 <= i < n }', 'out[i] = 2*a[i]', undefined, { assumptions: 'n >= 16' }), {
    a: 'float32',
  });
  refuses(() => getOpMap(knl), /pass subgroupSize/);
  refuses(() => getOpMap(knl, { subgroupSize: 0 }), /positive integer/);
  const count = getOpMap(knl, { subgroupSize: 32 }).sum();
  assert.is(count.evalWithDict({ n: 16 }), 16);
  refuses(() => count.evalWithDict({ n: 4 }), /outside the kernel's assumptions/);
  refuses(() => count.evalWithDict({}), /no value for the parameter 'n'/);
  refuses(() => getOpMap(knl, { subgroupSize: 32 }).groupBy('size' as never), /'size' is not a field/);
  const sync = collectWarnings(() => getSynchronizationMap(tagInames(knl, { i: 'g.0' }))).result;
  refuses(() => sync.toBytes(), /has no dtype/);
});

test('every example and tutorial kernel is counted, the three maps at once as one by one', () => {
  for (const { id, kernel } of goldenKernels()) {
    const options = { subgroupSize: 32, countRedundantWork: true };
    const { result: all } = collectWarnings(() => getStatistics(kernel, options));
    const { result: sync } = collectWarnings(() => getSynchronizationMap(kernel));
    assert.is(all.ops.toString(), getOpMap(kernel, options).toString(), id);
    assert.is(all.memAccesses.toString(), getMemAccessMap(kernel, options).toString(), id);
    assert.is(all.sync.toString(), sync.toString(), id);
    assert.ok(all.sync.size >= 1, id);
  }
});

test('a dtype the kernel does not know yet is an error before anything is counted', () => {
  refuses(
    () => getOpMap(makeKernel('{ [i] : 0 <= i < n }', 'out[i] = 2*a[i]'), { subgroupSize: 32 }),
    /dtype of argument 'a'/,
  );
});

test.run();
