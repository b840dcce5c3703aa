/**
 * Kennedy loop fusion beyond loopy's tests: the fusions a dependency forbids are never
 * proposed (a reduction's result, an element overwritten across iterations, a read before a
 * later write), what fuses does, on every device against plain JavaScript; the decision agrees
 * with simulating both loop orders for every pair of shifted accesses; and the refusals.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDtypes,
  cInstruction,
  getKennedyUnweightedFusionCandidates,
  LoomError,
  makeKernel,
  renameInamesInBatch,
  run,
  tagInames,
  type LoopKernel,
} from '@loom/core';
import { assertClose, testDevices } from './support/devices.ts';

const batches = (knl: LoopKernel, candidates: readonly string[]) =>
  [...getKennedyUnweightedFusionCandidates(knl, candidates).values()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
const throwsLoom = (f: () => unknown, message: RegExp) =>
  assert.throws(f, (e: unknown) => e instanceof LoomError && message.test((e as Error).message));
const a = Float32Array.from({ length: 8 }, (_, k) => k + 1);
const b = Float32Array.from({ length: 8 }, (_, k) => 2 - k);

/** Kernels whose loops must stay apart, with what they compute. */
const forbidden: { name: string; knl: () => LoopKernel; expect: Record<string, number[]> }[] = [
  {
    // the second reduction reads the first one's result, which exists only after its loop
    name: 'a reduction result read by the next reduction',
    knl: () =>
      makeKernel('{[j0, j1]: 0 <= j0, j1 < 8}', '<> y0 = sum(j0, a[j0])\ny1[0] = sum(j1, y0*b[j1])', {
        seqDependencies: true,
      }),
    expect: { y1: [36 * -12] },
  },
  {
    // every iteration overwrites t[0]; the second loop must see the last value only
    name: 'an element overwritten in every iteration',
    knl: () =>
      makeKernel('{[j0, j1]: 0 <= j0, j1 < 8}', 't[0] = a[j0]\nout[j1] = t[0] + b[j1] {inames=j1}', {
        seqDependencies: true,
      }),
    expect: { out: Array.from({ length: 8 }, (_, k) => 8 + 2 - k) },
  },
  {
    // the first loop reads x[j0 - 1] before the second overwrites it
    name: 'a read before a later write of the element',
    knl: () =>
      makeKernel('{[j0, j1]: 1 <= j0, j1 < 8}', 'y[j0] = x[j0 - 1]\nx[j1] = 10*j1', {
        seqDependencies: true,
      }),
    expect: { y: [0, 1, 2, 3, 4, 5, 6, 7], x: [1, 10, 20, 30, 40, 50, 60, 70] },
  },
];

for (const device of testDevices()) {
  for (const { name, knl, expect } of forbidden) {
    test(`${device.name}: not fused: ${name}`, async () => {
      const made = knl();
      const ref = addDtypes(
        made,
        Object.fromEntries(['a', 'b', 't', 'x'].filter((n) => made.arg(n)).map((n) => [n, 'float32'])),
      );
      const candidates = ref.inames.filter((n) => n.startsWith('j'));
      assert.equal(
        batches(ref, candidates),
        candidates.map((c) => [c]),
      );
      const fused = renameInamesInBatch(ref, getKennedyUnweightedFusionCandidates(ref, candidates));
      const pool = {
        a,
        b,
        t: new Float32Array(1),
        x: Float32Array.from({ length: 8 }, (_, k) => k + 1),
        y: new Float32Array(8),
      };
      const out = await run(fused, device, Object.fromEntries(Object.entries(pool).filter(([n]) => fused.arg(n))));
      for (const [array, values] of Object.entries(expect)) {
        // y[0] is no iteration's: left as passed
        const from = array === 'y' ? 1 : 0;
        assertClose(Array.from(out[array] as ArrayLike<number>).slice(from, values.length), values.slice(from), array);
      }
    });
  }

  test(`${device.name}: Kennedy's rounds: independent loops fuse, a loop-carried conflict starts a new round`, async () => {
    const ref = addDtypes(
      makeKernel(
        '{[p, q, r, s]: 1 <= p, q, r, s < 8}',
        `u[p] = a[p]           {id=up}
         v[q] = b[q]           {id=vq}
         w[r] = u[r - 1] + v[r] {id=wr}
         z[s] = w[s] * 2       {id=zs}`,
        { seqDependencies: true },
      ),
      { a: 'float32', b: 'float32' },
    );
    // r reads u[r - 1], written at an earlier iteration of p: fine fused; nothing forbids q or s
    assert.equal(batches(ref, ['p', 'q', 'r', 's']), [['p', 'q', 'r', 's']]);
    const shifted = addDtypes(
      makeKernel(
        '{[p, q, r]: 1 <= p, q, r < 7}',
        `u[p] = a[p]            {id=up}
         v[q] = b[q]            {id=vq}
         w[r] = u[r + 1] + v[r] {id=wr}`,
        { seqDependencies: true },
      ),
      { a: 'float32', b: 'float32' },
    );
    // r reads u[r + 1], written by a later iteration of p: r goes to a round of its own
    assert.equal(batches(shifted, ['p', 'q', 'r']), [['p', 'q'], ['r']]);
    const fused = renameInamesInBatch(shifted, getKennedyUnweightedFusionCandidates(shifted, ['p', 'q', 'r']));
    assert.is(fused.inames.length, 2);
    // u and v are read too, so they are passed; u[7] is no iteration's
    const u = Float32Array.from({ length: 8 }, (_, k) => 100 + k);
    const out = await run(fused, device, { a: a.subarray(0, 7), b: b.subarray(0, 7), u, v: new Float32Array(7) });
    assertClose(
      Array.from(out.w as ArrayLike<number>).slice(1, 7),
      Array.from({ length: 6 }, (_, k) => (k + 2 < 7 ? a[k + 2] : u[7]) + b[k + 1]),
      'w',
    );
  });
}

test('the decision agrees with running both loop orders, for every pair of shifts', () => {
  let fusedSome = 0;
  for (const writeShift of [-2, -1, 0, 1, 2]) {
    for (const readShift of [-2, -1, 0, 1, 2]) {
      for (const secondWrites of [false, true]) {
        const second = secondWrites ? `x[i1 + ${readShift}] = 100 + i1` : `y[i1] = x[i1 + ${readShift}]`;
        const knl = makeKernel('{[i0, i1]: 2 <= i0, i1 < 8}', `x[i0 + ${writeShift}] = i0\n${second}`, {
          seqDependencies: true,
        });
        const fusable = batches(knl, ['i0', 'i1']).length === 1;
        // both orders in plain JavaScript: the loops one after the other, and one fused loop
        const simulate = (fused: boolean) => {
          const x = new Map<number, number>();
          const y = new Map<number, number>();
          const first = (i: number) => x.set(i + writeShift, i);
          const next = (i: number) =>
            secondWrites ? x.set(i + readShift, 100 + i) : y.set(i, x.get(i + readShift) ?? -1);
          if (fused) for (let i = 2; i < 8; i++) first(i), next(i);
          else {
            for (let i = 2; i < 8; i++) first(i);
            for (let i = 2; i < 8; i++) next(i);
          }
          return JSON.stringify([[...x].sort(), [...y].sort()]);
        };
        const same = simulate(false) === simulate(true);
        assert.is(fusable, same, `x[i0 + ${writeShift}], then ${second}`);
        if (fusable) fusedSome++;
      }
    }
  }
  assert.ok(fusedSome > 10);
});

test('C code reading what a candidate loop writes keeps its loop apart', () => {
  const knl = makeKernel('{[j0, j1]: 0 <= j0, j1 < 8}', [
    'a[j0] = j0 {id=w}',
    cInstruction('j1', 'b[j1] = a[7 - j1];', { assignees: 'b[j1]', readVariables: 'a', id: 'c', dependsOn: ['w'] }),
  ]);
  // nothing says which elements of a the code reads: it may read one a later iteration writes
  assert.equal(batches(knl, ['j0', 'j1']), [['j0'], ['j1']]);
  const plain = makeKernel('{[j0, j1]: 0 <= j0, j1 < 8}', 'a[j0] = j0 {id=w}\nb[j1] = a[j1] {dep=w}');
  assert.equal(batches(plain, ['j0', 'j1']), [['j0', 'j1']]);
});

test('refusals: unknown inames and options, nested candidates, mixed kinds, unusable batches', () => {
  const knl = makeKernel('{[i, j, k]: 0 <= i, j, k < 4}', 'a[i, j] = 1\nb[k] = sum(j, a[k, j])');
  throwsLoom(() => getKennedyUnweightedFusionCandidates(knl, ['i', 'q']), /'q' are no inames/);
  throwsLoom(() => getKennedyUnweightedFusionCandidates(knl, ['i'], { prefx: 'f' } as never), /unknown option 'prefx'/);
  const together = makeKernel('{[i, j]: 0 <= i, j < 4}', 'a[i, j] = 1');
  throwsLoom(() => getKennedyUnweightedFusionCandidates(together, ['i', 'j']), /can be nested within one another/);
  throwsLoom(() => getKennedyUnweightedFusionCandidates(knl, ['k', 'j']), /'j' is a reduction iname and 'k' a loop/);
  const nested = makeKernel('{[i, j]: 0 <= i, j < 4}', 'a[i] = 1\nb[i, j] = 2');
  throwsLoom(() => getKennedyUnweightedFusionCandidates(nested, ['i', 'j']), /'j' is nested within 'i'/);
  // one reduction iname in two loops: no tree of loops entered once holds both (nor does linearization)
  const shared = makeKernel('{[i, k, j]: 0 <= i, k, j < 4}', 'y0[i] = sum(j, a[i, j])\ny1[k] = sum(j, b[k, j])');
  throwsLoom(() => getKennedyUnweightedFusionCandidates(shared, ['i', 'k']), /makeReductionInamesUnique/);
  throwsLoom(() => renameInamesInBatch(knl, { f: ['i'], g: ['i'] }), /renamed both to 'f' and to 'g'/);
  throwsLoom(() => renameInamesInBatch(knl, { f: [] }), /lists no inames/);
  throwsLoom(() => renameInamesInBatch(knl, { f: ['q'] }), /unknown iname 'q'/);
  throwsLoom(() => renameInamesInBatch(knl, { i: ['k'], f: ['i'] }), /'i' is both a new name and renamed/);
  // the key may be one of the inames: the others merge into it
  assert.equal(
    renameInamesInBatch(makeKernel('{[i, k]: 0 <= i, k < 4}', 'a[i] = 1\nb[k] = 2'), { i: ['i', 'k'] }).inames,
    ['i'],
  );
});

test('the prefix names the batches; loops on one hardware axis are one batch', () => {
  const knl = tagInames(makeKernel('{[i, j, k]: 0 <= i, j, k < 4}', 'a[i] = 1\nb[j] = 2\nc[k] = 3'), {
    i: 'l.0',
    j: 'l.0',
  });
  assert.equal(
    [...getKennedyUnweightedFusionCandidates(knl, ['i', 'j', 'k'], { prefix: 'f' })],
    [
      ['f', ['i', 'j']],
      ['f_0', ['k']],
    ],
  );
});

test.run();
