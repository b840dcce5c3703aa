/**
 * SGEMM of any shape the way BLAS wrappers do it: pad, multiply whole tiles, crop.
 *
 * examples/matmul.ts takes any sizes by guarding the edges of c, which costs a compare (or
 * several) for each of the regM x regN accumulator updates of every step of k. Where a size
 * is not a multiple of its tile, this plan instead
 *
 *   1. copies a into an m' x k' array and b into a k' x n' one (m', n' rounded up to the
 *      work-group tile, k' to tileK), zero outside the matrices: the padded steps of k add
 *      0*0 to every sum, and the padded rows and columns of c' are never read,
 *   2. runs `matmulKernel(config, { m: m', n: n', k: k' })`: whole tiles only, no edge guard,
 *   3. copies the m x n part of c' out into c (a crop).
 *
 * Only what needs it is copied: a when m or k is not a multiple of its tile, b when k or n is
 * not, c when m or n is not (a shape of whole tiles is one step, the kernel alone). A batch of
 * products pads each product; the batch axis stays. The copies are Loom kernels too: one
 * element a work-item, neighbouring work-items on neighbouring elements of a row (coalesced),
 * 64 x 4 elements a work-group.
 *
 * The plan is a small typed value (`steps`, each a kernel and which arrays it takes, and the
 * `temporaries` to allocate) rather than a @loom/computation computation: the matmul kernel
 * takes its arrays viewed as float4 rows (a shape per configuration), and the benchmarks and
 * the tuner time the steps as prepared launches, one sequence per call.
 */
import {
  DeviceArray,
  InternalError,
  LoomError,
  globalArg,
  makeKernel,
  prepareLaunch,
  splitIname,
  tagInames,
  type Device,
  type LoopKernel,
  type PreparedLaunch,
} from '@loom/core';
import { describeShape, matmulKernel, shapeOf, type MatmulConfig, type MatmulShape } from './matmul.ts';

/** One kernel of the plan: `args` maps each of its array arguments to a plan array (`a`, `b`, `c` or a temporary). */
export interface PaddedMatmulStep {
  readonly kernel: LoopKernel;
  readonly args: Readonly<Record<string, string>>;
}

/** A float32 array the plan needs besides a, b and c (row-major, the batch axis first). */
export interface PaddedTemporary {
  readonly name: string;
  readonly shape: readonly number[];
}

export interface PaddedMatmulPlan {
  readonly config: MatmulConfig;
  /** The product asked for, and the one the matmul kernel computes (sizes rounded up to the tiles). */
  readonly shape: MatmulShape;
  readonly padded: MatmulShape;
  readonly temporaries: readonly PaddedTemporary[];
  /** In order: the pads of a and b (where needed), the product, the crop of c (where needed). */
  readonly steps: readonly PaddedMatmulStep[];
}

/** Work-items of a copy's work-group: along a row (l.0, contiguous) and across rows (l.1). */
const COPY_ROW = 64;
const COPY_ROWS = 4;

/** The plan for c = a·b of `size` by `config`'s unguarded kernel (see the top of this file). */
export function paddedMatmul(config: MatmulConfig, size: number | MatmulShape): PaddedMatmulPlan {
  const shape = shapeOf(size);
  const { m, n, k, batch } = shape;
  const up = (x: number, tile: number) => Math.ceil(x / tile) * tile;
  const padded: MatmulShape = {
    m: up(m, config.tileM),
    n: up(n, config.tileN),
    k: up(k, config.tileK),
    ...(batch === undefined ? {} : { batch }),
  };
  // (configProblem and shapeProblem speak through matmulKernel, for the padded sizes: tileK and tileN are multiples of 4 where float4 rows are asked for)
  const product = matmulKernel(config, padded);
  const rowsPadded = padded.m !== m;
  const padA = rowsPadded || padded.k !== k;
  const padB = padded.k !== k || padded.n !== n;
  const cropC = rowsPadded || padded.n !== n;
  const matrix = (rows: number, columns: number) => [...(batch === undefined ? [] : [batch]), rows, columns];

  const temporaries: PaddedTemporary[] = [];
  const steps: PaddedMatmulStep[] = [];
  if (padA) {
    temporaries.push({ name: 'a_padded', shape: matrix(padded.m, padded.k) });
    steps.push({
      kernel: copyKernel('pad_a', batch, [m, k], [padded.m, padded.k]),
      args: { source: 'a', target: 'a_padded' },
    });
  }
  if (padB) {
    temporaries.push({ name: 'b_padded', shape: matrix(padded.k, padded.n) });
    steps.push({
      kernel: copyKernel('pad_b', batch, [k, n], [padded.k, padded.n]),
      args: { source: 'b', target: 'b_padded' },
    });
  }
  if (cropC) temporaries.push({ name: 'c_padded', shape: matrix(padded.m, padded.n) });
  steps.push({
    kernel: product,
    args: { a: padA ? 'a_padded' : 'a', b: padB ? 'b_padded' : 'b', c: cropC ? 'c_padded' : 'c' },
  });
  if (cropC)
    steps.push({
      kernel: copyKernel('crop_c', batch, [padded.m, padded.n], [m, n]),
      args: { source: 'c_padded', target: 'c' },
    });
  return { config, shape, padded, temporaries, steps };
}

/** Whether `config` runs `size` without padding anything (every size a multiple of its tile). */
export function fitsTiles(config: MatmulConfig, size: number | MatmulShape): boolean {
  const { m, n, k } = shapeOf(size);
  return m % config.tileM === 0 && n % config.tileN === 0 && k % config.tileK === 0;
}

/**
 * `target = source` over the target's rows x columns (each product of a batch): where the
 * target is larger (a pad), zero outside the source; where smaller (a crop), its part of the
 * source. Rows on the grid's axis 1, columns on axis 0, the batch on axis 2.
 */
function copyKernel(
  name: string,
  batch: number | undefined,
  [rows, columns]: [number, number],
  [targetRows, targetColumns]: [number, number],
): LoopKernel {
  const batched = batch !== undefined;
  const index = batched ? 'l, i, j' : 'i, j';
  const bounds = `0<=i<${targetRows} and 0<=j<${targetColumns}`;
  const domain = batched ? `{ [l,i,j]: 0<=l<${batch} and ${bounds} }` : `{ [i,j]: ${bounds} }`;
  const inside = [
    ...(targetRows > rows ? [`i < ${rows}`] : []),
    ...(targetColumns > columns ? [`j < ${columns}`] : []),
  ];
  const value = inside.length ? `if(${inside.join(' and ')}, source[${index}], 0)` : `source[${index}]`;
  const shape = (r: number, c: number) => [...(batched ? [batch] : []), r, c];
  let knl = makeKernel(
    domain,
    `target[${index}] = ${value}`,
    [
      globalArg('source', { dtype: 'float32', shape: shape(rows, columns) }),
      globalArg('target', { dtype: 'float32', shape: shape(targetRows, targetColumns) }),
    ],
    { name },
  );
  knl = splitIname(knl, 'j', COPY_ROW, { outerTag: 'g.0', innerTag: 'l.0' });
  knl = splitIname(knl, 'i', COPY_ROWS, { outerTag: 'g.1', innerTag: 'l.1' });
  return batched ? tagInames(knl, { l: 'g.2' }) : knl;
}

/** The plan's steps prepared on a, b and c (DeviceArrays of the plain shapes), its temporaries allocated. */
export interface PreparedPaddedMatmul {
  /** One launch of each step, in order: one product. */
  readonly launches: readonly PreparedLaunch[];
  launch(): Promise<void>;
  /** Frees the temporaries (a, b and c stay). */
  release(): void;
}

export async function preparePaddedMatmul(
  plan: PaddedMatmulPlan,
  device: Device,
  arrays: { readonly a: DeviceArray; readonly b: DeviceArray; readonly c: DeviceArray },
): Promise<PreparedPaddedMatmul> {
  const named = new Map<string, DeviceArray>(Object.entries(arrays));
  const temporaries = plan.temporaries.map((t) => {
    const bytes = 4 * t.shape.reduce((x, y) => x * y, 1);
    const array = new DeviceArray(device, device.allocate(Math.max(bytes, 4)), 'float32', t.shape);
    named.set(t.name, array);
    return array;
  });
  const launches: PreparedLaunch[] = [];
  const release = () => {
    for (const l of launches) l.release();
    for (const t of temporaries) t.release();
  };
  try {
    for (const step of plan.steps) {
      const args = Object.fromEntries(
        Object.entries(step.args).map(([param, array]) => [param, asDeclared(step.kernel, param, named.get(array)!)]),
      );
      launches.push(await prepareLaunch(step.kernel, device, args));
    }
  } catch (e) {
    release();
    throw e;
  }
  return {
    launches,
    launch: async () => {
      for (const l of launches) await l.launch();
    },
    release,
  };
}

/** `array` seen with the shape `knl` declares for `param` (the product views rows as float4s: m x k/4 x 4, the same memory). */
function asDeclared(knl: LoopKernel, param: string, array: DeviceArray): DeviceArray {
  const declared = knl.arg(param)?.shape;
  if (!declared?.every((e) => e.kind === 'int'))
    throw new InternalError(`paddedMatmul: the shape of '${param}' of ${knl.name} is not fixed`);
  return array.reshape(declared.map((e) => (e.kind === 'int' ? e.value : 0)));
}

/** c = a·b by the plan on `device`, from host matrices (row-major, of the plain shapes): c on the host. */
export async function runPaddedMatmul(
  plan: PaddedMatmulPlan,
  device: Device,
  a: Float32Array,
  b: Float32Array,
): Promise<Float32Array> {
  const { m, n, k, batch = 1 } = plan.shape;
  const matrix = (rows: number, columns: number) => [...(plan.shape.batch === undefined ? [] : [batch]), rows, columns];
  if (a.length !== batch * m * k || b.length !== batch * k * n)
    throw new LoomError(`runPaddedMatmul: a and b are not of the sizes of ${describeShape(plan.shape)}`);
  const da = await DeviceArray.from(device, a, 'float32', matrix(m, k));
  const db = await DeviceArray.from(device, b, 'float32', matrix(k, n));
  const dc = await DeviceArray.from(device, new Float32Array(batch * m * n), 'float32', matrix(m, n));
  try {
    const prepared = await preparePaddedMatmul(plan, device, { a: da, b: db, c: dc });
    try {
      await prepared.launch();
    } finally {
      prepared.release();
    }
    return (await dc.toHost()) as Float32Array;
  } finally {
    for (const x of [da, db, dc]) x.release();
  }
}
