/**
 * The kernel tab's dependency graph (loopy's `show_dependency_graph`): the kernel's
 * instructions, their dependencies and its loops, as `getDotDependencyGraph` writes them and
 * Graphviz (`@loom/dsl/graph`, WebAssembly loaded the first time a graph is drawn) lays them
 * out, redrawn as you type. Drawing is asynchronous: a drawing the fields have moved past is
 * dropped when it ends, so the pane never shows an older kernel's graph.
 */
import { collectWarnings } from '@loom/core';
import type { Builder } from './chain.ts';
import { attempt, element, firstLine } from './page.ts';

/** What the pane last drew, for the end-to-end test: the DOT text, and why loops are not drawn, if they are not. */
export interface GraphState {
  readonly dot: string;
  readonly note?: string | undefined;
}

export class GraphPane {
  #drawing = 0;

  constructor(
    private readonly box: HTMLElement,
    private readonly why: HTMLElement,
  ) {}

  /** Draws the graph of `builder`'s kernel; blank with `reason` where there is none. */
  async show(builder: Builder | undefined, reason: string): Promise<void> {
    const drawing = ++this.#drawing;
    window.playground.graph = undefined;
    this.box.dataset.state = 'drawing';
    if (!builder) return this.#blank(reason);
    const built = attempt(() => collectWarnings(() => builder.dotDependencyGraph()));
    if (built.value === undefined) return this.#blank(`no graph for this kernel: ${firstLine(built.error)}`);
    const { result: dot, warnings } = built.value;
    // the one warning getDotDependencyGraph gives: the loops are not drawn, and why
    const note = warnings.length ? warnings.map((w) => w.message).join('; ') : undefined;
    try {
      const { renderDotAsSvg } = await import('@loom/dsl/graph');
      const svg = await renderDotAsSvg(dot);
      if (drawing !== this.#drawing) return;
      this.box.innerHTML = svg.slice(svg.indexOf('<svg'));
      this.why.hidden = note === undefined;
      this.why.textContent = note ?? '';
      this.box.dataset.state = 'ok';
      window.playground.graph = { dot, note };
    } catch (error) {
      if (drawing === this.#drawing) this.#blank(`the graph cannot be drawn: ${firstLine(error)}`);
    }
  }

  #blank(reason: string): void {
    this.box.replaceChildren();
    this.box.dataset.state = 'blank';
    this.why.textContent = reason;
    this.why.hidden = false;
  }
}

/** The pane of the page's `#kernel-graph`. */
export const graphPane = (): GraphPane => new GraphPane(element('kernel-graph'), element('kernel-graph-why'));
