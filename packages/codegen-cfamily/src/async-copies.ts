/**
 * Asynchronous copies into local memory (`async` assignments: core's `asyncCopies`). Where the
 * language issues them (`CDialect.asyncCopy`, CUDA's `cp.async`), each copy is a call that moves
 * an element's bytes (4 or 8), or a run of copies of consecutive elements 16 bytes at once
 * (wide-copies.ts finds the runs), and every barrier first waits for the work-item's copies. A
 * language without them (a target whose work-items run one after another, where core lets them
 * through) copies at once. A copy the language cannot issue as it is (2-byte halves one at a time,
 * a conversion) is a LoomError that says how to make it one, never a copy silently waited for.
 */
import { byteSize, LoomError, statementsOfKind, type DType, type Stmt } from '@loom/core';
import type { CExpressionPrinter } from './expressions.ts';
import { bulkCommit, bulkWait } from './bulk-copies.ts';

/** How a language issues asynchronous copies into local memory and waits for them (`CDialect.asyncCopy`). */
export interface AsyncCopySpelling {
  /** The byte counts one copy moves; 16 is a run of consecutive elements (wide-copies.ts). */
  readonly sizes: readonly number[];
  /** The call copying `bytes` from address `from` to the local address `to`, and the helper it needs. */
  copy(bytes: number, to: string, from: string): { readonly text: string; readonly helper: Helper };
  /** The statement that waits for the work-item's copies, printed before each barrier, and its helper. */
  readonly wait: { readonly text: string; readonly helper: Helper };
  /**
   * Copies in groups (CUDA's `cp.async.commit_group` / `wait_group`): `commit` closes the group of
   * the copies issued since the last, and `waitLeaving(n)` waits until at most the `n` latest groups
   * are still in flight. Absent: every barrier waits for all copies (`wait`).
   */
  readonly groups?: {
    /** The statement that closes the group of the copies issued since the last one, and its helper. */
    readonly commit: { readonly text: string; readonly helper: Helper };
    /** The statement that waits until at most the latest `groups` groups are still in flight, and its helper. */
    waitLeaving(groups: number): { readonly text: string; readonly helper: Helper };
  };
  /** What a local array that copies fill is declared with, so that a 16-byte run lands aligned (`__align__(16) `). */
  readonly alignedLocal: string;
}

/** A helper function: its name and definition. */
interface Helper {
  readonly name: string;
  readonly definition: string;
}

/** The local arrays asynchronous copies write in `body`, for their declarations' alignment. */
export function asyncCopyTargets(body: Stmt): Set<string> {
  const out = new Set<string>();
  for (const s of statementsOfKind(body, 'assign'))
    if (s.async && s.target.kind === 'subscript') out.add(s.target.array);
  return out;
}

/**
 * The address of element `index` (printed) of `array`: of an array of vectors, through a pointer to
 * its elements (`((float *) b_fetch) + (i)`), as lane writes are printed.
 */
export function elementAddress(printer: CExpressionPrinter, array: string, index: string, dtype: DType): string {
  if (!printer.vectorWidths.has(array)) return `${array} + (${index})`;
  const { space } = printer.vectorWidths.get(array)!;
  return `((${printer.dialect.addressSpace(space)}${printer.dialect.type(dtype)} *) ${array}) + (${index})`;
}

/**
 * An asynchronous copy of one element, as the language issues it; a plain copy where it has no
 * asynchronous ones (core only lets such a copy through where work-items run one after another).
 * Undefined: not an asynchronous copy.
 */
export function printAsyncCopy(s: Extract<Stmt, { kind: 'assign' }>, printer: CExpressionPrinter): string | undefined {
  const spelling = printer.dialect.asyncCopy;
  if (!s.async || !spelling) return undefined;
  const { target, value, dtype } = s;
  const refuse = (why: string) =>
    new LoomError(
      `instruction '${s.insnId}' is an asynchronous copy, which ${printer.dialect.language} issues as ${spelling.sizes.join(', ')}-byte moves, but ${why}`,
    );
  if (s.vector) throw refuse('it is a vector statement (a vec loop); leave its loop unrolled instead');
  if (target.kind !== 'subscript' || value.kind !== 'subscript')
    throw refuse('it is not a copy of one element into another');
  if (printer.typeOfExpr(value) !== dtype) throw refuse(`it converts ${printer.typeOfExpr(value)} to ${dtype}`);
  // a 16-bit float computed in float is a float in a temporary: the copy would convert
  const stored = printer.narrowFloatBuffers.has(target.array) && printer.narrowFloatBuffers.has(value.array);
  if (printer.inFloat(dtype) && !stored)
    throw refuse(`'${target.array}' holds ${dtype} values as floats, so the copy converts each`);
  const packed = (name: string) => printer.vectorWidths.get(name)?.packed === true;
  if (packed(target.array) || packed(value.array)) throw refuse('it copies between packed vectors (float3)');
  const bytes = byteSize(dtype);
  if (!spelling.sizes.includes(bytes))
    throw refuse(
      `it moves ${bytes} bytes; copy 16 bytes of consecutive elements (${16 / bytes} of them, an unrolled loop whose first index is a multiple of ${16 / bytes}) so that they merge into one move`,
    );
  const to = elementAddress(printer, target.array, printer.print(target.indices[0], 'int32'), dtype);
  const from = elementAddress(printer, value.array, printer.print(value.indices[0], 'int32'), dtype);
  const call = spelling.copy(bytes, to, from);
  printer.useHelper(call.helper);
  return call.text;
}

/** A run of 16 bytes of consecutive asynchronous copies, as one (wide-copies.ts checked the run). */
export function printWideAsyncCopy(
  to: string,
  toIndex: string,
  from: string,
  fromIndex: string,
  dtype: DType,
  printer: CExpressionPrinter,
): string {
  const call = printer.dialect.asyncCopy!.copy(
    16,
    elementAddress(printer, to, toIndex, dtype),
    elementAddress(printer, from, fromIndex, dtype),
  );
  printer.useHelper(call.helper);
  return call.text;
}

/**
 * The waits before a barrier where the kernel issues asynchronous copies: the language's element
 * copies, then bulk ones (bulk-copies.ts); none where it issues none.
 */
export function asyncWait(printer: CExpressionPrinter): string[] {
  const spelling = printer.dialect.asyncCopy;
  const lines: string[] = [];
  if (spelling && printer.asyncTargets.size > 0 && (printer.elementCopies || !printer.bulkPlan)) {
    const wait =
      printer.asyncPlan.inFlight > 0 ? spelling.groups!.waitLeaving(printer.asyncPlan.inFlight) : spelling.wait;
    printer.useHelper(wait.helper);
    lines.push(wait.text);
  }
  return [...lines, ...bulkWait(printer)];
}

/**
 * The commits after `statements` (printed together) where the plan closes a group there; undefined
 * elsewhere. `acquired`: right after bulk requests, whose wait for the latest release covers the commit.
 */
export function asyncCommitAfter(
  statements: readonly Stmt[],
  printer: CExpressionPrinter,
  { acquired = false } = {},
): string | undefined {
  const { commitAfter } = printer.asyncPlan;
  if (commitAfter.size === 0 || !statements.some((s) => commitAfter.has(s))) return undefined;
  const lines: string[] = [];
  if (printer.elementCopies || !printer.bulkPlan) {
    const commit = printer.dialect.asyncCopy!.groups!.commit;
    printer.useHelper(commit.helper);
    lines.push(commit.text);
  }
  const bulk = bulkCommit(printer, { acquired });
  if (bulk) lines.push(bulk);
  return lines.join(' ');
}

/**
 * How a kernel's copies are grouped: after which statements a group closes, and how many of the
 * latest groups a barrier may leave in flight (0: it waits for every copy).
 */
export interface AsyncPlan {
  /** How many of the latest groups a barrier leaves in flight (0: it waits for every copy). */
  readonly inFlight: number;
  /** The statements after which a group is committed. */
  readonly commitAfter: ReadonlySet<Stmt>;
}

/** No groups: every barrier waits for every copy. */
export const WAIT_FOR_ALL: AsyncPlan = { inFlight: 0, commitAfter: new Set() };

/**
 * The groups of a pipeline's copies (`fillAhead`: filled `steps` steps ahead of their reads, each
 * iteration of its step loops filling one step). A group closes after each run of copies directly
 * in a step loop's body (through plain loops and conditions that hold nothing else), so that it
 * holds one step's copies, each step has one or more, and each is committed whatever the
 * conditions: then the latest `steps - 1` groups at a barrier are later steps', which no read
 * before the next barrier needs. Where the code has another shape (a copy among other statements
 * under a condition, a copy outside the step loops, copies of two pipelines), every barrier waits
 * for all of them: slower, never wrong.
 */
export function asyncPlan(body: Stmt, spelling: AsyncCopySpelling | undefined): AsyncPlan {
  if (!spelling?.groups) return WAIT_FOR_ALL;
  const copies = statementsOfKind(body, 'assign').filter((s) => s.async);
  const ahead = copies[0]?.ahead;
  if (!ahead || ahead.steps < 2) return WAIT_FOR_ALL;
  const sameAhead = (s: (typeof copies)[number]) =>
    s.ahead?.steps === ahead.steps && s.ahead.stepLoops.join() === ahead.stepLoops.join();
  if (!copies.every(sameAhead)) return WAIT_FOR_ALL;
  const stepLoops = new Set(ahead.stepLoops);
  const commitAfter = new Set<Stmt>();
  const copyOnly = (s: Stmt): boolean => {
    switch (s.kind) {
      case 'assign':
        return s.async === true;
      case 'if':
        return copyOnly(s.then);
      case 'block':
        return s.body.length > 0 && s.body.every(copyOnly);
      case 'for':
        return !stepLoops.has(s.iname) && copyOnly(s.body);
      default:
        return false;
    }
  };
  const copiesIn = (s: Stmt) => statementsOfKind(s, 'assign').some((a) => a.async);
  const flat = (s: Stmt): Stmt[] => (s.kind === 'block' ? s.body.flatMap(flat) : [s]);
  // false where a copy is not in a run of copies directly in a step loop's body
  const grouped = (s: Stmt, stepBody: boolean): boolean => {
    let last: Stmt | undefined;
    for (const x of flat(s)) {
      if (stepBody && copyOnly(x)) {
        last = x;
        continue;
      }
      if (last) commitAfter.add(last), (last = undefined);
      if (!copiesIn(x)) continue;
      if (x.kind === 'for' && !grouped(x.body, stepLoops.has(x.iname))) return false;
      if (x.kind === 'if' && !grouped(x.then, false)) return false;
      if (x.kind !== 'for' && x.kind !== 'if') return false;
    }
    if (last) commitAfter.add(last);
    return true;
  };
  return grouped(body, false) ? { inFlight: ahead.steps - 1, commitAfter } : WAIT_FOR_ALL;
}
