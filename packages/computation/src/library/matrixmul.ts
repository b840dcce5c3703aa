/**
 * `matrixMul(a, b, options)`: batched matrix products (Reikna's MatrixMul), `output = a @ b`
 * over the last two axes, the axes before them broadcast as numpy broadcasts them (a batch
 * axis of 1 goes with every batch of the other operand); `transposedA` / `transposedB` read
 * an operand stored as its transpose (its last two axes swapped). As Reikna's, the operands may
 * differ in dtype (real x complex: the product is complex, numpy's result type, unless `output`
 * says otherwise), and a vector operand is a matrix of one row (a) or one column (b).
 *
 * The kernel is examples/matmul.ts's tuned SGEMM: `c[i, j] = sum(k, a[i, k]*b[k, j])` and the
 * same transformations (`tileMatmul`, matmul-tiling.ts), one work-group per tile of c, a
 * register tile per work-item, the panels of a and b staged in local memory for each step of k,
 * fetched by the whole work-group with neighbours on neighbouring words. Large products of one
 * 4-byte dtype take the tuner's best configurations: on targets with vector types, 128 x 128
 * tiles of 8 x 8 a work-item, 32 steps of k staged, panels loaded and c accumulated and stored
 * as float4s (where rows are whole float4s: k and n multiples of 4, operands not transposed);
 * on targets whose compilers want whole-vector statements (WGSL: the tuner's pick on Dawn is
 * scalar) and where the operands do not allow float4s, the same tiles of scalars, 16 steps of k. Sizes need not
 * be multiples of the tiles: the splits guard the edges. A batch axis runs on grid axis 2 (the
 * largest, when there are several; the others are loops).
 */
import {
  asyncCopyProblem,
  checkOptionKeys,
  LoomError,
  optionKeys,
  byteSize,
  globalArg,
  makeKernel,
  promote,
  splitIname,
  tagInames,
  type DType,
  printExpr,
  type LoopKernel,
} from '@loom/core';
import { computation, type Computation } from '../computation/computation.ts';
import type { DeviceParameters } from '../computation/device-parameters.ts';
import { configProblem, FLOAT4_SGEMM, layoutProblem, type MatmulConfig } from './matmul-config.ts';
import { aPanelPadding } from './matmul-fetch.ts';
import { matmulVectorViews, tileMatmul, vectorViewArrays } from './matmul-tiling.ts';

/** The tile sizes of `matrixMul`'s kernel. */
export interface MatmulTiles {
  /** Rows and columns of the output per work-group. */
  readonly tileM: number;
  /** Columns of the output per work-group. */
  readonly tileN: number;
  /** Steps of k staged in local memory at a time. */
  readonly tileK: number;
  /** Rows and columns of the output per work-item (registers). */
  readonly regM: number;
  /** Columns of the output per work-item. */
  readonly regN: number;
}

/** examples/matmul.ts's DEFAULT_MATMUL: 64x64 per work-group, 4x4 per work-item (256 work-items). */
export const DEFAULT_TILES: MatmulTiles = Object.freeze({ tileM: 64, tileN: 64, tileK: 16, regM: 4, regN: 4 });
/** For devices that allow fewer work-items or less local memory: 16x16, one element per work-item. */
const SMALL_TILES: MatmulTiles = Object.freeze({ tileM: 16, tileN: 16, tileK: 16, regM: 1, regN: 1 });
/**
 * For large products of 4-byte elements: 128x128 per work-group, 8x8 per work-item (256
 * work-items), the best scalar configuration examples/matmul.ts's tuner found on NVIDIA's
 * OpenCL and Vulkan (twice the register reuse of DEFAULT_TILES). Wider elements keep
 * DEFAULT_TILES: 64 complex or double accumulators a work-item would spill.
 */
const LARGE_TILES: MatmulTiles = Object.freeze({ tileM: 128, tileN: 128, tileK: 16, regM: 8, regN: 8 });
/** The float4 kernel, where the target's vectors hold the elements: the tuned SGEMM's best on NVIDIA's OpenCL and CUDA. */
const VECTOR_CONFIG: MatmulConfig = FLOAT4_SGEMM;

/** Options of `matrixMul`. */
export interface MatrixMulOptions<O extends DType = DType> {
  /** Take `a` transposed (its last two axes swapped), as Reikna's `transposed_a`. */
  readonly transposedA?: boolean;
  /** Take `b` transposed, likewise. */
  readonly transposedB?: boolean;
  /**
   * The tiles; by default 128x128 tiles of 8x8 per work-item for matrices of 4-byte elements at
   * least that large, else `DEFAULT_TILES`, where the device allows them.
   */
  readonly tiles?: MatmulTiles;
  /**
   * Square tiles of this side, one output element per work-item (Reikna's `block_width_override`):
   * `blockWidthOverride`² work-items per work-group. Not with `tiles`.
   */
  readonly blockWidthOverride?: number;
  /**
   * A configuration of the tuned SGEMM's transformations (examples/matmul.ts's `MatmulConfig`,
   * as its autotuner finds it: `autotune(matmulTuning(n), device, { cache })`'s `best`), for
   * the product's kernel in place of the default. Not with `tiles` or `blockWidthOverride`.
   */
  readonly config?: MatmulConfig;
  /**
   * The output's type (Reikna's `out_arr_t`): its dtype (default numpy's result type of the
   * operands') and shape (default the broadcast batch, then rows of a by columns of b).
   */
  readonly output?: { readonly dtype: O; readonly shape?: readonly number[] };
}

/** The options matrixMul reads; any other key is an error. */
const MATRIX_MUL_OPTIONS = optionKeys<MatrixMulOptions>()([
  'blockWidthOverride',
  'config',
  'output',
  'tiles',
  'transposedA',
  'transposedB',
]);

type Operand<D extends DType> = { readonly dtype: D; readonly shape: readonly number[] };
type Params<O extends DType, A extends DType, B extends DType> = readonly [
  { readonly name: 'output'; readonly dtype: O; readonly shape: readonly number[]; readonly role: 'o' },
  { readonly name: 'matrix_a'; readonly dtype: A; readonly shape: readonly number[]; readonly role: 'i' },
  { readonly name: 'matrix_b'; readonly dtype: B; readonly shape: readonly number[]; readonly role: 'i' },
];

/** The dtype of a product of A and B as `promote` gives it, where the compiler can tell (same dtypes, real x complex). */
export type ProductDType<A extends DType, B extends DType> = [A] extends [B]
  ? [B] extends [A]
    ? A
    : DType
  : 'complex128' extends A | B
    ? 'complex128'
    : 'complex64' extends A | B
      ? 'float64' extends A | B
        ? 'complex128'
        : 'complex64'
      : DType;

/** A matrix product computation, batched over leading axes (Reikna's `MatrixMul`). */
export function matrixMul<A extends DType, B extends DType = A, O extends DType = ProductDType<A, B>>(
  a: Operand<A>,
  b: Operand<B>,
  options: MatrixMulOptions<O> = {},
): Computation<Params<O, A, B>> {
  checkOptionKeys('matrixMul', options, MATRIX_MUL_OPTIONS);
  if (a.shape.length < 1 || b.shape.length < 1)
    throw new LoomError('matrixMul: the operands need an axis at least (vectors, matrices, or batches of them)');
  // a vector is a matrix of one row (a) or of one column (b), as Reikna takes it
  const aShape = a.shape.length === 1 ? [1, ...a.shape] : a.shape;
  const bShape = b.shape.length === 1 ? [...b.shape, 1] : b.shape;
  const ta = options.transposedA ?? false;
  const tb = options.transposedB ?? false;
  const [m, ka] = last2(aShape, ta);
  const [kb, n] = last2(bShape, tb);
  if (ka !== kb) throw new LoomError(`matrixMul: a is ${m} x ${ka} but b is ${kb} x ${n}: the inner sizes differ`);
  const batch = broadcastBatch(aShape.slice(0, -2), bShape.slice(0, -2));
  const out = outputType(options.output, promote(a.dtype, b.dtype), [...batch, m, n]);
  const tiles = checkedTiles(options);
  return computation<Params<O, A, B>>({
    name: 'matrixMul',
    params: [
      { name: 'output', dtype: out.dtype as O, shape: out.shape, role: 'o' },
      { name: 'matrix_a', dtype: a.dtype, shape: aShape, role: 'i' },
      { name: 'matrix_b', dtype: b.dtype, shape: bShape, role: 'i' },
    ],
    buildPlan(plan, device, output, matrixA, matrixB) {
      const operands: Operands = { a: a.dtype, b: b.dtype, c: out.dtype, aShape, bShape, cShape: out.shape };
      const chosen = configFor(tiles, operands, device, [m, n, ka], ta, tb);
      const knl = matmulKernel(operands, batch, m, n, ka, ta, tb, chosen, device);
      const bindings = { c: output, a: matrixA, b: matrixB };
      if ((chosen?.vectorWidth ?? 1) === 1) return plan.kernelCall(knl, bindings);
      // rows as float4s: only the arrays still bound here once transformations are fused in
      // (one fused in an operand's place reads it its own way, lane by lane)
      const untouched = (k: LoopKernel, name: string) => {
        const [now, was] = [k.arg(name), knl.arg(name)!];
        return (
          now !== undefined &&
          now.dtype === was.dtype &&
          now.shape?.map(printExpr).join() === was.shape?.map(printExpr).join()
        );
      };
      plan.kernelCall(knl, bindings, {
        finish: (k) => {
          const viewed = matmulVectorViews(
            k,
            chosen!,
            vectorViewArrays(chosen!).filter((x) => untouched(k, x)),
          );
          // a configuration's asynchronous copies, where an operand's transformation fused into its
          // panel's fill made it compute (a conversion, a scaling): that fill copies through registers
          return chosen!.asyncCopies ? synchronousWhereComputed(viewed) : viewed;
        },
      });
    },
  });
}

/** `knl` with each asynchronous copy that no longer copies as is (asyncCopyProblem) made a plain assignment. */
function synchronousWhereComputed(knl: LoopKernel): LoopKernel {
  const computed = new Set(knl.instructions.filter((i) => i.asyncCopy && asyncCopyProblem(knl, i)).map((i) => i.id));
  if (computed.size === 0) return knl;
  return knl.with({
    instructions: knl.instructions.map((i) => {
      if (!computed.has(i.id)) return i;
      const { asyncCopy: _, ...plain } = i;
      return plain;
    }),
  });
}

/** The dtypes and shapes of the kernel's arrays. */
interface Operands {
  readonly a: DType;
  readonly b: DType;
  readonly c: DType;
  readonly aShape: readonly number[];
  readonly bShape: readonly number[];
  readonly cShape: readonly number[];
}

/** The output's type: as given (its shape holding the product's elements, batch axes of 1 aside), else the product's. */
function outputType(
  given: MatrixMulOptions['output'],
  dtype: DType,
  shape: readonly number[],
): { dtype: DType; shape: readonly number[] } {
  if (given === undefined) return { dtype, shape };
  if (typeof given !== 'object' || given === null || typeof given.dtype !== 'string')
    throw new LoomError("matrixMul: 'output' is the output array's type, { dtype, shape? }");
  if (given.shape === undefined) return { dtype: given.dtype, shape };
  // Reikna's out_arr_t may have more or fewer leading axes of 1 (a product of matrices into (1, m, n))
  const core = (s: readonly number[]) => s.slice(s.findIndex((x, k) => x !== 1 || k >= s.length - 2)).join();
  if (!Array.isArray(given.shape) || core(given.shape) !== core(shape))
    throw new LoomError(
      `matrixMul: the output's shape (${given.shape.join(', ')}) does not hold the product, of shape (${shape.join(', ')})`,
    );
  return { dtype: given.dtype, shape: given.shape };
}

/**
 * The configuration asked: `config`, or `tiles` or the square tiles of `blockWidthOverride`
 * (one element per work-item) as a scalar configuration; undefined: the default.
 */
function checkedTiles(options: MatrixMulOptions): MatmulConfig | undefined {
  const given = [options.config, options.tiles, options.blockWidthOverride].filter((x) => x !== undefined).length;
  if (given > 1) throw new LoomError('matrixMul: give one of config, tiles and blockWidthOverride');
  if (options.config !== undefined) {
    const problem = configProblem(options.config);
    if (problem) throw new LoomError(`matrixMul: config ${JSON.stringify(options.config)}: ${problem}`);
    return options.config;
  }
  const bw = options.blockWidthOverride;
  if (bw === undefined) return options.tiles && scalarConfig(options.tiles);
  if (!Number.isInteger(bw) || bw < 1)
    throw new LoomError(`matrixMul: blockWidthOverride must be a positive integer, got ${String(bw)}`);
  return scalarConfig({ tileM: bw, tileN: bw, tileK: bw, regM: 1, regN: 1 });
}

/** Tiles as a configuration of scalars: strided register tiles, panels in local memory. */
function scalarConfig(t: MatmulTiles, unrollK = false): MatmulConfig {
  const { tileM, tileN, tileK, regM, regN } = t;
  return { tileM, tileN, tileK, regM, regN, layout: 'strided', prefetch: true, unrollK };
}

function last2(shape: readonly number[], transposed: boolean): [number, number] {
  const [x, y] = shape.slice(-2);
  return transposed ? [y, x] : [x, y];
}

function broadcastBatch(a: readonly number[], b: readonly number[]): number[] {
  const r = Math.max(a.length, b.length);
  return Array.from({ length: r }, (_, k) => {
    const x = a[a.length - r + k] ?? 1;
    const y = b[b.length - r + k] ?? 1;
    if (x !== y && x !== 1 && y !== 1)
      throw new LoomError(`matrixMul: batch shapes (${a.join(', ')}) and (${b.join(', ')}) do not broadcast`);
    return Math.max(x, y);
  });
}

/**
 * The configuration: as asked, else the first of the defaults the device allows and the
 * operands take, the matrices at least a tile in every direction: the tuned float4 SGEMM
 * (one 4-byte dtype the target's vectors hold, rows of whole float4s, a target that need
 * not write whole-vector statements), LARGE_TILES (4-byte elements),
 * DEFAULT_TILES, 16 x 16 ones; undefined where even those are larger than the matrices (the
 * kernel then goes without tiles).
 */
function configFor(
  wanted: MatmulConfig | undefined,
  operands: Operands,
  device: DeviceParameters,
  [m, n, k]: readonly number[],
  ta: boolean,
  tb: boolean,
): MatmulConfig | undefined {
  const fits = (t: MatmulConfig) => {
    const items = (t.tileM / t.regM) * (t.tileN / t.regN);
    // the float4 kernel pads each row of a's panel by a word (bank conflicts)
    const rowA = t.tileK + aPanelPadding(t);
    const local = t.tileM * rowA * byteSize(operands.a) + t.tileK * t.tileN * byteSize(operands.b);
    return (
      items <= device.maxWorkGroupSize &&
      t.tileN / t.regN <= device.maxWorkGroupSizes[0] &&
      t.tileM / t.regM <= device.maxWorkGroupSizes[1] &&
      local <= device.localMemoryBytes
    );
  };
  // why the operands cannot take t's float4 views of their rows (which a target without vector types runs lane by lane)
  const takes = (t: MatmulConfig) => {
    if ((t.vectorWidth ?? 1) === 1) return undefined;
    const { a, b, c } = operands;
    const held = device.vectorDTypes.length === 0 || device.vectorDTypes.includes(a);
    if (a !== b || a !== c || byteSize(a) !== 4 || !held)
      return `the float4 loads need a, b and the output of one 4-byte dtype the target's vectors hold (here ${a}, ${b}, ${c})`;
    if (k % 4 || n % 4) return `the float4 loads need rows of whole float4s (k = ${k} and n = ${n} multiples of 4)`;
    return undefined;
  };
  // (a partial last step of k, its slab, is what a double buffer cannot take)
  const layoutOf = (t: MatmulConfig) => ({ transposedA: ta, transposedB: tb, partialK: k % t.tileK !== 0 });
  if (wanted) {
    const problem = layoutProblem(wanted, layoutOf(wanted)) ?? takes(wanted);
    if (problem) throw new LoomError(`matrixMul: config ${JSON.stringify(wanted)}: ${problem}`);
    if (!fits(wanted))
      throw new LoomError(
        `matrixMul: tiles ${JSON.stringify(wanted)} need more work-items or local memory than the device allows`,
      );
    return wanted;
  }
  // a panel's footprint is the tile only where the matrices are as large
  const within = (t: MatmulConfig) => m >= t.tileM && n >= t.tileN && k >= t.tileK;
  const narrow = byteSize(operands.a) <= 4 && byteSize(operands.b) <= 4;
  // rolled on every target: the tuner's pick on Dawn unrolls the staged loop (6% faster there),
  // but its 1024 unrolled multiply-adds take lavapipe about a minute to compile
  const large = scalarConfig(LARGE_TILES);
  // the float4 kernel moves its staged vectors to local memory lane by lane, which targets that
  // want whole-vector statements compile slower than the scalar kernel (the tuner's pick on Dawn)
  const vectors = device.vectorDTypes.includes(operands.c) && !device.preferVectorStatements;
  const candidates = [
    ...(narrow ? [...(vectors ? [VECTOR_CONFIG] : []), large] : []),
    scalarConfig(DEFAULT_TILES),
    scalarConfig(SMALL_TILES),
  ];
  return candidates.find((t) => fits(t) && within(t) && !layoutProblem(t, layoutOf(t)) && !takes(t));
}

function matmulKernel(
  operands: Operands,
  batch: readonly number[],
  m: number,
  n: number,
  kk: number,
  ta: boolean,
  tb: boolean,
  config: MatmulConfig | undefined,
  device: DeviceParameters,
): LoopKernel {
  const knl = plainKernel(operands, batch, m, n, kk, ta, tb);
  const bt = batch.map((_, k) => `bt${k}`);
  if (!config) return untiled(knl, bt, batch, device);
  const problem = configProblem(config);
  if (problem) throw new LoomError(`matrixMul: tiles ${JSON.stringify(config)}: ${problem}`);
  const axes = (shape: readonly number[]) => shape.length - 2;
  const tiled = tileMatmul(knl, config, {
    transposedA: ta,
    transposedB: tb,
    batchAxes: { a: axes(operands.aShape), b: axes(operands.bShape), c: axes(operands.cShape) },
    partialK: kk % config.tileK !== 0,
  });
  return batchOnGrid(tiled, bt, batch);
}

/** `c[i, j] = sum(k, a[i, k]*b[k, j])` with the batch axes and the operands' layouts. */
function plainKernel(
  { a, b, c, aShape, bShape, cShape }: Operands,
  batch: readonly number[],
  m: number,
  n: number,
  kk: number,
  ta: boolean,
  tb: boolean,
): LoopKernel {
  const bt = batch.map((_, k) => `bt${k}`);
  // an operand's batch index: its own axes, right-aligned; an axis of 1 is broadcast (index 0)
  const batchIndex = (shape: readonly number[]) =>
    shape.slice(0, -2).map((s, k, own) => (s === 1 ? '0' : bt[batch.length - own.length + k]));
  const aIndex = [...batchIndex(aShape), ...(ta ? ['k', 'i'] : ['i', 'k'])];
  const bIndex = [...batchIndex(bShape), ...(tb ? ['j', 'k'] : ['k', 'j'])];
  // the output's batch axes, right-aligned: its extra leading axes of 1 at 0, the batch's missing ones (of 1) unused
  const cBatch = cShape.slice(0, -2).map((_, k, own) => bt[batch.length - own.length + k] ?? '0');
  const domain = `{ [${[...bt, 'i', 'j', 'k'].join(', ')}]: ${[...bt.map((b, k) => `0 <= ${b} < ${batch[k]}`), `0 <= i < ${m}`, `0 <= j < ${n}`, `0 <= k < ${kk}`].join(' and ')} }`;
  return makeKernel(
    domain,
    `c[${[...cBatch, 'i', 'j'].join(', ')}] = sum(k, a[${aIndex.join(', ')}]*b[${bIndex.join(', ')}])`,
    [
      globalArg('a', { dtype: a, shape: aShape }),
      globalArg('b', { dtype: b, shape: bShape }),
      globalArg('c', { dtype: c, shape: cShape }),
    ],
    { name: 'matrixmul' },
  );
}

/** Matrices smaller than a tile: one work-item per element of c, in 16 x 16 work-groups (or fewer). */
function untiled(
  knl: LoopKernel,
  bt: readonly string[],
  batch: readonly number[],
  device: DeviceParameters,
): LoopKernel {
  const side = Math.min(16, Math.floor(Math.sqrt(device.maxWorkGroupSize)));
  knl = splitIname(knl, 'i', side, { outerTag: 'g.1', innerTag: 'l.1' });
  knl = splitIname(knl, 'j', side, { outerTag: 'g.0', innerTag: 'l.0' });
  return batchOnGrid(knl, bt, batch);
}

/** The batch: its largest axis on grid axis 2, the others loops. */
function batchOnGrid(knl: LoopKernel, bt: readonly string[], batch: readonly number[]): LoopKernel {
  if (bt.length === 0) return knl;
  const largest = bt.reduce((x, y, k) => (batch[k] > batch[bt.indexOf(x)] ? y : x));
  return tagInames(knl, { [largest]: 'g.2' });
}
