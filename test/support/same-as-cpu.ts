/**
 * A kernel run on a device and on the CPU device, every output compared: how the WebGPU device
 * tests check it computes what the reference computes.
 */
import * as assert from 'uvu/assert';
import { run, type Device, type HostArray, type LoopKernel, type RunArgument } from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { assertClose } from './devices.ts';

const cpu = cpuDevice();

/** A copy of every array argument, so that the two devices never share data they write. */
function copyArgs(args: Readonly<Record<string, RunArgument>>): Record<string, RunArgument> {
  return Object.fromEntries(
    Object.entries(args).map(([k, v]) => [k, ArrayBuffer.isView(v) ? (v as HostArray).slice() : v]),
  );
}

/**
 * Runs `knl` on WebGPU and on the CPU and compares every output: exactly, or within `rtol`
 * (relative, with as much absolute tolerance) for float arithmetic.
 */
export async function sameAsCpu(
  gpu: Device,
  knl: LoopKernel,
  args: Readonly<Record<string, RunArgument>>,
  rtol = 0,
): Promise<Record<string, Numbers>> {
  const expected = await run(knl, cpu, copyArgs(args));
  const actual = await run(knl, gpu, copyArgs(args));
  assert.equal(Object.keys(actual).sort(), Object.keys(expected).sort());
  for (const [name, e] of Object.entries(expected)) {
    const a = actual[name] as HostArray;
    assert.is(a.constructor, (e as HostArray).constructor, name);
    if (rtol === 0) assert.equal(Array.from(a as ArrayLike<number>), Array.from(e as ArrayLike<number>), name);
    else assertClose(a as ArrayLike<number>, e as ArrayLike<number>, name, rtol, rtol);
  }
  return actual as Record<string, Numbers>;
}

/** WebGPU has no 64-bit integers: every array here holds numbers. */
export type Numbers = Exclude<HostArray, BigInt64Array | BigUint64Array>;
