/**
 * Regressions found by differential testing in loops bounded by data (the segments of
 * dependentDomains, segments.ts) and in the barriers inside loops and branches: each test names
 * the bug and carries its minimal reproduction. The others are in regressions-differential.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  generateCode,
  globalArg,
  LoomError,
  makeKernel,
  run,
  setTemporaryAddressSpace,
  splitIname,
  splitReductionInward,
  tagInames,
} from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { cudaTarget } from '@loom/codegen-cuda';
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { testDevices } from './support/devices.ts';
import { twoTreesInBranches } from './support/two-trees-in-branches.ts';

const cpu = cpuDevice();

// {{{ data-dependent domains (dependentDomains, segments.ts)

/** Boxes over x: box b covers starts[b] .. starts[b] + counts[b] - 1 (one empty, out of order). */
const segments = {
  starts: new Int32Array([4, 0, 3, 9]),
  counts: new Int32Array([3, 3, 0, 1]),
  x: Float32Array.from({ length: 10 }, (_, k) => k - 2.5),
};
const segmentArgs = [
  globalArg('starts', { dtype: 'int32', shape: ['nb'] }),
  globalArg('counts', { dtype: 'int32', shape: ['nb'] }),
  globalArg('x', { dtype: 'float32', shape: ['n'] }),
];
const segmentBounds = '<> start = starts[b]\n<> stop = starts[b] + counts[b]';
const segmentDomains = ['{ [b]: 0<=b<nb }', '{ [s]: start<=s<stop }'];
const segmentInputs = () => ({ ...segments, x: segments.x.slice(), nb: 4, n: 10 });
/** What box b's segment of x sums to, in plain JS. */
const segmentSum = (b: number) =>
  segments.x.slice(segments.starts[b], segments.starts[b] + segments.counts[b]).reduce((p, v) => p + v, 0);

for (const device of testDevices()) {
  test(`${device.name}: a reduction into a temporary over a loop bounded by temporaries runs inside the loop that sets them`, async () => {
    // before: '<> acc = sum(s, x[s])' names no b, so it was put outside b, after its bounds'
    // writers, and no order of loops was valid (a LoomError for a valid kernel; generator seed 18)
    const knl = makeKernel(segmentDomains, `${segmentBounds}\n<> acc = sum(s, x[s])\nout[b] = 2*acc`, [
      ...segmentArgs,
      globalArg('out', { dtype: 'float32', shape: ['nb'] }),
      '...',
    ]);
    const { out } = await run(knl, device, segmentInputs());
    assert.equal(
      [...(out as Float32Array)],
      [0, 1, 2, 3].map((b) => 2 * segmentSum(b)),
    );
  });

  test(`${device.name}: a loop bound moved to global memory is read from it`, async () => {
    // before: the loop over s printed the global temporary as a variable, 'for (int s = start; …)':
    // OpenCL and WGSL did not compile it (generator seeds 394, 226) and JavaScript read an array
    let knl = makeKernel(segmentDomains, `${segmentBounds}\nout[s] = 2*x[s] {id=scatter}`, [
      ...segmentArgs,
      globalArg('out', { dtype: 'float32', shape: ['n'] }),
      '...',
    ]);
    knl = setTemporaryAddressSpace(setTemporaryAddressSpace(knl, 'start', 'global'), 'stop', 'global');
    const { out } = await run(knl, device, { ...segmentInputs(), out: new Float32Array(10).fill(-7) });
    const want = new Array<number>(10).fill(-7);
    for (let b = 0; b < 4; b++)
      for (let s = segments.starts[b]; s < segments.starts[b] + segments.counts[b]; s++) want[s] = 2 * segments.x[s];
    assert.equal([...(out as Float32Array)], want);
  });
}

test('splitIname within the writer of a loop bound alone is a LoomError: the loop would read one bound for every box', () => {
  // before: start was set over b_outer, b_inner before the loop over b read it, and every box
  // reduced over the last box's range (WebGPU: Infinity, min's neutral; generator seed 700)
  const knl = makeKernel(segmentDomains, `${segmentBounds}\nout[b] = min(s, x[s])`, [
    ...segmentArgs,
    globalArg('out', { dtype: 'float32', shape: ['nb'] }),
    '...',
  ]);
  const writer = knl.instructions.find((i) => i.assignees.some((a) => a.kind === 'var' && a.name === 'start'))!.id;
  assert.throws(
    () => splitIname(knl, 'b', 4, { within: `id:${writer}` }),
    (e: unknown) => e instanceof LoomError && /writes the temporary 'start'/.test((e as Error).message),
  );
});

// }}}

// {{{ barriers every work-item of a group reaches (PoCL: seeds 4041205870, 1531460751)

for (const device of testDevices()) {
  test(`${device.name}: local reduction trees in both branches of an if/else inside a loop`, async () => {
    const knl = twoTreesInBranches();
    const c = new Float32Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    const got = (await run(knl, device, { c })).out as Float32Array;
    const want = (await run(knl, cpu, { c })).out as Float32Array;
    // plain JS: out[i] = 3i - imag(c[i]) for i >= 2, else (1 - c[i]) * 3i (imaginary parts alike)
    const js: number[] = [];
    for (let i = 0; i < 6; i++) {
      const [re, im] = [c[2 * i], c[2 * i + 1]];
      js.push(...(i >= 2 ? [3 * i - im, 0] : [(1 - re) * 3 * i, -im * 3 * i]));
    }
    assert.equal([...want], js);
    assert.equal([...got], js);
  });
}

for (const device of testDevices()) {
  test(`${device.name}: a barrier inside a loop whose bounds differ between work-items is refused before anything runs`, async () => {
    // seed 1531460751: the segments on l.0, each reduced across l.1 by a tree whose barriers sat
    // inside the segment's loop; PoCL ran it and got out[0] = Infinity for 2 (a GPU may hang)
    const product = makeKernel(segmentDomains, `${segmentBounds}\nout[b] = product(s, x[s])`, [
      ...segmentArgs,
      globalArg('out', { dtype: 'float32', shape: ['nb'] }),
      '...',
    ]);
    let knl = splitIname(product, 'b', 3, { outerTag: 'g.0', innerTag: 'l.0' });
    knl = splitIname(knl, 's', 3, { innerTag: 'l.1' });
    const args = {
      starts: Int32Array.from([3, 0, 4, 3]),
      counts: Int32Array.from([1, 3, 3, 0]),
      x: Float32Array.from([5, 6, 7, 2, 3, 0.5, 4, 1, 1]),
      nb: 4,
      n: 9,
    };
    const diverging = splitReductionInward(knl, ['s_inner']);
    const refused = await run(diverging, device, args).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.instance(refused, LoomError);
    assert.match((refused as Error).message, /barrier|work-items of a group one after another/);
    // the same segments reduced by each work-item alone run, and agree with plain JS
    const out = (await run(knl, device, args)).out as Float32Array;
    assert.equal(Array.from(out), [2, 5 * 6 * 7, 3 * 0.5 * 4, 1]);
  });
}

test('a barrier inside a loop whose bounds each group reads alike is no divergence (OpenCL and CUDA code; WGSL refuses it by its own rule)', () => {
  // the bounds read a private value set from the group id only: every work-item of a group agrees
  let knl = makeKernel(
    ['{ [g]: 0<=g<ng }', '{ [s]: start<=s<start + 4 }', '{ [k]: 0<=k<8 }'],
    `<> start = starts[g]
     out[g, s - start] = sum(k, x[s, k])`,
    [
      globalArg('starts', { shape: ['ng'], dtype: 'int32' }),
      globalArg('x', { shape: [16, 8], dtype: 'float32' }),
      globalArg('out', { shape: ['ng', 4], dtype: 'float32' }),
      '...',
    ],
    { assumptions: 'ng >= 1' },
  );
  knl = tagInames(knl, { g: 'g.0', k: 'l.0' });
  assert.match(generateCode(knl, openclTarget()).code, /barrier\(CLK_LOCAL_MEM_FENCE\)/);
  assert.match(generateCode(knl, cudaTarget()).code, /__syncthreads\(\)/);
  // WGSL's own uniformity rule takes a value read from a buffer for non-uniform: refused there, as its compiler would
  assert.throws(() => generateCode(knl, wgslTarget()), /WGSL requires every work-item to reach each barrier/);
});

// }}}

test.run();
