/**
 * `bulkCopies`: a local tile filled by one request a step (CUDA's tensor memory accelerator,
 * `cp.async.bulk.tensor`) instead of every work-item's element copies. Checked on the CUDA C (one
 * request a panel a step, on the group's barrier object; the tensor maps the device makes at
 * launch), on the products' values on every device that runs them (the CPU devices copy each
 * element at once; CUDA on Hopper makes the requests) and the refusal everywhere else, and on what
 * is refused before anything runs: a tile that is no box of the global array, a tile cut by a
 * condition, a target without bulk copies.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addPrefetch,
  asyncCopies,
  bulkCopies,
  doubleBuffer,
  generateCode,
  LoomError,
  makeKernel,
  parseInstructions,
  prioritizeLoops,
  stringifyKernel,
  run,
  setOptions,
  splitIname,
  tagArrayAxes,
  type LoopKernel,
} from '@loom/core';
import { cudaTarget } from '@loom/codegen-cuda';
import { openclTarget } from '@loom/codegen-opencl';
import { kernel } from '@loom/dsl';
import { wgmmaHgemmKernel } from '../examples/hgemm-wgmma.ts';
import { randomFloat32, testDevices } from './support/devices.ts';
import { refusal } from './support/refusals.ts';
import { expectSquareProduct, stagedProduct } from './support/staged-matvec.ts';

/**
 * c = a·b (n x n, float32) in 16 x 16 blocks of work-items, k staged 32 at a time: a's 16 x 32 and
 * b's 32 x 16 panels filled by bulk copies, in `stages` buffers (1: one, filled and read each step).
 */
function bulkProduct(n: number, stages = 1, options: { transposed?: boolean } = {}): LoopKernel {
  let knl = stagedProduct(n);
  // a's panel stored column by column: no box of a's rows
  if (options.transposed) knl = tagArrayAxes(knl, 'a_fetch', 'N0,N1');
  if (stages > 1) knl = doubleBuffer(knl, ['a_fetch', 'b_fetch'], 'k_outer', { stages });
  return bulkCopies(knl, ['a_fetch', 'b_fetch']);
}

test('CUDA C: each panel one request a step on the group barrier, the tensor maps made at launch', () => {
  // the barriers of the work-group kept (the kernel option; by default they are arrivals, below)
  const generated = generateCode(setOptions(bulkProduct(256), { bulkRelease: 'barriers' }), cudaTarget());
  const code = generated.code;
  // two requests a step (a's 16 x 32 floats, b's 32 x 16), each a box of two axes, then the group closed
  const requests =
    code.match(/loom_bulk_copy_2d\(&loom_map_\d, [ab]_fetch \+ \(0\), loom_bulk_barriers, [^;]*;/g) ?? [];
  assert.is(requests.length, 2, code);
  assert.match(requests.join('\n'), ', 2048u, loom_bulk_issuer);');
  // one group before each barrier, waited for whole: nothing is in flight across a barrier
  assert.match(
    code,
    /loom_bulk_commit\(loom_bulk_barriers, loom_bulk_committed, 1u, loom_bulk_issuer\);\n\s*loom_bulk_wait\(loom_bulk_barriers, loom_bulk_waited, loom_bulk_committed, 0u, 1u\);\n\s*__syncthreads\(\)/,
  );
  assert.match(code, 'cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes');
  assert.match(
    code,
    'const __grid_constant__ loom_tensor_map loom_map_0, const __grid_constant__ loom_tensor_map loom_map_1)',
  );
  assert.match(code, '__shared__ __align__(128) float a_fetch[512];');
  assert.not.match(code, 'cp.async.ca');
  // the maps: a's rows of 32 contiguous floats, 16 of them 256 apart (the last axis's extent from the buffer)
  const maps = generated.extra.tensorMaps[generated.kernels[0].entryPoint];
  const a = maps.find((m) => m.param === generated.kernels[0].parameters.findIndex((p) => p.name === 'a'))!;
  assert.equal(a.axes, [
    { stride: 1, box: 32, extent: 256 },
    { stride: 256, box: 16, extent: undefined },
  ]);
  assert.is(a.elementBytes, 4);
});

test('CUDA C: in a pipeline of three buffers each step is a group, two left in flight at each barrier', () => {
  const code = generateCode(bulkProduct(256, 3), cudaTarget()).code;
  assert.match(code, '__shared__ __align__(8) unsigned long long loom_bulk_barriers[2];');
  assert.match(
    code,
    /loom_bulk_wait\(loom_bulk_barriers, loom_bulk_waited, loom_bulk_committed, 1u, 2u\);\n\s*__syncthreads\(\)/,
  );
  // the last steps' requests are guarded whole by the step, the box never cut
  assert.match(code, /if \(k_outer_pair <= 1\)\n\s*\{\n\s*loom_bulk_copy_2d\(&loom_map_0, b_fetch \+ \(1024\)/);
  // a block does not leave while its requests still write its memory
  assert.match(code, /loom_bulk_wait\(loom_bulk_barriers, loom_bulk_waited, loom_bulk_committed, 0u, 2u\);\n\}/);
});

test('CUDA C: where the barriers order nothing but the refills, each is an arrival and the requests wait for it', () => {
  // asked for (by default the work-group's barriers stay, but in a warp-specialised kernel)
  const code = generateCode(setOptions(bulkProduct(256, 3), { bulkRelease: 'arrivals' }), cudaTarget()).code;
  assert.not.match(generateCode(bulkProduct(256, 3), cudaTarget()).code, 'loom_bulk_release');
  // two barrier objects, each expecting the block's 256 threads
  assert.match(code, '__shared__ __align__(8) unsigned long long loom_bulk_releases[2];');
  assert.match(code, 'loom_bulk_release_setup(loom_bulk_releases, 256u);');
  // no barrier of the block after the set-up: every barrier of the steps is an arrival
  const body = code.slice(code.indexOf('loom_bulk_release_setup(loom_bulk_releases'));
  assert.not.match(body, '__syncthreads()');
  assert.match(body, /loom_bulk_release\(loom_bulk_releases, loom_bulk_released\); \/\* for [ab]_fetch/);
  // a run of requests waits once for the latest release, right before the first; so does a commit after others
  const before = [...body.matchAll(/([^\n]*)\n[^\n]*loom_bulk_copy_2d\(&loom_map_0/g)].map((m) => m[1].trim());
  assert.equal(
    before,
    [...before].fill(
      'loom_bulk_acquire(loom_bulk_releases, loom_bulk_released, loom_bulk_acquired, loom_bulk_issuer);',
    ),
  );
  assert.ok(before.length >= 3);
  assert.not.match(body, /loom_bulk_copy_2d\(&loom_map_0[^\n]*\n\s*loom_bulk_acquire/);
  assert.match(body, /\}\n\s*loom_bulk_acquire\([^;]*\); loom_bulk_commit\(/);
  // the issuing thread (the first) waits for everyone's arrival; a thread arrives once the release before the last is complete
  assert.match(code, 'bool const loom_bulk_issuer = tIdx(x) == 0 && tIdx(y) == 0 && tIdx(z) == 0;');
  assert.match(code, /void loom_bulk_acquire\([\s\S]*if \(issuer && acquired < released\)/);
  assert.match(code, /void loom_bulk_release\([\s\S]*\(released - 2\) \/ 2 % 2[\s\S]*mbarrier.arrive.shared::cta.b64/);
});

test('CUDA C: warp-specialised, a row of its own makes the requests and the others only wait and compute', () => {
  const generated = generateCode(setOptions(bulkProduct(256, 3), { warpSpecialized: true }), cudaTarget());
  const code = generated.code;
  // the 16 x 16 work-items and a 17th row of 16: launched so, its first work-item the producer
  assert.equal(generated.extra.launchedBlocks, { staged_product: [16, 17] });
  assert.match(code, '__launch_bounds__(272)');
  assert.match(code, 'bool const loom_bulk_issuer = tIdx(y) == 16;');
  assert.match(code, /if \(tIdx\(y\) == 16\)\n\s*\{\n\s*if \(tIdx\(x\) == 0 && tIdx\(z\) == 0\)/);
  // every release counts the producer's arrival too
  assert.match(code, 'loom_bulk_release_setup(loom_bulk_releases, 257u);');
  const [producer, consumers] = code.slice(code.indexOf('if (tIdx(y) == 16)')).split('return;');
  // the producer: requests after the latest release, commits, arrivals; no wait, no product
  assert.match(producer, 'loom_bulk_copy_2d(&loom_map_0');
  assert.match(producer, 'loom_bulk_release(loom_bulk_releases, loom_bulk_released);');
  assert.not.match(producer, 'loom_bulk_wait');
  assert.not.match(producer, 'acc_k_outer_pair_k_outer_parity_k_inner =');
  // the consumers: no request, no wait for a release, but every group counted as the producer closes it
  assert.not.match(consumers, 'loom_bulk_copy');
  assert.not.match(consumers, 'loom_bulk_acquire');
  const commits = (text: string) => text.match(/loom_bulk_commit\(/g)?.length;
  assert.is(commits(consumers), commits(producer));
  assert.match(
    consumers,
    /for \(int k_outer_prologue = 0; k_outer_prologue <= 1; \+\+k_outer_prologue\)\n\s*\{\n\s*loom_bulk_commit\(/,
  );
  assert.match(consumers, 'loom_bulk_wait(loom_bulk_barriers, loom_bulk_waited, loom_bulk_committed, 1u, 2u);');
  // where barriers close the groups, the producer closes the last as it leaves: the consumers' last wait is for it
  const closing = generateCode(setOptions(bulkProduct(256), { warpSpecialized: true }), cudaTarget()).code;
  const [leaving, staying] = closing.slice(closing.indexOf('if (tIdx(y) == 16)')).split('return;');
  assert.match(leaving, /loom_bulk_commit\([^;]*\);\n\s*\}\n\s*$/);
  assert.match(staying, /loom_bulk_commit\([^;]*\);\n\s*loom_bulk_wait\([^;]*0u, 1u\);\n\}/);
  assert.is(commits(leaving), commits(staying));
  // what cannot be specialised is refused, saying why
  assert.match(
    refusal(() =>
      generateCode(setOptions(bulkProduct(256, 3), { warpSpecialized: true, bulkRelease: 'barriers' }), cudaTarget()),
    ),
    "kernel 'staged_product' is warpSpecialized, but its barriers are the work-group's (bulkRelease 'barriers')",
  );
  let mixed = asyncCopies(stagedProduct(256), 'a_fetch');
  mixed = setOptions(bulkCopies(mixed, 'b_fetch'), { warpSpecialized: true });
  assert.match(
    refusal(() => generateCode(mixed, cudaTarget())),
    "kernel 'staged_product' is warpSpecialized, but its local array 'a_fetch' is no bulk tile",
  );
  assert.match(
    refusal(() => setOptions(mixed, { warpSpecialized: 1 as unknown as boolean })),
    'setOptions: warpSpecialized must be true or false, got 1',
  );
});

test('arrivals where a barrier orders more than the refills are refused when asked for, and not taken by default', () => {
  // a's panel filled by every work-item's asynchronous copies, b's by a request: a barrier orders a's writes
  let mixed = stagedProduct(256);
  mixed = asyncCopies(mixed, 'a_fetch');
  mixed = bulkCopies(mixed, 'b_fetch');
  assert.match(
    refusal(() => generateCode(setOptions(mixed, { bulkRelease: 'arrivals' }), cudaTarget())),
    "kernel 'staged_product' asks for bulkRelease 'arrivals', but its local array 'a_fetch' is no bulk tile, which only a barrier of the work-group orders",
  );
  const code = generateCode(mixed, cudaTarget()).code;
  assert.not.match(code, 'loom_bulk_release');
  assert.match(code, /loom_bulk_wait\([^;]*\);\n\s*__syncthreads\(\)/);
  // the option's values are checked where it is set
  assert.match(
    refusal(() => setOptions(mixed, { bulkRelease: 'arrive' as 'arrivals' })),
    `setOptions: bulkRelease must be 'auto', 'arrivals' or 'barriers', got "arrive"`,
  );
});

test('CUDA C: the wgmma HGEMM panels in core matrices are boxes of four axes, one request each a step', () => {
  const generated = generateCode(
    wgmmaHgemmKernel(512, { warpgroups: 2, columns: 256, tileK: 32, stages: 4, bulkCopies: true }),
    cudaTarget(),
  );
  const maps = Object.values(generated.extra.tensorMaps)[0];
  // a line of 8 halves, the 8 lines of a core matrix a row apart, the core matrices along k, then down m
  assert.equal(
    maps.map((m) => m.axes.map((a) => [a.stride, a.box])),
    [
      [
        [1, 8],
        [512, 8],
        [8, 32],
        [4096, 4],
      ],
      [
        [1, 8],
        [512, 8],
        [8, 4],
        [4096, 16],
      ],
    ],
  );
  assert.match(generated.code, 'loom_bulk_copy_4d(&loom_map_1, a_fetch + (12288)');
  assert.not.match(generated.code, 'loom_copy_async');
});

test('CUDA C: swizzled panels are requested swizzled and read through swizzled descriptors', () => {
  const generated = generateCode(
    wgmmaHgemmKernel(4096, { warpgroups: 2, columns: 256, tileK: 64, stages: 4, bulkCopies: true, swizzled: true }),
    cudaTarget(),
  );
  const code = generated.code;
  const entry = generated.kernels[0].entryPoint;
  // a: rows of 64 halves, 128 bytes each; b: rows of 64 columns in 4 blocks of 64 rows of k (8192 bytes apart)
  assert.match(code, 'loom_wgmma_descriptor_swizzled(a_fetch + (4096 * tIdx(y) + 16 * k_step), 16, 1024, 1)');
  assert.match(code, 'loom_wgmma_descriptor_swizzled(b_fetch + (1024 * k_step), 8192, 1024, 1)');
  // the arrays start where the swizzle repeats: 1024 bytes
  assert.match(code, 'extern __shared__ __align__(1024) unsigned char loom_dynamic_shared[];');
  assert.is(generated.extra.sharedAlignment[entry], 1024);
  const maps = generated.extra.tensorMaps[entry];
  assert.equal(
    maps.map((m) => [m.swizzle, m.axes.map((a) => [a.stride, a.box])]),
    [
      [
        128,
        [
          [1, 64],
          [4096, 64],
          [64, 4],
        ],
      ],
      [
        128,
        [
          [1, 64],
          [4096, 128],
        ],
      ],
    ],
  );
  // lines of 32 halves: swizzled over 64 bytes, 8 lines 512 bytes apart
  const narrow = generateCode(
    wgmmaHgemmKernel(256, { warpgroups: 1, columns: 32, tileK: 32, bulkCopies: true, swizzled: true }),
    cudaTarget(),
  ).code;
  assert.match(narrow, 'loom_wgmma_descriptor_swizzled(a_fetch + (16 * k_step), 16, 512, 2)');
});

test('what no request can copy is refused before anything runs, saying why', () => {
  // a panel stored column by column: consecutive elements of the tile are a row of a apart
  assert.match(
    refusal(() => generateCode(bulkProduct(256, 1, { transposed: true }), cudaTarget())),
    "the bulk copies into 'a_fetch': the tile is a box of 16 elements 256 apart, 32 elements 1 apart, but its first axis is not contiguous",
  );
  // OpenCL issues no asynchronous copies, let alone bulk ones
  assert.match(
    refusal(() => generateCode(bulkProduct(256), openclTarget())),
    'cannot issue',
  );
  // a tile cut at the matrix's edge (n known at launch): its last rows are no box
  let open = makeKernel('{ [i, j]: 0 <= i < n and 0 <= j < 32 }', 'y[i] = sum(j, m[i, j]*x[j])');
  open = addDtypes(open, { m: 'float32', x: 'float32' });
  open = splitIname(open, 'i', 32, { outerTag: 'g.0', innerTag: 'l.0' });
  open = addPrefetch(open, 'm', ['i_inner', 'j'], { temporaryAddressSpace: 'local', fetchOuterInames: ['i_outer'] });
  open = splitIname(open, 'm_dim_1', 32, { innerTag: 'l.0' });
  open = prioritizeLoops(bulkCopies(open, 'm_fetch'), 'm_dim_0,m_dim_1_outer');
  assert.match(
    refusal(() => generateCode(open, cudaTarget())),
    "the bulk copies into 'm_fetch': the loop 'm_dim_0' of the tile has bounds that change",
  );
  // bulkCopies checks what asyncCopies checks
  assert.match(
    refusal(() => bulkCopies(bulkProduct(64), 'c')),
    "bulkCopies: 'c' is an argument, not a temporary",
  );
});

test('a bulk copy is written `bulk` and read back so; the builder verb makes the same kernel', () => {
  const knl = bulkProduct(64);
  assert.match(stringifyKernel(knl), 'bulk');
  const [parsed] = parseInstructions('t[i] = g[i] {bulk}').instructions;
  assert.ok(parsed.asyncCopy && parsed.bulkCopy);
  const built = kernel('{ [i]: 0 <= i < 64 }', 'y[i] = 2*x[i]')
    .dtypes({ x: 'float32' })
    .split('i', 32, { outer: 'g.0', inner: 'l.0' })
    .prefetch('x', ['i_inner'], { space: 'local', fetchOuterInames: ['i_outer'] })
    .tag({ x_dim_0: 'l.0' })
    .bulkCopies('x_fetch').kernel;
  assert.ok(built.instructions.some((i) => i.bulkCopy && i.asyncCopy));
  assert.match(generateCode(built, cudaTarget()).code, 'loom_bulk_copy_1d(&loom_map_0, x_fetch + (0), ');
});

for (const device of testDevices()) {
  test(`${device.name}: products whose panels are filled by bulk copies`, async () => {
    const n = 128;
    const a = randomFloat32(n * n, 21).map((x) => x - 0.5);
    const b = randomFloat32(n * n, 22).map((x) => x - 0.5);
    for (const [stages, release, warpSpecialized] of [
      [1, 'auto', false],
      [2, 'auto', false],
      [3, 'auto', false],
      [3, 'barriers', false],
      [1, 'auto', true],
      [3, 'auto', true],
    ] as const) {
      const knl = setOptions(bulkProduct(n, stages), { bulkRelease: release, warpSpecialized });
      const outcome = await run(knl, device, { a, b }).then(
        (r) => r,
        (e: Error) => e,
      );
      if (outcome instanceof Error) {
        // a target without asynchronous copies, or a GPU without the tensor memory accelerator: refused
        // by name before anything runs (any other failure, a tensor map the driver refuses, fails the test)
        assert.ok(outcome instanceof LoomError, String(outcome));
        assert.match(outcome.message, /cannot issue|compute capability 9\.0/);
        continue;
      }
      const how = `${stages} buffers, release ${release}${warpSpecialized ? ', warp-specialised' : ''}`;
      expectSquareProduct(outcome.c as Float32Array, a, b, n, how);
    }
  });
}

test.run();
