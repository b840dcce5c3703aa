/**
 * "Auto-schedule": `autoSchedule` on the kernel as it stands (its chain included), on the
 * page's GPU with a small budget, every candidate first checked against the kernel as written
 * on the CPU device. The pane shows the search as it goes, then the chain it found beside the
 * times it measured, and "Append to the chain" adds that chain to the transformations field,
 * so that Run shows the transformed kernel's code, outputs and roofline point.
 */
import type { AutoScheduleProgress } from '@loom/core';
import type { Builder } from './chain.ts';
import type { Devices } from './check.ts';
import { firstLine } from './page.ts';
import { duration } from './stats.ts';

/** Seconds of measuring a page's search may take: a few candidates on a small GPU. */
export const AUTO_SCHEDULE_BUDGET = 4;

/** What the pane found, kept in `window.playground.autoSchedule` for the end-to-end test. */
export interface AutoScheduleState {
  /** The chain found (builder verbs, in the transformations field's syntax; empty: the kernel as it is). */
  readonly script: string;
  /** Each measured candidate's chain and seconds per launch (or why it failed). */
  readonly measured: readonly { readonly script: string; readonly seconds?: number; readonly failure?: string }[];
  readonly device: string;
}

/**
 * Searches `builder`'s transformations at the value arguments `sizes` and fills `box`;
 * `stale()` says the fields changed meanwhile (nothing is shown then), `append(script)` is
 * what the pane's button does.
 */
export async function autoScheduleInto(
  box: HTMLElement,
  builder: Builder,
  sizes: Readonly<Record<string, number>>,
  devices: Devices,
  stale: () => boolean,
  append: (script: string) => void,
): Promise<AutoScheduleState | undefined> {
  const device = devices.gpu ?? devices.cpu;
  box.replaceChildren();
  box.dataset.state = 'running';
  box.textContent = `Searching transformations on ${device.name}…`;
  const progress = (p: AutoScheduleProgress) => {
    if (stale()) return;
    const best = p.bestSeconds === undefined ? '' : `, best so far ${duration(p.bestSeconds)}`;
    box.textContent = `${PHASES[p.phase]}: ${p.done} of ${p.total}${best}`;
  };
  try {
    const found = await builder.autoSchedule(device, {
      budget: AUTO_SCHEDULE_BUDGET,
      sizes,
      checkDevice: devices.cpu,
      onProgress: progress,
      measure: 3,
    });
    if (stale()) return undefined;
    const state: AutoScheduleState = {
      script: found.script,
      measured: found.measured.map(({ script, seconds, failure }) => ({ script, seconds, failure })),
      device: device.name,
    };
    show(box, state, append);
    return state;
  } catch (error) {
    if (stale()) return undefined;
    box.dataset.state = 'error';
    box.textContent = `No schedule: ${firstLine(error)}`;
    return undefined;
  }
}

const PHASES: Readonly<Record<AutoScheduleProgress['phase'], string>> = {
  rank: 'Ranking candidates by the cost model',
  check: 'Checking candidates against the CPU device',
  measure: 'Measuring on the GPU',
};

function show(box: HTMLElement, state: AutoScheduleState, append: (script: string) => void): void {
  box.replaceChildren();
  box.dataset.state = 'ok';
  const heading = document.createElement('p');
  heading.textContent = state.script
    ? `The fastest on ${state.device}, as transformations to append:`
    : `On ${state.device} the kernel as it stands was the fastest: nothing to append.`;
  box.append(heading);
  if (state.script) {
    const code = document.createElement('pre');
    code.dataset.script = '';
    code.textContent = state.script;
    const button = document.createElement('button');
    button.id = 'append-schedule';
    button.textContent = 'Append to the chain';
    button.addEventListener('click', () => append(state.script));
    box.append(code, button);
  }
  const table = document.createElement('table');
  for (const m of state.measured) {
    const row = table.insertRow();
    row.insertCell().textContent = m.seconds === undefined ? `failed: ${m.failure ?? 'unknown'}` : duration(m.seconds);
    row.insertCell().textContent = m.script || '(the kernel as it stands)';
  }
  box.append(table);
}
