/**
 * Port of loopy's test/test_sem_reagan.py (issue 27, "Typing, rules, tags"): the 2D
 * spectral-element Laplacian, whose geometric factors are read through tagged reads `G$x[...]`
 * and `G$y[...]` that `addPrefetch` fetches one tag at a time. On every test device against
 * plain JavaScript; the one departure (an instruction id) is in README.md.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addPrefetch,
  fixParameters,
  globalArg,
  LoomError,
  makeKernel,
  precompute,
  printExpr,
  run,
  setInstructionPriority,
  tagInames,
  valueArg,
  type LoopKernel,
} from '@loom/core';
import { assertClose, randomFloat32, testDevices } from '../support/devices.ts';

const n = 8;

/** loopy's `semlap2D`, `n` fixed as loopy fixes it, `K` known at run time. */
function semlap2D(): LoopKernel {
  const fieldShape = ['K', n, n];
  const knl = makeKernel(
    '{[i,j,e,m,o,o2]: 0<=i,j,m,o,o2<n and 0<=e<K}',
    [
      'ur(a,b) := simul_reduce(sum, o, D[a,o]*u[e,o,b])',
      'us(a,b) := simul_reduce(sum, o2, D[b,o2]*u[e,a,o2])',
      'Gux(a,b) := G$x[0,e,a,b]*ur(a,b)+G$x[1,e,a,b]*us(a,b)',
      'Guy(a,b) := G$y[1,e,a,b]*ur(a,b)+G$y[2,e,a,b]*us(a,b)',
      'lap[e,i,j]  =   simul_reduce(sum, m, D[m,i]*Gux(m,j))+ simul_reduce(sum, m, D[m,j]*Guy(i,m))',
    ],
    [
      globalArg('u', { dtype: 'float32', shape: fieldShape }),
      globalArg('lap', { dtype: 'float32', shape: fieldShape }),
      globalArg('G', { dtype: 'float32', shape: [3, ...fieldShape] }),
      globalArg('D', { dtype: 'float32', shape: ['n', 'n'] }),
      valueArg('K', 'int32'),
    ],
    { name: 'semlap2D', assumptions: 'K>=1' },
  );
  return fixParameters(knl, { n });
}

/**
 * loopy's variant_orig, step for step: `D` and `u` fetched, then `ur`, `us`, `Gux` and `Guy`
 * precomputed (each precompute finds its rule: the fetches and earlier precomputes keep the
 * rules they read through), then the tagged fetches of `G`, every new iname `l.auto` (fitted
 * to the work-group's axes as loopy's assign_automatic_axes fits them). loopy's
 * `id:D_fetch` is `id:D_fetch_rule`, Loom's id for the fetch instruction (README.md).
 */
function variantOrig(knl: LoopKernel): LoopKernel {
  knl = tagInames(knl, { i: 'l.0', j: 'l.1', e: 'g.0' });
  knl = addPrefetch(knl, 'D[:,:]', [], { fetchOuterInames: 'e', defaultTag: 'l.auto' });
  knl = addPrefetch(knl, 'u[e, :, :]', [], { defaultTag: 'l.auto' });
  knl = precompute(knl, 'ur(m,j)', ['m', 'j'], { defaultTag: 'l.auto' });
  knl = precompute(knl, 'us(i,m)', ['i', 'm'], { defaultTag: 'l.auto' });
  knl = precompute(knl, 'Gux(m,j)', ['m', 'j'], { defaultTag: 'l.auto' });
  knl = precompute(knl, 'Guy(i,m)', ['i', 'm'], { defaultTag: 'l.auto' });
  // the tagged fetches: each copies G for its own reads only
  knl = addPrefetch(knl, 'G$x[:,e,:,:]', [], { defaultTag: 'l.auto' });
  knl = addPrefetch(knl, 'G$y[:,e,:,:]', [], { defaultTag: 'l.auto' });
  knl = tagInames(knl, { o: 'unr' });
  knl = tagInames(knl, { m: 'unr' });
  return setInstructionPriority(knl, 'id:D_fetch_rule', 5);
}

/** The Laplacian in plain JavaScript, loop for loop as the rules say. */
function lapReference(K: number, u: Float32Array, G: Float32Array, D: Float32Array): Float64Array {
  const at = (e: number, a: number, b: number) => (e * n + a) * n + b;
  const g = (c: number, e: number, a: number, b: number) => G[c * K * n * n + at(e, a, b)];
  const lap = new Float64Array(K * n * n);
  for (let e = 0; e < K; e++) {
    const ur = (a: number, b: number) => {
      let s = 0;
      for (let o = 0; o < n; o++) s += D[a * n + o] * u[at(e, o, b)];
      return s;
    };
    const us = (a: number, b: number) => {
      let s = 0;
      for (let o = 0; o < n; o++) s += D[b * n + o] * u[at(e, a, o)];
      return s;
    };
    const gux = (a: number, b: number) => g(0, e, a, b) * ur(a, b) + g(1, e, a, b) * us(a, b);
    const guy = (a: number, b: number) => g(1, e, a, b) * ur(a, b) + g(2, e, a, b) * us(a, b);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let m = 0; m < n; m++) s += D[m * n + i] * gux(m, j) + D[m * n + j] * guy(i, m);
        lap[at(e, i, j)] = s;
      }
  }
  return lap;
}

test('test_tim2d: the tagged reads print as loopy prints them, and each fetch takes its own tag', () => {
  const knl = semlap2D();
  assert.equal(printExpr(knl.substitutions.get('Gux')!.expression).split(' + ')[0], 'G$x[0, e, a, b]*ur(a, b)');
  const fetched = variantOrig(knl);
  assert.ok(fetched.temporaries.has('G_x_fetch') && fetched.temporaries.has('G_y_fetch'));
  const text = fetched.instructions
    .filter((insn) => !insn.id.startsWith('G_'))
    .map((insn) => (insn.expression ? printExpr(insn.expression) : ''))
    .join('\n');
  assert.not.match(text, /\bG(\$[xy])?\[/, 'no read of G is left outside the fetches');
  assert.match(text, /G_x_fetch\[0, /);
  assert.match(text, /G_y_fetch\[2, /);
  assert.ok(fetched.instructions.some((insn) => insn.id === 'G_x_fetch_rule'));
  // a tag no read carries, and two tags on one name, are refused
  assert.throws(
    () => addPrefetch(knl, 'G$z[:,e,:,:]'),
    (e: unknown) => e instanceof LoomError && /no read of 'G' is tagged 'z'/.test(String(e)),
  );
  assert.throws(
    () => addPrefetch(knl, 'G$x$y'),
    (e: unknown) => e instanceof LoomError && /more than one tag/.test(String(e)),
  );
});

for (const device of testDevices()) {
  test(`${device.name}: test_tim2d`, async () => {
    const K = 1000; // as loopy runs it
    const u = randomFloat32(K * n * n, 1);
    const G = randomFloat32(3 * K * n * n, 2);
    const D = randomFloat32(n * n, 3);
    const expected = lapReference(K, u, G, D);
    for (const [label, variant] of [
      ['reference', (k: LoopKernel) => k],
      ['variant_orig', variantOrig],
    ] as const) {
      const out = await run(variant(semlap2D()), device, { u, G, D, K });
      assertClose(out.lap as Float32Array, expected, `${label} on ${device.name}`, 1e-4, 1e-4);
    }
  });
}

test.run();
