/**
 * tensorize on Hopper's warpgroup matrix instructions (`wgmma`): 64-row tiles run by 128 work-items,
 * both factors read from local memory as 8 x 8 core matrices (examples/hgemm-wgmma.ts). Checked on
 * the CUDA C they become (descriptors with the offsets and transpose bits the probe
 * bench/wgmma/probe.cu settled, the fence before every barrier, the accumulator's registers stored
 * by each work-item), on HGEMM's values against plain JavaScript on every device that has the
 * instructions (refused, with the reason, by every other), and on what is refused before any code
 * runs: factors not in core matrices, factors in global memory, too few lanes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addPrefetch,
  fixParameters,
  float16Value,
  generateCode,
  joinInames,
  LoomError,
  run,
  splitIname,
  targetFacts,
  tensorize,
  type LoopKernel,
} from '@loom/core';
import { cudaTarget } from '@loom/codegen-cuda';
import { openclTarget } from '@loom/codegen-opencl';
import { hgemmEntry, plainHgemm } from '../examples/hgemm.ts';
import { inCoreMatrices, WGMMA_CONFIGS, WGMMA_DEFAULT, wgmmaHgemmKernel } from '../examples/hgemm-wgmma.ts';
import { testDevices } from './support/devices.ts';
import { halves } from './support/halves.ts';
import { runUnlessRefused } from './support/refusals.ts';

/** Every entry of c against a·b in float64 (exact products, float32 sums in the instructions' order). */
function checkProduct(c: Float32Array, a: Float32Array, b: Float32Array, n: number, what: string): void {
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      const { value, magnitude } = hgemmEntry(a, b, n, i, j);
      const got = c[i * n + j];
      if (!(Math.abs(got - value) <= 1e-6 * magnitude * Math.sqrt(n) + 1e-6))
        assert.unreachable(`${what}: c[${i}, ${j}] = ${got}, expected ${value}`);
    }
}

test('CUDA C: wgmma from descriptors of core matrices, a fence before every barrier, each work-item storing its registers', () => {
  const generated = generateCode(wgmmaHgemmKernel(512, WGMMA_DEFAULT), cudaTarget());
  const code = generated.code;
  assert.is(generated.extra.hopperOnly, true);
  // a's tile (k along its lines): 128 bytes to the next core matrix along k, 8 of them a row of 64 halves
  assert.match(code, 'loom_wgmma_descriptor(a_fetch + (128 * k_step), 128, 1024)');
  // b as Loom stores it (n along its lines): read transposed; along k a row of 16 core matrices on
  assert.match(code, 'loom_wgmma_descriptor(b_fetch + (2048 * k_step), 2048, 128)');
  assert.match(code, 'wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16');
  assert.match(code, 'p, 1, 1, 0, 1;');
  assert.match(code, 'float acc[1][64];');
  // the products of a step of k are left in flight, one group each, the next following them in order ...
  assert.match(
    code,
    /loom_wgmma_m64n128k16_f16_01\([^\n]*\n\s*asm volatile\("wgmma\.commit_group\.sync\.aligned;\\n" ::: "memory"\);\n\s*\}/,
  );
  // ... and waited for before every barrier (which lets the panels they read be overwritten) and the store
  const waits = code.match(/wgmma\.wait_group\.sync\.aligned 0;\\n" ::: "memory"\);\n\s*asm volatile\("fence/g) ?? [];
  assert.match(
    code,
    /\{\n\s*asm volatile\("wgmma\.wait_group\.sync\.aligned 0;\\n" ::: "memory"\);\n\s*int const loom_t/,
  );
  const barriers = code.split('\n').filter((line) => line.includes('__syncthreads()')).length;
  assert.is(waits.length, barriers);
  const fenced = code.match(/fence\.proxy\.async\.shared::cta;\\n" ::: "memory"\);\n\s*__syncthreads\(\)/g) ?? [];
  assert.ok(barriers > 0 && fenced.length === barriers, `${fenced.length} of ${barriers} barriers fenced`);
  assert.match(code, 'int const loom_row = 16 * (loom_t / 32) + loom_t % 32 / 4, loom_col = 2 * (loom_t % 4);');
  // two warpgroups, copies with cp.async: the copies are waited for, then fenced, at each barrier
  const copied = generateCode(wgmmaHgemmKernel(512, WGMMA_CONFIGS[5]!), cudaTarget()).code;
  assert.match(
    copied,
    /loom_copy_async_wait\(\);\n\s*asm volatile\("wgmma\.wait_group\.sync\.aligned 0;\\n" ::: "memory"\);\n\s*asm volatile\("fence\.proxy\.async/,
  );
  assert.match(copied, '__launch_bounds__(256)');
  // the WMMA tiles of examples/hgemm.ts compile for every GPU still
  assert.is(
    generateCode(tensorize(oneTile(), { m: 'i_inner', n: 'j_inner', k: 'k_inner' }), cudaTarget()).extra.hopperOnly,
    false,
  );
});

test("CUDA C: in a pipeline with a buffer to spare, a barrier leaves the latest step's products in flight", () => {
  // four buffers filled two steps ahead: what follows a step's barrier refills the buffer of the
  // step before it, so the step's own two runs of products (k by 32, 16 a run) may still run
  const spare = generateCode(
    wgmmaHgemmKernel(512, { warpgroups: 2, columns: 256, tileK: 32, stages: 4, ahead: 2, asyncCopies: true }),
    cudaTarget(),
  ).code;
  const loop = spare.slice(spare.indexOf('for (int k_outer_pair'));
  const inLoop =
    loop.match(/wgmma\.wait_group\.sync\.aligned (\d+);\\n" ::: "memory"\);\n\s*asm volatile\("fence\.proxy/g) ?? [];
  assert.is(inLoop.length, 4, loop);
  assert.ok(
    inLoop.every((w) => w.includes('aligned 2;')),
    loop,
  );
  // copies: the step read next has landed, the one after it may not have
  assert.match(loop, /loom_copy_async_wait_leaving_1\(\);\n\s*asm volatile\("wgmma\.wait_group\.sync\.aligned 2;/);
  // before the loop (after the prologue) and at the store, every product is waited for
  const before = spare.slice(0, spare.indexOf('for (int k_outer_pair'));
  assert.ok(!before.includes('aligned 2;'), before);
  assert.match(
    loop,
    /\{\n\s*asm volatile\("wgmma\.wait_group\.sync\.aligned 0;\\n" ::: "memory"\);\n\s*int const loom_t/,
  );
  // filled three steps ahead of four buffers: no buffer to spare, every barrier waits for every product
  const full = generateCode(
    wgmmaHgemmKernel(512, { warpgroups: 2, columns: 256, tileK: 32, stages: 4, asyncCopies: true }),
    cudaTarget(),
  ).code;
  assert.not.match(full, /wgmma\.wait_group\.sync\.aligned [1-9]/);
  assert.match(full, 'loom_copy_async_wait_leaving_2();');
});

test('CUDA C: steps of k in rounds of 3 buffers, the last round partial: its steps past the end guarded whole, the tile never cut', () => {
  // 4096 / 64 = 64 steps: the last round of 3 has one; a product tile runs for a whole step or not at all
  const code = generateCode(
    wgmmaHgemmKernel(4096, { warpgroups: 2, columns: 256, tileK: 64, stages: 3, asyncCopies: true }),
    cudaTarget(),
  ).code;
  const guards = code.split('\n').filter((line) => /^\s*if \(k_step <= /.test(line));
  assert.is(guards.length, 2, code);
  assert.ok(
    guards.every((g) => !g.includes('k_tile')),
    guards.join('\n'),
  );
  // (a cut through a tile is refused still: tensorize.test.ts, 'the domain cuts the tile')
});

test('CUDA C: each work-item stores its two neighbouring columns at once, rounded together into halves', () => {
  const config = { warpgroups: 2, columns: 256, tileK: 64, stages: 4, ahead: 2, bulkCopies: true, swizzled: true };
  // c starts at an even element of each tile and its rows are 4096 apart: a float2 a pair
  const floats = generateCode(wgmmaHgemmKernel(4096, config), cudaTarget()).code;
  assert.match(
    floats,
    '*(float2 *) &loom_c[(loom_row + 8 * loom_h) * 4096 + (8 * loom_j + loom_col)] = make_float2(acc[0][4 * loom_j + 2 * loom_h], acc[0][4 * loom_j + 2 * loom_h + 1]);',
  );
  assert.not.match(floats, 'loom_e < 4');
  const halves = generateCode(wgmmaHgemmKernel(4096, config, { output: 'float16' }), cudaTarget()).code;
  assert.match(halves, /\*\(__half2 \*\) &loom_c\[[^\]]*\] = __floats2half2_rn\(/);
  const bfloat16s = generateCode(
    wgmmaHgemmKernel(4096, config, { factors: 'bfloat16', output: 'bfloat16' }),
    cudaTarget(),
  ).code;
  assert.match(bfloat16s, /\*\(__nv_bfloat162 \*\) &loom_c\[[^\]]*\] = __floats2bfloat162_rn\(/);
});

/** HGEMM at 128 with one 16x16 tile a warp (WMMA), straight from global memory. */
function oneTile(): LoopKernel {
  let knl = fixParameters(plainHgemm(), { n: 128 });
  knl = splitIname(knl, 'i', 16, { outerTag: 'g.1' });
  knl = splitIname(knl, 'j', 16, { outerTag: 'g.0' });
  return splitIname(knl, 'k', 16);
}

/** HGEMM at 128, a 64 x 32 tile a work-group, its factors staged in local memory as `layout` leaves them. */
function stagedTile(layout: (knl: LoopKernel) => LoopKernel, prefetch = true): LoopKernel {
  let knl = fixParameters(plainHgemm(), { n: 128 });
  knl = splitIname(knl, 'i', 64, { outerTag: 'g.1' });
  knl = splitIname(knl, 'j', 32, { outerTag: 'g.0' });
  knl = splitIname(knl, 'k', 16);
  if (prefetch) {
    knl = addPrefetch(knl, 'a', ['i_inner', 'k_inner'], { temporaryAddressSpace: 'local' });
    knl = addPrefetch(knl, 'b', ['k_inner', 'j_inner'], { temporaryAddressSpace: 'local' });
    // each panel an element a work-item at a time, over the warpgroup's 128
    for (const f of ['a', 'b']) {
      knl = joinInames(knl, [`${f}_dim_0`, `${f}_dim_1`], `${f}_element`);
      knl = splitIname(knl, `${f}_element`, 128, { innerTag: 'l.0' });
    }
  }
  return tensorize(layout(knl), { m: 'i_inner', n: 'j_inner', k: 'k_inner' }, { lanes: 128 });
}

test('refused before any code runs: factors in lines, factors in global memory, a tile short of a warpgroup', () => {
  const refusal = (make: () => unknown): string => {
    try {
      make();
    } catch (e) {
      assert.ok(e instanceof LoomError, String(e));
      return (e as Error).message;
    }
    throw new Error('expected a LoomError');
  };
  // row-major panels: lines 32 bytes apart, no core matrices; the message says how to lay them out
  const lines = refusal(() =>
    generateCode(
      stagedTile((k) => k),
      cudaTarget(),
    ),
  );
  assert.match(lines, "the tile of 'a_fetch'");
  assert.match(lines, 'not laid out in core matrices');
  assert.match(lines, "splitArrayAxis(knl, 'a_fetch', 0, 8)");
  const global = refusal(() =>
    generateCode(
      stagedTile((k) => k, false),
      cudaTarget(),
    ),
  );
  assert.match(global, "'a' is an argument");
  assert.match(global, 'read their factors from local memory');
  // the core matrices laid out, all is well (and the CPU device reads the same layout)
  const laid = (k: LoopKernel) => inCoreMatrices(inCoreMatrices(k, 'a_fetch'), 'b_fetch');
  assert.match(generateCode(stagedTile(laid), cudaTarget()).code, 'loom_wgmma_m64n32k16_f16_01');
  // 32 lanes, a warp: the 64-row tile is no instruction of a warp
  const warp = refusal(() => generateCode(wgmmaHgemmKernel(256, WGMMA_DEFAULT, { lanes: 32 }), cudaTarget()));
  assert.match(warp, 'must be a multiple of 128, so that each matrix instruction runs in all 128 work-items');
  // OpenCL has no matrix instructions at all
  assert.match(
    refusal(() => generateCode(stagedTile(laid), openclTarget())),
    'cannot run on the opencl target',
  );
});

for (const device of testDevices()) {
  const support = targetFacts(device.target).matrixInstructions;
  const hasWarpgroups = !('refused' in support) && support.shapes.some((s) => s.factors === 'core-matrices');
  if (!hasWarpgroups) {
    test(`${device.name}: a warpgroup tile is refused with the reason`, async () => {
      const a = halves(128, 1);
      const refusal = await run(wgmmaHgemmKernel(128, { warpgroups: 1, columns: 32, tileK: 32 }), device, {
        a: a.bits,
        b: a.bits,
      }).then(
        () => undefined,
        (e: Error) => e,
      );
      assert.ok(refusal instanceof LoomError, `expected a LoomError, got ${refusal}`);
    });
    continue;
  }
  test(`${device.name}: HGEMM on warpgroup tiles computes the product`, async () => {
    // the CPU device computes each lane's copy of the tile: fewer lanes there, the same layouts
    const emulated = support.lanes === 1;
    const n = emulated ? 128 : 512;
    const a = halves(n, 11);
    const b = halves(n, 12);
    const configs = emulated
      ? [
          { warpgroups: 1, columns: 32, tileK: 32, doubleBuffered: true, asyncCopies: true },
          // two warpgroups on l.1, the block as tall as the matrix (its group loop takes one value)
          { warpgroups: 2, columns: 32, tileK: 32 },
          // three buffers filled a step ahead (a step's products in flight across its barrier on CUDA), 8
          // steps of k in rounds of 3 (the last round partial: its third step guarded whole),
          // each core matrix copied by 8 consecutive work-items
          { warpgroups: 1, columns: 32, tileK: 16, stages: 3, ahead: 1, asyncCopies: true, coreOrder: true },
          // panels swizzled over 64 bytes (lines of 32 halves), filled by bulk copies, in two buffers
          { warpgroups: 1, columns: 32, tileK: 32, stages: 2, bulkCopies: true, swizzled: true },
          // a's lines of 64 halves swizzled over 128 bytes, b's of 32 over 64
          { warpgroups: 2, columns: 32, tileK: 64, bulkCopies: true, swizzled: true },
        ]
      : WGMMA_CONFIGS;
    for (const config of configs) {
      const knl = wgmmaHgemmKernel(n, config, emulated ? { lanes: 8 } : {});
      // CUDA on a GPU other than Hopper refuses the instructions by name, before running
      const outcome = await runUnlessRefused(knl, device, { a: a.bits, b: b.bits }, 'compute capability 9.0');
      if (!outcome) continue;
      checkProduct(outcome.c as Float32Array, a.values, b.values, n, JSON.stringify(config));
    }
    // c in halves: each work-item's float32 sums rounded to nearest as they are stored (what torch.matmul of halves returns)
    const swizzled = emulated
      ? { warpgroups: 1, columns: 32, tileK: 32, stages: 2, bulkCopies: true, swizzled: true }
      : { warpgroups: 2, columns: 256, tileK: 64, stages: 4, ahead: 2, bulkCopies: true, swizzled: true };
    const half = await run(
      wgmmaHgemmKernel(n, swizzled, emulated ? { lanes: 8, output: 'float16' } : { output: 'float16' }),
      device,
      {
        a: a.bits,
        b: b.bits,
      },
    );
    const c = half.c as Uint16Array;
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        const { value, magnitude } = hgemmEntry(a.values, b.values, n, i, j);
        const got = float16Value(c[i * n + j]);
        if (!(Math.abs(got - value) <= 2 ** -11 * Math.abs(value) + 1e-6 * magnitude * Math.sqrt(n) + 2 ** -24))
          assert.unreachable(`c in halves: c[${i}, ${j}] = ${got}, expected ${value}`);
      }
  });
}

test.run();
