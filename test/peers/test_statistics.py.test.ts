/**
 * Ports of loopy's test/test_statistics.py: synchronization counts, all counters of a parallel
 * matmul, tagged variables, footprints, summations and filters (the operation counts are in
 * test_statistics.py.op-counter.test.ts, the memory access counts in .mem-access.test.ts). The
 * numbers are the originals'; a callee's work counts once per call, as loopy counts it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addPrefetch,
  collectWarnings,
  CountGranularity as CG,
  gatherAccessFootprintBytes,
  gatherAccessFootprints,
  getMemAccessMap,
  getOpMap,
  globalArg,
  getSynchronizationMap,
  LoomError,
  makeFunction,
  makeKernel,
  merge,
  MemAccess,
  Op,
  splitIname,
  tagInames,
  valueArg,
  type DType,
  type LoopKernel,
} from '@loom/core';
import {
  BASIC,
  divCeil,
  ell,
  globalCount,
  kernel,
  m,
  n,
  nSubgroups,
  params,
  SGS,
} from '../support/statistics-fixtures.ts';

test('test_statistics.py::test_barrier_counter_nobarriers', () => {
  const knl = kernel(
    '[n,m,ell] -> {[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<ell}',
    'c[i, j, k] = a[i,j,k]*b[i,j,k]/3.0+a[i,j,k]\ne[i, k] = g[i,k]*h[i,k+1]',
    'basic',
    {
      a: 'float32',
      b: 'float32',
      g: 'float64',
      h: 'float64',
    },
  );
  const { result: syncMap } = collectWarnings(() => getSynchronizationMap(knl));
  assert.is(syncMap.size, 1);
  assert.is(syncMap.filterBy({ kind: 'kernel_launch' }).evalAndSum(params), 1);
});

test('test_statistics.py::test_barrier_counter_barriers', () => {
  // (the kernel reads c[i,j,0] and c[i,j,98], which nobody writes: Loom refuses to generate its
  // code, but counts it as written, as loopy does)
  let knl = makeKernel(
    '[n,m,ell] -> {[i,k,j]: 0<=i<50 and 1<=k<98 and 0<=j<10}',
    '<>c[i,j,k] = 2*a[i,j,k] {id=first}\ne[i,j,k] = c[i,j,k+1]+c[i,j,k-1] {dep=first}',
    undefined,
    {
      name: 'weird2',
    },
  );
  knl = addDtypes(knl, { a: 'int32' });
  knl = splitIname(knl, 'k', 128, { innerTag: 'l.0' });
  const { result: syncMap } = collectWarnings(() => getSynchronizationMap(knl));
  assert.is(syncMap.filterBy({ kind: 'barrier_local' }).evalAndSum(params), 50 * 10 * 2);
});

test('test_statistics.py::test_barrier_count_single', () => {
  const knl = tagInames(makeKernel('{[i]: 0<=i<128}', '<> c[i] = 15*i {id=yoink}\nc[i+1] = c[i]  {dep=yoink}'), {
    i: 'l.0',
  });
  const { result: syncMap } = collectWarnings(() => getSynchronizationMap(knl));
  assert.is(syncMap.filterBy({ kind: 'barrier_local' }).evalAndSum(), 1);
});

function parallelMatmul(bsize: number): LoopKernel {
  let knl = kernel('{[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<ell}', 'c[i, j] = sum(k, a[i, k]*b[k, j])', 'matmul', {
    a: 'float32',
    b: 'float32',
  });
  knl = splitIname(knl, 'i', bsize, { outerTag: 'g.0', innerTag: 'l.1' });
  knl = splitIname(knl, 'j', bsize, { outerTag: 'g.1', innerTag: 'l.0' });
  return splitIname(knl, 'k', bsize);
}

test('test_statistics.py::test_all_counters_parallel_matmul', () => {
  const bsize = 16;
  let knl = parallelMatmul(bsize);
  knl = addPrefetch(knl, 'a', ['k_inner', 'i_inner'], { defaultTag: 'l.auto' });
  knl = addPrefetch(knl, 'b', ['j_inner', 'k_inner'], { defaultTag: 'l.auto' });
  const groupSize = bsize * bsize;
  const subgroups = divCeil(n, bsize) * divCeil(ell, bsize) * divCeil(groupSize, SGS);

  const syncMap = getSynchronizationMap(knl);
  assert.is(syncMap.size, 2);
  assert.is(syncMap.filterBy({ kind: 'kernel_launch' }).evalAndSum(params), 1);
  assert.is(syncMap.filterBy({ kind: 'barrier_local' }).evalAndSum(params), (2 * m) / bsize);

  const opMap = getOpMap(knl, { subgroupSize: SGS, countRedundantWork: true });
  const op = (dtype: DType, name: string) =>
    opMap.get(new Op({ dtype, name, countGranularity: CG.SUBGROUP, kernelName: 'matmul' })).evalWithDict(params);
  assert.is(op('float32', 'mul') + op('float32', 'add'), m * 2 * subgroups);

  const memMap = getMemAccessMap(knl, { countRedundantWork: true, subgroupSize: SGS });
  const b = globalCount(
    memMap,
    'float32',
    'load',
    'b',
    'matmul',
    { lid: { 0: 1, 1: 'ell' }, gid: { 1: bsize } },
    CG.WORKITEM,
  );
  const a = globalCount(
    memMap,
    'float32',
    'load',
    'a',
    'matmul',
    { lid: { 0: 1, 1: 'm' }, gid: { 0: `m*${bsize}` } },
    CG.WORKITEM,
  );
  assert.is(b, (n * m * ell) / bsize);
  assert.is(a, (n * m * ell) / bsize);
  assert.is(
    globalCount(
      memMap,
      'float32',
      'store',
      'c',
      'matmul',
      { lid: { 0: 1, 1: 'ell' }, gid: { 0: `ell*${bsize}`, 1: bsize } },
      CG.WORKITEM,
    ),
    n * ell,
  );

  const local = memMap.filterBy({ mtype: ['local'] });
  assert.is(local.filterBy({ direction: ['load'] }).evalAndSum(params), m * 2 * subgroups);
  const fetch = (variable: string, lidStrides: Record<number, number>) =>
    local
      .get(
        new MemAccess({
          mtype: 'local',
          dtype: 'float32',
          direction: 'load',
          lidStrides,
          gidStrides: {},
          variable,
          countGranularity: CG.SUBGROUP,
          kernelName: 'matmul',
        }),
      )
      .evalWithDict(params);
  assert.is(fetch('a_fetch', { 1: 16 }), m * subgroups);
  assert.is(fetch('b_fetch', { 0: 1 }), m * subgroups);
  assert.is(local.filterBy({ direction: ['store'] }).evalAndSum(params), ((m * 2) / bsize) * subgroups);
});

test('test_statistics.py::test_floor_div_coefficient_collector', () => {
  // a local tile shuffled by indices that are not affine ((j_inner + r) % 16): its shape guessed
  // from the affine writes, every access counted (loopy's domain, n/16 a fraction as isl reads it)
  const bsize = 16;
  let knl = makeKernel(
    `{[i_outer,j_outer,i_inner,j_inner,r]: 0<=i_outer<n/${bsize} and 0<=j_outer<n/${bsize} and ` +
      `0<=i_inner<${bsize} and 0<=j_inner<${bsize} and 0<=r<rept}`,
    `for i_outer
       for j_outer
         <> loc[i_inner,j_inner] = 3.14f  {id=loc_init}
         loc[i_inner,(j_inner+r+4) % ${bsize}] = loc[i_inner,(j_inner+r) % ${bsize}]  {id=add,dep=loc_init}
         out0[i_outer*16+i_inner,j_outer*16+j_inner] = loc[i_inner,j_inner]  {id=store,dep=add}
       end
     end`,
    undefined,
    { name: 'local' },
  );
  knl = addDtypes(knl, { out0: 'float32' });
  knl = tagInames(knl, { i_outer: 'g.1', i_inner: 'l.1', j_outer: 'g.0', j_inner: 'l.0' });
  const sizes = { n: 512, rept: 64 };
  const groupSize = bsize * bsize;
  const subgroups = divCeil(sizes.n, bsize) * divCeil(sizes.n, bsize) * divCeil(groupSize, SGS);
  const memMap = getMemAccessMap(knl, { countRedundantWork: true, subgroupSize: SGS });
  const local = memMap.filterBy({ dtype: ['float32'], mtype: ['local'] }).evalAndSum(sizes);
  // (count per subgroup) * subgroups: the write of loc_init, a read and a write per r, the read of store
  assert.is(local, 2 * (sizes.rept + 1) * subgroups);
});

test('test_statistics.py::test_mem_access_tagged_variables', () => {
  // Loom's variables carry no tags (loopy's `c$mmresult`): the counts and strides are checked without them
  const bsize = 16;
  const knl = parallelMatmul(bsize);
  const subgroups = divCeil(n, bsize) * divCeil(ell, bsize) * divCeil(bsize * bsize, SGS);
  const memMap = getMemAccessMap(knl, { countRedundantWork: true, subgroupSize: SGS });
  assert.is(
    globalCount(memMap, 'float32', 'load', 'b', 'matmul', { lid: { 0: 1 }, gid: { 1: bsize } }, CG.WORKITEM),
    n * m * ell,
  );
  assert.is(
    globalCount(memMap, 'float32', 'load', 'a', 'matmul', { lid: { 1: 'm' }, gid: { 0: `m*${bsize}` } }, CG.SUBGROUP),
    m * subgroups,
  );
  assert.is(
    globalCount(
      memMap,
      'float32',
      'store',
      'c',
      'matmul',
      { lid: { 0: 1, 1: 'ell' }, gid: { 0: `ell*${bsize}`, 1: bsize } },
      CG.WORKITEM,
    ),
    n * ell,
  );
});

test('test_statistics.py::test_gather_access_footprint', () => {
  const knl = kernel(
    '{[i,k,j]: 0<=i,j,k<n}',
    'c[i, j] = sum(k, a[i, k]*b[k, j]) + a[i,j]',
    'matmul',
    { a: 'float32', b: 'float32' },
    'n >= 1',
  );
  const fp = gatherAccessFootprints(knl);
  // (loopy prints them) every element of each matrix, once
  for (const [variable, direction] of [
    ['c', 'write'],
    ['a', 'read'],
    ['b', 'read'],
  ] as const) {
    assert.is(fp.get(variable, direction).count().evalWithDict({ n: 7 }), 49, `${variable} ${direction}`);
  }
  assert.is(gatherAccessFootprintBytes(knl).get('a:read')!.evalWithDict({ n: 7 }), 4 * 49);
});

test('test_statistics.py::test_gather_access_footprint_2', () => {
  const knl = kernel('{[i]: 0<=i<n}', 'c[2*i] = a[i]', 'matmul', { a: 'float32' }, 'n >= 1');
  const fp = gatherAccessFootprints(knl);
  for (const f of fp.values()) assert.is(f.count().evalWithDict({ n: 200 }), 200);
  assert.is(fp.values().length, 2);
});

test('test_statistics.py::test_summations_and_filters', () => {
  const knl = kernel('[n,m,ell] -> {[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<ell}', BASIC, 'basic', {
    a: 'float32',
    b: 'float32',
    g: 'float64',
    h: 'float64',
  });
  const memMap = getMemAccessMap(knl, { countRedundantWork: true, subgroupSize: SGS });
  assert.is(
    memMap.filterBy({ direction: ['load'], variable: ['a'], countGranularity: [CG.SUBGROUP] }).evalAndSum(params),
    2 * n * m * ell * nSubgroups,
  );
  assert.is(
    memMap.filterBy({ mtype: ['global'], direction: ['store'], countGranularity: [CG.SUBGROUP] }).evalAndSum(params),
    (n * m * ell + n * m) * nSubgroups,
  );
  const bytes = (direction: 'load' | 'store') =>
    memMap
      .filterBy({ mtype: ['global'], direction: [direction], countGranularity: [CG.SUBGROUP] })
      .toBytes()
      .evalAndSum(params);
  assert.is(bytes('load'), (4 * n * m * ell * 3 + 8 * n * m * 2) * nSubgroups);
  assert.is(bytes('store'), (4 * n * m * ell + 8 * n * m) * nSubgroups);
  const reduced = memMap.groupBy('mtype', 'dtype', 'direction');
  assert.is(
    reduced.get(new MemAccess({ mtype: 'global', dtype: 'float32', direction: 'load' })).evalWithDict(params),
    3 * n * m * ell * nSubgroups,
  );
  assert.is(
    reduced.get(new MemAccess({ mtype: 'global', dtype: 'float64', direction: 'load' })).evalWithDict(params),
    2 * n * m * nSubgroups,
  );

  const opMap = getOpMap(knl, { subgroupSize: SGS, countRedundantWork: true, countWithinSubscripts: true });
  const byDtype = opMap.groupBy('dtype');
  assert.is(byDtype.get(new Op({ dtype: 'float32' })).evalWithDict(params), n * m * ell * 3);
  assert.is(byDtype.get(new Op({ dtype: 'float64' })).evalWithDict(params), n * m);
  assert.is(byDtype.get(new Op({ dtype: 'int32' })).evalWithDict(params), n * m * 2);
  assert.is(opMap.filterBy({ name: ['add', 'sub'] }).evalAndSum(params), n * m * ell + n * m * 2);
  assert.is(opMap.filterBy({ dtype: ['float32'] }).evalAndSum(params), n * m * ell * 3);
  assert.is(opMap.filterBy({ xxx: ['float32'] } as never).evalAndSum(params), 0);
  assert.is(
    opMap
      .groupBy('name')
      .get(new Op({ name: 'mul' }))
      .evalWithDict(params),
    n * m * ell + n * m,
  );
  assert.is(byDtype.get(new Op({ dtype: 'float64' })).evalWithDict(params), n * m);
  const f64l = memMap
    .filterByFunc(
      (key) =>
        key.lidStrides !== undefined &&
        Object.keys(key.lidStrides).length === 0 &&
        key.dtype === 'float64' &&
        key.direction === 'load',
    )
    .evalAndSum(params);
  assert.is(f64l, 2 * n * m * nSubgroups);
});

test('test_statistics.py::test_strided_footprint', () => {
  let knl = addDtypes(makeKernel('[n] -> {[i]: 0<=i<n}', 'z[i] = x[3*i]', undefined, { name: 's3' }), { x: 'float32' });
  const unr = 4;
  const bx = 256;
  knl = splitIname(knl, 'i', bx * unr, { outerTag: 'g.0', slabs: [0, 1] });
  knl = splitIname(knl, 'i_inner', bx, { outerTag: 'unr', innerTag: 'l.0' });
  const footprint = gatherAccessFootprints(knl).get('x', 'read');
  // loopy compares with an overestimate (its footprint without the stride); Loom's count is exact:
  // one element of x in three
  const size = 2 ** 20;
  assert.is(footprint.count().evalWithDict({ n: size }), size);
  assert.is(footprint.count().evalWithDict({ n: 1000 }), 1000);
});

test('test_statistics.py::test_no_loop_ops', () => {
  const knl = addDtypes(makeKernel('{ [] }', 'c = a + b\nd = 2*c + a + b'), { a: 'float64', b: 'float64' });
  const opMap = getOpMap(knl, { subgroupSize: SGS, countRedundantWork: true, countWithinSubscripts: true });
  assert.is(opMap.filterBy({ name: ['add'] }).evalAndSum({}), 3);
  assert.is(opMap.filterBy({ name: ['mul'] }).evalAndSum({}), 1);
});

test('test_statistics.py::test_within_stats', () => {
  // loopy's `2.0f * i` (a float32 product) is `float32(i) * 2.0` in Loom's expressions
  const knl = makeKernel(
    '{[i]: 0<=i<10}',
    `
    out1[i] = float32(i) * 2.0  {tags=writes_float}
    out2[i] = 3 * i     {tags=writes_int}
    out3[i] = float32(i) * 7.0  {tags=writes_float}
  `,
  );
  const { result: opMap } = collectWarnings(() => getOpMap(knl, { subgroupSize: 'guess', within: 'tag:writes_float' }));
  const byDtype = opMap.groupBy('dtype');
  assert.is(byDtype.get(new Op({ dtype: 'float32' })).evalWithDict({}), 20);
  assert.throws(
    () => byDtype.get(new Op({ dtype: 'int32' })),
    (e: unknown) => e instanceof LoomError,
  );
  const { result: memMap } = collectWarnings(() =>
    getMemAccessMap(knl, { subgroupSize: 'guess', within: 'tag:writes_float' }),
  );
  assert.is(
    memMap
      .groupBy('dtype')
      .get(new MemAccess({ dtype: 'float32' }))
      .evalWithDict({}),
    20,
  );
  assert.throws(
    () => memMap.groupBy('dtype').get(new MemAccess({ dtype: 'int32' })),
    (e: unknown) => e instanceof LoomError,
  );
});

/** loopy's matrix-vector callee of the callable-kernel statistics tests, over `n` (or 20). */
const matvec = (name: string, n?: string) =>
  makeFunction(`{[i, j]: 0<=i, j< ${n ?? 20}}`, 'y[i] = sum(j, A[i,j]*x[j])', n ? [valueArg(n), '...'] : undefined, {
    name,
  });

test('test_statistics.py::test_stats_on_callable_kernel', () => {
  const caller = makeKernel(
    '{:}',
    'y[:]  = matvec20x20(A[:,:], x[:])',
    [globalArg('x,y', { shape: [20], dtype: 'float64' }), globalArg('A', { shape: [20, 20], dtype: 'float64' })],
    { name: 'matvec' },
  );
  const prog = merge([caller, matvec('matvec20x20')]);
  const opMap = getOpMap(prog, { subgroupSize: SGS, countRedundantWork: true, countWithinSubscripts: true });
  assert.is(opMap.filterBy({ name: ['add'] }).evalAndSum({}), 400);
});

test('test_statistics.py::test_stats_on_callable_kernel_within_loop', () => {
  const caller = makeKernel(
    '{[i]: 0<=i< 20}',
    'y[i, :]  = matvec20x20(A[:,:], x[i, :])',
    [globalArg('x,y', { shape: [20, 20], dtype: 'float64' }), globalArg('A', { shape: [20, 20], dtype: 'float64' })],
    { name: 'matmat' },
  );
  const prog = merge([caller, matvec('matvec20x20')]);
  const opMap = getOpMap(prog, { subgroupSize: SGS, countRedundantWork: true, countWithinSubscripts: true });
  assert.is(opMap.filterBy({ name: ['add'] }).evalAndSum({}), 8000);
});

test('test_statistics.py::test_callable_kernel_with_substitution', () => {
  const caller = makeKernel(
    '{[i]: 0<=i< 20}',
    'y[i, :]  = matvec(20, A[:,:], x[i, :])',
    [globalArg('x,y', { shape: [20, 20], dtype: 'float64' }), globalArg('A', { shape: [20, 20], dtype: 'float64' })],
    { name: 'matmat' },
  );
  const prog = merge([caller, matvec('matvec', 'n')]);
  const opMap = getOpMap(prog, { subgroupSize: SGS, countRedundantWork: true, countWithinSubscripts: true });
  assert.is(opMap.filterBy({ name: ['add'] }).evalAndSum({}), 8000);
});

test.run();
