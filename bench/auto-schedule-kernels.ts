/**
 * The kernels of bench/auto-schedule.ts (issue 31's targets), as written, untransformed, with
 * the best hand-transformed Loom kernel for each (the repository's, or one written here for the
 * benchmark from the case's own kernel), and plain JavaScript references for the small test
 * (test/auto-schedule-bench.test.ts).
 */
import {
  addDtypes,
  addPrefetch,
  bufferArray,
  extractSubst,
  fixParameters,
  makeEinsum,
  makeKernel,
  precompute,
  prioritizeLoops,
  realizeReduction,
  renameArgument,
  renameIname,
  renameInames,
  setOptions,
  splitIname,
  tagArrayAxes,
  tagInames,
  type LoopKernel,
} from '@loom/core';
import { tileMatmul } from '@loom/computation';
import { DEFAULT_MATMUL, matmulKernel } from '../examples/matmul.ts';
import { rowSumKernel } from './reductions-kernels.ts';

type Sizes = Readonly<Record<string, number>>;

export interface AutoScheduleCase {
  readonly name: string;
  /** The kernel as written: one line of math, its parameters the sizes. */
  readonly kernel: LoopKernel;
  /** Sizes of the default run (a CPU in seconds) and of `--full` (the GPU machine). */
  readonly small: Sizes;
  readonly full: Sizes;
  /** The hand-transformed kernel at these sizes (fixed or parametric), where the repository has one. */
  readonly hand?: (sizes: Sizes) => { readonly kernel: LoopKernel; readonly from: string };
  /** The outputs from plain JavaScript, for inputs by name. */
  readonly reference: (inputs: Readonly<Record<string, Float32Array>>, sizes: Sizes) => Record<string, Float32Array>;
}

/**
 * The kernel in float32, written by a user who allows fused multiply-adds (one rounding for
 * `acc + a*b`), as the hand kernels built by tileMatmul and cuBLAS compute: autoSchedule keeps a
 * kernel's options, so without it every scheduled matrix product rounded twice and issued twice
 * the instructions of its hand kernel (OpenCL's FP_CONTRACT OFF).
 */
const f32 = (knl: LoopKernel, ...names: string[]) =>
  setOptions(addDtypes(knl, Object.fromEntries(names.map((n) => [n, 'float32' as const]))), {
    fusedMultiplyAdd: true,
  });

/** Sums of `count` values `at(0..count-1)`. */
const sumOf = (count: number, at: (k: number) => number) => {
  let s = 0;
  for (let k = 0; k < count; k++) s += at(k);
  return s;
};

export const AUTO_SCHEDULE_CASES: readonly AutoScheduleCase[] = [
  {
    name: 'matmul',
    kernel: f32(
      makeKernel('{ [i,j,k]: 0<=i,j,k<n }', 'c[i, j] = sum(k, a[i, k]*b[k, j])', undefined, { name: 'matmul' }),
      'a',
      'b',
    ),
    small: { n: 128 },
    full: { n: 1024 },
    hand: ({ n }) => ({
      kernel: f32(matmulKernel(DEFAULT_MATMUL, { m: n!, n: n!, k: n! }), 'a', 'b'),
      from: 'examples/matmul.ts DEFAULT_MATMUL',
    }),
    reference: ({ a, b }, { n }) => ({
      c: Float32Array.from({ length: n! * n! }, (_, p) =>
        sumOf(n!, (k) => a![Math.floor(p / n!) * n! + k]! * b![k * n! + (p % n!)]!),
      ),
    }),
  },
  {
    name: 'batched matvec',
    kernel: f32(
      makeKernel('{ [l,i,j]: 0<=l<nb and 0<=i,j<n }', 'y[l, i] = sum(j, m[l, i, j]*x[l, j])', undefined, {
        name: 'matvec',
      }),
      'm',
      'x',
    ),
    small: { nb: 8, n: 128 },
    full: { nb: 64, n: 1024 },
    hand: (sizes) => ({ kernel: matvecWarpPerRow(sizes), from: 'bench/auto-schedule-kernels.ts matvecWarpPerRow' }),
    reference: ({ m, x }, { nb, n }) => ({
      y: Float32Array.from({ length: nb! * n! }, (_, p) => {
        const l = Math.floor(p / n!);
        return sumOf(n!, (j) => m![p * n! + j]! * x![l * n! + j]!);
      }),
    }),
  },
  {
    name: 'transpose',
    kernel: f32(makeKernel('{ [i,j]: 0<=i,j<n }', 'out[j, i] = a[i, j]', undefined, { name: 'transpose' }), 'a'),
    small: { n: 256 },
    full: { n: 4096 },
    hand: () => {
      // bench/codegen-kernels.ts's 'tiled transpose, 2-D prefetch' (loopy's tutorial)
      let knl = makeKernel('{ [i,j]: 0<=i,j<n }', 'out[j,i] = a[i,j]', undefined, { name: 'transpose' });
      knl = splitIname(knl, 'j', 16, { innerTag: 'l.1', outerTag: 'g.0' });
      knl = splitIname(knl, 'i', 16, { innerTag: 'l.0', outerTag: 'g.1' });
      return {
        kernel: f32(addPrefetch(knl, 'a', ['i_inner', 'j_inner'], { defaultTag: 'l.auto' }), 'a'),
        from: "bench/codegen-kernels.ts 'tiled transpose, 2-D prefetch'",
      };
    },
    reference: ({ a }, { n }) => ({
      out: Float32Array.from({ length: n! * n! }, (_, p) => a![(p % n!) * n! + Math.floor(p / n!)]!),
    }),
  },
  {
    name: '5-point stencil',
    kernel: f32(
      makeKernel(
        '{ [i,j]: 1<=i<n-1 and 1<=j<n-1 }',
        'u[i, j] = a[i-1, j] + a[i+1, j] + a[i, j-1] + a[i, j+1] - 4*a[i, j]',
        undefined,
        { name: 'stencil' },
      ),
      'a',
      'u',
    ),
    small: { n: 256 },
    full: { n: 4096 },
    hand: (sizes) => ({ kernel: stencilTiled(sizes), from: 'bench/auto-schedule-kernels.ts stencilTiled' }),
    // u is (n-1) x (n-1), as inferred from what is written; row and column 0 stay as passed
    reference: ({ a, u }, { n }) => ({
      u: Float32Array.from({ length: (n! - 1) * (n! - 1) }, (_, p) => {
        const i = Math.floor(p / (n! - 1));
        const j = p % (n! - 1);
        if (i < 1 || j < 1) return u![p]!;
        const at = (x: number, y: number) => a![x * n! + y]!;
        return at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1) - 4 * at(i, j);
      }),
    }),
  },
  {
    name: 'row sums',
    kernel: f32(
      makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'out[i] = sum(j, a[i, j])', undefined, { name: 'rows' }),
      'a',
    ),
    small: { n: 256, m: 1024 },
    full: { n: 4096, m: 4096 },
    hand: ({ n, m }) => ({ kernel: rowSumKernel(n!, m!), from: 'bench/reductions-kernels.ts rowSumKernel' }),
    reference: ({ a }, { n, m }) => ({
      out: Float32Array.from({ length: n! }, (_, i) => sumOf(m!, (j) => a![i * m! + j]!)),
    }),
  },
  {
    name: 'column sums',
    kernel: f32(
      makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'out[j] = sum(i, a[i, j])', undefined, { name: 'cols' }),
      'a',
    ),
    small: { n: 1024, m: 256 },
    full: { n: 4096, m: 4096 },
    hand: (sizes) => ({ kernel: columnSumsTiled(sizes), from: 'bench/auto-schedule-kernels.ts columnSumsTiled' }),
    reference: ({ a }, { n, m }) => ({
      out: Float32Array.from({ length: m! }, (_, j) => sumOf(n!, (i) => a![i * m! + j]!)),
    }),
  },
  {
    name: 'softmax over rows',
    kernel: f32(
      makeKernel(
        // one iname per loop: the two reductions and the quotient's loop each run once per row
        '{ [i,j,k,l]: 0<=i<n and 0<=j,k,l<m }',
        `mx[i] = max(k, x[i, k]) {id=mx}
         s[i] = sum(l, exp(x[i, l] - mx[i])) {id=s, dep=mx}
         y[i, j] = exp(x[i, j] - mx[i]) / s[i] {dep=s}`,
        undefined,
        { name: 'softmax' },
      ),
      'x',
      'mx',
      's',
    ),
    small: { n: 256, m: 256 },
    full: { n: 4096, m: 1024 },
    hand: (sizes) => ({ kernel: softmaxHeldRows(sizes), from: 'bench/auto-schedule-kernels.ts softmaxHeldRows' }),
    reference: ({ x }, { n, m }) => {
      const mx = Float32Array.from({ length: n! }, (_, i) =>
        x!.subarray(i * m!, (i + 1) * m!).reduce((a, b) => Math.max(a, b)),
      );
      const s = Float32Array.from({ length: n! }, (_, i) => sumOf(m!, (j) => Math.exp(x![i * m! + j]! - mx[i]!)));
      const y = Float32Array.from({ length: n! * m! }, (_, p) => {
        const i = Math.floor(p / m!);
        return Math.exp(x![p]! - mx[i]!) / s[i]!;
      });
      return { mx, s, y };
    },
  },
  {
    name: 'n-body forces',
    // the x component of the softened gravitational pull on each body: every pair, n^2 of them
    kernel: f32(
      makeKernel(
        '{ [i,j]: 0<=i,j<n }',
        `r(i, j) := (x[j] - x[i])*(x[j] - x[i]) + (y[j] - y[i])*(y[j] - y[i]) + 0.01
         f[i] = sum(j, m[j]*(x[j] - x[i]) / (r(i, j)*sqrt(r(i, j))))`,
        undefined,
        { name: 'nbody' },
      ),
      'x',
      'y',
      'm',
    ),
    small: { n: 512 },
    full: { n: 16384 },
    hand: ({ n }) => ({ kernel: nbodyTiled(n!), from: 'bench/auto-schedule-kernels.ts nbodyTiled' }),
    reference: ({ x, y, m }, { n }) => ({
      f: Float32Array.from({ length: n! }, (_, i) =>
        sumOf(n!, (j) => {
          const dx = x![j]! - x![i]!;
          const dy = y![j]! - y![i]!;
          const r = dx * dx + dy * dy + 0.01;
          return (m![j]! * dx) / (r * Math.sqrt(r));
        }),
      ),
    }),
  },
  {
    name: '2-D convolution',
    // a 5 x 5 filter over an (n+4) x (n+4) image, written directly
    kernel: f32(
      makeKernel(
        '{ [i,j,di,dj]: 0<=i,j<n and 0<=di,dj<5 }',
        'out[i, j] = sum((di, dj), w[di, dj]*a[i + di, j + dj])',
        undefined,
        { name: 'conv2d' },
      ),
      'a',
      'w',
    ),
    small: { n: 128 },
    full: { n: 4096 },
    hand: (sizes) => ({ kernel: conv2dTiled(sizes), from: 'bench/auto-schedule-kernels.ts conv2dTiled' }),
    reference: ({ a, w }, { n }) => ({
      out: Float32Array.from({ length: n! * n! }, (_, p) => {
        const i = Math.floor(p / n!);
        const j = p % n!;
        return sumOf(25, (t) => w![t]! * a![(i + Math.floor(t / 5)) * (n! + 4) + j + (t % 5)]!);
      }),
    }),
  },
  {
    name: 'tensor contraction',
    // makeEinsum('bik,kj->bij'): a batch of rows times one matrix (a linear layer)
    kernel: f32(makeEinsum('bik,kj->bij', ['x', 'w'], { name: 'contraction' }), 'x', 'w'),
    small: { Nb: 4, Ni: 32, Nj: 64, Nk: 64 },
    full: { Nb: 32, Ni: 512, Nj: 512, Nk: 512 },
    hand: (sizes) => ({ kernel: contractionTiled(sizes), from: 'bench/auto-schedule-kernels.ts contractionTiled' }),
    reference: ({ x, w }, { Nb, Ni, Nj, Nk }) => ({
      out: Float32Array.from({ length: Nb! * Ni! * Nj! }, (_, p) => {
        const j = p % Nj!;
        const bi = Math.floor(p / Nj!);
        return sumOf(Nk!, (k) => x![bi * Nk! + k]! * w![k * Nj! + j]!);
      }),
    }),
  },
];

/**
 * The n-body forces as a GPU programmer tiles them: a body a work-item, 256 a work-group, the
 * other bodies staged through local memory 256 at a time (each tile read once per work-group).
 */
function nbodyTiled(n: number): LoopKernel {
  let knl = fixParameters(AUTO_SCHEDULE_CASES.find((c) => c.name === 'n-body forces')!.kernel, { n });
  knl = splitIname(knl, 'i', 256, { outerTag: 'g.0', innerTag: 'l.0' });
  knl = splitIname(knl, 'j', 256);
  // the other bodies' values (x[j], not the work-item's own x[i])
  for (const array of ['x', 'y', 'm'])
    knl = addPrefetch(knl, array, ['j_inner'], {
      temporaryAddressSpace: 'local',
      defaultTag: 'l.0',
      fetchOuterInames: ['i_outer', 'j_outer'],
      footprintSubscripts: ['256*j_outer + j_inner'],
    });
  return knl;
}

/** The case's kernel as written, its sizes fixed. */
const fixedCase = (name: string, sizes: Sizes) =>
  fixParameters(AUTO_SCHEDULE_CASES.find((c) => c.name === name)!.kernel, sizes);

/**
 * Batched matrix-vector products, a warp per row: 32 work-items (l.0) stride along the row of m
 * (each warp reads 128 contiguous bytes a step) and sum it in local memory, 8 rows a work-group
 * (l.1), the row blocks on g.0 and the batch on g.1; x is read through the cache. 4.26 TB/s on the
 H200 (OpenCL and CUDA): m is read at the memory's bandwidth.
 */
function matvecWarpPerRow(sizes: Sizes): LoopKernel {
  let knl = tagInames(fixedCase('batched matvec', sizes), { l: 'g.1' });
  knl = splitIname(knl, 'i', 8, { outerTag: 'g.0', innerTag: 'l.1' });
  return splitIname(knl, 'j', 32, { innerTag: 'l.0' });
}

/**
 * The 5-point stencil in 32 x 8 tiles, a work-item an output, rows along l.0 (each warp reads and
 * writes 128 contiguous bytes); the neighbours' reads hit the cache. Staging the tile and its halo
 * in local memory was slower on the H200 (1.8 against 2.1 TB/s read and written, OpenCL and CUDA).
 */
function stencilTiled(sizes: Sizes): LoopKernel {
  const knl = splitIname(fixedCase('5-point stencil', sizes), 'j', 32, { outerTag: 'g.0', innerTag: 'l.0' });
  return splitIname(knl, 'i', 8, { outerTag: 'g.1', innerTag: 'l.1' });
}

/**
 * Column sums, 32 columns a work-group on l.0 (each warp reads 128 contiguous bytes of a row), the
 * rows dealt out to 32 work-items along l.1 that each sum every 32nd row, then a tree in local
 * memory across l.1; the column blocks on g.0. 3.64 TB/s on the H200 (16 or 8 rows of work-items:
 3.3 and 2.7).
 */
function columnSumsTiled(sizes: Sizes): LoopKernel {
  let knl = splitIname(fixedCase('column sums', sizes), 'j', 32, { outerTag: 'g.0', innerTag: 'l.0' });
  knl = realizeReduction(splitIname(knl, 'i', 32, { innerTag: 'l.1' }));
  // the tree's local array, [column][row], laid out with the columns (l.0) consecutive: a warp's
  // 32 work-items read 32 banks, not one
  return tagArrayAxes(knl, 'acc_i_inner', 'N0,N1');
}

/**
 * Softmax as PyTorch computes it, each row read once into registers: a work-group of 64 a row
 * (g.0), the three passes' work-items made one iname (`j_lane`), each work-item's elements of the
 * row, 64 apart (neighbours read neighbours), read once into a private array (`x_row`, 16 for rows
 * of 1024) that the maximum, the sum of exponentials and the quotients all read, the row's maximum
 * and sum in registers too, written to mx and s once. 10.0 µs for 4096 rows of 1024 through CUDA
 * on the H200 (PyTorch 9.95), where the earlier hand kernel, the row staged in local memory by a
 * group of 128, took 15.0 (BENCHMARKS.md, twenty-second session). The rows' length must be a
 * multiple of 64.
 */
function softmaxHeldRows(sizes: Sizes): LoopKernel {
  const width = 64;
  let knl = tagInames(fixedCase('softmax over rows', sizes), { i: 'g.0' });
  for (const iname of ['j', 'k', 'l']) knl = splitIname(knl, iname, width, { outerTag: 'unr', innerTag: 'l.0' });
  knl = renameInames(knl, ['j_inner', 'k_inner', 'l_inner'], 'j_lane');
  knl = extractSubst(knl, 'x_row', `x[i, ${width}*x_step + j_lane]`, ['x_step']);
  knl = precompute(knl, 'x_row', ['j_outer', 'k_outer', 'l_outer'], {
    storageAxes: ['x_step'],
    fetchOuterInames: ['i', 'j_lane'],
    temporaryAddressSpace: 'private',
    defaultTag: 'unr',
  });
  for (const name of ['mx', 's'])
    knl = bufferArray(knl, name, { temporaryAddressSpace: 'private', initExpression: '0' });
  return knl;
}

/**
 * The 5 x 5 convolution in 32 x 32 output tiles (or the whole image, where it is smaller) of
 * 32 x 8 work-items, each computing 4 neighbouring outputs of a column (register blocking: their
 * 100 products read only 8 rows of 5 inputs, which the compiler keeps in registers): the tile's
 * (32+4) x (32+4) inputs with their halo and the filter staged in local memory, rows along l.0,
 * the filter's loops and the 4 outputs unrolled. 1.7 (OpenCL) and 2.1 (CUDA) TB/s on the H200,
 against 1.05 for one output a work-item.
 */
function conv2dTiled(sizes: Sizes): LoopKernel {
  const tile = Math.min(32, sizes.n!);
  let knl = splitIname(fixedCase('2-D convolution', sizes), 'j', tile, { outerTag: 'g.0', innerTag: 'l.0' });
  knl = splitIname(knl, 'i', tile, { outerTag: 'g.1' });
  knl = splitIname(knl, 'i_inner', 4, { outerTag: 'l.1', innerTag: 'unr' });
  knl = prioritizeLoops(tagInames(knl, { di: 'unr', dj: 'unr' }), 'di,dj');
  const sweep = ['i_inner_outer', 'i_inner_inner', 'j_inner', 'di', 'dj'];
  knl = addPrefetch(knl, 'a', sweep, { temporaryAddressSpace: 'local', defaultTag: 'l.auto' });
  knl = addPrefetch(knl, 'w', ['di', 'dj'], { temporaryAddressSpace: 'local', defaultTag: 'l.auto' });
  // the tile's fetch row by row, where its rows and its columns each take several rounds
  const rounds = ['a_dim_0_outer', 'a_dim_1_outer'];
  return rounds.every((n) => knl.inames.includes(n)) ? prioritizeLoops(knl, rounds.join(',')) : knl;
}

/**
 * The contraction 'bik,kj->bij' as a batch of matrix products x[b] · w, the batch on g.2, each
 * tiled by tileMatmul (examples/matmul.ts) as the best scalar SGEMM: 128 x 128 tiles of out on
 * g.1/g.0, 8 x 8 a work-item (16 x 16 work-items), panels of 16 steps of k in local memory
 * (32 TFLOP/s on the H200, against 24 for DEFAULT_MATMUL's 64 x 64 tiles).
 */
function contractionTiled(sizes: Sizes): LoopKernel {
  const config = { ...DEFAULT_MATMUL, tileM: 128, tileN: 128, regM: 8, regN: 8 };
  // tileMatmul's names: c[l, i, j] = sum(k, a[l, i, k]*b[k, j]), given back afterwards
  let knl = renameIname(fixedCase('tensor contraction', sizes), 'b', 'l');
  for (const [from, to] of [
    ['x', 'a'],
    ['w', 'b'],
    ['out', 'c'],
  ] as const)
    knl = renameArgument(knl, from, to);
  knl = tileMatmul(tagInames(knl, { l: 'g.2' }), config, {
    batchAxes: { a: 1, b: 0, c: 1 },
    partialK: sizes.Nk! % config.tileK !== 0,
  });
  for (const [from, to] of [
    ['a', 'x'],
    ['b', 'w'],
    ['c', 'out'],
  ] as const)
    knl = renameArgument(knl, from, to);
  return knl;
}

/**
 * Kendall's tau between two rankings of the same items (1: the same order, -1: reversed); NaN under
 * two items. This is tau-a: a pair tied in either ranking counts against it (it is neither
 * concordant nor discordant, but still one of the pairs). `kendallTauB` adjusts for ties.
 */
export function kendallTau(xs: readonly number[], ys: readonly number[]): number {
  let concordant = 0;
  let discordant = 0;
  for (let p = 0; p < xs.length; p++)
    for (let q = p + 1; q < xs.length; q++) {
      const s = Math.sign(xs[p]! - xs[q]!) * Math.sign(ys[p]! - ys[q]!);
      if (s > 0) concordant++;
      else if (s < 0) discordant++;
    }
  const pairs = (xs.length * (xs.length - 1)) / 2;
  return pairs === 0 ? Number.NaN : (concordant - discordant) / pairs;
}

/**
 * Kendall's tau-b (scipy's `kendalltau`): tau with the pairs tied in one ranking taken out of that
 * ranking's count, so that a model giving schedules of equal traffic equal times is not counted
 * wrong for them; 1 where the untied pairs all agree. NaN where a ranking is all ties. With
 * `tieWithin`, two values of a ranking that differ by no more than that fraction of the larger
 * are tied (0.05: candidates measured within 5% of each other, an order a run's noise can swap).
 */
export function kendallTauB(xs: readonly number[], ys: readonly number[], tieWithin = 0): number {
  const order = (a: number, b: number) =>
    Math.abs(a - b) <= tieWithin * Math.max(Math.abs(a), Math.abs(b)) ? 0 : Math.sign(a - b);
  let concordant = 0;
  let discordant = 0;
  let tiedX = 0;
  let tiedY = 0;
  for (let p = 0; p < xs.length; p++)
    for (let q = p + 1; q < xs.length; q++) {
      const dx = order(xs[p]!, xs[q]!);
      const dy = order(ys[p]!, ys[q]!);
      if (dx === 0) tiedX++;
      if (dy === 0) tiedY++;
      if (dx * dy > 0) concordant++;
      else if (dx * dy < 0) discordant++;
    }
  const pairs = (xs.length * (xs.length - 1)) / 2;
  return (concordant - discordant) / Math.sqrt((pairs - tiedX) * (pairs - tiedY));
}
