/**
 * `reduce` whose last work-group combines the work-groups' values in the same launch (`combine:
 * 'last-group'`, a fence and an atomic ticket): against plain JS on every test device, for sums
 * and the other commutative predicates, one row and a few, sizes that are no power of two,
 * called again and again on one compiled computation (its counters set back to 0 each time), with
 * the same bits every call; by default one kernel where the device fences, fetches and runs its
 * work-items side by side, two where it does not (WGSL, the CPU devices) or where asked;
 * impossible requests refused.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateCode, LoomError, targetFacts } from '@loom/core';
import { openclTarget } from '@loom/codegen-opencl';
import { deviceParameters, predicate, predicateMax, predicateSum, reduce, type ReduceOptions } from '@loom/computation';
import { finishCall, flatten } from '../packages/computation/src/computation/flatten.ts';
import { testDevices } from './support/devices.ts';
import { H200_OPENCL, H200_WGSL } from './support/h200-parameters.ts';
import { reduceRef, sizeOf } from './support/ndarray.ts';
import { COMMUTATIVE, seeded } from './support/predicates.ts';

type Device = ReturnType<typeof testDevices>[number];
/** Whether the device's target can combine in the last work-group (its facts, as reduce asks). */
const lastGroupOn = (device: Device) => {
  const facts = targetFacts(device.target);
  return facts.globalFences === true && 'dtypes' in facts.atomicFetches;
};
/** The last work-group asked for where the device can (the CPU devices too, which default to the next pass). */
const lastGroupWhereItCan = (device: Device): ReduceOptions => (lastGroupOn(device) ? { combine: 'last-group' } : {});

const SHAPES: readonly {
  readonly shape: readonly number[];
  readonly axes?: readonly number[];
  readonly why: string;
}[] = [
  { shape: [5000], why: 'a few work-groups, the last partial' },
  { shape: [100_003], why: 'many work-groups, a prime length' },
  { shape: [3, 70_001], axes: [1], why: 'three rows, each with its own counter' },
];

for (const { shape, axes, why } of SHAPES) {
  test(`reduce over (${shape}) combined by the last work-group, call after call: ${why}`, async () => {
    const all = axes ?? shape.map((_, k) => k);
    for (const [j, p] of COMMUTATIVE.entries()) {
      for (const device of testDevices()) {
        const cut = { workGroupSize: 64, perItem: 4, ...lastGroupWhereItCan(device) };
        const compiled = await reduce({ dtype: 'int32', shape }, p.predicate, axes, cut).compile(device);
        for (let call = 0; call < 3; call++) {
          const a = p.draw(sizeOf(shape), seeded(1000 * j + 10 * call + shape.length));
          const { output } = await compiled(undefined, a);
          assert.equal(
            [...(output as Int32Array)],
            reduceRef(a, shape, all, p.op, p.predicate.empty),
            `${device.name}: ${p.name}, call ${call}`,
          );
        }
      }
    }
  });
}

test('a float sum combined by the last work-group gives the same bits every call, as plain JS within rounding', async () => {
  for (const length of [4097, 1_000_003]) {
    const a = Float32Array.from({ length }, (_, k) => Math.sin(k) * 1e3);
    const exact = a.reduce((s, v) => s + v, 0);
    for (const device of testDevices()) {
      const comp = reduce(
        { dtype: 'float32', shape: [length] },
        predicateSum('float32'),
        undefined,
        lastGroupWhereItCan(device),
      );
      const compiled = await comp.compile(device);
      const sums = [];
      for (let call = 0; call < 4; call++) sums.push(((await compiled(undefined, a)).output as Float32Array)[0]);
      assert.ok(Math.abs(sums[0] - exact) <= 1e-4 * Math.abs(exact) + 1e-2, `${device.name}: ${sums[0]} vs ${exact}`);
      assert.equal(sums, [sums[0], sums[0], sums[0], sums[0]], `${device.name}: the same bits every call`);
    }
  }
});

test("one kernel where the device's target fences and fetches (the default there), else the next pass", () => {
  const kernels = (options: ReduceOptions, device = H200_OPENCL) =>
    flatten(reduce({ dtype: 'float32', shape: [2 ** 26] }, predicateSum('float32'), undefined, options), device).map(
      (c) => finishCall(c, 'test').kernel.name,
    );
  assert.equal(kernels({}), ['reduce_last_group']);
  assert.equal(kernels({ combine: 'last-group' }), ['reduce_last_group']);
  assert.equal(kernels({ combine: 'next-pass' }), ['reduce_tree', 'reduce_tree']);
  assert.equal(kernels({}, H200_WGSL), ['reduce_tree', 'reduce_tree']);
  // a predicate not declared commutative keeps the order: the next pass
  const ordered = predicate('a + b', 0);
  assert.equal(
    flatten(reduce({ dtype: 'float32', shape: [2 ** 20] }, ordered), H200_OPENCL).map(
      (c) => finishCall(c, 't').kernel.name,
    ),
    ['reduce_tree', 'reduce_tree'],
  );
  // each test device: a kernel fewer where it can and runs work-items side by side (PoCL's OpenCL),
  // the next pass where they run one after another (the CPU device, C: the last work-group's
  // barriers cost more there than a launch) or where it cannot fence (WGSL)
  for (const device of testDevices()) {
    const comp = reduce({ dtype: 'float32', shape: [100_003] }, predicateMax('float32'), undefined, {
      workGroupSize: 64,
      perItem: 4,
    });
    const names = flatten(comp, deviceParameters(device)).map((c) => finishCall(c, 't').kernel.name);
    const sideBySide = !targetFacts(device.target).sequentialWorkItems;
    assert.equal(
      names,
      lastGroupOn(device) && sideBySide ? ['reduce_last_group'] : ['reduce_tree', 'reduce_tree', 'reduce_tree'],
      device.name,
    );
  }
});

test('the last work-group fences, takes its ticket, fences again, and resets the counter it read', () => {
  const [call] = flatten(reduce({ dtype: 'float32', shape: [2 ** 26] }, predicateSum('float32')), H200_OPENCL);
  const code = generateCode(finishCall(call!, 'test').kernel, openclTarget()).code;
  const lines = code.split('\n').map((l) => l.trim());
  const at = (text: string) => lines.findIndex((l) => l.startsWith(text));
  const order = [
    'partial[',
    'mem_fence(CLK_GLOBAL_MEM_FENCE);',
    'ticket = atomic_inc(&counter[gid(1)]);',
    'last[0] = ticket == 1023 ? 1 : 0;',
  ].map(at);
  assert.ok(
    order.every((k, i) => k >= 0 && (i === 0 || k > order[i - 1]!)),
    `in order: ${order}`,
  );
  assert.is(lines.filter((l) => l === 'mem_fence(CLK_GLOBAL_MEM_FENCE);').length, 2);
  assert.ok(at('counter[gid(1)] = 0;') > at('out[0] = '), 'the counter is reset after the result is written');
});

test('impossible requests are LoomErrors', () => {
  const arr = { dtype: 'float32' as const, shape: [1 << 20] };
  const refusedWith = (f: () => unknown, message: string) => {
    try {
      f();
      assert.unreachable(`accepted: ${message}`);
    } catch (e) {
      assert.instance(e, LoomError);
      assert.match((e as Error).message, message);
    }
  };
  refusedWith(
    () => flatten(reduce(arr, predicateSum('float32'), undefined, { combine: 'last-group' }), H200_WGSL),
    "reduce: combine 'last-group' cannot be done: the wgsl target has no device-wide fence: WGSL orders memory only within a work-group",
  );
  refusedWith(
    () => reduce(arr, predicate('a + b', 0), undefined, { combine: 'last-group' }),
    "combine 'last-group' needs a commutative predicate",
  );
  refusedWith(
    () => reduce(arr, predicateSum('float32'), undefined, { combine: 'first-group' as 'last-group' }),
    "reduce: combine is 'last-group' or 'next-pass', got \"first-group\"",
  );
  refusedWith(
    () => reduce(arr, predicateSum('float32'), undefined, { combined: 'last-group' } as ReduceOptions),
    "did you mean 'combine'",
  );
  refusedWith(
    () =>
      flatten(
        reduce({ dtype: 'float32', shape: [4, 5, 100_000] }, predicateSum('float32'), [2], { combine: 'last-group' }),
        H200_OPENCL,
      ),
    'the output is not written by row',
  );
});

test.run();
