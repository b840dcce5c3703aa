/**
 * The device memory a compiled computation owns: its persistent arrays, uploaded once, and
 * its temporaries. Temporaries whose uses do not overlap share a buffer, as Reikna's
 * temporary-memory manager arranges: a temporary lives from the first kernel that uses it
 * to the last, and one that starts after another has ended takes that one's buffer
 * (growing it if it is larger). Kernels run in order, so a buffer is never used by two
 * live temporaries at once.
 */
import { byteSize, DeviceArray, type Device, type DeviceBuffer } from '@loom/core';
import type { FusedCall } from './flatten.ts';
import type { PersistentArray, TempArray } from './plan.ts';

export interface OwnedMemory {
  readonly temporaries: ReadonlyMap<TempArray, DeviceArray>;
  readonly persistent: ReadonlyMap<PersistentArray, DeviceArray>;
  /** Buffers in all, for tests and inspection: fewer than temporaries when some share. */
  readonly temporaryBuffers: number;
  release(): void;
}

export async function allocateMemory(device: Device, calls: readonly FusedCall[]): Promise<OwnedMemory> {
  const lifetimes = new Map<TempArray, { first: number; last: number }>();
  const persistent = new Map<PersistentArray, DeviceArray>();
  const buffers: DeviceBuffer[] = [];
  try {
    for (const [k, call] of calls.entries()) {
      for (const bound of call.bindings.values()) {
        if (bound.kind === 'temporary') {
          const life = lifetimes.get(bound.array);
          lifetimes.set(bound.array, { first: life?.first ?? k, last: k });
        } else if (bound.kind === 'persistent' && !persistent.has(bound.array)) {
          const { data, dtype, shape } = bound.array;
          persistent.set(bound.array, await DeviceArray.from(device, data, dtype, shape));
        }
      }
    }
    const assignment = shareBuffers(lifetimes);
    const sizes = new Map<number, number>();
    for (const [temp, slot] of assignment) sizes.set(slot, Math.max(sizes.get(slot) ?? 4, bytesOf(temp)));
    for (let slot = 0; slot < sizes.size; slot++) buffers.push(device.allocate(sizes.get(slot)!));
    const temporaries = new Map(
      [...assignment].map(([temp, slot]) => [temp, new DeviceArray(device, buffers[slot], temp.dtype, temp.shape)]),
    );
    return {
      temporaries,
      persistent,
      temporaryBuffers: buffers.length,
      release() {
        for (const b of buffers.splice(0)) device.release(b);
        for (const a of persistent.values()) a.release();
        persistent.clear();
      },
    };
  } catch (e) {
    for (const b of buffers) device.release(b);
    for (const a of persistent.values()) a.release();
    throw e;
  }
}

/** Each temporary's buffer slot: in order of first use, a slot whose last user has finished, else a new one. */
export function shareBuffers(
  lifetimes: ReadonlyMap<TempArray, { first: number; last: number }>,
): Map<TempArray, number> {
  const byStart = [...lifetimes].sort((a, b) => a[1].first - b[1].first || a[0].id - b[0].id);
  const slots: { freeAfter: number; bytes: number }[] = [];
  const out = new Map<TempArray, number>();
  for (const [temp, life] of byStart) {
    // among the free slots, the smallest that fits, else the largest (which grows)
    const free = slots.map((s, k) => ({ ...s, k })).filter((s) => s.freeAfter < life.first);
    const fits = free.filter((s) => s.bytes >= bytesOf(temp)).sort((a, b) => a.bytes - b.bytes);
    const chosen = fits[0] ?? free.sort((a, b) => b.bytes - a.bytes)[0];
    const slot = chosen?.k ?? slots.push({ freeAfter: -1, bytes: 0 }) - 1;
    slots[slot] = { freeAfter: life.last, bytes: Math.max(slots[slot].bytes, bytesOf(temp)) };
    out.set(temp, slot);
  }
  return out;
}

function bytesOf(t: TempArray): number {
  return Math.max(4, t.shape.reduce((a, b) => a * b, 1) * byteSize(t.dtype));
}
