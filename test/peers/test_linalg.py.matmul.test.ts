/**
 * Ports of loopy's test/test_linalg.py matrix multiplies with its tuning transformations
 * (register tiles on ILP inames, unrolled k, prefetches and precomputes into local memory,
 * images) and its tiled transpose. Each runs on every test device against plain JavaScript,
 * as loopy's auto_test_vs_ref compares with the untransformed kernel. Sizes are smaller than
 * loopy's, but never a multiple of the tiles where loopy's is not.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  addPaddingToAvoidBankConflicts,
  addPrefetch,
  extractSubst,
  globalArg,
  imageArg,
  makeKernel,
  precompute,
  run,
  setTemporaryAddressSpace,
  splitIname,
  type LoopKernel,
  targetFacts,
} from '@loom/core';
import { assertClose, randomFloat32, testDevices } from '../support/devices.ts';

/** `c[i, j] = sum(k, a[i, k]*b[k, j])` over fixed (n, n) float32 matrices; a and b images when asked. */
function matmul(n: number, images = false): LoopKernel {
  const operand = (name: string) =>
    images ? imageArg(name, { dtype: 'float32', shape: [n, n] }) : globalArg(name, { dtype: 'float32', shape: [n, n] });
  return makeKernel(
    `{[i,j,k]: 0<=i,j,k<${n}}`,
    'c[i, j] = sum(k, a[i, k]*b[k, j])',
    [operand('a'), operand('b'), globalArg('c', { dtype: 'float32', shape: [n, n] })],
    { name: 'matmul' },
  );
}

/** The (n x m) by (m x l) product in plain JavaScript, in float64. */
function product(a: Float32Array, b: Float32Array, n: number, m = n, l = n): Float64Array {
  const c = new Float64Array(n * l);
  for (let i = 0; i < n; i++)
    for (let k = 0; k < m; k++) {
      const x = a[i * m + k];
      for (let j = 0; j < l; j++) c[i * l + j] += x * b[k * l + j];
    }
  return c;
}

/** Runs a fixed-size matmul variant and checks it against the product. */
async function checkMatmul(knl: LoopKernel, device: Parameters<typeof run>[1], n: number, seed: number) {
  const a = randomFloat32(n * n, seed);
  const b = randomFloat32(n * n, seed + 1);
  const images = knl.args.some((arg) => arg.kind === 'image');
  if (images && typeof targetFacts(device.target).images === 'object') {
    // CUDA: texture objects are not made, and the refusal says so before anything runs
    await run(knl, device, { a, b }).then(
      () => assert.unreachable(`${device.name} has no images`),
      (e: Error) => assert.match(e.message, /texture objects/),
    );
    return;
  }
  const { c } = await run(knl, device, { a, b });
  assertClose(c as Float32Array, product(a, b, n), `c, n=${n}`, 1e-4, 1e-4);
}

/** loopy's register tiling: i and j in groups of reg*chunks, chunks on l.0/l.1, reg values per work-item (ilp). */
function registerTiles(knl: LoopKernel, reg: number, chunks: number): LoopKernel {
  knl = splitIname(knl, 'i', reg * chunks, { outerTag: 'g.0' });
  knl = splitIname(knl, 'i_inner', reg, { outerTag: 'l.0', innerTag: 'ilp' });
  knl = splitIname(knl, 'j', reg * chunks, { outerTag: 'g.1' });
  knl = splitIname(knl, 'j_inner', reg, { outerTag: 'l.1', innerTag: 'ilp' });
  return splitIname(knl, 'k', 16);
}

const outer = 'i_outer, j_outer, k_outer';

for (const device of testDevices()) {
  test(`${device.name}: test_transpose`, async () => {
    // loopy's n is 160 on a CPU; 40 leaves a ragged last tile
    const n = 40;
    let knl = makeKernel(
      `{[i,j]: 0<=i,j<${n}}`,
      'b[i, j] = a[j, i]',
      [globalArg('a', { dtype: 'float32', shape: [n, n] }), globalArg('b', { dtype: 'float32', shape: [n, n] })],
      { name: 'transpose' },
    );
    knl = splitIname(knl, 'i', 16, { outerTag: 'g.0', innerTag: 'l.1' });
    knl = splitIname(knl, 'j', 16, { outerTag: 'g.1', innerTag: 'l.0' });
    knl = addPrefetch(knl, 'a', ['i_inner', 'j_inner'], { defaultTag: 'l.auto' });
    // loopy's fetch is in address space auto, which its add_padding_to_avoid_bank_conflicts leaves alone
    assert.is(addPaddingToAvoidBankConflicts(knl).temporaries.get('a_fetch')!.dimTags, undefined);
    // placed in local memory, its column (read by a work-group column) spreads over 16 of 32 banks with rows of 17
    const local = addPaddingToAvoidBankConflicts(setTemporaryAddressSpace(knl, 'a_fetch', 'local'));
    const strides = local.temporaries.get('a_fetch')!.dimTags!.map((t) => (t.kind === 'stride' ? t.stride : t));
    assert.equal(strides, [
      { kind: 'int', value: 17 },
      { kind: 'int', value: 1 },
    ]);
    const a = randomFloat32(n * n, 11);
    const expected = Float32Array.from({ length: n * n }, (_, e) => a[(e % n) * n + Math.floor(e / n)]);
    for (const [what, variant] of [
      ['as loopy', addPaddingToAvoidBankConflicts(knl)],
      ['padded', local],
    ] as const) {
      assertClose((await run(variant, device, { a })).b as Float32Array, expected, what, 0, 0);
    }
  });

  test(`${device.name}: test_plain_matrix_mul: float4 elements`, async () => {
    // loopy's first dtype (test_linalg.py.tidy27.test.ts ports the float32 one): a product of
    // float4 values is taken lane by lane, each lane a matrix product of its own
    const n = 40;
    const shape = [n, n];
    let knl = makeKernel(
      `{[i,j,k]: 0<=i,j,k<${n}}`,
      'c[i, j] = sum(k, a[i, k]*b[k, j])',
      ['a', 'b', 'c'].map((name) => globalArg(name, { dtype: 'float4', shape })),
      { name: 'matmul' },
    );
    knl = splitIname(knl, 'i', 16, { outerTag: 'g.0', innerTag: 'l.1' });
    knl = splitIname(knl, 'j', 16, { outerTag: 'g.1', innerTag: 'l.0' });
    knl = splitIname(knl, 'k', 16);
    knl = addPrefetch(knl, 'a', ['k_inner', 'i_inner'], { fetchOuterInames: outer, defaultTag: 'l.auto' });
    knl = addPrefetch(knl, 'b', ['j_inner', 'k_inner'], { fetchOuterInames: outer, defaultTag: 'l.auto' });
    const a = randomFloat32(n * n * 4, 81);
    const b = randomFloat32(n * n * 4, 82);
    const { c } = await run(knl, device, { a, b });
    const lane = (x: Float32Array, l: number) => x.filter((_, e) => e % 4 === l);
    const expected = new Float64Array(n * n * 4);
    for (let l = 0; l < 4; l++) product(lane(a, l), lane(b, l), n).forEach((v, e) => (expected[e * 4 + l] = v));
    assertClose(c as Float32Array, expected, 'c', 1e-4, 1e-4);
  });

  test(`${device.name}: test_variable_size_matrix_mul`, async () => {
    // loopy skips it on PoCL ("crashes on pocl"); it runs on every device here
    let knl = makeKernel('{[i,j,k]: 0<=i,j,k<n}', 'c[i, j] = sum(k, a[i, k]*b[k, j])');
    knl = addDtypes(knl, { a: 'float32', b: 'float32' });
    knl = splitIname(knl, 'i', 16, { outerTag: 'g.0', innerTag: 'l.1', slabs: [0, 1] });
    knl = splitIname(knl, 'j', 16, { outerTag: 'g.1', innerTag: 'l.0', slabs: [0, 1] });
    knl = splitIname(knl, 'k', 8, { slabs: [0, 1] });
    knl = addPrefetch(knl, 'a', ['k_inner', 'i_inner'], { fetchOuterInames: outer, defaultTag: 'l.auto' });
    knl = addPrefetch(knl, 'b', ['j_inner', 'k_inner'], { fetchOuterInames: outer, defaultTag: 'l.auto' });
    for (const n of [16, 37, 5]) {
      const a = randomFloat32(n * n, 21);
      const b = randomFloat32(n * n, 22);
      const { c } = await run(knl, device, { a: { data: a, shape: [n, n] }, b: { data: b, shape: [n, n] }, n });
      assertClose(c as Float32Array, product(a, b, n), `c, n=${n}`, 1e-4, 1e-4);
    }
  });

  test(`${device.name}: test_funny_shape_matrix_mul`, async () => {
    let knl = makeKernel('{[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<ell}', 'c[i, j] = sum(k, a[i, k]*b[k, j])', undefined, {
      name: 'matmul',
      assumptions: 'n,m,ell >= 1',
    });
    knl = addDtypes(knl, { a: 'float32', b: 'float32' });
    knl = splitIname(knl, 'i', 16, { outerTag: 'g.0', innerTag: 'l.1' });
    knl = splitIname(knl, 'j', 8, { outerTag: 'g.1', innerTag: 'l.0' });
    knl = splitIname(knl, 'k', 32);
    knl = extractSubst(knl, 'a_acc', 'a[i1,i2]', 'i1, i2');
    knl = extractSubst(knl, 'b_acc', 'b[i1,i2]', 'i1, i2');
    knl = precompute(knl, 'a_acc', 'k_inner,i_inner', { precomputeOuterInames: outer, defaultTag: 'l.auto' });
    knl = precompute(knl, 'b_acc', 'j_inner,k_inner', { precomputeOuterInames: outer, defaultTag: 'l.auto' });
    // loopy: n = 160, m = n + 12, ell = m + 12: no axis a multiple of its tile, as with n = 21;
    // n = 3 is less than one tile along every axis
    for (const n of [21, 3]) {
      const [m, ell] = [n + 12, n + 24];
      const a = randomFloat32(n * m, 31);
      const b = randomFloat32(m * ell, 32);
      const { c } = await run(knl, device, {
        a: { data: a, shape: [n, m] },
        b: { data: b, shape: [m, ell] },
        n,
        m,
        ell,
      });
      assertClose(c as Float32Array, product(a, b, n, m, ell), `c, n=${n}`, 1e-4, 1e-4);
    }
  });

  test(`${device.name}: test_troublesome_premagma_fermi_matrix_mul`, async () => {
    // loopy: n = 6*16*2 = 192, six 32 x 32 tiles; here three
    const n = 96;
    let knl = registerTiles(matmul(n), 2, 16);
    knl = addPrefetch(knl, 'a', ['k_inner', 'i_inner_inner', 'i_inner_outer'], {
      fetchOuterInames: outer,
      defaultTag: 'l.auto',
    });
    await checkMatmul(knl, device, n, 41);
  });

  test(`${device.name}: test_intel_matrix_mul`, async () => {
    // loopy: n = 128 + 32, not a multiple of the 64 x 64 tile; here 96, not one either
    const n = 96;
    let knl = registerTiles(matmul(n), 4, 16);
    knl = addPrefetch(knl, 'a', ['i_inner_inner', 'k_inner', 'i_inner_outer'], {
      fetchOuterInames: outer,
      defaultTag: 'l.auto',
    });
    knl = addPrefetch(knl, 'b', ['j_inner_inner', 'k_inner', 'j_inner_outer'], {
      fetchOuterInames: outer,
      defaultTag: 'l.auto',
    });
    await checkMatmul(knl, device, n, 51);
  });

  test(`${device.name}: test_magma_fermi_matrix_mul`, async () => {
    // loopy skips it on PoCL and where R/FLOAT images are missing; every device here reads them
    const n = 96;
    let knl = registerTiles(matmul(n, true), 4, 16);
    knl = splitIname(knl, 'k_inner', 8, { outerTag: 'unr' });
    await checkMatmul(knl, device, n, 61);
  });

  test(`${device.name}: test_image_matrix_mul`, async () => {
    const n = 40;
    let knl = matmul(n, true);
    knl = splitIname(knl, 'i', 16, { outerTag: 'g.0', innerTag: 'l.1' });
    knl = splitIname(knl, 'j', 16, { outerTag: 'g.1', innerTag: 'l.0' });
    knl = splitIname(knl, 'k', 32);
    knl = addPrefetch(knl, 'a', ['i_inner', 'k_inner'], { fetchOuterInames: outer, defaultTag: 'l.auto' });
    knl = addPrefetch(knl, 'b', ['j_inner', 'k_inner'], { fetchOuterInames: outer, defaultTag: 'l.auto' });
    await checkMatmul(knl, device, n, 71);
  });
}

test.run();
