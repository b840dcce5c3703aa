/**
 * The kernels of bench/auto-schedule.ts at tiny sizes: each auto-scheduled kernel, and the
 * hand-transformed one it is compared with, compute what plain JavaScript computes (the bench
 * times them; this checks them), on the CPU device and OpenCL.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { autoSchedule, measuredArrays, run, type Device, type LoopKernel } from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { AUTO_SCHEDULE_CASES, kendallTau, kendallTauB } from '../bench/auto-schedule-kernels.ts';
import { randomFloat32, testDevices } from './support/devices.ts';

const cpu = cpuDevice();
const PROFILE = { device: 'test', bandwidth: 1e11, flopRate: 1e12, launchOverhead: 1e-5 };
const devices = testDevices().filter((d) => d.name === cpu.name || d.name.startsWith('OpenCL'));

/** The arrays of `knl` at `sizes`, made up (floats in [-1, 1)), by name. */
function inputsOf(knl: LoopKernel, sizes: Readonly<Record<string, number>>): Record<string, Float32Array> {
  return Object.fromEntries(measuredArrays(knl, sizes).map((a, k) => [a.name, randomFloat32(a.length, k + 1)]));
}

async function check(device: Device, knl: LoopKernel, c: (typeof AUTO_SCHEDULE_CASES)[number], what: string) {
  const sizes = tiny(c.small);
  const inputs = inputsOf(c.kernel, sizes);
  const want = c.reference(inputs, sizes);
  const copies = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, v.slice()]));
  const got = await run(knl, device, { ...copies, ...(knl.valueArgs.length ? sizes : {}) });
  for (const [name, values] of Object.entries(want)) {
    const out = got[name] as Float32Array;
    assert.is(out.length, values.length, `${what}: ${name}'s length`);
    values.forEach((v, k) => {
      if (!(Math.abs(out[k]! - v) <= 1e-4 * (1 + Math.abs(v))))
        assert.unreachable(`${what}: ${name}[${k}] is ${out[k]}, not ${v}`);
    });
  }
}

const tiny = (sizes: Readonly<Record<string, number>>) =>
  Object.fromEntries(Object.entries(sizes).map(([k, v]) => [k, Math.min(v, k === 'nb' ? 3 : 24)]));

for (const device of devices)
  for (const c of AUTO_SCHEDULE_CASES)
    test(`${device.name}: bench/auto-schedule.ts ${c.name}: auto-scheduled and by hand, the values plain JavaScript computes`, async () => {
      const sizes = tiny(c.small);
      await check(device, c.kernel, c, 'as written');
      const result = await autoSchedule(c.kernel, device, {
        sizes,
        budget: 1,
        measure: 2,
        profile: PROFILE,
        checkDevice: cpu,
        space: { candidates: 6 },
      });
      await check(device, result.kernel, c, `auto-scheduled ${result.script}`);
      const hand = c.hand?.(sizes);
      if (hand) await check(device, hand.kernel, c, hand.from);
    });

test("Kendall's tau-b: tied pairs out of each ranking's count; values within a fraction tied where asked", () => {
  assert.is(kendallTauB([1, 2, 3], [10, 20, 30]), 1);
  // the model ties the first two: the one untied pair of its ranking agrees twice over
  assert.is(kendallTauB([1, 1, 3], [10, 20, 30]), 2 / Math.sqrt(2 * 3));
  // measured 100 and 103 apart by 3%: swapped by the model, a discordant pair; tied within 5%
  assert.is(kendallTauB([1, 2, 3], [103, 100, 200]), 1 / 3);
  assert.is(kendallTauB([1, 2, 3], [103, 100, 200], 0.05), 2 / Math.sqrt(3 * 2));
});

test("Kendall's tau: 1 for the same order, -1 reversed, 0 for as many pairs each way", () => {
  assert.is(kendallTau([1, 2, 3], [10, 20, 30]), 1);
  assert.is(kendallTau([1, 2, 3], [30, 20, 10]), -1);
  assert.is(kendallTau([1, 2, 3, 4], [1, 2, 4, 3]), 4 / 6);
  assert.is(kendallTau([1, 2], [2, 1]), -1);
  assert.ok(Number.isNaN(kendallTau([1], [1])));
});

test.run();
