/**
 * doubleBuffer with `stages`: a pipeline of several buffers a local tile, filled `ahead` steps of
 * a loop before they are read. Checked on the tiled matrix-vector product (whole and partial tiles,
 * step counts that are and are not multiples of the stages, runtime lengths, loops shorter than
 * the pipeline) against plain JavaScript on every device, plain and copied asynchronously; on the
 * generated code (a prologue loop of `ahead` steps, buffers `(step + ahead) % stages`, one barrier
 * a step); on CUDA's groups of copies (a commit a step, `cp.async.wait_group ahead - 1` at each
 * barrier, and every copy waited for where the code has another shape); on the SGEMM and HGEMM
 * configurations that use it; and on its errors.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  asyncCopies,
  doubleBuffer,
  fixParameters,
  generateCode,
  LoomError,
  run,
  targetFacts,
  type LoopKernel,
} from '@loom/core';
import { kernel } from '@loom/dsl';
import { matrixMul } from '@loom/computation';
import { cudaTarget } from '@loom/codegen-cuda';
import { openclTarget } from '@loom/codegen-opencl';
import { configProblem, matmulKernel, type MatmulConfig } from '../examples/matmul.ts';
import { HGEMM_CONFIGS, hgemmKernel } from '../examples/hgemm.ts';
import { WGMMA_CONFIGS, wgmmaHgemmKernel } from '../examples/hgemm-wgmma.ts';
import { randomFloat32, testDevices } from './support/devices.ts';
import { expectMatvec, expectSquareProduct, stagedMatvec } from './support/staged-matvec.ts';

const openclCode = (knl: LoopKernel) => generateCode(knl, openclTarget()).code;
const cudaCode = (knl: LoopKernel) => generateCode(knl, cudaTarget()).code;

/** The staged matrix-vector product with x's tile in a pipeline of `stages` buffers, `ahead` steps ahead. */
const pipelined = (stages: number, ahead?: number) =>
  doubleBuffer(stagedMatvec(), 'x_fetch', 'j_outer', { stages, ...(ahead ? { ahead } : {}) });

/** [what, kernel, n, k]: x staged 16 at a time, so k / 16 steps of j_outer. */
const CASES: readonly [string, LoopKernel, number, number][] = [
  ['3 buffers, 2 ahead, 4 steps', fixParameters(pipelined(3), { n: 32, k: 64 }), 32, 64],
  ['3 buffers, 2 ahead, 3 steps', fixParameters(pipelined(3), { n: 32, k: 48 }), 32, 48],
  ['3 buffers, 1 ahead, a partial last tile', fixParameters(pipelined(3, 1), { n: 32, k: 40 }), 32, 40],
  ['4 buffers, 3 ahead, 8 steps', fixParameters(pipelined(4), { n: 32, k: 128 }), 32, 128],
  ['4 buffers, 2 ahead, a partial last tile', fixParameters(pipelined(4, 2), { n: 32, k: 72 }), 32, 72],
  ['4 buffers, 3 ahead, a runtime length', pipelined(4), 48, 37],
  ['3 buffers, 2 ahead, a runtime length of one tile', pipelined(3), 16, 5],
];

/** 32 x 32 tiles of 4 x 4 a work-item, k by 8, panels staged in local memory: the SGEMM these tests pipeline. */
const SMALL_TILING: MatmulConfig = {
  tileM: 32,
  tileN: 32,
  regM: 4,
  regN: 4,
  tileK: 8,
  layout: 'strided',
  prefetch: true,
  unrollK: false,
};

for (const device of testDevices()) {
  test(`${device.name}: a pipeline of 3 or 4 buffers computes what the plain fetch does`, async () => {
    for (const [what, knl, n, k] of CASES) await expectMatvec(device, what, knl, n, k);
  });

  if (targetFacts(device.target).asyncCopies)
    test(`${device.name}: a pipeline of buffers filled by asynchronous copies computes what the plain fetch does`, async () => {
      for (const [what, knl, n, k] of CASES)
        await expectMatvec(device, `${what}, copied asynchronously`, asyncCopies(knl, 'x_fetch'), n, k);
    });

  test(`${device.name}: SGEMM with float4 panels in 3 and 4 buffers (matmulKernel's stages)`, async () => {
    const n = 64;
    const a = randomFloat32(n * n, 1);
    const b = randomFloat32(n * n, 2);
    for (const stages of [3, 4]) {
      const config: MatmulConfig = {
        ...SMALL_TILING,
        vectorWidth: 4,
        vectorReads: true,
        doubleBuffered: true,
        stages,
        ...(targetFacts(device.target).asyncCopies ? { asyncCopies: true } : {}),
      };
      assert.is(configProblem(config), undefined);
      const knl = addDtypes(matmulKernel(config, n), { a: 'float32', b: 'float32' });
      const { c } = await run(knl, device, { a, b });
      expectSquareProduct(c as Float32Array, a, b, n, `${stages} stages`);
    }
  });
}

for (const device of testDevices())
  test(`${device.name}: a batched matrixMul double-buffers its panels inside the batch's loop, with 2, 3 and 4 buffers`, async () => {
    // the batch's loop is around k's steps (the sum over k runs inside it): one of its iterations
    // fills each buffer once a step (this was refused as filling an element twice a step)
    const a = Float32Array.from({ length: 2 * 32 * 32 }, (_, i) => (i % 7) - 3);
    const b = Float32Array.from({ length: 32 * 32 }, (_, i) => (i % 5) - 2);
    for (const stages of [2, 3, 4]) {
      const config: MatmulConfig = {
        ...SMALL_TILING,
        tileM: 16,
        tileN: 16,
        regM: 2,
        regN: 2,
        doubleBuffered: true,
        stages,
      };
      const product = matrixMul(
        { dtype: 'float32', shape: [2, 32, 32] },
        { dtype: 'float32', shape: [32, 32] },
        { config },
      );
      const compiled = await product.compile(device);
      const { output } = (await compiled(undefined, a as never, b as never)) as { output: Float32Array };
      for (let t = 0; t < 2; t++)
        expectSquareProduct(
          output.subarray(t * 1024, (t + 1) * 1024),
          a.subarray(t * 1024, (t + 1) * 1024),
          b,
          32,
          `${stages} buffers, batch ${t}`,
        );
    }
  });

test('the first steps are filled by a prologue loop; each step fills the buffer `ahead` steps on, with one barrier a step', () => {
  const code = openclCode(fixParameters(pipelined(3), { n: 32, k: 64 }));
  assert.match(code, '__local float x_fetch[48];');
  // two steps before the loop, one barrier after them
  const loop = code.indexOf('for (int j_outer_pair');
  const prologue = code.indexOf('for (int j_outer_prologue = 0; j_outer_prologue <= 1; ++j_outer_prologue)');
  assert.ok(prologue >= 0 && prologue < loop, code);
  assert.match(code, 'x_fetch[16 * j_outer_prologue + lid(0)] = x[16 * j_outer_prologue + lid(0)];');
  assert.is((code.slice(0, loop).match(/barrier\(/g) ?? []).length, 1, code);
  // a round of 3 steps: step s fills buffer (s + 2) % 3 and reads buffer s, then one barrier
  const body = code.slice(loop);
  const order = [
    'x_fetch[lid(0) + 32] = x[48 * j_outer_pair + lid(0) + 32];',
    '* x_fetch[j_inner]',
    'x_fetch[lid(0)] = x[48 * j_outer_pair + lid(0) + 48];',
    '* x_fetch[j_inner + 16]',
    'x_fetch[lid(0) + 16] = x[48 * j_outer_pair + lid(0) + 64];',
    '* x_fetch[j_inner + 32]',
  ].map((s) => body.indexOf(s));
  assert.ok(
    order.every((at, k) => at > 0 && (k === 0 || at > order[k - 1])),
    body,
  );
  assert.is((body.match(/barrier\(/g) ?? []).length, 3, body);
});

test('CUDA: a pipeline of asynchronous copies commits a group a step and leaves the later steps in flight at each barrier', () => {
  const code = cudaCode(fixParameters(asyncCopies(pipelined(4), 'x_fetch'), { n: 32, k: 128 }));
  // three steps ahead: a barrier waits for all but the latest two groups
  assert.match(code, 'asm volatile("cp.async.commit_group;\\n" ::: "memory");');
  assert.match(code, 'asm volatile("cp.async.wait_group 2;\\n" ::: "memory");');
  assert.not.match(code, 'loom_copy_async_wait();');
  const waits = code.match(/loom_copy_async_wait_leaving_2\(\);\n\s*__syncthreads\(\)/g) ?? [];
  assert.is(waits.length, 5, code); // after the prologue, and once a step of the round of 4
  // a commit after each prologue step (inside its loop) and after each step's copy in the round
  const prologue = code.slice(code.indexOf('for (int j_outer_prologue'), code.indexOf('for (int j_outer_pair'));
  assert.match(prologue, /loom_copy_async_4\([^\n]*\);\n\s*loom_copy_async_commit\(\);\n\s*}/);
  const round = code.slice(code.indexOf('for (int j_outer_pair'));
  assert.is((round.match(/loom_copy_async_commit\(\);/g) ?? []).length, 4, round);
  // the commit follows the guarded copy, outside its condition: each step commits one group
  assert.match(round, /if \([^\n]*\)\n\s*loom_copy_async_4\([^\n]*\);\n\s*loom_copy_async_commit\(\);/);
});

test('CUDA: one step ahead, or copies outside the pipeline, wait for every copy at each barrier', () => {
  // two buffers: the next step is the one a barrier waits for, whatever the groups
  const two = cudaCode(
    fixParameters(asyncCopies(doubleBuffer(stagedMatvec(), 'x_fetch', 'j_outer'), 'x_fetch'), { n: 32, k: 64 }),
  );
  assert.match(two, 'loom_copy_async_wait();');
  assert.not.match(two, 'commit');
  // 3 buffers filled one step ahead: the same
  const oneAhead = cudaCode(fixParameters(asyncCopies(pipelined(3, 1), 'x_fetch'), { n: 32, k: 64 }));
  assert.match(oneAhead, 'loom_copy_async_wait();');
  assert.not.match(oneAhead, 'commit');
});

test('CUDA: the HGEMM and wgmma configurations of four buffers wait for two groups behind', () => {
  const staged = [
    ...HGEMM_CONFIGS.filter((c) => c.stages === 4).map((c) => hgemmKernel(256, c)),
    ...WGMMA_CONFIGS.filter((c) => c.stages === 4 && !c.ahead && c.asyncCopies).map((c) => wgmmaHgemmKernel(512, c)),
  ];
  assert.ok(staged.length >= 4);
  for (const knl of staged) {
    const code = cudaCode(knl);
    assert.match(code, 'cp.async.wait_group 2;');
    assert.not.match(code, 'loom_copy_async_wait();');
  }
});

test('the builder verb takes the same options', () => {
  const built = kernel('{ [i, j]: 0 <= i < n and 0 <= j < k }', 'y[i] = sum(j, m[i, j]*x[j])', { name: 'matvec' })
    .split('i', 16, { outer: 'g.0', inner: 'l.0' })
    .split('j', 16)
    .prefetch('x', ['j_inner'], { space: 'local' })
    .tag({ x_dim_0: 'l.0' })
    .doubleBuffer('x_fetch', 'j_outer', { stages: 3 })
    .dtypes({ m: 'float32', x: 'float32' }).kernel;
  assert.is(
    openclCode(fixParameters(built, { n: 32, k: 64 })),
    openclCode(fixParameters(pipelined(3), { n: 32, k: 64 })),
  );
});

test('what a pipeline cannot be is a LoomError saying why', () => {
  const refuses = (f: () => unknown, message: RegExp) =>
    assert.throws(f, (e: Error) => e instanceof LoomError && message.test(e.message));
  refuses(
    () => doubleBuffer(stagedMatvec(), 'x_fetch', 'j_outer', { stages: 1 }),
    /stages must be an integer of at least 2/,
  );
  refuses(() => doubleBuffer(stagedMatvec(), 'x_fetch', 'j_outer', { stages: 2.5 }), /stages must be an integer/);
  refuses(
    () => doubleBuffer(stagedMatvec(), 'x_fetch', 'j_outer', { stages: 3, ahead: 3 }),
    /ahead must be an integer from 1 to stages - 1 = 2/,
  );
  refuses(() => doubleBuffer(stagedMatvec(), 'x_fetch', 'j_outer', { stages: 3, ahead: 0 }), /ahead must be/);
  refuses(
    () => doubleBuffer(stagedMatvec(), 'x_fetch', 'j_outer', { prologueIname: 'p' }),
    /with one step ahead there is none/,
  );
  refuses(
    () => doubleBuffer(fixParameters(stagedMatvec(), { n: 32, k: 32 }), 'x_fetch', 'j_outer', { stages: 4 }),
    /runs at most 3 steps; there is no step 3 ahead/,
  );
  refuses(
    () => doubleBuffer(stagedMatvec(), 'x_fetch', 'j_outer', { stages: 3, prologueIname: 'j_outer' }),
    /already used/,
  );
  // matmulKernel's configuration: stages counts doubleBuffered's buffers
  const base = SMALL_TILING;
  assert.match(configProblem({ ...base, stages: 3 }) ?? '', 'needs doubleBuffered');
  assert.match(configProblem({ ...base, doubleBuffered: true, pipelined: true, stages: 3 }) ?? '', 'not pipelined');
});

test.run();
