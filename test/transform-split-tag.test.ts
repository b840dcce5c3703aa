/**
 * splitIname, tagInames, unrolling, slabs and parallel axes — the tutorial's
 * "Introduction to Kernel Transformations" and "Implementing Loop Axes" — on every
 * device, for sizes that are and are not multiples of the split factors.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  generateCode,
  getGridSizeUpperBounds,
  LoomError,
  makeKernel,
  printExpr,
  prioritizeLoops,
  run,
  splitIname,
  tagInames,
  type LoopKernel,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { assertClose, randomFloat32, testDevices } from './support/devices.ts';

const code = (knl: LoopKernel) => generateCode(addDtypes(knl, { a: 'float32' }), openclTarget()).code;
const fill = (assumptions: string) => makeKernel('{ [i]: 0<=i<n }', 'a[i] = 0', undefined, { assumptions });

test('split names the halves OLD_outer/OLD_inner and replaces the old iname', () => {
  const knl = splitIname(fill('n>=1'), 'i', 16);
  assert.equal(knl.inames.sort(), ['i_inner', 'i_outer']);
  assert.match(code(prioritizeLoops(knl, 'i_outer,i_inner')), 'a[16 * i_outer + i_inner] = 0.0f;');
  const named = splitIname(fill('n>=1'), 'i', 8, { outerIname: 'blk', innerIname: 'lane' });
  assert.equal(named.inames.sort(), ['blk', 'lane']);
});

test('tiling: with n mod 16 = 0 the tiled transpose needs no guard', () => {
  let knl = makeKernel('{ [i,j]: 0<=i,j<n }', 'out[i,j] = a[j,i]', undefined, {
    assumptions: 'n mod 16 = 0 and n >= 1',
  });
  knl = prioritizeLoops(splitIname(splitIname(knl, 'i', 16), 'j', 16), 'i_outer,j_outer,i_inner,j_inner');
  const c = code(knl);
  assert.not.match(c, /if \(/);
  // each flattened index is the tree n*(...) + (...), and the printer keeps its parentheses
  assert.match(
    c,
    'out[n * (16 * i_outer + i_inner) + (16 * j_outer + j_inner)] = a[n * (16 * j_outer + j_inner) + (16 * i_outer + i_inner)];',
  );
});

test('unrolling with n mod 4 = 0 has no guards; without it each copy is guarded', () => {
  const unroll = (k: LoopKernel) =>
    prioritizeLoops(tagInames(splitIname(k, 'i', 4), { i_inner: 'unr' }), 'i_outer,i_inner');
  const divisible = code(unroll(fill('n>=0 and n mod 4 = 0')));
  assert.not.match(divisible, /if \(/);
  assert.match(divisible, 'a[4 * i_outer + 3] = 0.0f;');
  const general = code(unroll(fill('n>=0')));
  assert.is(general.match(/if \(/g)?.length, 3);
});

test('slabs: the bulk slab has no guard, the final slab keeps them', () => {
  const knl = prioritizeLoops(splitIname(fill('n>=0'), 'i', 4, { slabs: [0, 1], innerTag: 'unr' }), 'i_outer,i_inner');
  const c = code(knl);
  const bulk = c.slice(c.indexOf('bulk slab'), c.indexOf('final slab'));
  const final = c.slice(c.indexOf('final slab'));
  assert.not.match(bulk, /if \(/);
  assert.match(final, /if \(/);
});

test('slabs on a loop bounded by the min of several bounds are refused, not dropped', () => {
  const twoBounds = makeKernel('{ [i]: 0 <= i < n and i < m }', 'a[i] = 0', undefined, {
    assumptions: 'n >= 1 and m >= 1',
  });
  const knl = prioritizeLoops(splitIname(twoBounds, 'i', 4, { slabs: [0, 1] }), 'i_outer,i_inner');
  assert.throws(
    () => code(knl),
    (e: Error) =>
      e instanceof LoomError &&
      /cannot cut slabs off loop 'i_outer': its upper bound is the min of several/.test(e.message),
  );
  // without slabs the same loop is generated, guarded
  assert.match(
    code(prioritizeLoops(splitIname(twoBounds, 'i', 4), 'i_outer,i_inner')),
    'a[4 * i_outer + i_inner] = 0.0f;',
  );
});

test('parallel split: work-group size and grid size, guard in terms of gid/lid', () => {
  const knl = splitIname(fill('n>=0'), 'i', 128, { outerTag: 'g.0', innerTag: 'l.0' });
  const c = code(knl);
  assert.match(c, 'reqd_work_group_size(128, 1, 1)');
  assert.match(c, 'a[128 * gid(0) + lid(0)] = 0.0f;');
  assert.match(c, /if \(.*gid\(0\).*lid\(0\).*\)/);
  const grid = getGridSizeUpperBounds(addDtypes(knl, { a: 'float32' }));
  assert.equal(grid.groups.map(printExpr), ['(n + 127) // 128']);
  assert.equal(grid.local.map(printExpr), ['128']);
  assert.match(knl.toString(), /INAME TAGS:\ni_inner: l.0\ni_outer: g.0/);
});

test('transformations that cannot apply say why', () => {
  const k = fill('n>=1');
  assert.throws(
    () => splitIname(k, 'q', 4),
    (e: unknown) => e instanceof LoomError && /unknown iname 'q'/.test((e as Error).message),
  );
  assert.throws(() => splitIname(k, 'i', 0), /positive integer/);
  assert.throws(() => tagInames(k, { i: 'x.9' }), /unknown iname tag 'x.9'/);
  const tagged = tagInames(splitIname(k, 'i', 4), { i_inner: 'l.0' });
  assert.throws(() => tagInames(tagged, { i_inner: 'g.0' }), /already tagged 'l.0'/);
  assert.throws(() => splitIname(tagged, 'i_inner', 2), /tagged/);
  assert.throws(() => code(tagInames(k, { i: 'unr' })), /cannot unroll 'i': its length is not a constant/);
  // an l.0 iname over n is a work-group of n work-items, sized at launch: no reqd_work_group_size, as loopy prints it
  const parametric = code(tagInames(k, { i: 'l.0' }));
  assert.match(parametric, /__kernel void loopy_kernel\(/);
  assert.not.match(parametric, /reqd_work_group_size/);
});

for (const device of testDevices()) {
  test(`${device.name}: split variants compute the same as the plain kernel`, async () => {
    const base = makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i] + i', undefined, { assumptions: 'n>=0' });
    const variants: [string, LoopKernel][] = [
      ['split 16', prioritizeLoops(splitIname(base, 'i', 16), 'i_outer,i_inner')],
      ['split 16 inner outside', prioritizeLoops(splitIname(base, 'i', 16), 'i_inner,i_outer')],
      ['unrolled by 4', splitIname(base, 'i', 4, { innerTag: 'unr' })],
      ['slabs', splitIname(base, 'i', 4, { slabs: [0, 1], innerTag: 'unr' })],
      ['slabs at both ends', splitIname(base, 'i', 3, { slabs: [1, 1] })],
      ['g/l', splitIname(base, 'i', 8, { outerTag: 'g.0', innerTag: 'l.0' })],
      [
        'two-level',
        tagInames(splitIname(splitIname(base, 'i', 16, { outerTag: 'g.0' }), 'i_inner', 4, { innerTag: 'l.0' }), {
          i_inner_outer: 'unr',
        }),
      ],
    ];
    for (const n of [0, 1, 3, 4, 15, 16, 17, 33, 100]) {
      const a = randomFloat32(n, n + 1);
      // an integer meets a float in that float's type (PyTorch's rule): float32
      const expected = Array.from(a, (x, k) => Math.fround(Math.fround(2 * x) + k));
      for (const [name, knl] of variants) {
        const { out } = await run(knl, device, { a });
        assert.instance(out, Float32Array);
        assert.equal(Array.from(out as Float32Array), expected, `${name}, n=${n}`);
      }
    }
  });

  test(`${device.name}: a tiled 2-D kernel on a g/l grid`, async () => {
    let knl = makeKernel('{ [i,j]: 0<=i<n and 0<=j<m }', 'out[i,j] = a[i,j] * (i + 1) - j');
    knl = splitIname(knl, 'i', 4, { outerTag: 'g.1', innerTag: 'l.1' });
    knl = splitIname(knl, 'j', 8, { outerTag: 'g.0', innerTag: 'l.0' });
    for (const [n, m] of [
      [5, 9],
      [8, 16],
      [1, 1],
      [13, 3],
    ]) {
      const a = randomFloat32(n * m, n * m);
      const { out } = await run(knl, device, { a, m });
      const expected = Array.from(a, (x, k) => Math.fround(Math.fround(x * (Math.floor(k / m) + 1)) - (k % m)));
      // OpenCL may fuse the multiply and the subtraction: equal up to rounding
      assertClose(out as Float32Array, expected, `n=${n}, m=${m}`, 1e-6, 1e-6);
    }
  });
}

test.run();
