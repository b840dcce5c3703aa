/**
 * The kernel tab: a kernel edited field by field (domain, instructions, a chain of
 * transformations, the value arguments), its view, WGSL and OpenCL C and its dependency
 * graph (graph-pane.ts) as you type, and
 * "Run": the GPU's outputs checked against the CPU device's, the time of a launch on the
 * GPU, the operation and memory counts and the roofline point (stats.ts); "Auto-schedule":
 * the transformations `autoSchedule` finds on the GPU, to append to the chain (auto-schedule.ts).
 *
 * Nothing stale is ever shown: any edit clears the results, timings and statistics of the
 * last run (a run still under way when the fields change is dropped when it ends), and an
 * error found while typing stays on the page when Run is pressed: the kernel does not run.
 */
import { openclTarget } from '@loom/codegen-opencl';
import { wgslTarget } from '@loom/codegen-wgsl';
import { kernel } from '@loom/dsl';
import { autoScheduleInto } from './auto-schedule.ts';
import { applyChain, parseLiteral, type Builder } from './chain.ts';
import { checkKernel, type Devices } from './check.ts';
import type { CodeEditor } from './editor.ts';
import type { GraphPane } from './graph-pane.ts';
import { attempt, element, firstLine, showError, type CodePane } from './page.ts';
import { showComparisons } from './results.ts';
import { rooflineChart } from './roofline.ts';
import { duration, kernelStatistics, si, type KernelStatistics } from './stats.ts';

export interface KernelFields {
  readonly domain: CodeEditor;
  readonly instructions: CodeEditor;
  readonly chain: CodeEditor;
  readonly values: CodeEditor;
}

export interface KernelPanes {
  readonly view: CodePane;
  readonly wgsl: CodePane;
  readonly opencl: CodePane;
  readonly graph: GraphPane;
}

export class KernelTab {
  /** Counts edits: a run that started before the last edit shows nothing when it ends. */
  #revision = 0;
  #builder: Builder | undefined;
  #error: unknown;

  constructor(
    private readonly fields: KernelFields,
    private readonly panes: KernelPanes,
    private readonly devices: Devices,
  ) {
    element('run-kernel').addEventListener('click', () => void this.run());
    element('auto-schedule').addEventListener('click', () => void this.autoSchedule());
  }

  /** The fields changed: what the last run showed no longer holds; the code is generated again. */
  changed(): void {
    this.#revision++;
    this.#clearRun();
    // a search's chain belongs to the kernel it searched
    window.playground.autoSchedule = undefined;
    const auto = element('kernel-auto');
    auto.replaceChildren();
    delete auto.dataset.state;
    const built = attempt(() =>
      applyChain(kernel(this.fields.domain.value(), this.fields.instructions.value()), this.fields.chain.value()),
    );
    this.#builder = built.value;
    this.#error = built.error;
    showError(element('kernel-error'), built.error);
    const builder = built.value;
    if (!builder) {
      const why = `the kernel has an error: ${firstLine(built.error)}`;
      for (const pane of [this.panes.view, this.panes.wgsl, this.panes.opencl]) pane.blank(why);
      void this.panes.graph.show(undefined, why);
      return;
    }
    this.panes.view.show(builder.toString());
    void this.panes.graph.show(builder, '');
    for (const [pane, target, name] of [
      [this.panes.wgsl, wgslTarget, 'WGSL'],
      [this.panes.opencl, openclTarget, 'OpenCL C'],
    ] as const) {
      const code = attempt(() => builder.code(target()));
      if (code.value !== undefined) pane.show(code.value);
      else pane.blank(`${name} cannot be generated for this kernel: ${firstLine(code.error)}`);
    }
  }

  async run(): Promise<void> {
    const result = element('kernel-result');
    const revision = this.#revision;
    this.#clearRun();
    if (!this.#builder) {
      // the error found while typing stays where it is: nothing ran
      showError(element('kernel-error'), this.#error);
      result.dataset.state = 'error';
      result.textContent = 'Not run: the kernel has an error (above).';
      return;
    }
    const builder = this.#builder;
    result.dataset.state = 'running';
    result.textContent = 'Running…';
    try {
      const values = parseLiteral(this.fields.values.value()) as Record<string, number>;
      const check = await checkKernel(builder, values, this.devices);
      if (revision !== this.#revision) return;
      window.playground.kernel = check;
      showComparisons(result, check.comparisons, this.devices);
      await this.#showStatistics(builder, values, revision);
    } catch (error) {
      if (revision !== this.#revision) return;
      showError(element('kernel-error'), error);
      result.dataset.state = 'error';
      result.textContent = 'The run failed (the error is above).';
    }
  }

  /** Searches transformations of the kernel as it stands; its chain can then be appended to the field. */
  async autoSchedule(): Promise<void> {
    const box = element('kernel-auto');
    const revision = this.#revision;
    if (!this.#builder) {
      showError(element('kernel-error'), this.#error);
      box.dataset.state = 'error';
      box.textContent = 'Not searched: the kernel has an error (above).';
      return;
    }
    const sizes = parseLiteral(this.fields.values.value()) as Record<string, number>;
    const state = await autoScheduleInto(
      box,
      this.#builder,
      sizes,
      this.devices,
      () => revision !== this.#revision,
      (script) => {
        const chain = this.fields.chain.value().trimEnd();
        this.fields.chain.set(chain ? `${chain}\n${script}` : script);
        this.changed();
      },
    );
    if (state) window.playground.autoSchedule = state;
  }

  async #showStatistics(builder: Builder, values: Record<string, number>, revision: number): Promise<void> {
    const box = element('kernel-stats');
    box.dataset.state = 'running';
    box.textContent = 'Timing the kernel and counting its work…';
    const device = this.devices.gpu ?? this.devices.cpu;
    try {
      const stats = await kernelStatistics(builder.kernel, device, values);
      if (revision !== this.#revision) return;
      const { estimate: _, ...shown } = stats;
      window.playground.stats = shown;
      showStatistics(box, stats);
    } catch (error) {
      if (revision !== this.#revision) return;
      box.dataset.state = 'error';
      box.textContent = `No timing or statistics: ${firstLine(error)}`;
    }
  }

  #clearRun(): void {
    window.playground.kernel = undefined;
    window.playground.stats = undefined;
    for (const id of ['kernel-result', 'kernel-stats']) {
      const box = element(id);
      box.replaceChildren();
      delete box.dataset.state;
    }
  }
}

function showStatistics(box: HTMLElement, stats: KernelStatistics): void {
  box.replaceChildren();
  box.dataset.state = 'ok';
  const rows: [string, string, string][] = [
    ['time', `${duration(stats.seconds)} per launch on ${stats.device}`, stats.measuredHow],
    ['flops', si(stats.flops, 'flop'), 'floating-point operations of one launch (a multiply-add is two)'],
    [
      'bytes',
      si(stats.bytes, 'B'),
      stats.estimate.traffic === 'footprint'
        ? 'global memory moved, each element once'
        : 'global memory moved, each access (an upper bound)',
    ],
    [
      'intensity',
      Number.isFinite(stats.intensity) ? `${Number(stats.intensity.toPrecision(4))} flop/B` : 'no memory traffic',
      `${stats.estimate.bound} bound on this device`,
    ],
    [
      'achieved',
      si(stats.flops / stats.seconds, 'flop/s'),
      `the roofline predicts ${duration(stats.estimate.seconds)} per launch`,
    ],
    [
      'roofline',
      `${si(stats.profile.bandwidth, 'B/s')}, ${si(stats.profile.flopRate, 'flop/s')}`,
      'this device, measured in the page (a copy kernel, multiply-add chains)',
    ],
  ];
  const table = document.createElement('table');
  for (const [name, value, note] of rows) {
    const row = table.insertRow();
    row.dataset.stat = name;
    row.insertCell().textContent = name;
    row.insertCell().textContent = value;
    row.insertCell().textContent = note;
  }
  const maps = document.createElement('details');
  const summary = document.createElement('summary');
  summary.textContent = 'Operation and memory access maps (getOpMap, getMemAccessMap: per sub-group of 32)';
  const listing = document.createElement('pre');
  listing.textContent = `${stats.opMap}\n\n${stats.memAccessMap}`;
  maps.append(summary, listing);
  box.append(table, rooflineChart(stats), maps);
}
