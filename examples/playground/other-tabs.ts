/**
 * The pointwise tab (a JavaScript arrow function run elementwise on random tensors) and the
 * computation tab (@loom/computation's Reduce, Scan, Transpose, MatrixMul checked against
 * plain JavaScript). As on the kernel tab, an edit clears what the last run showed.
 */
import { parseLiteral } from './chain.ts';
import { checkPointwise, type Devices } from './check.ts';
import { checkComputation, type ComputationCheck } from './computation-check.ts';
import type { CodeEditor } from './editor.ts';
import { element, firstLine, showError, type CodePane } from './page.ts';
import { first, showComparisons } from './results.ts';
import type { ComputationInputs } from './url-state.ts';

/** Runs of the tab that started before its last edit are dropped when they end. */
abstract class Tab {
  protected revision = 0;

  constructor(
    protected readonly prefix: string,
    protected readonly devices: Devices,
  ) {
    element(`run-${prefix}`).addEventListener('click', () => void this.run());
  }

  changed(): void {
    this.revision++;
    this.clear();
  }

  protected clear(): void {
    const result = element(`${this.prefix}-result`);
    result.replaceChildren();
    delete result.dataset.state;
    showError(element(`${this.prefix}-error`), undefined);
  }

  async run(): Promise<void> {
    const revision = this.revision;
    this.clear();
    const result = element(`${this.prefix}-result`);
    result.dataset.state = 'running';
    result.textContent = 'Running…';
    try {
      await this.compute(() => revision === this.revision);
    } catch (error) {
      if (revision !== this.revision) return;
      showError(element(`${this.prefix}-error`), error);
      result.dataset.state = 'error';
      result.textContent = 'The run failed (the error is above).';
    }
  }

  /** Computes and shows; `current()` says whether the tab is still as it was when the run began. */
  protected abstract compute(current: () => boolean): Promise<void>;
}

export class PointwiseTab extends Tab {
  constructor(
    private readonly fields: { readonly payload: CodeEditor; readonly shape: CodeEditor },
    private readonly code: CodePane,
    devices: Devices,
  ) {
    super('pointwise', devices);
    code.blank('Run the function to see its generated kernel.');
  }

  protected override clear(): void {
    super.clear();
    window.playground.pointwise = undefined;
    this.code.blank('Run the function to see its generated kernel.');
  }

  protected async compute(current: () => boolean): Promise<void> {
    try {
      const result = await checkPointwise(
        this.fields.payload.value(),
        parseLiteral(this.fields.shape.value()) as number[],
        this.devices,
      );
      if (!current()) return;
      this.code.show(result.code);
      window.playground.pointwise = result.comparisons;
      showComparisons(element('pointwise-result'), result.comparisons, this.devices);
    } catch (error) {
      if (current()) this.code.blank(`No kernel: the function has an error: ${firstLine(error)}`);
      throw error;
    }
  }
}

export class ComputationTab extends Tab {
  constructor(
    private readonly inputs: () => ComputationInputs,
    private readonly code: CodePane,
    devices: Devices,
  ) {
    super('computation', devices);
    code.blank('Run the computation to see its kernels.');
  }

  protected override clear(): void {
    super.clear();
    window.playground.computation = undefined;
    this.code.blank('Run the computation to see its kernels.');
  }

  protected async compute(current: () => boolean): Promise<void> {
    let check: ComputationCheck;
    try {
      check = await checkComputation(this.inputs(), this.devices);
    } catch (error) {
      if (current()) this.code.blank(`No kernels: ${firstLine(error)}`);
      throw error;
    }
    if (!current()) return;
    window.playground.computation = check;
    this.code.show(
      check.code.map((code, k) => `// ---- kernel ${k + 1} of ${check.code.length}\n${code}`).join('\n\n'),
    );
    const result = element('computation-result');
    result.replaceChildren();
    result.dataset.state = check.checks.some((c) => c.mismatches.length > 0) ? 'mismatch' : 'ok';
    for (const c of check.checks) {
      const line = document.createElement('p');
      const k = c.mismatches[0];
      line.textContent =
        c.mismatches.length === 0
          ? `${c.device}: ${c.reference.length} of ${c.reference.length} elements match plain JavaScript — [${first(c.output)}…]`
          : `${c.device}: ${c.mismatches.length} of ${c.reference.length} elements differ from plain JavaScript, the first at index ${k}: ${c.output[k]}, JavaScript ${c.reference[k]}`;
      line.className = c.mismatches.length === 0 ? 'ok' : 'mismatch';
      result.append(line);
    }
  }
}
