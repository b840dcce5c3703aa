/**
 * A kernel split at its global barriers: the device kernels (each a part of the
 * schedule), and the host schedule that launches them. A global barrier inside a
 * sequential loop makes that loop a host loop (loopy's host program does the same):
 * the host runs it around the launches of the device kernels inside, and passes
 * each of them the loop's value as an argument.
 */
import type { ScheduleItem } from './linearize.ts';

export interface Subkernel {
  readonly name: string;
  readonly schedule: readonly ScheduleItem[];
  /** The host loops around it, outermost first: each device kernel takes their values as arguments. */
  readonly hostInames: readonly string[];
}

export type HostScheduleItem =
  /** Launch `subkernels[subkernel]`. */
  | { readonly kind: 'launch'; readonly subkernel: number }
  /** A `... gbarrier` instruction between two launches. */
  | { readonly kind: 'barrier'; readonly id: string }
  /** A sequential loop the host runs (it holds a global barrier). */
  | { readonly kind: 'loop'; readonly iname: string; readonly body: readonly HostScheduleItem[] };

export interface SplitSchedule {
  readonly subkernels: readonly Subkernel[];
  readonly host: readonly HostScheduleItem[];
}

/** Whether the host schedule runs any loop (then the host program is more than a list of launches). */
export function hasHostLoops(host: readonly HostScheduleItem[]): boolean {
  return host.some((h) => h.kind === 'loop');
}
