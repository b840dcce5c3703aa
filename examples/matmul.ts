/**
 * A fast SGEMM made of one line of math and a handful of transformations.
 *
 *     c[i, j] = sum(k, a[i, k]*b[k, j])
 *
 * is the whole kernel. Everything that makes it fast is a transformation applied afterwards:
 *
 *   1. work-group tiles   each work-group computes a tileM x tileN block of c (split i and j, tag g.*)
 *   2. register tiles     each work-item holds regM x regN results in registers (split again, tag `ilp`):
 *                         one value of a is reused regN times, one of b regM times
 *   3. local memory       the a and b panels a work-group needs for tileK steps of k are staged in
 *                         local memory (addPrefetch), read from global memory once per work-group
 *   4. cooperative fetch  all work-items of the group share the staging, neighbours reading
 *                         neighbouring words (splitIname onto l.0/l.1)
 *
 * The same transformations take any sizes, c (m x n) = a (m x k) · b (k x n), and batches of
 * products (`matmulKernel(config, { m, n, k, batch })`): where a size is not a multiple of its tile,
 * the splits guard the edges of c and the prefetches load only the part of a panel inside the
 * matrices (loads and stores of float4s stay whole where the rows are whole float4s).
 * examples/matmul-padded.ts takes the other road, as BLAS wrappers do: a and b copied into arrays
 * of whole tiles (zeros outside), the unguarded kernel, c cropped.
 *
 * `matmulKernel(config)` applies them (`tileMatmul` of @loom/computation, which `matrixMul` uses too);
 * `matmulTuning(n)` is the search for the best configuration
 * on the device at hand (`npx loom tune examples/matmul.ts`, or `autotune` from @loom/core). Run this file to see the generated OpenCL C and WGSL and check the result on every
 * device present against the CPU device:
 *
 *     npx tsx examples/matmul.ts
 */
import { pathToFileURL } from 'node:url';
import {
  addDtypes,
  LoomError,
  assume,
  DeviceArray,
  defineTuning,
  generateCode,
  makeKernel,
  run,
  tagInames,
  type Device,
  type LoopKernel,
  type TuningProblem,
} from '@loom/core';
import {
  configProblem,
  describeMatmulShape as describeShape,
  matmulShapeOf as shapeOf,
  sgemmProblemName,
  type MatmulShape,
  DEFAULT_MATMUL,
  FLOAT4_SGEMM,
  matmulVectorViews,
  tileMatmul,
  vectorViewArrays,
  workGroupOf,
  type MatmulConfig,
} from '@loom/computation';

// the transformations live in @loom/computation (matrixMul takes the same): re-exported for the benchmarks
export { configProblem, DEFAULT_MATMUL, workGroupOf, type MatmulConfig };

/** The sizes of a product, as @loom/computation names them (`matmulShapeOf`, `describeMatmulShape`). */
export { describeShape, shapeOf, type MatmulShape };

/** Multiply-adds of a product, times two: its FLOP. */
export function matmulFlops(size: number | MatmulShape): number {
  const { m, n, k, batch = 1 } = shapeOf(size);
  return 2 * batch * m * n * k;
}

/**
 * The plain kernel: one line of math, for square n x n matrices (n a parameter), or for the
 * sizes of `shape` (fixed, any sizes), with a batch axis `l` when it has one.
 */
export function plainMatmul(shape?: MatmulShape): LoopKernel {
  if (shape === undefined)
    return makeKernel('{ [i,j,k]: 0<=i,j,k<n }', 'c[i, j] = sum(k, a[i, k]*b[k, j])', undefined, {
      name: 'sgemm',
      assumptions: 'n >= 1',
    });
  const { m, n, k, batch } = shape;
  for (const [what, size] of Object.entries(shape))
    if (size !== undefined && !(Number.isInteger(size) && size >= 1))
      throw new LoomError(`plainMatmul: ${what} must be a positive integer, got ${String(size)}`);
  const bounds = `0<=i<${m} and 0<=j<${n} and 0<=k<${k}`;
  if (batch === undefined)
    return makeKernel(`{ [i,j,k]: ${bounds} }`, 'c[i, j] = sum(k, a[i, k]*b[k, j])', undefined, { name: 'sgemm' });
  return makeKernel(
    `{ [l,i,j,k]: 0<=l<${batch} and ${bounds} }`,
    'c[l, i, j] = sum(k, a[l, i, k]*b[l, k, j])',
    undefined,
    { name: 'sgemm' },
  );
}

/**
 * Why `config` cannot take matrices of `shape`, or undefined when it can. Sizes that are not
 * multiples of the tiles are fine (the splits guard the edges); the float4 views of the rows
 * are not: a row of a (k floats) is a whole number of float4s, 16-byte aligned, only when k is
 * a multiple of 4, and so for b and c with n.
 */
export function shapeProblem(config: MatmulConfig, shape: MatmulShape): string | undefined {
  if ((config.vectorWidth ?? 1) === 4 && shape.k % 4)
    return `a's rows (k = ${shape.k}) are not whole float4s: vectorWidth 4 needs k a multiple of 4`;
  if ((config.vectorWidth ?? 1) === 4 && shape.n % 4)
    return `b's rows (n = ${shape.n}) are not whole float4s: vectorWidth 4 needs n a multiple of 4`;
  return undefined;
}

/**
 * The plain kernel, transformed by `config`: for n x n matrices, n fixed when given (a kernel
 * per size, as BLAS libraries pick one per shape), otherwise any multiple of the tile sizes;
 * or for the fixed sizes of a `MatmulShape` (rectangular, batched), of any sizes: where they
 * are not multiples of the tiles, the splits guard the edges of c and the prefetches load only
 * the part of a panel inside the matrices.
 */
export function matmulKernel(config: MatmulConfig = DEFAULT_MATMUL, size?: number | MatmulShape): LoopKernel {
  const shape = size === undefined ? undefined : shapeOf(size);
  const problem = configProblem(config) ?? (shape ? shapeProblem(config, shape) : undefined);
  if (problem)
    throw new LoomError(
      `matmulKernel(${JSON.stringify(config)}${shape ? `, ${describeShape(shape)}` : ''}): ${problem}`,
    );
  const { tileM, tileN, tileK } = config;
  const batched = shape?.batch !== undefined;
  // Any n: whole tiles only, no guards at the edges of c (the caller pads, as BLAS wrappers do).
  let knl = shape === undefined ? assume(plainMatmul(), `n mod ${lcm(tileM, tileN, tileK)} = 0`) : plainMatmul(shape);
  // a batch of products: one work-group per tile of c in each product, the batch on the grid's axis 2
  if (batched) knl = tagInames(knl, { l: 'g.2' });
  // where k is not a multiple of tileK, the last step is generated apart (a slab)
  const axes = batched ? 1 : 0;
  knl = tileMatmul(knl, config, {
    batchAxes: { a: axes, b: axes, c: axes },
    partialK: shape !== undefined && shape.k % tileK !== 0,
  });
  return matmulVectorViews(knl, config);
}

/**
 * Every configuration the tuner considers, most promising first: work-group tiles of 64 or 128,
 * register tiles of 4 or 8, 16 or 32 steps of k staged in local memory, the register tile strided
 * or blocked, the staged loop unrolled or not, and one kernel without local memory to show what
 * staging buys. Rolled loops come first: GPU compilers unroll a constant 16-step loop themselves.
 *
 * First the best scalar kernel measured so far, then the kernels that read both panels as float4s
 * (a's stored k-major, `aTransposedVectors`) with the staged loop unrolled, the fastest on NVIDIA's
 * CUDA and OpenCL (also with each warp over 4 x 8 work-items, `subgroupShape`), then the vector kernels (float4 staging loads,
 * float4 reads of b's panel, float4 accumulators and stores of c: what hand-written OpenCL
 * SGEMMs do), those five pipelined (the next step's panels loaded into registers during this
 * step's product), a's panel read as float4s too, then the float4 staging loads alone for the
 * 128x128 tile, then the scalar kernels as before. Targets without vector
 * types run the vector kernels lane by lane (scalar kernels with other fetches): for them
 * (`vectorTypes: false`) the vector kernels come last. Where the device copies asynchronously
 * (`asyncCopies: true`, CUDA) the float4 kernels whose panels are filled by asynchronous copies
 * come second, double-buffered first.
 */
export function matmulSearchSpace(
  options: { readonly vectorTypes?: boolean; readonly asyncCopies?: boolean } = {},
): MatmulConfig[] {
  const tiles = [
    { tileM: 128, tileN: 128, regM: 8, regN: 8 },
    { tileM: 128, tileN: 64, regM: 8, regN: 4 },
    { tileM: 64, tileN: 128, regM: 4, regN: 8 },
    { tileM: 64, tileN: 64, regM: 4, regN: 4 },
    { tileM: 64, tileN: 64, regM: 8, regN: 8 },
  ];
  const configs: MatmulConfig[] = [];
  // a configuration is its options, in whatever order they were spread
  const key = (c: MatmulConfig) => JSON.stringify(Object.entries(c).sort(([a], [b]) => (a < b ? -1 : 1)));
  const add = (config: MatmulConfig) => {
    if (!configProblem(config) && !configs.some((c) => key(c) === key(config))) configs.push(config);
  };
  const layouts = ['strided', 'blocked'] as const;
  // the best scalar kernel on the H100 (OpenCL and WebGPU) first: every backend has it measured at once
  add({ tileM: 128, tileN: 128, regM: 8, regN: 8, tileK: 16, layout: 'strided', prefetch: true, unrollK: false });
  // then both panels read as float4s (a's k-major, aTransposedVectors) with the staged loop unrolled:
  // the fastest kernels on the H200's CUDA and OpenCL (43.6 and 39.3 TFLOP/s against 38.4 and 36.4;
  // BENCHMARKS.md, nineteenth session), a's loads a step ahead (pipelined) or, where the device copies
  // asynchronously, b's panel filled by cp.async
  const { pipelined: _, ...throughRegisters } = FLOAT4_SGEMM;
  add(FLOAT4_SGEMM);
  // the same with each warp over 4 x 8 work-items (cuBLAS's arrangement: a step of k reads 4 of a's
  // float4s and 8 of b's where 16 x 2 reads 2 and 16, 192 bytes of local memory against 288)
  add({ ...FLOAT4_SGEMM, subgroupShape: { rows: 4, columns: 8 } });
  if (options.asyncCopies) add({ ...throughRegisters, asyncCopies: true });
  add({ ...FLOAT4_SGEMM, tileK: 16 });
  add(throughRegisters);
  // warps over 4 x 8 with no loads a step ahead: the fastest on NVIDIA's OpenCL (41.7 TFLOP/s against
  // FLOAT4_SGEMM's 39.3; BENCHMARKS.md, twenty-second session)
  add({ ...throughRegisters, subgroupShape: { rows: 4, columns: 8 } });
  // where the device copies asynchronously (CUDA), the fastest kernel measured on the H200 comes
  // next: float4 panels filled by 16-byte cp.async copies, two buffers of k by 16 (38.4 TFLOP/s
  // against 35.2 for the best through registers; BENCHMARKS.md, thirteenth session), then one buffer
  const copiedPanels = {
    layout: 'strided',
    prefetch: true,
    unrollK: false,
    vectorWidth: 4,
    vectorReads: true,
    asyncCopies: true,
  } as const;
  if (options.asyncCopies)
    for (const [tileK, doubleBuffered] of [
      [16, true],
      [32, false],
      [16, false],
    ] as const)
      for (const tile of tiles.slice(0, 3))
        add({ ...tile, tileK, ...copiedPanels, ...(doubleBuffered ? { doubleBuffered } : {}) });
  // and with three or four buffers, two or three steps' copies in flight at a barrier (not yet measured)
  if (options.asyncCopies)
    for (const stages of [3, 4]) add({ ...tiles[0], tileK: 16, ...copiedPanels, doubleBuffered: true, stages });
  // then the vector kernels expected fastest on NVIDIA GPUs: the 128x128 tile, strided (no bank
  // conflicts on the float4 reads of b), a read as float4s too, then b only
  for (const aVectorReads of [true, false])
    for (const tileK of [16, 32])
      add({
        ...tiles[0],
        tileK,
        layout: 'strided',
        prefetch: true,
        unrollK: false,
        vectorWidth: 4,
        vectorReads: true,
        ...(aVectorReads ? { aVectorReads } : {}),
      });
  // those five again with the next step's panels loaded into registers during this step's
  // product (pipelined), and the best scalar kernel on WebGPU (unrolled), with and without
  for (const config of [...configs]) add({ ...config, pipelined: true });
  for (const pipelined of [true, false])
    add({
      ...tiles[0],
      tileK: 16,
      layout: 'strided',
      prefetch: true,
      unrollK: true,
      ...(pipelined ? { pipelined } : {}),
    });
  for (const tile of tiles)
    for (const tileK of [16, 32])
      for (const layout of layouts)
        add({ ...tile, tileK, layout, prefetch: true, unrollK: false, vectorWidth: 4, vectorReads: true });
  // and a's panel read as float4s too, for the strided tiles of 8 rows or columns a work-item
  for (const tile of tiles.slice(0, 3))
    for (const tileK of [16, 32])
      add({
        ...tile,
        tileK,
        layout: 'strided',
        prefetch: true,
        unrollK: false,
        vectorWidth: 4,
        vectorReads: true,
        aVectorReads: true,
      });
  // the float4 staging loads alone, to see what they buy by themselves
  add({ ...tiles[0], tileK: 16, layout: 'strided', prefetch: true, unrollK: false, vectorWidth: 4 });
  for (const unrollK of [false, true])
    for (const tile of tiles)
      for (const tileK of [16, 32])
        for (const layout of layouts) add({ ...tile, tileK, layout, prefetch: true, unrollK });
  // and one without local memory, to show what staging buys
  configs.push({ ...DEFAULT_MATMUL, prefetch: false, unrollK: true });
  // last, two buffers a panel (doubleBuffered: the next step's panels filled during this step's
  // product, one barrier a step) where both fit 48 KB (tileK 16): 3-8% slower than one buffer on
  // the H200 (BENCHMARKS.md, tenth session), so tried after the rest
  for (const config of configs
    .filter(
      (c) =>
        c.tileM === 128 &&
        c.tileN === 128 &&
        c.tileK === 16 &&
        c.prefetch &&
        !c.pipelined &&
        !c.unrollK &&
        !c.asyncCopies,
    )
    .slice(0, 3))
    add({ ...config, doubleBuffered: true });
  // a target without vector types (WGSL here) runs the vector kernels lane by lane: they go last
  if (options.vectorTypes === false)
    return [...configs.filter((c) => !c.vectorWidth), ...configs.filter((c) => c.vectorWidth)];
  return configs;
}

/**
 * The search for the fastest SGEMM of order `n`, or of a `MatmulShape`, on a device: random
 * matrices, each configuration's product checked at 64 entries (corners included) against
 * float64 dot products.
 */
export function matmulTuning(
  size: number | MatmulShape,
  space: readonly MatmulConfig[] = matmulSearchSpace(),
): TuningProblem<MatmulConfig> {
  const shape = shapeOf(size);
  const { a: aShape, b: bShape, c: cShape } = matmulArgumentShapes({ ...DEFAULT_MATMUL }, shape);
  // made on the first device's arguments, not when the problem is defined
  let host: { a: Float32Array; b: Float32Array } | undefined;
  const matrices = () => (host ??= { a: pseudoRandom(count(aShape), 1), b: pseudoRandom(count(bShape), 2) });
  return defineTuning({
    // the name tunedMatrixMulConfig looks the product's configuration up by
    name: sgemmProblemName(size),
    // a configuration that cannot take these sizes (float4 rows of an odd length) is not tried
    space: space.filter((config) => !shapeProblem(config, shape)),
    work: { amount: matmulFlops(shape), unit: 'FLOP' },
    build: (config) => matmulKernel(config, size),
    // a configuration that views rows as float4s takes the same matrices with their shapes
    argumentsFor: (config, args) => {
      const shapes = matmulArgumentShapes(config, shape);
      return Object.fromEntries(
        Object.entries(args).map(([name, a]) => [
          name,
          a instanceof DeviceArray && shapes[name] ? a.reshape(shapes[name]) : a,
        ]),
      );
    },
    arguments: async (device) => ({
      a: await DeviceArray.from(device, matrices().a, 'float32', aShape),
      b: await DeviceArray.from(device, matrices().b, 'float32', bShape),
      c: await DeviceArray.from(device, new Float32Array(count(cShape)), 'float32', cShape),
    }),
    check: async (args) =>
      sampledMatmulError((await (args.c as DeviceArray).toHost()) as Float32Array, matrices().a, matrices().b, shape),
  });
}

/**
 * The shapes the kernel of `config` takes a, b and c in: m x k, k x n and m x n (after the batch
 * axis, when there is one), or with vectorWidth 4 the rows of a and b as vectors of 4
 * (m x k/4 x 4: the same memory), and of c with vectorReads.
 */
export function matmulArgumentShapes(config: MatmulConfig, size: number | MatmulShape): Record<string, number[]> {
  const { m, n, k, batch } = shapeOf(size);
  const matrix = (rows: number, columns: number, w: number) => [
    ...(batch === undefined ? [] : [batch]),
    rows,
    ...(w === 1 ? [columns] : [columns / w, w]),
  ];
  const viewed = vectorViewArrays(config);
  const width = (name: string) => (viewed.includes(name) ? (config.vectorWidth ?? 1) : 1);
  return { a: matrix(m, k, width('a')), b: matrix(k, n, width('b')), c: matrix(m, n, width('c')) };
}

function count(shape: readonly number[]): number {
  return shape.reduce((x, y) => x * y, 1);
}

/**
 * Compares 64 entries of c (the corners, then spread over the batch and the rows and columns)
 * with float64 dot products, within float32's error for sums of k terms.
 */
export function sampledMatmulError(
  c: Float32Array,
  a: Float32Array,
  b: Float32Array,
  size: number | MatmulShape,
): string | undefined {
  const { m, n, k, batch = 1 } = shapeOf(size);
  for (let s = 0; s < 64; s++) {
    const l = s === 1 ? batch - 1 : (s * 31) % batch;
    const i = s === 0 ? 0 : s === 1 ? m - 1 : (s * 7919) % m;
    const j = s === 0 ? 0 : s === 1 ? n - 1 : (s * 104729 + 13) % n;
    let sum = 0;
    let magnitude = 0;
    for (let p = 0; p < k; p++) {
      const term = a[(l * m + i) * k + p] * b[(l * k + p) * n + j];
      sum += term;
      magnitude += Math.abs(term);
    }
    const got = c[(l * m + i) * n + j];
    if (!(Math.abs(got - sum) <= 1e-5 * magnitude * Math.sqrt(k) + 1e-6))
      return `c[${batch === 1 ? '' : `${l}, `}${i}, ${j}] is ${got}, expected ${sum}`;
  }
  return undefined;
}

/** Numbers in [-1, 1) from a small linear congruential generator: the same on every run. */
export function pseudoRandom(length: number, seed: number): Float32Array {
  const out = new Float32Array(length);
  let state = seed * 2654435761;
  for (let k = 0; k < length; k++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[k] = state / 2 ** 31 - 1;
  }
  return out;
}

/** `npx loom tune examples/matmul.ts` searches this one. */
export const sgemmTuning = matmulTuning(1024);

function lcm(...values: number[]): number {
  const gcd = (x: number, y: number): number => (y === 0 ? x : gcd(y, x % y));
  return values.reduce((x, y) => (x * y) / gcd(x, y), 1);
}

/** c = a*b on the CPU in float64, for checking: n x n matrices, or those of a shape (each product of a batch). */
export function referenceMatmul(a: Float32Array, b: Float32Array, size: number | MatmulShape): Float64Array {
  const { m, n, k, batch = 1 } = shapeOf(size);
  const c = new Float64Array(batch * m * n);
  for (let l = 0; l < batch; l++) {
    for (let i = 0; i < m; i++) {
      for (let p = 0; p < k; p++) {
        const aip = a[(l * m + i) * k + p];
        for (let j = 0; j < n; j++) c[(l * m + i) * n + j] += aip * b[(l * k + p) * n + j];
      }
    }
  }
  return c;
}

/** Largest difference from the reference, relative to the size of the terms summed (k of them). */
export function matmulError(c: ArrayLike<number>, reference: ArrayLike<number>, size: number | MatmulShape): number {
  let worst = 0;
  for (let x = 0; x < reference.length; x++) worst = Math.max(worst, Math.abs(c[x] - reference[x]));
  return worst / shapeOf(size).k;
}

// --- run as a script: show the code, check every device -------------------------------------------------

async function main(): Promise<void> {
  const { cpuDevice } = await import('@loom/codegen-js');
  const { openclDevice, openclTarget } = await import('@loom/codegen-opencl');
  const { webgpuDevice, wgslTarget } = await import('@loom/codegen-wgsl');
  const n = 128;
  const knl = matmulKernel(DEFAULT_MATMUL, n);
  const typed = addDtypes(knl, { a: 'float32', b: 'float32' });
  console.log(`=== ${JSON.stringify(DEFAULT_MATMUL)}, n = ${n}: OpenCL C ===\n`);
  console.log(generateCode(typed, openclTarget()).code);
  console.log('=== WGSL ===\n');
  console.log(generateCode(typed, wgslTarget()).code);

  const devices: Device[] = [cpuDevice()];
  const cl = openclDevice();
  if (cl) devices.push(cl);
  const gpu = await webgpuDevice();
  if (gpu) devices.push(gpu);

  const a = Float32Array.from({ length: n * n }, (_, x) => ((x * 7) % 13) / 13 - 0.5);
  const b = Float32Array.from({ length: n * n }, (_, x) => ((x * 5) % 11) / 11 - 0.5);
  const expected = referenceMatmul(a, b, n);
  const configs: MatmulConfig[] = [
    DEFAULT_MATMUL,
    { ...DEFAULT_MATMUL, layout: 'blocked', unrollK: true },
    { tileM: 128, tileN: 64, tileK: 16, regM: 8, regN: 4, layout: 'strided', prefetch: true, unrollK: true },
    { ...DEFAULT_MATMUL, prefetch: false },
    { ...DEFAULT_MATMUL, vectorWidth: 4, vectorReads: true },
  ];
  for (const config of configs) {
    for (const device of devices) {
      const { c } = await run(matmulKernel(config, n), device, { a, b });
      const error = matmulError(c as Float32Array, expected, n);
      const ok = error < 1e-6;
      console.log(`  ${device.name}: ${JSON.stringify(config)}: ${ok ? 'ok' : `WRONG (error ${error})`}`);
      if (!ok) process.exitCode = 1;
    }
  }
  gpu?.destroy();
}

// Only when run directly (not when the benchmarks import the recipe, bundled or not).
if (
  import.meta.url.endsWith('/examples/matmul.ts') &&
  process.argv[1] &&
  import.meta.url === pathToFileURL(process.argv[1]).href
)
  await main();
