// loopy's tutorial, "Obtaining Performance Statistics" (seed 003): every number it prints,
// on the kernels examples/statistics.ts builds, and the counts printed as isl prints them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  collectWarnings,
  generateCode,
  getMemAccessMap,
  getOpMap,
  getSynchronizationMap,
  KernelCheckError,
  LoomError,
  MemAccess,
  Op,
  Sync,
  type MemAccessMap,
} from '@loom/core';
import { jsTarget } from '@loom/codegen-js';
import { barrierKernel, consecutive, nonConsecutive, PARAMS, statsKernel } from '../examples/statistics.ts';

const params = PARAMS; // n = 256, m = 256, l = 8

test('operations: f32 add/div/mul, f64 add/mul, i32 add', () => {
  const opMap = getOpMap(statsKernel(), { subgroupSize: 32 });
  const count = (dtype: 'float32' | 'float64' | 'int32', name: string) =>
    opMap.get(new Op({ dtype, name, countGranularity: 'subgroup', kernelName: 'stats_knl' })).evalWithDict(params);
  assert.equal(
    [
      count('float32', 'add'),
      count('float32', 'div'),
      count('float32', 'mul'),
      count('float64', 'add'),
      count('float64', 'mul'),
      count('int32', 'add'),
    ],
    [524288, 524288, 524288, 65536, 65536, 65536],
  );
  assert.is(opMap.size, 6);
  assert.is(
    opMap
      .get(new Op({ dtype: 'float32', name: 'add', countGranularity: 'subgroup', kernelName: 'stats_knl' }))
      .toString(),
    '[l, m, n] -> { l * m * n : l > 0 and m > 0 and n > 0 }',
  );
  assert.match(
    opMap.toString(),
    /^Op\(float32, add, subgroup, "stats_knl"\): \[l, m, n\] -> \{ l \* m \* n : l > 0 and m > 0 and n > 0 \}$/m,
  );
});

test('filterBy and evalAndSum: 1572864 float32 operations', () => {
  const opMap = getOpMap(statsKernel(), { subgroupSize: 32 });
  assert.is(opMap.filterBy({ dtype: ['float32'] }).evalAndSum(params), 1572864);
});

test('groupBy dtype: the polynomials', () => {
  const byDtype = getOpMap(statsKernel(), { subgroupSize: 32 }).groupBy('dtype');
  assert.is(byDtype.get({ dtype: 'float32' }).evalWithDict(params), 1572864);
  assert.is(
    byDtype.get(new Op({ dtype: 'float32' })).toString(),
    '[l, m, n] -> { 3 * l * m * n : l > 0 and m > 0 and n > 0 }',
  );
  assert.is(byDtype.get({ dtype: 'float64' }).toString(), '[l, m, n] -> { 2 * m * n : l > 0 and m > 0 and n > 0 }');
  assert.match(byDtype.toString(), /^Op\(float32, None, None\): /);
});

function globalAccess(
  map: MemAccessMap,
  dtype: 'float32' | 'float64',
  lidStrides: Record<number, number>,
  direction: 'load' | 'store',
  variable: string,
  countGranularity: 'workitem' | 'subgroup',
): number {
  return map
    .get(
      new MemAccess({
        mtype: 'global',
        dtype,
        lidStrides,
        gidStrides: {},
        direction,
        variable,
        countGranularity,
        kernelName: 'stats_knl',
      }),
    )
    .evalWithDict(params);
}

test('memory accesses: loads of a, stores of c, loads of g, stores of e', () => {
  const memMap = getMemAccessMap(statsKernel(), { subgroupSize: 32 });
  assert.is(globalAccess(memMap, 'float32', {}, 'load', 'a', 'subgroup'), 1048576);
  assert.is(globalAccess(memMap, 'float32', {}, 'store', 'c', 'subgroup'), 524288);
  assert.is(globalAccess(memMap, 'float64', {}, 'load', 'g', 'subgroup'), 65536);
  assert.is(globalAccess(memMap, 'float64', {}, 'store', 'e', 'subgroup'), 65536);
  assert.match(
    memMap.toString(),
    /^MemAccess\(global, float32, \{\}, \{\}, load, a, None, subgroup, 'stats_knl'\): \[l, m, n\] -> \{ 2 \* l \* m \* n : l > 0 and m > 0 and n > 0 \}$/m,
  );
});

test('bytes loaded 7340032, stored 2621440', () => {
  const bytes = getMemAccessMap(statsKernel(), { subgroupSize: 32 })
    .toBytes()
    .filterBy({ mtype: ['global'] })
    .groupBy('direction');
  assert.is(bytes.get(new MemAccess({ direction: 'load' })).evalWithDict(params), 7340032);
  assert.is(bytes.get(new MemAccess({ direction: 'store' })).evalWithDict(params), 2621440);
  assert.match(bytes.toString(), /^MemAccess\(None, None, None, None, load, None, None, None, None\): /);
});

test('k split onto l.1/l.0: strides {0: 1, 1: 128}, counted per work-item, same totals', () => {
  const memMap = getMemAccessMap(consecutive(statsKernel()), { subgroupSize: 32 });
  const strides = { 0: 1, 1: 128 };
  assert.equal(
    [
      globalAccess(memMap, 'float32', strides, 'load', 'a', 'workitem'),
      globalAccess(memMap, 'float32', strides, 'store', 'c', 'workitem'),
      globalAccess(memMap, 'float64', strides, 'load', 'g', 'workitem'),
      globalAccess(memMap, 'float64', strides, 'store', 'e', 'workitem'),
    ],
    [1048576, 524288, 65536, 65536],
  );
  assert.ok(
    memMap.keys().every((k) => k.toString().includes('{0: 1, 1: 128}, {}') && k.countGranularity === 'workitem'),
  );
});

test('k split onto l.0/l.1: strides {0: 128, 1: 1}, and filterByFunc: 2097152', () => {
  const memMap = getMemAccessMap(nonConsecutive(statsKernel()), { subgroupSize: 32 });
  const strides = { 0: 128, 1: 1 };
  assert.equal(
    [
      globalAccess(memMap, 'float32', strides, 'load', 'a', 'workitem'),
      globalAccess(memMap, 'float32', strides, 'store', 'c', 'workitem'),
      globalAccess(memMap, 'float64', strides, 'load', 'g', 'workitem'),
      globalAccess(memMap, 'float64', strides, 'store', 'e', 'workitem'),
    ],
    [1048576, 524288, 65536, 65536],
  );
  const f = (key: MemAccess) =>
    key.dtype === 'float32' && typeof key.lidStrides?.[0] === 'number' && key.lidStrides[0] > 1;
  assert.is(memMap.filterByFunc(f).evalAndSum(params), 2097152);
});

test('synchronization: one kernel launch; 1000 local barriers in the barrier kernel (whose code Loom refuses to generate)', () => {
  const { result: syncMap } = collectWarnings(() => getSynchronizationMap(statsKernel()));
  assert.is(syncMap.toString(), 'Sync(kernel_launch, stats_knl): [l, m, n] -> { 1 }');
  assert.is(syncMap.get(new Sync({ kind: 'kernel_launch', kernelName: 'stats_knl' })).evalWithDict(params), 1);
  const { result: barriers } = collectWarnings(() => getSynchronizationMap(barrierKernel()));
  assert.is(
    barriers.toString(),
    'Sync(barrier_local, loopy_kernel): { 1000 }\nSync(kernel_launch, loopy_kernel): { 1 }',
  );
  assert.is(barriers.get({ kind: 'barrier_local', kernelName: 'loopy_kernel' }).evalWithDict({}), 1000);
  // it reads c[i,j,0] and c[i,j,98], which no work-item writes
  assert.throws(
    () => generateCode(barrierKernel(), jsTarget()),
    (e: unknown) => e instanceof KernelCheckError && e.check === 'local_read_not_written',
  );
});

test('a count asked for a key the map does not have is a LoomError listing the keys', () => {
  const opMap = getOpMap(statsKernel(), { subgroupSize: 32 });
  assert.throws(
    () => opMap.get({ dtype: 'float16' }),
    (e: unknown) =>
      e instanceof LoomError &&
      /no count for Op\(float16, None, None\)/.test((e as Error).message) &&
      /Op\(float32, add/.test((e as Error).message),
  );
});

test.run();
