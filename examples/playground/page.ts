/**
 * What every part of the playground page shares: finding its elements, showing an error,
 * a read-only code pane that says why it is blank, and `window.playground` (what the page
 * last computed, for the end-to-end test and for the curious: open the console).
 */
import type { AutoScheduleState } from './auto-schedule.ts';
import type { KernelCheck, Comparison } from './check.ts';
import type { ComputationCheck } from './computation-check.ts';
import type { CodeEditor } from './editor.ts';
import type { GraphState } from './graph-pane.ts';
import type { KernelStatistics } from './stats.ts';

export interface PlaygroundState {
  device: string;
  /** The page has restored its state and shown its first kernel. */
  ready: boolean;
  kernel?: KernelCheck | undefined;
  stats?: Omit<KernelStatistics, 'estimate'> | undefined;
  /** What the kernel tab's "Auto-schedule" found. */
  autoSchedule?: AutoScheduleState | undefined;
  /** The kernel tab's dependency graph, once drawn. */
  graph?: GraphState | undefined;
  pointwise?: readonly Comparison[] | undefined;
  computation?: ComputationCheck | undefined;
  /** The whole text of the editor or code pane of this id (CodeMirror draws only the lines in view). */
  text(id: string): string;
}
declare global {
  interface Window {
    playground: PlaygroundState;
  }
}

export const element = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no element '${id}'`);
  return found as T;
};

/** An error as the page shows it: `LoomError: message` (a LoomError's message ends with its caret). */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Shows `error` in the <pre> `box`; `undefined` hides the box. */
export function showError(box: HTMLElement, error: unknown): void {
  box.hidden = error === undefined;
  box.textContent = error === undefined ? '' : describeError(error);
}

/** `action`'s value, or the error it threw. */
export function attempt<T>(action: () => T): { value: T; error?: undefined } | { value?: undefined; error: unknown } {
  try {
    return { value: action() };
  } catch (error) {
    return { error };
  }
}

/**
 * A read-only code pane: the code, or, where there is none, a line that says why (the pane's
 * `<p class="why">`, whose text the pane's `data-why` attribute repeats).
 */
export class CodePane {
  constructor(
    readonly editor: CodeEditor,
    private readonly why: HTMLElement,
  ) {}

  show(code: string): void {
    this.editor.set(code);
    this.why.hidden = true;
    this.why.textContent = '';
    (this.editor.view.dom.parentElement ?? this.editor.view.dom).hidden = false;
  }

  blank(reason: string): void {
    this.editor.set('');
    this.why.textContent = reason;
    this.why.hidden = false;
    (this.editor.view.dom.parentElement ?? this.editor.view.dom).hidden = true;
  }
}

/** The first line of an error's message: enough to say why a pane is blank. */
export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}
