/**
 * A domain bounded by temporaries that an enclosing loop sets (`{[s]: start<=s<stop}` with
 * `<> start = starts[b]`): the loop over `s` runs inside `b`, once per box, with that box's
 * bounds (issue 24: it ran once after the `b` loop, with the last box's bounds only). Where
 * such a bound cannot be honoured (a hardware axis, an unrolled loop, a reduction across
 * work-items) it is a LoomError before anything runs.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  generateCode,
  globalArg,
  LoomError,
  makeKernel,
  prioritizeLoops,
  run,
  splitIname,
  tagInames,
  type LoopKernel,
} from '@loom/core';
import { jsTarget } from '@loom/codegen-js';
import { testDevices } from './support/devices.ts';

const starts = new Int32Array([0, 3, 5, 5]);
const counts = new Int32Array([3, 2, 0, 4]);
const x = Float32Array.from({ length: 9 }, (_, k) => k + 1);
const inputs = { starts, counts, x, nb: starts.length };
const domains = ['{[b]: 0<=b<nb}', '{[s]: start<=s<stop}'];
const bounds = '<> start = starts[b]\n<> stop = starts[b] + counts[b]';
const args = [
  globalArg('starts', { dtype: 'int32', shape: ['nb'] }),
  globalArg('counts', { dtype: 'int32', shape: ['nb'] }),
  globalArg('x', { dtype: 'float32', shape: ['n'] }),
];

/** out[s] = 2*x[s] over every box's range, by box. */
const scatter = makeKernel(domains, `${bounds}\nout[s] = 2*x[s]`, [
  ...args,
  globalArg('out', { dtype: 'float32', shape: ['n'] }),
  '...',
]);
/** out[b] = the sum of x over box b's range. */
const segmentSum = makeKernel(domains, `${bounds}\nout[b] = sum(s, x[s])`, [
  ...args,
  globalArg('out', { dtype: 'float32', shape: ['nb'] }),
  '...',
]);

function scatterInJs(): number[] {
  const out = new Array<number>(x.length).fill(0);
  for (let b = 0; b < starts.length; b++) for (let s = starts[b]; s < starts[b] + counts[b]; s++) out[s] = 2 * x[s];
  return out;
}

function segmentSumInJs(): number[] {
  return [...starts].map((st, b) => {
    let acc = 0;
    for (let s = st; s < st + counts[b]; s++) acc += x[s];
    return acc;
  });
}

test('the instruction over s is nested in b, the loop that sets its bounds', () => {
  const insn = scatter.instructions.find((i) => i.assignees.some((a) => a.kind === 'subscript' && a.array === 'out'))!;
  assert.equal(insn.withinInames, ['b', 's']);
});

const ways: [string, (k: LoopKernel) => LoopKernel][] = [
  ['as written', (k) => k],
  // the boxes' ranges do not overlap, which the race check cannot know: silenced
  [
    'b on work-groups',
    (k) => tagInames(k.with({ silencedWarnings: k.instructions.map((i) => `write_race(${i.id})`) }), { b: 'g.0' }),
  ],
  ['s split by 2 (a sequential loop over chunks)', (k) => prioritizeLoops(splitIname(k, 's', 2), 's_outer,s_inner')],
  ['s split by 2, the inner part on work-items', (k) => splitIname(k, 's', 2, { innerTag: 'l.0' })],
];

for (const [how, transform] of ways) {
  test(`a loop bounded by temporaries of its enclosing loop: every box is written (${how}), on every device`, async () => {
    const knl = transform(scatter);
    for (const device of testDevices()) {
      const { out } = await run(knl, device, { ...inputs, out: new Float32Array(x.length) });
      assert.equal([...(out as Float32Array)], scatterInJs(), `${device.target.name}: ${how}`);
    }
  });
}

for (const [how, transform] of ways.slice(0, 2)) {
  test(`a reduction over a range read from temporaries sums each box's own range (${how}), on every device`, async () => {
    const knl = transform(segmentSum);
    for (const device of testDevices()) {
      const { out } = await run(knl, device, inputs);
      assert.equal([...(out as Float32Array)], segmentSumInJs(), `${device.target.name}: ${how}`);
    }
  });
}

test('a bound read from a temporary cannot size a hardware axis, an unrolled loop or a reduction across work-items: LoomErrors', () => {
  const refused: [string, LoopKernel, RegExp][] = [
    ['s on work-items', tagInames(scatter, { s: 'l.0' }), /lower bound of 's' \(start\) must be a constant/],
    [
      's on work-groups',
      tagInames(scatter, { s: 'g.0' }),
      /'s' is tagged g\.0, but its bound reads the temporary 'start'|lower bound of 's'/,
    ],
    ['s unrolled', tagInames(scatter, { s: 'unr' }), /cannot unroll 's': its length is not a constant/],
    [
      'the reduction on work-items',
      tagInames(segmentSum, { s: 'l.0' }),
      /'s' runs from start to stop - 1, but a reduction across work-items needs a constant range/,
    ],
    [
      'the outer part of s on work-groups',
      splitIname(scatter, 's', 2, { outerTag: 'g.0', innerTag: 'l.0' }),
      /'s_outer' is tagged g\.0, but its bounds read the temporaries 'start', 'stop'/,
    ],
  ];
  for (const [what, knl, pattern] of refused) {
    assert.throws(
      () => generateCode(knl, jsTarget()),
      (e: unknown) => e instanceof LoomError && pattern.test(e.message),
      what,
    );
  }
});

test.run();
