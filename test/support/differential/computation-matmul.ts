/**
 * Differential cases of `matrixMul` with a drawn tiling (feature `computationMatmulConfigs`): the
 * SGEMM's configurations combine tiles, register tiles, strided or blocked layouts, float4 loads
 * and reads, a's panel transposed (as scalars or float4s), loads a step ahead, two buffers,
 * asynchronous copies, unrolled steps, launch bounds and subgroups over blocks of work-items (joined
 * local axes), and each new option multiplies what a
 * test list covers. This draws the combination, the shapes (a partial last step of k, matrices
 * smaller than a tile, a batch, transposed operands) and the dtype (int32, or float32 of small
 * integers: every sum exact), and runs the product on every device against plain JS. A
 * combination Loom refuses must be refused before it runs, with a LoomError; a wrong element is a
 * finding.
 */
import { LoomError, type Device } from '@loom/core';
import { configProblem, matrixMul, type MatmulConfig } from '@loom/computation';
import { seeded } from '../predicates.ts';
import { matmulRef } from '../reikna-values.ts';
import type { FeatureSet } from './features.ts';

/** What one case ran (or saw refused), and every disagreement with plain JS. */
export interface MatmulConfigResult {
  readonly ran: readonly string[];
  readonly findings: readonly string[];
}

/** The case of `seed`, from a stream of its own (the bench and the test draw the same case). */
export async function runMatmulConfigCase(
  seed: number,
  features: FeatureSet,
  devices: readonly Device[],
): Promise<MatmulConfigResult> {
  const random = seeded(seed * 2654435761 + 53);
  const config = withStages(seed, features, drawConfig(random));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const dtype = pick(['int32', 'float32'] as const);
  // sizes around the tiles: smaller, equal, a partial tile or step past them; n mostly whole float4s
  // (mostly what the configuration takes: rows of whole float4s for its float4 loads, whole steps of
  // k for two buffers, operands row by row; the rest draws what it must refuse)
  const around = (tile: number) => Math.max(1, tile * pick([0.5, 1, 1, 2]) + pick([0, 0, -3, 5]));
  const float4s = (x: number) => (random() < 0.9 ? 4 * Math.ceil(x / 4) : x);
  // subgroups over blocks need whole tiles of c: mostly so (the rest draws the refusal)
  const wholeTiles = config.subgroupShape !== undefined && random() < 0.8;
  const m = wholeTiles ? config.tileM * pick([1, 2]) : around(config.tileM);
  const n = wholeTiles ? config.tileN * pick([1, 2]) : float4s(around(config.tileN));
  const drawnK =
    random() < (config.doubleBuffered ? 0.9 : 0.6) ? config.tileK * pick([1, 2, 3]) : float4s(around(config.tileK));
  // a pipeline of several buffers mostly gets more steps than it fills ahead (from a stream of its own)
  const stepsSide = seeded(seed * 2654435761 + 0x57a9e6);
  const k = config.stages && stepsSide() < 0.85 ? config.tileK * (config.stages + Math.floor(stepsSide() * 4)) : drawnK;
  const batch = random() < 0.2 ? 2 : 0;
  const transposes = config.vectorWidth === 4 || config.aTransposed ? 0.03 : 0.15;
  const transposedA = random() < transposes;
  const transposedB = random() < transposes;
  const aShape = [...(batch ? [batch] : []), ...(transposedA ? [k, m] : [m, k])];
  const bShape = transposedB ? [n, k] : [k, n];
  // small integers: every product and sum exact in float32 (|sum| <= 16 k)
  const values = (length: number) => Array.from({ length }, () => Math.floor(random() * 9) - 4);
  const a = values(aShape.reduce((x, y) => x * y, 1));
  const b = values(bShape.reduce((x, y) => x * y, 1));
  const expected = matmulRef(a, aShape, b, bShape, transposedA, transposedB) as number[];
  const what = `matrixMul ${dtype} (${aShape}) x (${bShape})${transposedA ? ' a transposed' : ''}${transposedB ? ' b transposed' : ''}, config ${JSON.stringify(config)}`;
  const ran: string[] = [];
  const findings: string[] = [];
  const comp = matrixMul({ dtype, shape: aShape }, { dtype, shape: bShape }, { config, transposedA, transposedB });
  const host = (xs: number[]) => (dtype === 'int32' ? Int32Array.from(xs) : Float32Array.from(xs));
  for (const device of devices) {
    let output: ArrayLike<number>;
    try {
      const compiled = await comp.compile(device);
      output = ((await compiled(undefined, host(a) as never, host(b) as never)) as { output: ArrayLike<number> })
        .output;
    } catch (e) {
      // a combination Loom cannot build for these operands or this device says so before it runs
      if (e instanceof LoomError) {
        ran.push(`${device.name}: refused, ${what}: ${e.message.split('\n')[0]}`);
        continue;
      }
      findings.push(`${device.name}: ${what}: ${(e as Error).message.split('\n')[0]} (seed ${seed})`);
      continue;
    }
    ran.push(`${device.name}: ${what}`);
    const bad = expected.findIndex((e, i) => output[i] !== e);
    if (output.length !== expected.length || bad >= 0)
      findings.push(
        `${device.name}: ${what}: element ${bad} is ${output[bad]}, expected ${expected[bad]} (seed ${seed})`,
      );
  }
  return { ran, findings };
}

/** The tiling the case of `seed` draws (what runMatmulConfigCase runs), to choose seeds by. */
export function matmulConfigOf(seed: number, features: FeatureSet): MatmulConfig {
  return withStages(seed, features, drawConfig(seeded(seed * 2654435761 + 53)));
}

/** Two buffers made 3 or 4 (pipelineStages), from a stream of their own: older seeds keep their cases. */
function withStages(seed: number, features: FeatureSet, drawn: MatmulConfig): MatmulConfig {
  const side = seeded(seed * 2654435761 + 0x57a9e5);
  return features.has('pipelineStages') && drawn.doubleBuffered && !drawn.pipelined && side() < 0.5
    ? { ...drawn, stages: side() < 0.5 ? 3 : 4 }
    : drawn;
}

/** A tiling `configProblem` accepts, drawn among every option of `MatmulConfig` (a few tries, else a plain one). */
function drawConfig(random: () => number): MatmulConfig {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const maybe = (p: number) => random() < p;
  for (let attempt = 0; attempt < 50; attempt++) {
    const vectorWidth = pick([1, 4] as const);
    const vectorReads = vectorWidth === 4 && maybe(0.7);
    const transposed = vectorReads
      ? pick(['none', 'scalars', 'vectors', 'vectors', 'a4'] as const)
      : pick(['none', 'scalars'] as const);
    const config: MatmulConfig = {
      tileM: pick([16, 32, 64, 128]),
      tileN: pick([16, 32, 64, 128]),
      tileK: pick([4, 8, 16, 32]),
      regM: pick([1, 2, 4, 8]),
      regN: pick([1, 2, 4, 8]),
      layout: pick(['strided', 'blocked'] as const),
      prefetch: maybe(0.9),
      unrollK: maybe(0.4),
      ...(vectorWidth === 4 ? { vectorWidth } : {}),
      ...(vectorReads ? { vectorReads } : {}),
      ...(transposed === 'scalars' ? { aTransposed: true } : {}),
      ...(transposed === 'vectors' ? { aTransposedVectors: true } : {}),
      ...(transposed === 'a4' ? { aVectorReads: true } : {}),
      ...(maybe(0.25) ? { pipelined: true } : {}),
      ...(maybe(0.25) ? { doubleBuffered: true } : {}),
      ...(maybe(0.15) ? { asyncCopies: true } : {}),
      ...(maybe(0.1) ? { groupsPerComputeUnit: 2 } : {}),
      ...(maybe(0.25) ? { subgroupShape: { rows: pick([1, 2, 4, 8]), columns: pick([1, 2, 4, 8, 16]) } } : {}),
    };
    const items = (config.tileM / config.regM) * (config.tileN / config.regN);
    // (an unrolled step of more than 256 multiply-adds a work-item takes the CPU machines' compilers a minute)
    const unrolled = config.unrollK ? config.tileK * config.regM * config.regN : 0;
    if (items <= 256 && unrolled <= 256 && !configProblem(config)) return config;
  }
  return { tileM: 32, tileN: 32, tileK: 8, regM: 2, regN: 2, layout: 'strided', prefetch: true, unrollK: false };
}
