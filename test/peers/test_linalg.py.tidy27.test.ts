/**
 * Ports of loopy's test/test_linalg.py whose fetches are tagged `l.auto` (issue 27, s8-tidy27:
 * `l.auto` resolved where loopy resolves it), and Loom's own checks that `tagInames(knl,
 * { x: 'l.auto' })` and `bufferArray`'s default fit their inames to the work-group as
 * loopy's assign_automatic_axes does. Each runs on every test device against plain
 * JavaScript, as loopy's auto_test_vs_ref compares with the untransformed kernel.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addPrefetch,
  bufferArray,
  globalArg,
  LoomError,
  makeKernel,
  run,
  splitIname,
  tagInames,
  valueArg,
  type LoopKernel,
} from '@loom/core';
import { assertClose, randomFloat32, testDevices } from '../support/devices.ts';

/** loopy's get_suitable_size for a device that is not a GPU of a known vendor. */
const N = 160;

/** `c[i, j] = sum(k, a[i, k]*b[k, j])` over (N, N) float32 matrices, n a parameter or fixed. */
function matmul(parametric: boolean): LoopKernel {
  const shape = parametric ? ['n', 'n'] : [N, N];
  return makeKernel(
    parametric ? '[n] -> {[i,j,k]: 0<=i,j,k<n }' : `{[i,j,k]: 0<=i,j,k<${N}}`,
    'c[i, j] = sum(k, a[i, k]*b[k, j])',
    [
      globalArg('a', { dtype: 'float32', shape }),
      globalArg('b', { dtype: 'float32', shape }),
      globalArg('c', { dtype: 'float32', shape }),
      ...(parametric ? [valueArg('n', 'int32')] : []),
    ],
    parametric ? { name: 'fancy_matmul', assumptions: 'n>=1' } : { name: 'matmul' },
  );
}

/** The product in plain JavaScript, in float64. */
function product(a: Float32Array, b: Float32Array, n: number): Float64Array {
  const c = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let k = 0; k < n; k++) {
      const x = a[i * n + k];
      for (let j = 0; j < n; j++) c[i * n + j] += x * b[k * n + j];
    }
  return c;
}

/** Every fetch iname on a local axis (split where longer than it), none left a loop of the whole tile. */
function fetchAxes(knl: LoopKernel, array: string): string[] {
  return knl.inames
    .filter((n) => n.startsWith(`${array}_dim_`))
    .map(
      (n) =>
        `${n}:${knl.inameTags.get(n)?.kind === 'local' ? `l.${(knl.inameTags.get(n) as { axis: number }).axis}` : 'for'}`,
    )
    .sort();
}

for (const device of testDevices()) {
  test(`${device.name}: test_plain_matrix_mul`, async () => {
    // loopy also runs float4 matrices: that case is in test_linalg.py.matmul.test.ts
    let knl = matmul(false);
    knl = splitIname(knl, 'i', 16, { outerTag: 'g.0', innerTag: 'l.1' });
    knl = splitIname(knl, 'j', 16, { outerTag: 'g.1', innerTag: 'l.0' });
    knl = splitIname(knl, 'k', 16);
    knl = addPrefetch(knl, 'a', ['k_inner', 'i_inner'], {
      fetchOuterInames: 'i_outer, j_outer, k_outer',
      defaultTag: 'l.auto',
    });
    knl = addPrefetch(knl, 'b', ['j_inner', 'k_inner'], {
      fetchOuterInames: 'i_outer, j_outer, k_outer',
      defaultTag: 'l.auto',
    });
    // the 16 x 16 tiles on the 16 x 16 work-group, the smallest global stride on l.0
    assert.equal(fetchAxes(knl, 'a'), ['a_dim_0:l.1', 'a_dim_1:l.0']);
    assert.equal(fetchAxes(knl, 'b'), ['b_dim_0:l.1', 'b_dim_1:l.0']);
    const a = randomFloat32(N * N, 1);
    const b = randomFloat32(N * N, 2);
    const { c } = await run(knl, device, { a, b });
    assertClose(c as Float32Array, product(a, b, N), 'c', 1e-4, 1e-4);
  });

  test(`${device.name}: test_fancy_matrix_mul`, async () => {
    let knl = matmul(true);
    knl = splitIname(knl, 'i', 16, { outerTag: 'g.0', innerTag: 'l.1' });
    knl = splitIname(knl, 'j', 16, { outerTag: 'g.1', innerTag: 'l.0' });
    knl = splitIname(knl, 'k', 16, { slabs: [0, 1] });
    knl = addPrefetch(knl, 'a', ['i_inner', 'k_inner'], {
      fetchOuterInames: 'i_outer, j_outer, k_outer',
      defaultTag: 'l.auto',
    });
    knl = addPrefetch(knl, 'b', ['k_inner', 'j_inner'], {
      fetchOuterInames: 'i_outer, j_outer, k_outer',
      defaultTag: 'l.auto',
    });
    const n = N + 3; // not a multiple of the tiles: the guards and the slab run too
    const a = randomFloat32(n * n, 3);
    const b = randomFloat32(n * n, 4);
    const { c } = await run(knl, device, { a, b, n });
    assertClose(c as Float32Array, product(a, b, n), 'c', 1e-4, 1e-4);
  });

  test(`${device.name}: tagInames with l.auto fits the iname to the work-group, split where longer`, async () => {
    // i on l.0 makes a work-group of 16; the copy's f (40 values) goes on l.0 too, in 3 steps of 16
    let knl = makeKernel(
      ['{[i]: 0<=i<16}', '{[f]: 0<=f<40}'],
      ['out[i] = 2*a[i] {id=w}', 'copy[f] = b[f] {id=c}'],
      [globalArg('a, out', { dtype: 'float32', shape: [16] }), globalArg('b, copy', { dtype: 'float32', shape: [40] })],
    );
    knl = tagInames(knl, { i: 'l.0' });
    const fitted = tagInames(knl, { f: 'l.auto' });
    assert.equal(fitted.inameTags.get('f_inner'), { kind: 'local', axis: 0 });
    assert.is(fitted.inameTags.get('f_outer'), undefined, 'f_outer is a loop');
    // without a work-group, l.auto leaves a loop (loopy's assign_automatic_axes finds no axis)
    assert.is(tagInames(makeKernel('{[f]: 0<=f<40}', 'copy[f] = b[f]'), { f: 'l.auto' }).inameTags.get('f'), undefined);
    const a = randomFloat32(16, 5);
    const b = randomFloat32(40, 6);
    const r = await run(fitted, device, { a, b });
    assertClose(
      r.out as Float32Array,
      Array.from(a, (x) => 2 * x),
      'out',
      0,
      0,
    );
    assertClose(r.copy as Float32Array, Array.from(b), 'copy', 0, 0);
  });

  test(`${device.name}: bufferArray's default l.auto fits the fill and write-back to the work-group`, async () => {
    // out[i, j] accumulated over k in a buffer of the 16 x 8 tile; the work-group is (8, 16)
    let knl = makeKernel('{[i, j, k]: 0<=i<16 and 0<=j<8 and 0<=k<4}', 'out[i, j] = out[i, j] + k*x[i, j] {id=acc}', [
      globalArg('x, out', { dtype: 'float32', shape: [16, 8] }),
    ]);
    knl = tagInames(knl, { j: 'l.0', i: 'l.1' });
    const buffered = bufferArray(knl, 'out', {
      bufferInames: ['i', 'j'],
      initExpression: '0',
      storeExpression: 'base + buffer',
      temporaryAddressSpace: 'local',
    });
    // loopy's names; the last array axis (stride 1) on l.0, as the work-group's j
    const tag = (n: string) => buffered.inameTags.get(n);
    assert.equal(tag('out_init_1'), { kind: 'local', axis: 0 });
    assert.equal(tag('out_init_0'), { kind: 'local', axis: 1 });
    assert.equal(tag('out_store_1'), { kind: 'local', axis: 0 });
    assert.equal(tag('out_store_0'), { kind: 'local', axis: 1 });
    const x = randomFloat32(16 * 8, 7);
    const start = randomFloat32(16 * 8, 8);
    const { out } = await run(buffered, device, { x, out: start.slice() });
    assertClose(
      out as Float32Array,
      Array.from(start, (s, e) => s + 6 * x[e]),
      'out',
      1e-6,
      1e-6,
    );
  });
}

test('tagInames: l.auto on an iname tagged already, or tagged twice at once, is refused', () => {
  const knl = tagInames(makeKernel('{[i]: 0<=i<16}', 'out[i] = a[i]'), { i: 'l.0' });
  for (const tags of [{ i: 'l.auto' }, [['i', 'l.auto'] as const, ['i', 'unr'] as const]]) {
    try {
      tagInames(Array.isArray(tags) ? makeKernel('{[i]: 0<=i<16}', 'out[i] = a[i]') : knl, tags);
      assert.unreachable('expected a LoomError');
    } catch (e) {
      assert.instance(e, LoomError);
      assert.match(
        (e as Error).message,
        /tagInames: 'i' is (already tagged 'l\.0'|also tagged 'unr'); it cannot also be 'l\.auto'/,
      );
    }
  }
});

test.run();
