/**
 * Ports of loopy's test/test_statistics.py, the operation counts (`getOpMap`). The numbers are the
 * originals'; loopy's fallback counter (without barvinok) over- or underestimates some domains, and
 * Loom counts them exactly, as loopy with barvinok does, so only the exact numbers are kept.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CountGranularity as CG, getOpMap, Op, type DType } from '@loom/core';
import { BASIC, ell, kernel, m, n, nSubgroups, params, SGS } from '../support/statistics-fixtures.ts';

test('test_statistics.py::test_op_counter_basic', () => {
  const knl = kernel('[n,m,ell] -> {[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<ell}', BASIC, 'basic', {
    a: 'float32',
    b: 'float32',
    g: 'float64',
    h: 'float64',
  });
  const opMap = getOpMap(knl, { subgroupSize: SGS, countRedundantWork: true, countWithinSubscripts: true });
  const op = (dtype: DType, name: string) =>
    opMap.get(new Op({ dtype, name, countGranularity: CG.SUBGROUP, kernelName: 'basic' })).evalWithDict(params);
  assert.is(op('float32', 'add'), n * m * ell * nSubgroups);
  assert.is(op('float32', 'mul'), n * m * ell * nSubgroups);
  assert.is(op('float32', 'div'), n * m * ell * nSubgroups);
  assert.is(op('float64', 'mul'), n * m * nSubgroups);
  assert.is(op('int32', 'add'), n * m * 2 * nSubgroups);
});

test('test_statistics.py::test_op_counter_reduction', () => {
  const knl = kernel(
    '{[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<ell}',
    'c[i, j] = sum(k, a[i, k]*b[k, j])',
    'matmul_serial',
    { a: 'float32', b: 'float32' },
  );
  const opMap = getOpMap(knl, { subgroupSize: SGS, countRedundantWork: true });
  const add = opMap
    .get(new Op({ dtype: 'float32', name: 'add', countGranularity: CG.SUBGROUP, kernelName: 'matmul_serial' }))
    .evalWithDict(params);
  const mul = opMap
    .get(new Op({ dtype: 'float32', name: 'mul', countGranularity: CG.SUBGROUP, kernelName: 'matmul_serial' }))
    .evalWithDict(params);
  assert.is(add, n * m * ell * nSubgroups);
  assert.is(mul, n * m * ell * nSubgroups);
  assert.is(
    opMap
      .groupBy('dtype')
      .get(new Op({ dtype: 'float32' }))
      .evalWithDict(params),
    add + mul,
  );
});

test('test_statistics.py::test_op_counter_logic', () => {
  const knl = kernel(
    '{[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<ell}',
    'e[i,k] = if((not(k<ell-2) and k>6) or k/2==ell, g[i, k] * 2, g[i, k] + h[i, k] / 2)',
    'logic',
    {
      g: 'float32',
      h: 'float64',
    },
  );
  const opMap = getOpMap(knl, { subgroupSize: SGS, countRedundantWork: true });
  const op = (dtype: DType, name: string) =>
    opMap.get(new Op({ dtype, name, countGranularity: CG.SUBGROUP, kernelName: 'logic' })).evalWithDict(params);
  assert.is(op('float32', 'mul'), n * m * nSubgroups);
  assert.is(op('float64', 'add'), n * m * nSubgroups);
  assert.is(op('int32', 'add'), n * m * nSubgroups);
  // loopy counts 2*n*m float64 divisions ("TODO why?"): it types the integer k/2 as float64.
  // Loom's integer `/` stays an integer division (type-inference.ts): one of each.
  assert.is(op('float64', 'div'), n * m * nSubgroups);
  assert.is(op('int32', 'div'), n * m * nSubgroups);
});

test('test_statistics.py::test_op_counter_special_ops', () => {
  const knl = kernel(
    '{[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<ell}',
    `
    c[i, j, k] = (2*a[i,j,k])%(2+b[i,j,k]/3.0)
    e[i, k] = (1+g[i,k])**(1+h[i,k+1])+rsqrt(g[i,k])*sin(g[i,k])
    `,
    'special_ops',
    { a: 'float32', b: 'float32', g: 'float64', h: 'float64' },
  );
  const opMap = getOpMap(knl, { subgroupSize: SGS, countRedundantWork: true, countWithinSubscripts: true });
  const op = (dtype: DType, name: string) =>
    opMap.get(new Op({ dtype, name, countGranularity: CG.SUBGROUP, kernelName: 'special_ops' })).evalWithDict(params);
  assert.is(op('float32', 'div'), 2 * n * m * ell * nSubgroups);
  assert.is(op('float32', 'mul'), n * m * ell * nSubgroups);
  assert.is(op('float32', 'add'), n * m * ell * nSubgroups);
  assert.is(op('float64', 'add'), 3 * n * m * nSubgroups);
  for (const name of ['pow', 'func:rsqrt', 'func:sin']) assert.is(op('float64', name), n * m * nSubgroups);
  assert.is(op('int32', 'add'), n * m * nSubgroups);
});

test('test_statistics.py::test_op_counter_triangular_domain', () => {
  const knl = kernel(
    '{[i,j]: 0<=i<n and 0<=j<m and i<j}',
    'a[i, j] = b[i,j] * 2',
    'bitwise',
    { b: 'float64' },
    'n,m >= 1',
  );
  const opMap = getOpMap(knl, { subgroupSize: SGS, countRedundantWork: true });
  const flops = opMap
    .get(new Op({ dtype: 'float64', name: 'mul', countGranularity: CG.SUBGROUP, kernelName: 'bitwise' }))
    .evalWithDict({ m: 13, n: 200 });
  assert.is(flops, 78 * nSubgroups);
});

const BITWISE = `
  c[i, j, k] = (a[i,j,k] | 1) + (b[i,j,k] & 1)
  e[i, k] = (g[i,k] ^ k)*(~h[i,k+1]) + (g[i, k] << (h[i,k] >> k))
`;

test('test_statistics.py::test_op_counter_bitwise', () => {
  const knl = kernel('{[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<ell}', BITWISE, 'bitwise', {
    a: 'int32',
    b: 'int32',
    g: 'int64',
    h: 'int64',
  });
  const opMap = getOpMap(knl, { subgroupSize: SGS, countRedundantWork: true, countWithinSubscripts: false });
  const op = (dtype: DType, name: string) =>
    opMap.get(new Op({ dtype, name, countGranularity: CG.SUBGROUP, kernelName: 'bitwise' })).evalWithDict(params);
  assert.is(op('int32', 'add'), n * m * ell * nSubgroups);
  assert.is(op('int32', 'bw'), 2 * n * m * ell * nSubgroups);
  assert.is(op('int64', 'bw'), 2 * n * m * nSubgroups);
  assert.is(op('int64', 'add'), n * m * nSubgroups);
  assert.is(op('int64', 'mul'), n * m * nSubgroups);
  assert.is(op('int64', 'shift'), 2 * n * m * nSubgroups);
});

test.run();
