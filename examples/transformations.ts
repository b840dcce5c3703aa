/**
 * loopy's tutorial, from "Introduction to Kernel Transformations" to "Atomic
 * operations", in Loom: splitting, tiling, unrolling, slabs, parallel axes, local
 * temporaries and barriers, prefetching, global barriers, atomics, and the tiled
 * matrix multiply. Run: npx tsx examples/transformations.ts
 *
 * Every kernel runs on each device present and is checked against plain JavaScript.
 */
import {
  addDtypes,
  addPrefetch,
  generateCode,
  getGridSizeUpperBounds,
  globalArg,
  makeKernel,
  MissingBarrierError,
  MissingDefinitionError,
  printExpr,
  prioritizeLoops,
  run,
  saveAndReloadTemporaries,
  splitIname,
  stringifyLinearized,
  tagInames,
  type Device,
  type LoopKernel,
} from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { openclDevice, openclTarget } from '@loom/codegen-opencl';
import { webgpuDevice } from '@loom/codegen-wgsl';

const devices: Device[] = [cpuDevice()];
const cl = openclDevice();
if (cl) devices.push(cl);
const gpu = await webgpuDevice();
if (gpu) devices.push(gpu);

const show = (title: string, knl: LoopKernel, dtypes: Record<string, 'float32' | 'int32'> = { a: 'float32' }) => {
  console.log(`\n=== ${title} ===\n`);
  console.log(generateCode(addDtypes(knl, dtypes), openclTarget()).code);
};

async function check(
  title: string,
  knl: LoopKernel,
  args: Record<string, Float32Array | Int32Array | number>,
  expected: (out: ArrayLike<number>) => boolean,
  output = 'out',
) {
  for (const device of devices) {
    const fresh = Object.fromEntries(Object.entries(args).map(([k, v]) => [k, typeof v === 'number' ? v : v.slice()]));
    const result = await run(knl, device, fresh);
    const ok = expected(result[output] as Float32Array);
    console.log(`  ${device.name}: ${title}: ${ok ? 'ok' : 'WRONG'}`);
    if (!ok) process.exitCode = 1;
  }
}

const n = 1000;
const x = Float32Array.from({ length: n }, (_, k) => Math.sin(k));
const fill = (assumptions: string) => makeKernel('{ [i]: 0<=i<n }', 'a[i] = 0', undefined, { assumptions });
const zeros = (out: ArrayLike<number>) => Array.from(out).every((v) => v === 0);

// Splitting: i = 16*i_outer + i_inner, with guards where n is not a multiple of 16
let knl = prioritizeLoops(splitIname(fill('n>=1'), 'i', 16), 'i_outer,i_inner');
show('split_iname', knl);
await check('split fill', knl, { a: x }, zeros, 'a');
show('split, i_inner outside', prioritizeLoops(splitIname(fill('n>=1'), 'i', 16), 'i_inner,i_outer'));

// Tiling
let tiled = makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i,j] = a[j,i]', undefined, {
  assumptions: 'n mod 16 = 0 and n >= 1',
});
tiled = prioritizeLoops(splitIname(splitIname(tiled, 'i', 16), 'j', 16), 'i_outer,j_outer,i_inner,j_inner');
show('loop tiling', tiled);
const m = 32;
const mat = Float32Array.from({ length: m * m }, (_, k) => k);
await check('tiled transpose', tiled, { a: mat }, (out) =>
  Array.from(out).every((v, k) => v === mat[(k % m) * m + Math.floor(k / m)]),
);

// Unrolling, split-and-tag, slabs
show(
  'unrolling (n mod 4 = 0)',
  prioritizeLoops(tagInames(splitIname(fill('n>=0 and n mod 4 = 0'), 'i', 4), { i_inner: 'unr' }), 'i_outer,i_inner'),
);
show(
  'unrolling (any n): guards',
  prioritizeLoops(tagInames(splitIname(fill('n>=0'), 'i', 4), { i_inner: 'unr' }), 'i_outer,i_inner'),
);
knl = prioritizeLoops(splitIname(fill('n>=0'), 'i', 4, { slabs: [0, 1], innerTag: 'unr' }), 'i_outer,i_inner');
show('slabs', knl);
await check('slabs fill', knl, { a: x.subarray(0, 999) }, zeros, 'a');
console.log(
  knl
    .toString()
    .split('\n')
    .filter((l) => /INAME TAGS|i_inner:|i_outer:/.test(l))
    .join('\n'),
);

// Parallelization
knl = splitIname(fill('n>=0'), 'i', 128, { outerTag: 'g.0', innerTag: 'l.0' });
show('parallel fill', knl);
const grid = getGridSizeUpperBounds(addDtypes(knl, { a: 'float32' }));
console.log(
  `groups: (${grid.groups.map(printExpr).join(', ')}), work-group: (${grid.local.map(printExpr).join(', ')})`,
);
await check('parallel fill', knl, { a: x }, zeros, 'a');

// Temporaries in local memory, with the barrier loopy inserts
const sumOf16 = (a: Float32Array) => (out: ArrayLike<number>) =>
  Array.from(out).every((v, i) => {
    let s = 0;
    for (let k = 0; k < 16; k++) s = Math.fround(s + a[16 * Math.floor(i / 16) + k]);
    return v === s;
  });
knl = tagInames(
  makeKernel(
    '{ [i_outer,i_inner, k]: 0<= 16*i_outer + i_inner <n and 0<= i_inner,k <16}',
    `
  <> a_temp[i_inner] = a[16*i_outer + i_inner] {priority=10}
  out[16*i_outer + i_inner] = sum(k, a_temp[k])
`,
  ),
  { i_outer: 'g.0', i_inner: 'l.0' },
);
show('temporaries in local memory', knl);
const x512 = x.subarray(0, 512);
await check('local temporary', knl, { a: x512 }, sumOf16(x512));

// Prefetching
knl = tagInames(
  makeKernel(
    '{ [i_outer,i_inner, k]: 0<= 16*i_outer + i_inner <n and 0<= i_inner,k <16}',
    'out[16*i_outer + i_inner] = sum(k, a[16*i_outer + i_inner])',
  ),
  {
    i_outer: 'g.0',
    i_inner: 'l.0',
  },
);
show('prefetch (no sweep)', addPrefetch(knl, 'a'));
const pf = addPrefetch(knl, 'a', ['i_inner'], { defaultTag: 'l.0' });
show('prefetch across i_inner', pf);
await check('prefetch', pf, { a: x512 }, (out) =>
  Array.from(out).every((v, i) => {
    let s = 0;
    for (let k = 0; k < 16; k++) s = Math.fround(s + x512[i]);
    return v === s;
  }),
);

// Global barriers: the rotate kernel
const rotate = (withBarrier: boolean) =>
  splitIname(
    makeKernel(
      '[n] -> {[i] : 0<=i<n}',
      `
  for i
    <>tmp = arr[i] {id=maketmp,dep=*}
    ${withBarrier ? '... gbarrier {id=bar,dep=*maketmp}\n    arr[(i + 1) % n] = tmp {id=rotate,dep=*bar}' : 'arr[(i + 1) % n] = tmp {id=rotate,dep=*maketmp}'}
  end`,
      [globalArg('arr', { shape: ['n'], dtype: 'int32' }), '...'],
      { name: withBarrier ? 'rotate_v2' : 'rotate_v1', assumptions: 'n mod 16 = 0' },
    ),
    'i',
    16,
    { innerTag: 'l.0', outerTag: 'g.0' },
  );
for (const [title, k, expected] of [
  ['rotate_v1', rotate(false), MissingBarrierError],
  ['rotate_v2', rotate(true), MissingDefinitionError],
] as const) {
  try {
    generateCode(k, openclTarget());
  } catch (e) {
    console.log(
      `\n${title}: ${e instanceof expected ? 'as expected, ' : ''}${(e as Error).name}: ${(e as Error).message}`,
    );
  }
}
const saved = saveAndReloadTemporaries(rotate(true));
console.log(`\n${stringifyLinearized(saved)}`);
console.log(generateCode(saved, openclTarget()).code);
const arange = Int32Array.from({ length: 16 }, (_, k) => k);
await check(
  'rotate: [15 0 1 ... 14]',
  saved,
  { arr: arange },
  (out) => Array.from(out).every((v, k) => v === (k + 15) % 16),
  'arr',
);

// Atomic operations: a histogram
let hist = makeKernel(
  '{ [i]: 0<=i<n }',
  'out[i%20] = out[i%20] + 2*a[i] {atomic}',
  [
    globalArg('out', { dtype: 'float32', shape: [20], forAtomic: true }),
    globalArg('a', { dtype: 'float32', shape: 'auto' }),
    '...',
  ],
  { assumptions: 'n>0' },
);
hist = splitIname(hist, 'i', 64, { outerTag: 'g.0', innerTag: 'l.0' });
show('atomic histogram', hist, {});
const ones = Float32Array.from({ length: n }, () => 1);
await check('atomic histogram', hist, { a: ones, out: new Float32Array(20) }, (out) =>
  Array.from(out).every((v) => v === 100),
);

// The classic tiled matrix multiply
let mm = makeKernel('{ [i,j,k]: 0<=i<n and 0<=j<n and 0<=k<n }', 'c[i, j] = sum(k, a[i, k]*b[k, j])', undefined, {
  assumptions: 'n >= 1',
});
mm = splitIname(mm, 'i', 16, { outerTag: 'g.1', innerTag: 'l.1' });
mm = splitIname(mm, 'j', 16, { outerTag: 'g.0', innerTag: 'l.0' });
mm = splitIname(mm, 'k', 16);
mm = addPrefetch(mm, 'a', ['k_inner', 'i_inner'], { defaultTag: 'l.auto' });
mm = addPrefetch(mm, 'b', ['j_inner', 'k_inner'], { defaultTag: 'l.auto' });
mm = prioritizeLoops(mm, 'k_outer,k_inner');
show('tiled matrix multiply', mm, { a: 'float32', b: 'float32' });
const size = 48;
const A = Float32Array.from({ length: size * size }, (_, k) => (k % 7) - 3);
const B = Float32Array.from({ length: size * size }, (_, k) => (k % 5) - 2);
await check(
  'matmul',
  mm,
  { a: A, b: B },
  (C) =>
    Array.from(C).every((v, k) => {
      const i = Math.floor(k / size);
      const j = k % size;
      let s = 0;
      for (let t = 0; t < size; t++) s += A[i * size + t] * B[t * size + j];
      return v === s;
    }),
  'c',
);
