/**
 * Every problem Loom reports to a user is a `LoomError` (or a subclass). When the
 * problem sits in a piece of source text (a domain, an instruction), the error
 * carries that text and the offending span, and its message ends with the line
 * and a caret under the token, so the user sees where without counting columns.
 */

export interface SourceSpan {
  /** The whole text that was being read (a domain string, an instruction block). */
  readonly text: string;
  /** Offset of the first offending character. */
  readonly start: number;
  /** Offset one past the last offending character (at least start + 1 for the caret). */
  readonly end: number;
}

/**
 * The error Loom throws for what it cannot do or was asked wrongly: bad input (with the source span and a
 * caret where there is one), a kernel it cannot generate correctly, an option it cannot honour.
 */
export class LoomError extends Error {
  /** Where in the source text the problem is, when there is one (the message then shows it with a caret). */
  readonly span: SourceSpan | undefined;

  constructor(message: string, span?: SourceSpan) {
    super(span ? `${message}\n${pointAt(span)}` : message);
    this.name = new.target.name;
    this.span = span;
  }
}

/**
 * A broken invariant inside Loom: nothing the user did wrong, but a bug in Loom (a pass left
 * a reduction behind, a printer met a node it should never see). Deliberately not a
 * LoomError: code that catches the user's errors to report or decline them must not
 * swallow Loom's own failures, and the differential tests count these as findings.
 */
export class InternalError extends Error {
  /** What went wrong, without the request to report it. */
  readonly detail: string;

  constructor(detail: string, options?: { readonly cause?: unknown }) {
    super(`internal error: ${detail} (this is a bug in Loom, please report it)`, options);
    this.name = 'InternalError';
    this.detail = detail;
  }
}

/** Loopy's StaticValueFindingError: no single affine expression bounds a piecewise one. */
export class StaticValueFindingError extends LoomError {}

/** No order of loops and instructions satisfies the dependencies and nesting constraints. */
export class LinearizationError extends LoomError {}

/**
 * A linearized kernel's schedules leave out an instruction of the kernel (loopy's
 * `UnscheduledInstructionError`): code generated from them would skip it silently.
 */
export class UnscheduledInstructionError extends LinearizationError {}

/**
 * The instructions' dependencies form a cycle (loopy's `DependencyCycleFound`), so none of
 * them can go first; the message names the cycle, instruction by instruction.
 */
export class DependencyCycleFound extends LinearizationError {}

/** A value (argument, temporary) is read but never given. */
export class MissingDefinitionError extends LoomError {}

/**
 * An integer in a set's arithmetic (a coefficient, a bound, a divisor, a product of them
 * during elimination) left the range of integers JavaScript numbers hold exactly
 * (2^53 - 1): beyond it, results would be silently wrong, so the computation stops.
 */
export class CoefficientRangeError extends LoomError {
  constructor(
    /** The integer that left the safe range. */
    readonly value: number,
    /** The kernel being worked on, when the code that caught it knows (code generation does). */
    readonly kernel?: string,
  ) {
    super(
      `${kernel === undefined ? '' : `kernel '${kernel}': `}an integer in Loom's set arithmetic reached ${value}, beyond ${Number.MAX_SAFE_INTEGER} (2^53 - 1), the largest it computes with exactly; ` +
        'use smaller constants in domains, split factors and divisors (products of two of them must stay below 2^53)',
    );
  }
}

/**
 * One buffer passed as a read-only and a written argument of a kernel whose result would then
 * depend on the device (runtime/aliasing.ts): a caller may pass a copy of the read one instead.
 */
export class AliasedArgumentsError extends LoomError {
  constructor(
    message: string,
    /** The read-only argument. */
    readonly read: string,
    /** The written argument it shares its buffer with. */
    readonly written: string,
  ) {
    super(message);
  }
}

/** A dependency needs a synchronization the generated code cannot provide (a global barrier). */
export class MissingBarrierError extends LoomError {}

/**
 * An instruction writes a variable that another accesses, at elements they may share, and no
 * dependency (direct or not) orders the two, nor a `nosync` says no order is meant (loopy's
 * VariableAccessNotOrdered): the kernel could run them either way and compute either value.
 */
export class VariableAccessNotOrdered extends LoomError {}

/**
 * Warnings are values, not exceptions: they are collected where they arise and reported
 * through `reportWarning`, which by default prints them once. Tests (and users who want
 * loopy's `filterwarnings('error')`) can turn them into errors with `setWarningHandler`.
 */
export class LoomWarning {
  /** Always `'LoomWarning'`, as an Error's name says what it is. */
  readonly name: string = 'LoomWarning';
  constructor(
    /** What the warning says. */
    readonly message: string,
    /** The kind of warning (a check's name, say), as printed before the message. */
    readonly category: string = 'LoomWarning',
  ) {}
  /** The warning as printed: `category: message`. */
  toString(): string {
    return `${this.category}: ${this.message}`;
  }
}

/** Receives each warning Loom reports (`setWarningHandler`). */
export type WarningHandler = (warning: LoomWarning) => void;

const printOnce = new Set<string>();
const defaultHandler: WarningHandler = (w) => {
  const key = w.toString();
  if (printOnce.has(key)) return;
  printOnce.add(key);
  console.warn(`loom: ${key}`);
};
let handler: WarningHandler = defaultHandler;

/** Replace the warning handler; returns the previous one so it can be restored. */
export function setWarningHandler(next: WarningHandler | undefined): WarningHandler {
  const previous = handler;
  handler = next ?? defaultHandler;
  return previous;
}

/** Reports `warning` through the handler in place (by default: printed once, on stderr). */
export function reportWarning(warning: LoomWarning): void {
  handler(warning);
}

/** Collects the warnings raised while `fn` runs instead of reporting them. */
export function collectWarnings<T>(fn: () => T): { result: T; warnings: LoomWarning[] } {
  const warnings: LoomWarning[] = [];
  const previous = setWarningHandler((w) => warnings.push(w));
  try {
    return { result: fn(), warnings };
  } finally {
    setWarningHandler(previous);
  }
}

/** Renders the line containing the span with a caret (or carets) under it. */
export function pointAt(span: SourceSpan): string {
  const { text } = span;
  const start = Math.max(0, Math.min(span.start, text.length));
  const end = Math.max(start + 1, Math.min(span.end, text.length + 1));
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  let lineEnd = text.indexOf('\n', start);
  if (lineEnd < 0) lineEnd = text.length;
  const line = text.slice(lineStart, lineEnd);
  const column = start - lineStart;
  const width = Math.max(1, Math.min(end, lineEnd + 1) - start);
  const lineNumber = text.slice(0, lineStart).split('\n').length;
  const prefix = text.includes('\n') ? `line ${lineNumber}: ` : '';
  return `  ${prefix}${line}\n  ${' '.repeat(prefix.length + column)}${'^'.repeat(width)}`;
}

/**
 * The `default:` of a switch that covers every kind of a union (`default: return unreachable(node)`): there
 * `node` has type `never`, so a kind added to the union is a compile error at every such switch, in every
 * target, instead of a failure at run time. Should a malformed value get there anyway, it is an InternalError
 * naming its kind.
 */
export function unreachable(value: never, what = 'value'): never {
  const kind =
    typeof value === 'object' && value !== null && 'kind' in value
      ? `of kind '${String((value as { kind: unknown }).kind)}'`
      : `'${String(value)}'`;
  throw new InternalError(`unexpected ${what} ${kind}: a switch meant to cover every case missed it`);
}
