/**
 * The device-wide memory fence (`... gfence`): the last work-group of a launch, told by a ticket
 * taken after a fence, combines what every work-group wrote, on every device that can fence,
 * called again and again (its counter reset); WGSL's refusal with its reason; how the fence
 * reads, prints, is spelled by each target and counted.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  generateCode,
  getSynchronizationMap,
  globalArg,
  makeKernel,
  parseInstructions,
  run,
  tagInames,
  targetFacts,
  temporaryVariable,
  type LoopKernel,
} from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { cudaTarget } from '@loom/codegen-cuda';
import { cTarget } from '@loom/codegen-c';
import { jsTarget } from '@loom/codegen-js';
import { wgslTarget } from '@loom/codegen-wgsl';
import { testDevices } from './support/devices.ts';
import { refusal, refused } from './support/refusals.ts';

/**
 * `groups` work-groups of `w` each sum a row of `a` and write it to `partial`; after a fence each
 * takes a ticket, and the one that takes the last (after a fence of its own) sums the partials
 * into `out[0]` and resets the counter: one launch, no global barrier.
 */
function lastGroupSum(groups: number, w: number): LoopKernel {
  const q = Math.ceil(groups / w);
  const knl = makeKernel(
    `{ [g, l, q]: 0<=g<${groups} and 0<=l<${w} and 0<=q<${q} }`,
    `
    <int32> s = sum(l, a[g, l]) {id=s}
    if l == 0
      partial[g] = s {id=store, dep=s}
      ... gfence {id=release, dep=store, inames=g:l}
      <int32> ticket = atomicAdd(counter[0], 1) {id=ticket, dep=release, inames=g:l}
      last[0] = if(ticket == ${groups - 1}, 1, 0) {id=last, dep=ticket}
      ... gfence {id=acquire, dep=ticket, inames=g:l}
    end
    if last[0] == 1
      <int32> total = 0 {id=init, dep=last, inames=g:l}
      total = total + if(q*${w} + l < ${groups}, partial[q*${w} + l], 0) {id=gather, dep=init:acquire, inames=g:l:q, nosync=store@global}
      out[0] = sum(l, total) {id=final, dep=gather, inames=g}
      if l == 0
        counter[0] = 0 {id=reset, dep=final, nosync=ticket@global, inames=g:l}
      end
    end
    `,
    [
      globalArg('counter', { dtype: 'int32', shape: [1], forAtomic: true }),
      globalArg('a', { dtype: 'int32', shape: [groups, w] }),
      globalArg('out', { dtype: 'int32', shape: [1] }),
      globalArg('partial', { dtype: 'int32', shape: [groups] }),
      temporaryVariable('last', { dtype: 'int32', shape: [1], addressSpace: 'local' }),
    ],
    // one work-group gets through the predicates on `last`: no race
    { silencedWarnings: ['write_race(final)', 'write_race(reset)'] },
  );
  return tagInames(knl, { g: 'g.0', l: 'l.0' });
}

for (const device of testDevices()) {
  test(`${device.name}: the last work-group, told by a ticket after a fence, sums every group's partial, call after call`, async () => {
    for (const [groups, w] of [
      [13, 8],
      [100, 32],
    ]) {
      const knl = lastGroupSum(groups, w);
      const counter = new Int32Array(1);
      const out = new Int32Array(1);
      const partial = new Int32Array(groups);
      const fences = targetFacts(device.target).globalFences;
      if (fences !== true) {
        await refused(() => run(knl, device, { counter, out, partial, a: new Int32Array(groups * w) }), fences.refused);
        continue;
      }
      for (let call = 0; call < 3; call++) {
        const a = Int32Array.from({ length: groups * w }, (_, k) => ((k * 31 + call * 7) % 101) - 50);
        await run(knl, device, { counter, out, partial, a });
        assert.is(
          out[0],
          a.reduce((x, y) => x + y, 0),
          `${groups} groups, call ${call}`,
        );
        // the last work-group left the counter as it found it
        assert.is(counter[0], 0, `${groups} groups, call ${call}`);
      }
    }
  });
}

test('WGSL cannot fence between work-groups: a kernel with a fence is refused before any code, saying why', () => {
  const message = refusal(() => generateCode(lastGroupSum(13, 8), wgslTarget()));
  assert.match(
    message,
    "instruction 'release' is a device-wide memory fence (... gfence), which the wgsl target cannot make",
  );
  assert.match(message, 'WGSL orders memory only within a work-group');
  assert.match(message, /\n.*\.\.\. gfence \{id=release.*\n\s+\^+$/);
});

test('each target spells the fence as its own', () => {
  const fences = (t: Parameters<typeof generateCode>[1]) =>
    generateCode(lastGroupSum(13, 8), t)
      .code.split('\n')
      .map((l) => l.trim())
      .filter((l) => /fence/.test(l) && !l.startsWith('//'));
  assert.equal(fences(openclTarget()), ['mem_fence(CLK_GLOBAL_MEM_FENCE);', 'mem_fence(CLK_GLOBAL_MEM_FENCE);']);
  assert.equal(fences(cudaTarget()), ['__threadfence();', '__threadfence();']);
  assert.ok(fences(cTarget()).every((l) => l === '__atomic_thread_fence(__ATOMIC_SEQ_CST);'));
  assert.ok(fences(cTarget()).length >= 2);
  // the CPU device runs its work-groups one after another: nothing to order
  assert.match(
    generateCode(lastGroupSum(13, 8), jsTarget()).code,
    '// ... gfence (release): nothing to order on one thread',
  );
});

test('... gfence reads as a fence instruction and prints back as written', () => {
  const [fence] = parseInstructions('... gfence {id=f, dep=w}').instructions;
  assert.is(fence.kind, 'fence');
  assert.equal(fence.deps, ['w']);
  const printed = String(lastGroupSum(13, 8));
  assert.match(printed, 'if (l == 0) ... gfence {id=release, dep=store}');
  assert.match(
    refusal(() => parseInstructions('... gfence {mem_kind=global}')),
    "the attribute 'mem_kind' belongs on barriers, not '... gfence'",
  );
  assert.match(
    refusal(() => parseInstructions('... fence')),
    "unknown special instruction '... fence' (expected gbarrier, lbarrier, gfence or nop)",
  );
});

test('the synchronization map counts a fence per work-item, beside the barriers', () => {
  const sync = getSynchronizationMap(lastGroupSum(13, 8));
  assert.is(sync.filterBy({ kind: ['fence_global'] }).evalAndSum({}), 2);
  assert.ok(sync.filterBy({ kind: ['barrier_local'] }).evalAndSum({}) > 0);
});

test('the targets state whether they fence', () => {
  assert.is(targetFacts(openclTarget()).globalFences, true);
  assert.is(targetFacts(cudaTarget()).globalFences, true);
  assert.is(targetFacts(cTarget()).globalFences, true);
  assert.is(targetFacts(jsTarget()).globalFences, true);
  assert.match((targetFacts(wgslTarget()).globalFences as { refused: string }).refused, 'within a work-group');
  assert.match(
    (targetFacts({ name: 'bare', generate: jsTarget().generate }).globalFences as { refused: string }).refused,
    'it has no device-wide memory fence',
  );
});

test.run();
