/**
 * loopy's tutorial, section "Obtaining Performance Statistics", in Loom: counting the
 * arithmetic operations, memory accesses and synchronizations of a kernel before running
 * it, as exact polynomials in its parameters.
 *
 *     npx tsx examples/statistics.ts
 *
 * Every number the tutorial prints is checked (`... : ok`). The counts are printed in
 * isl's notation, the parameters sorted by name (`[l, m, n] -> { 3 * l * m * n : ... }`).
 */
import { pathToFileURL } from 'node:url';
import { openclTarget } from '@loom/codegen-opencl';
import {
  addDtypes,
  collectWarnings,
  generateCode,
  getMemAccessMap,
  getOpMap,
  getSynchronizationMap,
  makeKernel,
  MemAccess,
  Op,
  splitIname,
  Sync,
  type LoopKernel,
} from '@loom/core';

/** The tutorial's kernel: operations on float32 and float64 arrays. */
export function statsKernel(): LoopKernel {
  const knl = makeKernel(
    '[n,m,l] -> {[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<l}',
    `
    c[i, j, k] = a[i,j,k]*b[i,j,k]/3.0+a[i,j,k]
    e[i, k] = g[i,k]*(2+h[i,k+1])
    `,
    undefined,
    { name: 'stats_knl' },
  );
  return addDtypes(knl, { a: 'float32', b: 'float32', g: 'float64', h: 'float64' });
}

/**
 * The tutorial's kernel with barriers: each work-item reads what its neighbours wrote to
 * local memory. (It reads c[i,j,0] and c[i,j,98], which no work-item writes: loopy reads
 * whatever local memory holds there, and Loom refuses to generate its code, saying so. Its
 * statistics count the kernel as written, as loopy's do.)
 */
export function barrierKernel(): LoopKernel {
  let knl = makeKernel(
    '[] -> {[i,k,j]: 0<=i<50 and 1<=k<98 and 0<=j<10}',
    `
    <> c[i,j,k] = 2*a[i,j,k]
    e[i,j,k] = c[i,j,k+1]+c[i,j,k-1]
    `,
  );
  knl = addDtypes(knl, { a: 'int32' });
  return splitIname(knl, 'k', 128, { innerTag: 'l.0' });
}

/** `split_iname(knl, "k", 128, outer_tag="l.1", inner_tag="l.0")`: consecutive work-items, consecutive elements. */
export const consecutive = (knl: LoopKernel) => splitIname(knl, 'k', 128, { outerTag: 'l.1', innerTag: 'l.0' });
/** The tags swapped: neighbouring work-items along l.0 are 128 elements apart. */
export const nonConsecutive = (knl: LoopKernel) => splitIname(knl, 'k', 128, { outerTag: 'l.0', innerTag: 'l.1' });

export const PARAMS = { n: 256, m: 256, l: 8 };

// --- run as a script: the tutorial's section, printed and checked -------------------------------------

function check(what: string, got: unknown, expected: unknown): void {
  const ok = got === expected;
  console.log(`  ${what}: ${String(got)}${ok ? ': ok' : ` WRONG (the tutorial says ${String(expected)})`}`);
  if (!ok) process.exitCode = 1;
}

function main(): void {
  const knl = statsKernel();
  const params = PARAMS;

  console.log('=== Counting operations ===\n');
  const opMap = getOpMap(knl, { subgroupSize: 32 });
  console.log(`${opMap.toString()}\n`);
  const op = (dtype: 'float32' | 'float64' | 'int32', name: string) =>
    opMap.get(new Op({ dtype, name, countGranularity: 'subgroup', kernelName: 'stats_knl' })).evalWithDict(params);
  check('f32 add', op('float32', 'add'), 524288);
  check('f32 div', op('float32', 'div'), 524288);
  check('f32 mul', op('float32', 'mul'), 524288);
  check('f64 add', op('float64', 'add'), 65536);
  check('f64 mul', op('float64', 'mul'), 65536);
  check('i32 add', op('int32', 'add'), 65536);
  check('f32 ops (filterBy)', opMap.filterBy({ dtype: ['float32'] }).evalAndSum(params), 1572864);
  const byDtype = opMap.groupBy('dtype');
  console.log(`\n${byDtype.toString()}\n`);
  check('f32 ops (groupBy)', byDtype.get({ dtype: 'float32' }).evalWithDict(params), 1572864);
  check(
    'f32 ops, as a polynomial',
    byDtype.get({ dtype: 'float32' }).toString(),
    '[l, m, n] -> { 3 * l * m * n : l > 0 and m > 0 and n > 0 }',
  );
  check(
    'f64 ops, as a polynomial',
    byDtype.get({ dtype: 'float64' }).toString(),
    '[l, m, n] -> { 2 * m * n : l > 0 and m > 0 and n > 0 }',
  );

  console.log('\n=== Counting memory accesses ===\n');
  const memMap = getMemAccessMap(knl, { subgroupSize: 32 });
  console.log(`${memMap.toString()}\n`);
  const access = (
    map: typeof memMap,
    dtype: 'float32' | 'float64',
    strides: Record<number, number>,
    direction: 'load' | 'store',
    variable: string,
    countGranularity: 'subgroup' | 'workitem',
  ) =>
    map
      .get(
        new MemAccess({
          mtype: 'global',
          dtype,
          lidStrides: strides,
          gidStrides: {},
          direction,
          variable,
          countGranularity,
          kernelName: 'stats_knl',
        }),
      )
      .evalWithDict(params);
  const checkAccesses = (map: typeof memMap, strides: Record<number, number>, granularity: 'subgroup' | 'workitem') => {
    check('f32 ld a', access(map, 'float32', strides, 'load', 'a', granularity), 1048576);
    check('f32 st c', access(map, 'float32', strides, 'store', 'c', granularity), 524288);
    check('f64 ld g', access(map, 'float64', strides, 'load', 'g', granularity), 65536);
    check('f64 st e', access(map, 'float64', strides, 'store', 'e', granularity), 65536);
  };
  checkAccesses(memMap, {}, 'subgroup');
  const bytes = memMap
    .toBytes()
    .filterBy({ mtype: ['global'] })
    .groupBy('direction');
  console.log(`\n${bytes.toString()}\n`);
  check('bytes loaded', bytes.get({ direction: 'load' }).evalWithDict(params), 7340032);
  check('bytes stored', bytes.get({ direction: 'store' }).evalWithDict(params), 2621440);

  console.log('\n--- k split by 128, k_outer on l.1, k_inner on l.0 ---\n');
  const consecutiveMap = getMemAccessMap(consecutive(knl), { subgroupSize: 32 });
  console.log(`${consecutiveMap.toString()}\n`);
  checkAccesses(consecutiveMap, { 0: 1, 1: 128 }, 'workitem');

  console.log('\n--- k split by 128, k_outer on l.0, k_inner on l.1 ---\n');
  const nonConsecutiveMap = getMemAccessMap(nonConsecutive(knl), { subgroupSize: 32 });
  console.log(`${nonConsecutiveMap.toString()}\n`);
  checkAccesses(nonConsecutiveMap, { 0: 128, 1: 1 }, 'workitem');
  const strided = nonConsecutiveMap.filterByFunc(
    (key) => key.dtype === 'float32' && typeof key.lidStrides?.[0] === 'number' && key.lidStrides[0] > 1,
  );
  check('f32 accesses with lid stride 0 above 1 (filterByFunc)', strided.evalAndSum(params), 2097152);

  console.log('\n=== Counting synchronization events ===\n');
  // (the loops' nesting is left to Loom, which says so in warnings: set aside here as in the tutorial)
  const { result: syncMap } = collectWarnings(() => getSynchronizationMap(knl));
  console.log(`${syncMap.toString()}\n`);
  check(
    'kernel launches',
    syncMap.get(new Sync({ kind: 'kernel_launch', kernelName: 'stats_knl' })).evalWithDict(params),
    1,
  );

  const barriers = barrierKernel();
  try {
    generateCode(barriers, openclTarget());
  } catch (e) {
    console.log(`\n(the tutorial prints this kernel's code; Loom refuses it: ${(e as Error).message.split('\n')[0]})`);
  }
  const { result: barrierMap } = collectWarnings(() => getSynchronizationMap(barriers));
  console.log(`\n${barrierMap.toString()}\n`);
  check(
    'local barriers (50 x 10 x 2)',
    barrierMap.get({ kind: 'barrier_local', kernelName: 'loopy_kernel' }).evalWithDict({}),
    1000,
  );
  check('kernel launches', barrierMap.get({ kind: 'kernel_launch', kernelName: 'loopy_kernel' }).evalWithDict({}), 1);
}

// Only when run directly (the tests import the kernels).
if (
  import.meta.url.endsWith('/examples/statistics.ts') &&
  process.argv[1] &&
  import.meta.url === pathToFileURL(process.argv[1]).href
)
  main();
