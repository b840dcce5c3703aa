/**
 * Ports of loopy's test/test_statistics.py, the memory access counts (`getMemAccessMap`) and the
 * count granularity checks. The numbers are the originals'.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  collectWarnings,
  fixParameters,
  CountGranularity as CG,
  getMemAccessMap,
  LoomError,
  makeKernel,
  MemAccess,
  Op,
  setTemporaryAddressSpace,
  splitIname,
  tagInames,
} from '@loom/core';
import { divCeil, ell, globalCount, kernel, m, n, nSubgroups, params, SGS } from '../support/statistics-fixtures.ts';

test('test_statistics.py::test_mem_access_counter_basic', () => {
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
  const memMap = getMemAccessMap(knl, { countRedundantWork: true, subgroupSize: SGS });
  const f32l =
    globalCount(memMap, 'float32', 'load', 'a', 'basic') + globalCount(memMap, 'float32', 'load', 'b', 'basic');
  const f64l =
    globalCount(memMap, 'float64', 'load', 'g', 'basic') + globalCount(memMap, 'float64', 'load', 'h', 'basic');
  assert.is(f32l, 3 * n * m * ell * nSubgroups);
  assert.is(f64l, 2 * n * m * nSubgroups);
  assert.is(globalCount(memMap, 'float32', 'store', 'c', 'basic'), n * m * ell * nSubgroups);
  assert.is(globalCount(memMap, 'float64', 'store', 'e', 'basic'), n * m * nSubgroups);
});

test('test_statistics.py::test_mem_access_counter_reduction', () => {
  const knl = kernel('{[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<ell}', 'c[i, j] = sum(k, a[i, k]*b[k, j])', 'matmul', {
    a: 'float32',
    b: 'float32',
  });
  const memMap = getMemAccessMap(knl, { countRedundantWork: true, subgroupSize: SGS });
  const f32l =
    globalCount(memMap, 'float32', 'load', 'a', 'matmul') + globalCount(memMap, 'float32', 'load', 'b', 'matmul');
  assert.is(f32l, 2 * n * m * ell * nSubgroups);
  const f32s = globalCount(memMap, 'float32', 'store', 'c', 'matmul');
  assert.is(f32s, n * ell * nSubgroups);
  assert.is(
    memMap
      .filterBy({ mtype: ['global'], direction: ['load'] })
      .toBytes()
      .evalAndSum(params),
    4 * f32l,
  );
  assert.is(
    memMap
      .filterBy({ mtype: ['global'], direction: ['store'] })
      .toBytes()
      .evalAndSum(params),
    4 * f32s,
  );
});

test('test_statistics.py::test_mem_access_counter_logic', () => {
  const knl = kernel(
    '{[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<ell}',
    'e[i,k] = if((not(k<ell-2) and k>6) or k/2==ell, g[i,k]*2, g[i,k]+h[i,k]/2)',
    'logic',
    {
      g: 'float32',
      h: 'float64',
    },
  );
  const reduced = getMemAccessMap(knl, { countRedundantWork: true, subgroupSize: SGS }).groupBy(
    'mtype',
    'dtype',
    'direction',
  );
  assert.is(
    reduced.get(new MemAccess({ mtype: 'global', dtype: 'float32', direction: 'load' })).evalWithDict(params),
    2 * n * m * nSubgroups,
  );
  assert.is(
    reduced.get(new MemAccess({ mtype: 'global', dtype: 'float64', direction: 'load' })).evalWithDict(params),
    n * m * nSubgroups,
  );
  assert.is(
    reduced.get(new MemAccess({ mtype: 'global', dtype: 'float64', direction: 'store' })).evalWithDict(params),
    n * m * nSubgroups,
  );
});

test('test_statistics.py::test_mem_access_counter_special_ops', () => {
  const knl = kernel(
    '{[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<ell}',
    'c[i, j, k] = (2*a[i,j,k])%(2+b[i,j,k]/3.0)\ne[i, k] = (1+g[i,k])**(1+h[i,k+1])',
    'special_ops',
    {
      a: 'float32',
      b: 'float32',
      g: 'float64',
      h: 'float64',
    },
  );
  const memMap = getMemAccessMap(knl, { countRedundantWork: true, subgroupSize: SGS });
  assert.is(
    globalCount(memMap, 'float32', 'load', 'a', 'special_ops') +
      globalCount(memMap, 'float32', 'load', 'b', 'special_ops'),
    2 * n * m * ell * nSubgroups,
  );
  assert.is(
    globalCount(memMap, 'float64', 'load', 'g', 'special_ops') +
      globalCount(memMap, 'float64', 'load', 'h', 'special_ops'),
    2 * n * m * nSubgroups,
  );
  assert.is(globalCount(memMap, 'float32', 'store', 'c', 'special_ops'), n * m * ell * nSubgroups);
  assert.is(globalCount(memMap, 'float64', 'store', 'e', 'special_ops'), n * m * nSubgroups);
  const tot = memMap
    .filterBy({ direction: ['load'], variable: ['a', 'g'], countGranularity: CG.SUBGROUP })
    .evalAndSum(params);
  assert.is(tot, (n * m * ell + n * m) * nSubgroups);
});

const MIXED = `
  c[i, j, k] = a[i,j,k]*b[i,j,k]/3.0+a[i,j,k]+x[i,k]
  e[i, k] = g[i,k]*(2+h[i,k])
`;

test('test_statistics.py::test_mem_access_counter_mixed', () => {
  let knl = kernel('[n,m,ell] -> {[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<ell}', MIXED, 'mixed', {
    a: 'float32',
    b: 'float32',
    g: 'float64',
    h: 'float64',
    x: 'float32',
  });
  const groupSize0 = 65;
  knl = splitIname(knl, 'j', groupSize0);
  knl = tagInames(knl, { j_inner: 'l.0', j_outer: 'g.0' });
  const subgroups = divCeil(ell, groupSize0) * divCeil(groupSize0, SGS);
  const memMap = getMemAccessMap(knl, { countRedundantWork: true, subgroupSize: SGS });
  const uniform64 =
    globalCount(memMap, 'float64', 'load', 'g', 'mixed') + globalCount(memMap, 'float64', 'load', 'h', 'mixed');
  assert.is(uniform64, 2 * n * m * subgroups);
  assert.is(globalCount(memMap, 'float32', 'load', 'x', 'mixed'), m * n * subgroups);
  const strides = { lid: { 0: 'm' }, gid: { 0: `m*${groupSize0}` } };
  const nonconsec =
    globalCount(memMap, 'float32', 'load', 'a', 'mixed', strides, CG.WORKITEM) +
    globalCount(memMap, 'float32', 'load', 'b', 'mixed', strides, CG.WORKITEM);
  assert.is(nonconsec, 3 * n * m * ell);
  assert.is(globalCount(memMap, 'float64', 'store', 'e', 'mixed'), m * n * subgroups);
  assert.is(globalCount(memMap, 'float32', 'store', 'c', 'mixed', strides, CG.WORKITEM), n * m * ell);
});

const NONCONSEC = `
  c[i, j, k] = a[i,j,k]*b[i,j,k]/3.0+a[i,j,k]
  e[i, k] = g[i,k]*(2+h[i,k])
`;

test('test_statistics.py::test_mem_access_counter_nonconsec', () => {
  let knl = kernel('[n,m,ell] -> {[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<ell}', NONCONSEC, 'non_consec', {
    a: 'float32',
    b: 'float32',
    g: 'float64',
    h: 'float64',
  });
  const lsize0 = 16;
  knl = splitIname(knl, 'i', lsize0);
  knl = tagInames(knl, { i_inner: 'l.0', i_outer: 'g.0' });
  for (const subgroupSize of [SGS, 64]) {
    const memMap = getMemAccessMap(knl, { countRedundantWork: true, subgroupSize });
    const s64 = { lid: { 0: 'm' }, gid: { 0: `m*${lsize0}` } };
    const s32 = { lid: { 0: 'm*ell' }, gid: { 0: `m*ell*${lsize0}` } };
    const f64 =
      globalCount(memMap, 'float64', 'load', 'g', 'non_consec', s64, CG.WORKITEM) +
      globalCount(memMap, 'float64', 'load', 'h', 'non_consec', s64, CG.WORKITEM);
    const f32 =
      globalCount(memMap, 'float32', 'load', 'a', 'non_consec', s32, CG.WORKITEM) +
      globalCount(memMap, 'float32', 'load', 'b', 'non_consec', s32, CG.WORKITEM);
    assert.is(f64, 2 * n * m);
    assert.is(f32, 3 * n * m * ell);
    if (subgroupSize !== SGS) continue;
    assert.is(globalCount(memMap, 'float64', 'store', 'e', 'non_consec', s64, CG.WORKITEM), n * m);
    assert.is(globalCount(memMap, 'float32', 'store', 'c', 'non_consec', s32, CG.WORKITEM), n * m * ell);
  }
});

test('test_statistics.py::test_mem_access_counter_consec', () => {
  // Loom's work-groups have a constant size (k on l.0 runs over 0..m-1): m is fixed at the test's value
  let knl = kernel('[n,m,ell] -> {[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<ell}', NONCONSEC, 'consec', {
    a: 'float32',
    b: 'float32',
    g: 'float64',
    h: 'float64',
  });
  knl = fixParameters(knl, { m });
  knl = tagInames(knl, { k: 'l.0', i: 'g.0', j: 'g.1' });
  const { result: memMap } = collectWarnings(() =>
    getMemAccessMap(knl, { countRedundantWork: true, subgroupSize: 'guess' }),
  );
  const s64 = { lid: { 0: 1 }, gid: { 0: m } };
  const s32 = { lid: { 0: 1 }, gid: { 0: `${m}*ell`, 1: m } };
  const f64 =
    globalCount(memMap, 'float64', 'load', 'g', 'consec', s64, CG.WORKITEM) +
    globalCount(memMap, 'float64', 'load', 'h', 'consec', s64, CG.WORKITEM);
  const f32 =
    globalCount(memMap, 'float32', 'load', 'a', 'consec', s32, CG.WORKITEM) +
    globalCount(memMap, 'float32', 'load', 'b', 'consec', s32, CG.WORKITEM);
  assert.is(f64, 2 * n * m * ell);
  assert.is(f32, 3 * n * m * ell);
  assert.is(globalCount(memMap, 'float64', 'store', 'e', 'consec', s64, CG.WORKITEM), n * m * ell);
  assert.is(globalCount(memMap, 'float32', 'store', 'c', 'consec', s32, CG.WORKITEM), n * m * ell);
});

test('test_statistics.py::test_mem_access_counter_global_temps', () => {
  // loopy privatizes b over i, j first; Loom's `<>b[i, j]` is that array already. Loom's
  // temporaries have constant sizes: the domain has the test's values for n, m, ell.
  let knl = makeKernel(`{[i,j,k]: 0<=i<${n} and 0<=j<${m} and 0<=k<${ell}}`, '<>a[i, j, k] = 3.1\n<>b[i, j] = 3.2');
  knl = setTemporaryAddressSpace(knl, 'b', 'global');
  const { result: memMap } = collectWarnings(() =>
    getMemAccessMap(knl, { countRedundantWork: true, subgroupSize: 'guess' }),
  );
  assert.is(
    memMap
      .filterBy({ mtype: ['global'] })
      .sum()
      .evalWithDict(params),
    n * m,
  );
});

test('test_statistics.py::test_count_granularity_val_checks', () => {
  for (const g of [CG.WORKITEM, CG.SUBGROUP, CG.WORKGROUP, undefined]) {
    new MemAccess({ countGranularity: g });
    new Op({ countGranularity: g });
  }
  assert.throws(
    () => new MemAccess({ countGranularity: 'bushel' as CG }),
    (e: unknown) => e instanceof LoomError && /'bushel'/.test((e as Error).message),
  );
  assert.throws(
    () => new Op({ countGranularity: 'bushel' as CG }),
    (e: unknown) => e instanceof LoomError,
  );
});

test('test_statistics.py::test_mem_access_counter_bitwise', () => {
  const knl = kernel(
    '{[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<ell}',
    'c[i, j, k] = (a[i,j,k] | 1) + (b[i,j,k] & 1)\ne[i, k] = (g[i,k] ^ k)*(~h[i,k+1]) + (g[i, k] << (h[i,k] >> k))',
    'bitwise',
    { a: 'int32', b: 'int32', g: 'int32', h: 'int32' },
  );
  const memMap = getMemAccessMap(knl, { countRedundantWork: true, subgroupSize: SGS });
  const loads = ['a', 'b', 'g', 'h'].reduce((s, v) => s + globalCount(memMap, 'int32', 'load', v, 'bitwise'), 0);
  assert.is(loads, (4 * n * m + 2 * n * m * ell) * nSubgroups);
  const stores =
    globalCount(memMap, 'int32', 'store', 'c', 'bitwise') + globalCount(memMap, 'int32', 'store', 'e', 'bitwise');
  assert.is(stores, (n * m + n * m * ell) * nSubgroups);
});

test.run();
