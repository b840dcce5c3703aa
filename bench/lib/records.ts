/**
 * What every benchmark prints: one JSON line per measurement, in the shape that
 * `bench/results/h100.json` keeps (issue 7), and a readable table at the end.
 *
 * A measurement knows its reference when the reference was measured in the same
 * process (a hand-written kernel, a raw dispatch, a target). PyTorch's figures come
 * from another process (`bench/torch_side.py`); `bench/report.ts` pairs them up.
 */

export type Bench =
  | 'elementwise'
  | 'matmul'
  | 'codegen'
  | 'launch'
  | 'statistics'
  | 'reductions'
  | 'roofline'
  | 'computations'
  | 'cbrng'
  | 'fft'
  | 'c-device';
export type Backend = 'opencl' | 'webgpu' | 'cuda' | 'cpu' | 'c';

/** Every backend a benchmark can run on, in the order they are opened and reported. */
export const BACKENDS: readonly Backend[] = ['opencl', 'webgpu', 'cuda', 'cpu', 'c'];

export interface Measurement {
  readonly bench: Bench;
  readonly backend: Backend;
  readonly case: string;
  /** Elements, matrix order n, or kernel count: what the case is scaled by. */
  readonly size: number;
  readonly value: number;
  readonly unit: Unit;
  readonly reference: string | null;
  readonly referenceValue: number | null;
  /** ours/reference for throughputs, reference/ours for times: higher is better either way. */
  readonly ratio: number | null;
  readonly date: string;
}

/** A measurement line also says where it ran (dropped from h100.json, kept in BENCHMARKS.md). */
export interface MeasurementLine extends Measurement {
  readonly device: string;
  readonly note?: string;
  /** Figures a bench's own section of the report shows (the roofline's intensity and bound). */
  readonly details?: Readonly<Record<string, string | number>>;
}

export type Unit = 'GB/s' | 'TFLOP/s' | 'GFLOP/s' | 'ms' | 'us';

export const isTime = (unit: string): boolean => unit === 'ms' || unit === 'us';

export function ratioOf(unit: string, value: number, reference: number | null | undefined): number | null {
  if (reference === null || reference === undefined || !(value > 0) || !(reference > 0)) return null;
  return isTime(unit) ? reference / value : value / reference;
}

export const today = (): string => new Date().toISOString().slice(0, 10);

/** Collects measurements, prints each as it comes (JSON mode) and a table at the end. */
export class Reporter {
  private readonly lines: MeasurementLine[] = [];

  constructor(private readonly json: boolean) {}

  add(
    m: Omit<MeasurementLine, 'ratio' | 'date' | 'reference' | 'referenceValue'> & {
      reference?: string | null;
      referenceValue?: number | null;
    },
  ): void {
    const line: MeasurementLine = {
      ...m,
      value: round(m.value),
      reference: m.reference ?? null,
      referenceValue: m.referenceValue === undefined || m.referenceValue === null ? null : round(m.referenceValue),
      ratio: roundRatio(ratioOf(m.unit, m.value, m.referenceValue)),
      date: today(),
    };
    this.lines.push(line);
    // printed at once, so that a run cut short still leaves what it measured
    if (this.json) console.log(JSON.stringify(line));
    else
      progress(
        `  ${line.backend} ${line.case} ${line.size}: ${line.value} ${line.unit}${line.ratio === null ? '' : ` (${line.ratio}x ${line.reference})`}`,
      );
  }

  /** Extra facts (device names, configurations found): a JSON line of their own in JSON mode. */
  info(what: string, facts: Record<string, unknown>): void {
    if (this.json) console.log(JSON.stringify({ info: what, ...facts, date: today() }));
    else progress(`  ${what}: ${JSON.stringify(facts)}`);
  }

  /** The table: on stdout normally, on stderr in JSON mode (stdout stays JSON lines only). */
  printTable(title: string): void {
    const text = formatTable(title, this.lines);
    if (this.json) process.stderr.write(`${text}\n`);
    else console.log(text);
  }
}

/** Progress and notices go to stderr, never between the JSON lines. */
export function progress(text: string): void {
  process.stderr.write(`${text}\n`);
}

export function formatTable(title: string, lines: readonly MeasurementLine[]): string {
  const header = ['backend', 'case', 'size', 'value', 'reference', 'ratio'];
  const rows = lines.map((l) => [
    l.backend,
    l.case,
    String(l.size),
    `${l.value} ${l.unit}`,
    l.referenceValue === null ? '' : `${l.referenceValue} ${l.unit} (${l.reference})`,
    l.ratio === null ? '' : `${l.ratio}x`,
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const row = (cells: string[]) =>
    cells
      .map((cell, c) => cell.padEnd(widths[c]))
      .join('  ')
      .trimEnd();
  return [`\n${title}`, row(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(row)].join('\n');
}

/** Four significant digits: enough for benchmarks, short in JSON. */
export function round(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  return Number(x.toPrecision(4));
}

function roundRatio(x: number | null): number | null {
  return x === null ? null : Math.round(x * 1000) / 1000;
}
