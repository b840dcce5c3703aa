/**
 * tensorize: a tile of a sum of products computed by the target's matrix instructions (tensor
 * cores). Checked on what the transformation writes (three instructions on an accumulator, the
 * tile's inames tagged, a lane iname on l.0), on the CUDA C it becomes (WMMA's fragments, loads,
 * products and stores, local panels aligned and held as halves), on HGEMM's values against plain
 * JavaScript on every device with matrix instructions, on the refusal everywhere else, and on its
 * errors: forms it cannot take, and tiles code generation cannot place (cut at an edge, strides
 * known only at launch, a float32 accumulator stored into halves).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  assume,
  checkProgramLimits,
  COMMON_LIMITS,
  float16Bits,
  float16Value,
  fixParameters,
  generateCode,
  LoomError,
  makeKernel,
  run,
  setOptions,
  splitIname,
  tagInames,
  targetFacts,
  tensorize,
  expr,
  type LoopKernel,
  type Stmt,
} from '@loom/core';
import { kernel } from '@loom/dsl';
import { cudaTarget, generateCuda } from '@loom/codegen-cuda';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { jsTarget } from '@loom/codegen-js';
import {
  HGEMM_CONFIGS,
  hgemmEntry,
  hgemmKernel,
  plainHgemm,
  plainSgemm,
  TF32_CONFIGS,
  tf32Kernel,
} from '../examples/hgemm.ts';
import { testDevices } from './support/devices.ts';
import { halves } from './support/halves.ts';

const { int } = expr;

/** The simplest tensor tile: one warp a 16x16 tile of c, k in steps of 16, straight from global memory. */
function oneTilePerWarp(n: number): LoopKernel {
  let knl = fixParameters(plainHgemm(), { n });
  knl = splitIname(knl, 'i', 16, { outerTag: 'g.1' });
  knl = splitIname(knl, 'j', 16, { outerTag: 'g.0' });
  knl = splitIname(knl, 'k', 16);
  return tensorize(knl, { m: 'i_inner', n: 'j_inner', k: 'k_inner' });
}

/** All in float16: c = a·b summed in a float16 accumulator, one tile a warp. */
function halfAccumulator(n: number): LoopKernel {
  let knl = makeKernel('{ [i, j, k]: 0 <= i, j, k < n }', 'c[i, j] = sum(k, a[i, k] * b[k, j])', undefined, {
    name: 'hgemm_half',
  });
  knl = fixParameters(addDtypes(knl, { a: 'float16', b: 'float16', c: 'float16' }), { n });
  knl = splitIname(knl, 'i', 16, { outerTag: 'g.1' });
  knl = splitIname(knl, 'j', 16, { outerTag: 'g.0' });
  knl = splitIname(knl, 'k', 16);
  return tensorize(knl, { m: 'i_inner', n: 'j_inner', k: 'k_inner' });
}

/** n x n small integers (-2 to 2) as float16 bits: every product and sum of 64 of them is exact in float16. */
function smallIntegers(n: number, seed: number): { bits: Uint16Array; values: Int32Array } {
  const bits = new Uint16Array(n * n);
  const values = new Int32Array(n * n);
  for (let k = 0; k < n * n; k++) {
    values[k] = ((k * 7 + seed * 13) % 5) - 2;
    bits[k] = float16Bits(values[k]);
  }
  return { bits, values };
}

test('tensorize writes the accumulator three ways and tags the tile', () => {
  const knl = oneTilePerWarp(64);
  const ids = knl.instructions.map((i) => i.id);
  assert.equal(ids, ['insn_init', 'insn_update', 'insn']);
  assert.equal(knl.inameTags.get('i_inner'), { kind: 'tensor', axis: 'm' });
  assert.equal(knl.inameTags.get('j_inner'), { kind: 'tensor', axis: 'n' });
  assert.equal(knl.inameTags.get('k_inner'), { kind: 'tensor', axis: 'k' });
  assert.equal(knl.inameTags.get('lane'), { kind: 'local', axis: 0 });
  const text = knl.toString();
  assert.match(text, 'acc[i_inner, j_inner] = 0');
  assert.match(text, 'acc[i_inner, j_inner] = acc[i_inner, j_inner] + float32(a[');
  assert.match(text, 'c[16*i_outer + i_inner, 16*j_outer + j_inner] = acc[i_inner, j_inner]');
  assert.equal(knl.temporaries.get('acc')?.matrixAccumulator, true);
  // every lane runs the tile's instructions; the product runs in k_outer too
  assert.ok(knl.instructions.every((i) => i.withinInames.includes('lane')));
  assert.ok(knl.instruction('insn_update').withinInames.includes('k_outer'));
  assert.not.ok(knl.instruction('insn_init').withinInames.includes('k_outer'));
});

test('the builder verb is the same transformation', () => {
  const built = kernel(
    '{ [i, j, k]: 0 <= i < 64 and 0 <= j < 64 and 0 <= k < 64 }',
    'c[i, j] = sum(k, float32(a[i, k]) * float32(b[k, j]))',
    { name: 'hgemm' },
  )
    .dtypes({ a: 'float16', b: 'float16', c: 'float32' })
    .split('i', 16, { outer: 'g.1' })
    .split('j', 16, { outer: 'g.0' })
    .split('k', 16)
    .tensorize({ m: 'i_inner', n: 'j_inner', k: 'k_inner' }).kernel;
  assert.is(generateCode(built, cudaTarget()).code, generateCode(oneTilePerWarp(64), cudaTarget()).code);
  assert.match(generateCode(built, cudaTarget()).code, 'wmma::mma_sync(acc[0], loom_a_tile0, loom_b_tile0, acc[0]);');
});

test('the CPU device writes a tensor tile out as loops: exact products, sums rounded to the accumulator', () => {
  const code = generateCode(oneTilePerWarp(64), jsTarget()).code;
  assert.match(code, 'new Float32Array(256); // float32[256], tensor tiles');
  assert.match(code, 's = Math.fround(s + loom.halfValue(a[');
  const support = targetFacts(jsTarget()).matrixInstructions;
  assert.is('lanes' in support && support.lanes, 1);
});

test('CUDA C: fragments, tile loads and stores at their offsets, panels in local memory aligned and held as halves', () => {
  const simple = generateCode(oneTilePerWarp(64), cudaTarget()).code;
  assert.match(simple, '#include <mma.h>');
  assert.match(simple, 'wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[1];');
  assert.match(simple, 'wmma::fill_fragment(acc[0], 0.0f);');
  assert.match(simple, 'wmma::load_matrix_sync(loom_a_tile0, a + (1024 * bIdx(y) + 16 * k_outer), 64);');
  assert.match(simple, 'wmma::load_matrix_sync(loom_b_tile0, b + (1024 * k_outer + 16 * bIdx(x)), 64);');
  assert.match(
    simple,
    'wmma::store_matrix_sync(c + (1024 * bIdx(y) + 16 * bIdx(x)), acc[0], 64, wmma::mem_row_major);',
  );
  assert.match(simple, '__launch_bounds__(32)');
  // a float16 sum: a float16 accumulator, stored into the halves of c
  const half = generateCode(halfAccumulator(64), cudaTarget()).code;
  assert.match(half, 'wmma::fragment<wmma::accumulator, 16, 16, 16, __half> acc[1];');
  assert.match(half, 'wmma::store_matrix_sync(c + (1024 * bIdx(y) + 16 * bIdx(x)), acc[0], 64, wmma::mem_row_major);');
  // b read transposed (b[j, k]): its tile's columns are contiguous
  let transposed = makeKernel(
    '{ [i, j, k]: 0 <= i < 64 and 0 <= j < 64 and 0 <= k < 64 }',
    'c[i, j] = sum(k, float32(a[i, k]) * float32(b[j, k]))',
  );
  transposed = addDtypes(transposed, { a: 'float16', b: 'float16', c: 'float32' });
  transposed = splitIname(transposed, 'i', 16, { outerTag: 'g.1' });
  transposed = splitIname(transposed, 'j', 16, { outerTag: 'g.0' });
  transposed = splitIname(transposed, 'k', 16);
  const colMajor = generateCode(tensorize(transposed, { m: 'i_inner', n: 'j_inner', k: 'k_inner' }), cudaTarget()).code;
  assert.match(colMajor, 'wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> loom_b_tile0;');
  assert.match(colMajor, 'wmma::load_matrix_sync(loom_b_tile0, b + (1024 * bIdx(x) + 16 * k_outer), 64);');
  const tiled = generateCode(hgemmKernel(256, HGEMM_CONFIGS[1]), cudaTarget()).code;
  assert.match(tiled, '__shared__ __align__(32) __half a_fetch[2552];');
  assert.match(tiled, 'wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4];');
  assert.match(tiled, 'wmma::load_matrix_sync(loom_a_tile1, a_fetch + (1280 * tIdx(z) + 16 * k_step + 640), 40);');
  // the 2x2 products of a warp's tiles load each of its two a tiles and two b tiles once
  assert.is(tiled.match(/load_matrix_sync/g)?.length, 4);
  assert.match(tiled, 'wmma::mma_sync(acc[3], loom_a_tile1, loom_b_tile1, acc[3]);');
  // the panels are copied as halves, and read by the loads whole
  assert.match(tiled, 'a_fetch[40 * (');
  assert.match(tiled, '] = a[256 * (64 * bIdx(y)');
});

test("an accumulator's fragments count against private memory per lane: each lane holds 1/32 of a tile", () => {
  // 16 tiles of 16x16 floats: 16 KiB for the subgroup, 512 bytes a lane (8 KiB is the limit)
  const program = generateCode(hgemmKernel(256, HGEMM_CONFIGS[5]), cudaTarget()).program;
  checkProgramLimits(program, COMMON_LIMITS, 'a device');
  const acc =
    program.kernels[0].body.kind === 'block'
      ? program.kernels[0].body.body.find((s) => s.kind === 'declare' && s.matrix)
      : undefined;
  assert.equal(acc?.kind === 'declare' ? [acc.length, acc.matrix] : undefined, [
    4096,
    { m: 16, n: 16, k: 16, lanes: 32 },
  ]);
});

test('CUDA C: 8 unrolled copies of consecutive halves at a multiple of 8 are one 16-byte move, others stay copies', () => {
  const copy = (shift: number) => {
    let knl = makeKernel('{ [i]: 0 <= i < 256 }', `out[i] = a[i + ${shift}]`);
    knl = addDtypes(knl, { a: 'float16', out: 'float16' });
    knl = splitIname(knl, 'i', 8, { innerTag: 'unr', outerTag: 'l.0' });
    return generateCode(knl, cudaTarget()).code;
  };
  assert.match(copy(0), '*(uint4 *) (out + (8 * tIdx(x))) = *(uint4 const *) (a + (8 * tIdx(x)));');
  assert.match(copy(8), '*(uint4 *) (out + (8 * tIdx(x))) = *(uint4 const *) (a + (8 * tIdx(x) + 8));');
  // a start one half off a 16-byte boundary: eight copies
  const shifted = copy(1);
  assert.not.match(shifted, 'uint4');
  assert.is(shifted.match(/out\[8 \* tIdx\(x\)( \+ \d)?\] = a\[/g)?.length, 8);
  const wide = generateCode(hgemmKernel(256, HGEMM_CONFIGS.find((c) => c.wideCopies)!), cudaTarget()).code;
  assert.is(wide.match(/\*\(uint4 \*\) \((a|b)_fetch/g)?.length, 2);
});

test('precision tf32: float32 factors rounded to TF32 in 16x16x8 tiles, said in the kernel and refused for 16x16x16', () => {
  const tiled = (kTile: number) => {
    let knl = fixParameters(plainSgemm(), { n: 64 });
    knl = splitIname(knl, 'i', 16, { outerTag: 'g.1' });
    knl = splitIname(knl, 'j', 16, { outerTag: 'g.0' });
    knl = splitIname(knl, 'k', kTile);
    return tensorize(knl, { m: 'i_inner', n: 'j_inner', k: 'k_inner' }, { precision: 'tf32' });
  };
  assert.match(tiled(8).toString(), 'aspace: private matrix accumulator (tf32 factors)');
  const code = generateCode(tiled(8), cudaTarget()).code;
  assert.match(code, 'wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> loom_a_tile0;');
  assert.match(
    code,
    'for (int e = 0; e < loom_b_tile0.num_elements; e++) loom_b_tile0.x[e] = wmma::__float_to_tf32(loom_b_tile0.x[e]);',
  );
  assert.match(code, 'wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[1];');
  assert.throws(
    () => generateCode(tiled(16), cudaTarget()),
    (e: Error) =>
      /no matrix instruction for a 16x16x16 tile of float32 rounded to tf32 into float32.*16x16x8 of float32 rounded to tf32/.test(
        e.message,
      ),
  );
  // without the precision, float32 factors have no matrix instruction: nothing is rounded unasked
  let plain = fixParameters(plainSgemm(), { n: 64 });
  for (const n of ['i', 'j']) plain = splitIname(plain, n, 16, { outerTag: n === 'i' ? 'g.1' : 'g.0' });
  plain = tensorize(splitIname(plain, 'k', 8), { m: 'i_inner', n: 'j_inner', k: 'k_inner' });
  assert.throws(
    () => generateCode(plain, cudaTarget()),
    /no matrix instruction for a 16x16x8 tile of float32 into float32/,
  );
  assert.throws(
    () => tensorize(plain, { m: 'i_outer', n: 'j_outer', k: 'k_outer' }, { precision: 'bf16' as 'tf32' }),
    /precision must be 'tf32' or absent, got "bf16"/,
  );
});

test('minGroupsPerComputeUnit: CUDA asks for blocks per multiprocessor in __launch_bounds__, other targets refuse it', () => {
  const asking = hgemmKernel(256, { ...HGEMM_CONFIGS[1], groupsPerUnit: 3 });
  assert.match(generateCode(asking, cudaTarget()).code, '__launch_bounds__(128, 3) hgemm(');
  let plain = makeKernel('{ [i]: 0 <= i < 256 }', 'out[i] = 2 * a[i]');
  plain = setOptions(splitIname(addDtypes(plain, { a: 'float32' }), 'i', 64, { innerTag: 'l.0', outerTag: 'g.0' }), {
    minGroupsPerComputeUnit: 4,
  });
  assert.match(generateCode(plain, cudaTarget()).code, '__launch_bounds__(64, 4) loopy_kernel(');
  for (const target of [openclTarget(), wgslTarget(), jsTarget()])
    assert.throws(
      () => generateCode(plain, target),
      /asks for 4 work-groups per compute unit.*cannot ask its compiler for/,
    );
  let sized = makeKernel('{ [i]: 0 <= i < n }', 'out[i] = 2 * a[i]');
  sized = setOptions(tagInames(addDtypes(sized, { a: 'float32' }), { i: 'l.0' }), { minGroupsPerComputeUnit: 2 });
  assert.throws(() => generateCode(sized, cudaTarget()), /work-group size is known only at launch/);
  assert.throws(() => setOptions(plain, { minGroupsPerComputeUnit: 1.5 }), /must be a whole number/);
});

test('CUDA C: adjacent products of tiles of two shapes are two runs, each loading its own fragments', () => {
  const product = (shape: { m: number; n: number; k: number }, acc: string): Stmt => ({
    kind: 'matrix',
    insnId: acc,
    op: {
      kind: 'multiply',
      accumulator: { name: acc, index: int(0), shape, dtype: 'float32', lanes: 32 },
      a: { array: 'a', offset: int(0), leading: 16, layout: 'row', dtype: 'float16' },
      b: { array: 'b', offset: int(0), leading: 32, layout: 'row', dtype: 'float16' },
    },
  });
  const declare = (name: string, shape: { m: number; n: number; k: number }): Stmt => ({
    kind: 'declare',
    name,
    dtype: 'float32',
    addressSpace: 'private',
    length: shape.m * shape.n,
    matrix: { ...shape, lanes: 32 },
  });
  const square = { m: 16, n: 16, k: 16 };
  const tall = { m: 32, n: 8, k: 16 };
  const code = generateCuda({
    kernels: [
      {
        name: 'two_shapes',
        params: [
          { name: 'a', dtype: 'float16', kind: 'global', written: false },
          { name: 'b', dtype: 'float16', kind: 'global', written: false },
        ],
        body: {
          kind: 'block',
          body: [declare('p', square), declare('q', tall), product(square, 'p'), product(tall, 'q')],
        },
        localSize: [int(32)],
        groupCount: [int(1)],
        types: new Map([
          ['a', 'float16'],
          ['b', 'float16'],
          ['p', 'float32'],
          ['q', 'float32'],
        ]),
      },
    ],
  });
  assert.match(code, 'wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> loom_a_tile0;');
  assert.match(code, 'wmma::fragment<wmma::matrix_a, 32, 8, 16, __half, wmma::row_major> loom_a_tile0;');
  assert.is(code.match(/wmma::mma_sync/g)?.length, 2);
});

test('targets without matrix instructions refuse a tensor tile before any code is written', () => {
  for (const target of [openclTarget(), wgslTarget()]) {
    assert.equal('refused' in targetFacts(target).matrixInstructions, true);
    assert.throws(
      () => generateCode(oneTilePerWarp(64), target),
      (e: Error) => e instanceof LoomError && /insn_init.*tensorize.*it has no matrix instructions/.test(e.message),
    );
  }
});

test('tensorize refuses what is not a tile of a sum of products', () => {
  const split = (body: string) => {
    let knl = makeKernel('{ [i, j, k]: 0 <= i < 64 and 0 <= j < 64 and 0 <= k < 64 }', body);
    knl = addDtypes(knl, { a: 'float16', b: 'float16' });
    for (const n of ['i', 'j', 'k']) knl = splitIname(knl, n, 16);
    return knl;
  };
  const tile = { m: 'i_inner', n: 'j_inner', k: 'k_inner' };
  const refuses = (f: () => unknown, message: RegExp) =>
    assert.throws(f, (e: Error) => e instanceof LoomError && message.test(e.message), String(message));
  refuses(() => tensorize(split('c[i, j] = sum(k, a[i, k] + b[k, j])'), tile), /not a sum of products.*no product/);
  refuses(() => tensorize(split('c[i, j] = max(k, a[i, k] * b[k, j])'), tile), /'max' reduction/);
  refuses(
    () => tensorize(split('c[i, j] = sum(k, a[i, k] * b[i, j])'), tile),
    /one factor must be indexed by 'i_inner' and 'k_inner'/,
  );
  refuses(() => tensorize(split('c[i, j] = a[i, j] * b[i, j]'), tile), /no instruction is a reduction over 'k_inner'/);
  refuses(() => tensorize(split('c[i, j] = sum(k, a[i, k] * b[k, j])'), { ...tile, m: 'q' }), /unknown iname 'q'/);
  refuses(
    () => tensorize(splitIname(splitIname(plainHgemm(), 'j', 16), 'k', 16), { ...tile, m: 'i' }),
    /'m' iname 'i' runs from 0 to n - 1; it must run over constants from 0/,
  );
  // another instruction in the tile's loops would lose them
  const two = makeKernel('{ [i, j, k]: 0 <= i, j, k < 64 }', [
    'c[i, j] = sum(k, a[i, k] * b[k, j]) {id=p}',
    'd[i, j] = 2 * c[i, j] {id=q, dep=p}',
  ]);
  let twoSplit = addDtypes(two, { a: 'float16', b: 'float16' });
  for (const n of ['i', 'j', 'k']) twoSplit = splitIname(twoSplit, n, 16);
  refuses(() => tensorize(twoSplit, tile), /instruction 'q' also runs inside the tile's inames.*duplicateInames/);
  refuses(
    () => tensorize(tagInames(split('c[i, j] = sum(k, a[i, k] * b[k, j])'), { i_inner: 'l.0' }), tile),
    /'i_inner' is tagged l.0/,
  );
  refuses(
    () => tensorize(tagInames(split('c[i, j] = sum(k, a[i, k] * b[k, j])'), { i_outer: 'l.0' }), tile),
    /runs inside 'i_outer' \(l.0\)/,
  );
});

test('code generation refuses tiles it cannot place: cut at an edge, strides known only at launch, a float32 accumulator stored as halves', () => {
  const refuses = (knl: LoopKernel, message: RegExp) =>
    assert.throws(
      () => generateCode(knl, cudaTarget()),
      (e: Error) => e instanceof LoomError && message.test(e.message),
      String(message),
    );
  const tiled = (knl: LoopKernel) => {
    let k = splitIname(knl, 'i', 16, { outerTag: 'g.1' });
    k = splitIname(k, 'j', 16, { outerTag: 'g.0' });
    k = splitIname(k, 'k', 16);
    return tensorize(k, { m: 'i_inner', n: 'j_inner', k: 'k_inner' });
  };
  refuses(tiled(fixParameters(plainHgemm(), { n: 40 })), /the domain cuts the tile/);
  refuses(tiled(plainHgemm()), /the domain cuts the tile.*assumptions such as 'n mod 16 = 0'/);
  refuses(tiled(assume(plainHgemm(), 'n mod 16 = 0 and n >= 16')), /not affine in the tile's inames.*fixParameters/);
  const halfOut = addDtypes(
    makeKernel(
      '{ [i, j, k]: 0 <= i < 64 and 0 <= j < 64 and 0 <= k < 64 }',
      'c[i, j] = sum(k, float32(a[i, k]) * float32(b[k, j]))',
    ),
    { a: 'float16', b: 'float16', c: 'float16' },
  );
  refuses(tiled(halfOut), /stores the float32 accumulator into 'c' of float16/);
  // a factor converted to something narrower than itself is no tile's factor: the instruction would multiply the element
  const truncated = addDtypes(
    makeKernel(
      '{ [i, j, k]: 0 <= i < 64 and 0 <= j < 64 and 0 <= k < 64 }',
      'c[i, j] = sum(k, float32(int32(a[i, k])) * float32(b[k, j]))',
    ),
    { a: 'float16', b: 'float16', c: 'float32' },
  );
  refuses(tiled(truncated), /each factor an array element, converted only to a wider float/);
  // 8 x 8 x 8 tiles: no such instruction
  let small = splitIname(fixParameters(plainHgemm(), { n: 64 }), 'i', 8, { outerTag: 'g.1' });
  small = splitIname(small, 'j', 8, { outerTag: 'g.0' });
  small = splitIname(small, 'k', 8);
  refuses(
    tensorize(small, { m: 'i_inner', n: 'j_inner', k: 'k_inner' }),
    /no matrix instruction for a 8x8x8 tile of float16 into float32 \(it has: 16x16x16/,
  );
});

for (const device of testDevices()) {
  if (targetFacts(device.target).unsupportedDType('float16') === undefined)
    test(`${device.name}: copies of halves, merged into 16-byte moves where aligned, copy what they say`, async () => {
      const a = halves(17, 5).bits.subarray(0, 264);
      for (const shift of [0, 8, 1]) {
        let knl = makeKernel('{ [i]: 0 <= i < 256 }', `out[i] = a[i + ${shift}]`);
        knl = addDtypes(knl, { a: 'float16', out: 'float16' });
        knl = splitIname(knl, 'i', 8, { innerTag: 'unr', outerTag: 'l.0' });
        const { out } = await run(knl, device, { a: a.subarray(0, 256 + shift) });
        assert.equal([...(out as Uint16Array)], [...a.subarray(shift, shift + 256)], `shift ${shift}`);
      }
    });
  const support = targetFacts(device.target).matrixInstructions;
  if ('refused' in support) {
    test(`${device.name}: a tensor tile is refused with the reason`, async () => {
      const a = halves(64, 1);
      const refusal = await run(oneTilePerWarp(64), device, { a: a.bits, b: a.bits }).then(
        () => undefined,
        (e: Error) => e,
      );
      assert.ok(refusal instanceof LoomError, `expected a LoomError, got ${refusal}`);
      // a device without float16 (WebGPU without shader-f16) refuses the halves first
      const noHalves = targetFacts(device.target).unsupportedDType('float16');
      assert.match(refusal.message, noHalves === undefined ? support.refused : 'float16');
    });
    continue;
  }
  test(`${device.name}: HGEMM on matrix instructions computes the product (one tile a warp, and panels staged in local memory)`, async () => {
    // the CPU device computes each warp's tile in each of its lanes: smaller, and fewer tilings
    const emulated = support.lanes === 1;
    const n = emulated ? 128 : 256;
    const a = halves(n, 11);
    const b = halves(n, 12);
    const chosen = HGEMM_CONFIGS.filter((c, k) => k < 3 || c.doubleBuffered || c.wideCopies || c.groupsPerUnit);
    const kernels: [string, LoopKernel][] = [
      ['one tile a warp', oneTilePerWarp(n)],
      ...(emulated
        ? [
            HGEMM_CONFIGS[1]!,
            { ...HGEMM_CONFIGS[1]!, doubleBuffered: true },
            { ...HGEMM_CONFIGS[1]!, wideCopies: true },
          ]
        : chosen
      ).map((c): [string, LoopKernel] => [JSON.stringify(c), hgemmKernel(n, c)]),
    ];
    // a float16 accumulator, on small integers: every product and partial sum exact, in any order
    const ia = smallIntegers(64, 1);
    const ib = smallIntegers(64, 2);
    const { c: halfC } = await run(halfAccumulator(64), device, { a: ia.bits, b: ib.bits });
    for (let i = 0; i < 64; i++)
      for (let j = 0; j < 64; j++) {
        let sum = 0;
        for (let p = 0; p < 64; p++) sum += ia.values[i * 64 + p] * ib.values[p * 64 + j];
        const got = float16Value((halfC as Uint16Array)[i * 64 + j]);
        if (got !== sum) assert.unreachable(`float16 accumulator: c[${i}, ${j}] = ${got}, expected ${sum}`);
      }
    // TF32 factors, on small integers (exact in TF32): every product and sum exact
    const big = smallIntegers(128, 1);
    const bigB = smallIntegers(128, 2);
    // the CPU device has less memory a work-item (each emulated lane holds its warp's tiles) and a group
    const small = { warpsM: 2, warpsN: 2, regM: 2, regN: 2, tileK: 32, padding: 4, wideCopies: true };
    for (const config of emulated ? [small] : TF32_CONFIGS.slice(0, 2)) {
      const { c: tf32C } = await run(tf32Kernel(128, config), device, {
        a: new Float32Array(big.values),
        b: new Float32Array(bigB.values),
      });
      for (let i = 0; i < 128; i++)
        for (let j = 0; j < 128; j++) {
          let sum = 0;
          for (let p = 0; p < 128; p++) sum += big.values[i * 128 + p] * bigB.values[p * 128 + j];
          const got = (tf32C as Float32Array)[i * 128 + j];
          if (got !== sum)
            assert.unreachable(`tf32 ${JSON.stringify(config)}: c[${i}, ${j}] = ${got}, expected ${sum}`);
        }
    }
    for (const [what, knl] of kernels) {
      const { c } = await run(knl, device, { a: a.bits, b: b.bits });
      for (let i = 0; i < n; i++)
        for (let j = 0; j < n; j++) {
          const { value, magnitude } = hgemmEntry(a.values, b.values, n, i, j);
          const got = (c as Float32Array)[i * n + j];
          if (!(Math.abs(got - value) <= 1e-6 * magnitude * Math.sqrt(n) + 1e-6))
            assert.unreachable(`${what}: c[${i}, ${j}] = ${got}, expected ${value}`);
        }
    }
  });
}

test.run();
