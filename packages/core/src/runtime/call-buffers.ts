/**
 * The buffers a call owns beside its arguments: its global temporaries (save slots, user-placed
 * ones; a read-only table written with its values) and the bounds-check flags where the code
 * checks. `run` allocates them for one call; `prepareLaunch` once, for every launch it makes.
 */
import { allocateFlags } from './bounds-flags.ts';
import type { CallPlan } from './call-plan.ts';
import type { Device, DeviceBuffer } from './device.ts';

/** Allocates the call's own buffers into their slots of `buffers`; returns them, for their owner to release. */
export async function allocateCallBuffers(
  device: Device,
  plan: Pick<CallPlan, 'temporaries' | 'checks'>,
  buffers: (DeviceBuffer | undefined)[],
): Promise<DeviceBuffer[]> {
  const owned: DeviceBuffer[] = [];
  for (const t of plan.temporaries) {
    const buffer = device.allocate(Math.max(t.byteLength, 4));
    owned.push(buffer);
    buffers[t.slot] = buffer;
    if (t.initializer) await device.write(buffer, t.initializer);
  }
  if (plan.checks) {
    const flags = await allocateFlags(device, plan.checks);
    owned.push(flags);
    buffers[plan.checks.slot] = flags;
  }
  return owned;
}
