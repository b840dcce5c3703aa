/**
 * WGSL declares a fixed-size local array in rows where every access of the program splits into a
 * row and a column proven within the row (packages/codegen-wgsl/src/array-rows.ts): SGEMM's panels
 * are read at a constant row and a column shared by the unrolled loop, so Dawn clamps no index per
 * access; arrays whose accesses do not split stay flat; and the kernels compute on WebGPU (lavapipe
 * here) what plain JavaScript computes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addPaddingToAvoidBankConflicts,
  addPrefetch,
  expr as E,
  generateCode,
  makeKernel,
  run,
  saveAndReloadTemporaries,
  setTemporaryAddressSpace,
  splitIname,
  tagInames,
  type Device,
  type KernelFunction,
  type LoopKernel,
  type Stmt,
} from '@loom/core';
import { DEFAULT_MATMUL, FLOAT4_SGEMM } from '@loom/computation';
import { generateWgsl, wgslTarget } from '@loom/codegen-wgsl';
import { matmulError, matmulKernel, referenceMatmul, type MatmulConfig } from '../examples/matmul.ts';
import { webgpuDeviceOrSkip } from './support/backends.ts';
import { randomFloat32, testDevices } from './support/devices.ts';
import { FeatureSet, limitsOf, planCase, type CaseResult } from './support/differential/index.ts';
import { EXCLUDED, sample } from './support/differential/sample.ts';

const device = await webgpuDeviceOrSkip();

/** The SGEMM measured on the H200: matrixMul's float4 default (128 x 128 tiles, a k-major, pipelined) with warps of 4 x 8. */
const SGEMM: MatmulConfig = { ...FLOAT4_SGEMM, subgroupShape: { rows: 4, columns: 8 } };

const wgsl = (knl: LoopKernel, limits = {}) => generateCode(knl, wgslTarget({ limits })).code;
const sgemm = (config: MatmulConfig, n: number) => addDtypes(matmulKernel(config, n), { a: 'float32', b: 'float32' });

/** Every access of `array` in `code`: the text from its name to the end of its subscripts. */
const accesses = (code: string, array: string) => [...code.matchAll(new RegExp(`\\b${array}((\\[[^\\]]*\\])+)`, 'g'))];

test('SGEMM: both float4 panels in rows of 32 vectors, the unrolled loop reading a constant row at a column it shares', () => {
  const code = wgsl(sgemm(SGEMM, 256), { maxComputeWorkgroupStorageSize: 65536 });
  assert.match(code, 'var<workgroup> a_fetch: array<array<vec4<f32>, 32>, 32>;');
  assert.match(code, 'var<workgroup> b_fetch: array<array<vec4<f32>, 32>, 32>;');
  // a_fetch[X + 48] and b_fetch[Y + 32] when flat: row 1 of each, at the columns X + 16 and Y that every row shares
  assert.match(
    code,
    'acc_k_outer_k_inner[8i] = fma(vec4<f32>(a_fetch[1i][4i * (local_id.y / 2i) + local_id.x / 8i + 16i].x), b_fetch[1i][8i * (local_id.y % 2i) + local_id.x % 8i], acc_k_outer_k_inner[8i]);',
  );
  // the panels' stores: a row per work-item and lane of the loaded vector, the column the work-item's own
  assert.match(code, 'a_fetch[4i * local_id.y + 1i][local_id.x].x = a_vec[0i].y;');
  assert.match(code, 'b_fetch[local_id.y + 8i][local_id.x] = b_vec[0i];');
  // no flat access is left: each is a row and a column (and maybe a lane)
  for (const array of ['a_fetch', 'b_fetch']) {
    const found = accesses(code, array);
    assert.ok(found.length > 500, `${array}: ${found.length} accesses`);
    for (const [access, subscripts] of found)
      assert.is((subscripts.match(/\]\[/g) ?? []).length >= 1, true, `${access} is flat`);
    // the inner loop's reads all use one of two columns (X and X + 16): constant rows
    const columns = new Set(found.filter(([a]) => /\[\d+i\]\[/.test(a)).map(([a]) => a.split('][')[1]));
    assert.is(columns.size, 2, [...columns].join(' | '));
  }
});

test('a tiled matmul whose k loop is not unrolled stays flat: in rows it would clamp as often', () => {
  let knl = makeKernel('{ [i, j, k]: 0 <= i, j, k < n }', 'c[i, j] = sum(k, a[i, k] * b[k, j])');
  knl = addDtypes(knl, { a: 'float32', b: 'float32' });
  knl = splitIname(knl, 'i', 16, { outerTag: 'g.1', innerTag: 'l.1' });
  knl = splitIname(knl, 'j', 16, { outerTag: 'g.0', innerTag: 'l.0' });
  knl = splitIname(knl, 'k', 16);
  knl = addPrefetch(knl, 'a', ['i_inner', 'k_inner'], { temporaryAddressSpace: 'local', defaultTag: 'l.auto' });
  knl = addPrefetch(knl, 'b', ['k_inner', 'j_inner'], { temporaryAddressSpace: 'local', defaultTag: 'l.auto' });
  const code = wgsl(knl);
  // a_fetch[local_id.y][k_inner] clamps k_inner every iteration, as a_fetch[16*local_id.y + k_inner] clamps its index
  assert.match(code, 'var<workgroup> a_fetch: array<f32, 256>;');
  assert.match(code, 'var<workgroup> b_fetch: array<f32, 256>;');
  assert.match(code, 'a_fetch[16i * local_id.y + k_inner] * b_fetch[16i * k_inner + local_id.x]');
});

test("matrixMul's default tiling (k not unrolled, 4 x 4 a work-item): a's constant rows, b's row the loop's and its columns invariant", () => {
  const code = wgsl(sgemm(DEFAULT_MATMUL, 128));
  // flat, each of the 4 rows of a a work-item reads and the 4 columns of b it reads were a clamp an iteration
  assert.match(code, 'var<workgroup> a_fetch: array<array<f32, 256>, 4>;');
  assert.match(code, 'var<workgroup> b_fetch: array<array<f32, 64>, 16>;');
  assert.match(code, 'fma(a_fetch[1i][16i * local_id.y + k_inner], b_fetch[k_inner][local_id.x + 16i]');
});

/** A tile of 32 written by 16 work-items (`tile[j]`, `tile[j + 16]`), then read at `read`. */
function tileOf16(read: string): LoopKernel {
  let knl = makeKernel(
    '{ [i, j]: 0 <= i < n and 0 <= j < 16 }',
    `<> tile[j] = a[32*i + j] {id=fill0}
     tile[j + 16] = a[32*i + j + 16] {id=fill1}
     out[16*i + j] = ${read} {dep=fill*}`,
  );
  knl = addDtypes(knl, read.includes('idx') ? { a: 'float32', idx: 'int32' } : { a: 'float32' });
  knl = tagInames(knl, { i: 'g.0', j: 'l.0' });
  return setTemporaryAddressSpace(knl, 'tile', 'local');
}

test('rows where every access splits: a constant row each, the work-item the column', () => {
  const code = wgsl(tileOf16('tile[j] + tile[j + 16]'));
  assert.match(code, 'var<workgroup> tile: array<array<f32, 16>, 2>;');
  assert.match(code, 'tile[0i][local_id.x] = ');
  assert.match(code, 'tile[1i][local_id.x] = ');
  assert.match(code, '= tile[0i][local_id.x] + tile[1i][local_id.x];');
});

test('flat where an access does not split: a column that may leave its row, an index read from data', () => {
  // j + 1 is in [1, 16]: no row of 16 holds it, and a row of 32 is the whole tile
  const past = wgsl(tileOf16('tile[j + 1]'));
  assert.match(past, 'var<workgroup> tile: array<f32, 32>;');
  assert.match(past, 'tile[local_id.x + 1i]');
  // an index from an array: its range is not known
  const gathered = wgsl(tileOf16('tile[idx[16*i + j] % 32]'));
  assert.match(gathered, 'var<workgroup> tile: array<f32, 32>;');
  assert.match(gathered, 'tile[local_id.x + 16i] = ');
});

test('flat for an array updated atomically', () => {
  let knl = makeKernel(
    '{ [i, j]: 0 <= i < n and 0 <= j < 16 }',
    `<> counts[j] = 0 {id=zero}
     counts[j + 16] = 0 {id=zero1}
     counts[j + 16] = counts[j + 16] + 1 {atomic, dep=zero*, id=add}
     out[16*i + j] = counts[j] {dep=add}`,
  );
  knl = tagInames(knl, { i: 'g.0', j: 'l.0' });
  knl = setTemporaryAddressSpace(knl, 'counts', 'local');
  const code = wgsl(addDtypes(knl, { counts: 'int32' }));
  assert.match(code, 'var<workgroup> counts: array<atomic<i32>, 32>;');
  assert.match(code, 'atomicAdd(&counts[local_id.x + 16i], 1i);');
});

/** test_save_local_multidim_array (loopy): t_local written by one kernel and read, across a global barrier, by the next. */
function savedLocal(): LoopKernel {
  const knl = makeKernel(
    '{ [i,j,k]: 0<=i<2 and 0<=k<3 and 0<=j<2}',
    `for i, j, k
       ... gbarrier
       <> t_local[k,j] = 1
       ... gbarrier
       out[k,i*2+j] = t_local[k,j]
     end`,
    undefined,
    { seqDependencies: true },
  );
  return saveAndReloadTemporaries(tagInames(setTemporaryAddressSpace(knl, 't_local', 'local'), { j: 'l.0', i: 'g.0' }));
}

test('a local temporary two kernels share (saved and reloaded across a global barrier): one declaration for both', () => {
  const code = wgsl(savedLocal());
  assert.is(code.match(/var<workgroup> t_local\b/g)?.length, 1, code);
  // k is the host's loop around the kernels (a value each launch), its reload a loop: rows would clamp as often
  assert.match(code, 'var<workgroup> t_local: array<i32, 6>;');
  assert.is(code.match(/fn loopy_kernel/g)?.length, 2);
});

/** A device kernel of `localSize` work-items running `body`, with `t` (32 floats) in local memory. */
function deviceKernel(name: string, localSize: number, body: Stmt[]): KernelFunction {
  return {
    name,
    params: [
      { name: 'a', dtype: 'float32', kind: 'global', written: false },
      { name: 'out', dtype: 'float32', kind: 'global', written: true },
    ],
    body: {
      kind: 'block',
      body: [{ kind: 'declare', name: 't', dtype: 'float32', addressSpace: 'local', length: 32 }, ...body],
    },
    localSize: [E.int(localSize)],
    groupCount: [E.int(1)],
    types: new Map([
      ['a', 'float32'],
      ['out', 'float32'],
      ['t', 'float32'],
    ]),
  };
}

const assign = (target: E.Expr, value: E.Expr, insnId: string): Stmt => ({
  kind: 'assign',
  target,
  value,
  dtype: 'float32',
  atomic: false,
  insnId,
});

test('kernels sharing a workgroup array: in rows where the accesses of every kernel split, proven in each kernel with its own work-group size, else flat', () => {
  const lid = E.call('lid', [E.int(0)]);
  const plus16 = E.binary('+', lid, E.int(16));
  // 16 work-items fill t[lid] and t[lid + 16]: rows of 16 hold both
  const fill = deviceKernel('fill', 16, [
    assign(E.subscript('t', [lid]), E.subscript('a', [lid]), 'fill0'),
    assign(E.subscript('t', [plus16]), E.subscript('a', [plus16]), 'fill1'),
  ]);
  // 32 work-items read t[lid]: the same index, which no row of 16 holds
  const read = deviceKernel('read', 32, [assign(E.subscript('out', [lid]), E.subscript('t', [lid]), 'read')]);
  assert.match(generateWgsl({ kernels: [fill] }).code, 'var<workgroup> t: array<array<f32, 16>, 2>;');
  // 16 work-items read both halves: one declaration in rows serves both kernels
  const sum = E.binary('+', E.subscript('t', [lid]), E.subscript('t', [plus16]));
  const readBoth = deviceKernel('read_both', 16, [assign(E.subscript('out', [lid]), sum, 'read')]);
  const both = generateWgsl({ kernels: [fill, readBoth] }).code;
  assert.is(both.match(/var<workgroup> t\b/g)?.length, 1, both);
  assert.match(both, 'var<workgroup> t: array<array<f32, 16>, 2>;');
  assert.match(both, 'out[local_id.x] = t[0i][local_id.x] + t[1i][local_id.x];');
  for (const kernels of [
    [read, fill],
    [fill, read],
  ]) {
    const code = generateWgsl({ kernels }).code;
    assert.match(code, 'var<workgroup> t: array<f32, 32>;');
    assert.match(code, 'out[local_id.x] = t[local_id.x];');
  }
});

/** A tiled transpose through local memory: 32 x 32 tiles, 32 x 8 work-items, rows padded to 33 words where asked. */
function tiledTranspose(padded: boolean): LoopKernel {
  let knl = makeKernel('{ [i, j]: 0 <= i < n and 0 <= j < n }', 'out[j, i] = a[i, j]');
  knl = addDtypes(knl, { a: 'float32' });
  knl = splitIname(knl, 'i', 32, { outerTag: 'g.0' });
  knl = splitIname(knl, 'j', 32, { outerTag: 'g.1' });
  knl = splitIname(knl, 'i_inner', 8, { innerTag: 'l.1' });
  knl = tagInames(knl, { j_inner: 'l.0' });
  knl = addPrefetch(knl, 'a', ['i_inner_outer', 'i_inner_inner', 'j_inner'], {
    temporaryAddressSpace: 'local',
    defaultTag: 'l.auto',
  });
  return padded ? addPaddingToAvoidBankConflicts(knl) : knl;
}

test('tiled transposes stay flat: their fetch rounds and reads are loops, which rows would clamp as often; padded to 33 words a row (1055 elements) no divisor splits', () => {
  const plain = wgsl(tiledTranspose(false));
  assert.match(plain, 'var<workgroup> a_fetch: array<f32, 1024>;');
  const padded = wgsl(tiledTranspose(true));
  assert.match(padded, 'var<workgroup> a_fetch: array<f32, 1055>;');
});

if (device) {
  test(`${device.name}: SGEMM's configuration with 16 steps of k a panel (in rows of 16 vectors) computes a*b`, async () => {
    const config = { ...SGEMM, tileK: 16 };
    const n = 256;
    assert.match(wgsl(sgemm(config, n)), 'var<workgroup> a_fetch: array<array<vec4<f32>, 32>, 16>;');
    const a = randomFloat32(n * n, 11).map((x) => x - 0.5);
    const b = randomFloat32(n * n, 12).map((x) => x - 0.5);
    const { c } = await run(sgemm(config, n), device, { a, b });
    const error = matmulError(c as Float32Array, referenceMatmul(a, b, n), n);
    assert.ok(error < 1e-6, `error ${error}`);
  });

  test(`${device.name}: matrixMul's default tiling (rows in a loop that is not unrolled) computes a*b`, async () => {
    const n = 128;
    const a = randomFloat32(n * n, 21).map((x) => x - 0.5);
    const b = randomFloat32(n * n, 22).map((x) => x - 0.5);
    const { c } = await run(sgemm(DEFAULT_MATMUL, n), device, { a, b });
    const error = matmulError(c as Float32Array, referenceMatmul(a, b, n), n);
    assert.ok(error < 1e-6, `error ${error}`);
  });

  test(`${device.name}: the tiled transposes, unpadded and padded, at sizes that are and are not multiples of the tile`, async () => {
    for (const padded of [false, true])
      for (const n of [32, 70, 96]) {
        const a = randomFloat32(n * n, n);
        const { out } = await run(tiledTranspose(padded), device, { a, n });
        const expected = Float32Array.from({ length: n * n }, (_, k) => a[(k % n) * n + Math.floor(k / n)]);
        assert.equal(Array.from(out as Float32Array), Array.from(expected), `padded ${padded}, n = ${n}`);
      }
  });

  test(`${device.name}: the tiles of 16 work-items, in rows and flat`, async () => {
    const n = 5;
    const a = randomFloat32(32 * n, 13);
    const idx = Int32Array.from({ length: 16 * n }, (_, k) => (k * 7 + 3) % 32);
    const cases: [string, (i: number, j: number) => number][] = [
      ['tile[j] + tile[j + 16]', (i, j) => Math.fround(a[32 * i + j] + a[32 * i + j + 16])],
      ['tile[j + 1]', (i, j) => a[32 * i + j + 1]],
      ['tile[idx[16*i + j] % 32]', (i, j) => a[32 * i + idx[16 * i + j]]],
    ];
    for (const [read, expected] of cases) {
      const { out } = await run(tileOf16(read), device, read.includes('idx') ? { a, idx, n } : { a, n });
      const want = Array.from({ length: 16 * n }, (_, k) => expected(Math.floor(k / 16), k % 16));
      assert.equal(Array.from(out as Float32Array), want, read);
    }
  });

  test(`${device.name}: the local temporary two kernels share`, async () => {
    const { out } = await run(savedLocal(), device, {});
    assert.equal(Array.from(out as Int32Array), Array(12).fill(1));
  });
}

/** Whether `device` ran the case and its result agreed with the untransformed kernel's. */
const agreedOn = (r: Pick<CaseResult, 'devices'>, device: string) =>
  r.devices.some((d) => d.device === device && d.outcome.kind === 'agree');

test('WebGPU: local tiles the WGSL target declares in rows (array<array<T, R>, N>) under random chains agree with the untransformed kernel', async () => {
  // seeds from 60000 whose case, as WebGPU gets it, has a workgroup array in rows (codegen-wgsl's
  // array-rows.ts, where rows cost fewer clamps: about one seed in a thousand) and runs (no warned race); found by a
  // search, written out, checked here
  const seeds = [61_324, 63_643, 66_030, 66_376];
  const webgpu = testDevices().filter((d) => d.target.name === 'wgsl');
  assert.ok(webgpu.length > 0, 'no WebGPU device to compare on');
  const inRows = (knl: LoopKernel, device: Device) =>
    /var<workgroup> \w+: array<array</.test(generateCode(knl, device.target).code);
  for (const device of webgpu)
    for (const seed of seeds) {
      const plan = planCase(seed, new FeatureSet(EXCLUDED).without(limitsOf(device)));
      assert.ok(plan && inRows(plan.chain.kernel, device), `seed ${seed}: a workgroup array in rows on ${device.name}`);
    }
  const results = await sample(seeds, webgpu, EXCLUDED);
  for (const device of webgpu)
    for (const seed of seeds)
      assert.ok(
        results.some((r) => r.seed === seed && agreedOn(r, device.name)),
        `${device.name}: seed ${seed}'s case with a tile in rows disagreed or did not run`,
      );
});

test.run();
