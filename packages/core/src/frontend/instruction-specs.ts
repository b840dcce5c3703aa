/**
 * Instructions built from expression nodes, for programs that make kernels (elementwise's
 * pointwise variants, tools): `makeKernel` takes a list of them where it takes the textual
 * syntax, and infers the rest (arguments, loops, shapes) the same way. Building them
 * directly spares printing expressions and attributes only for `makeKernel` to parse them
 * back, and says each attribute by name instead of by its spelling.
 *
 *   makeKernel('{ [i]: 0<=i<n }', [
 *     assignment(variable('t'), mul(int(2), subscript('a', [variable('i')])), { id: 'scale', temporary: 'float32' }),
 *     assignment(subscript('out', [variable('i')]), variable('t'), { id: 'store', dependsOn: ['scale'] }),
 *   ])
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import type { DType } from '../dtypes.ts';
import type { Call, Expr } from '../expr/nodes.ts';
import { printExpr } from '../expr/print.ts';
import type { ParsedInstruction } from './parse-instructions.ts';
import { parseExpression } from '../expr/parse.ts';

/** The options multipleAssignment reads; any other key is an error. */
const MULTIPLE_ASSIGNMENT_OPTIONS = optionKeys<MultipleAssignmentOptions>()([
  'dependsOn',
  'id',
  'noSyncWith',
  'temporaries',
]);

/** The options assignment reads; any other key is an error. */
const ASSIGNMENT_OPTIONS = optionKeys<AssignmentOptions>()(['dependsOn', 'id', 'noSyncWith', 'temporary']);

/** One instruction for `makeKernel`: what a line of the textual syntax says, without the text. */
export type InstructionSpec = ParsedInstruction;

/** Options of an assignment instruction given as an object to `makeKernel` (its id, dependencies, predicates, tags...). */
export interface AssignmentOptions {
  /** The instruction's id. */
  readonly id: string;
  /** Declares the assignee a temporary of this dtype (the text's `<dtype>`). */
  readonly temporary?: DType;
  /**
   * The instructions this one depends on, and all of them (the text's `dep=*a:b`): none is
   * guessed. Absent: guessed from who writes what, as for a line without `dep=`.
   */
  readonly dependsOn?: readonly string[];
  /** Instructions it needs no barrier with (the text's `nosync=`): `ID` or `ID@SCOPE`, wildcards allowed. */
  readonly noSyncWith?: readonly string[];
}

/** `assignee = expression`, as a line `<temporary> assignee = expression {id=..., dep=*..., nosync=...}` says it. */
export function assignment(assignee: Expr, expression: Expr, options: AssignmentOptions): InstructionSpec {
  checkOptionKeys('assignment', options, ASSIGNMENT_OPTIONS);
  const { temporary, ...rest } = options;
  return multipleAssignment([assignee], expression, {
    ...rest,
    ...(temporary === undefined ? {} : { temporaries: [temporary] }),
  });
}

/** Options of an instruction that assigns several left-hand sides at once. */
export interface MultipleAssignmentOptions extends Omit<AssignmentOptions, 'temporary'> {
  /** Per assignee: declares it a temporary of this dtype (`null`: a temporary whose dtype is inferred; `undefined`: none). */
  readonly temporaries?: readonly (DType | null | undefined)[];
}

/** `v, k = argmax(i, a[i], i)`: one assignee per result of the reduction on the right. */
export function multipleAssignment(
  assignees: readonly Expr[],
  expression: Expr,
  options: MultipleAssignmentOptions,
): InstructionSpec {
  checkOptionKeys('multipleAssignment', options, MULTIPLE_ASSIGNMENT_OPTIONS);
  const temporaries = options.temporaries?.map((t) => (t === undefined ? undefined : { dtype: t ?? undefined }));
  return {
    kind: 'assign',
    id: options.id,
    assignees,
    expression,
    ...(temporaries ? { temporaries } : {}),
    dup: [],
    deps: options.dependsOn ?? [],
    depsExhaustive: options.dependsOn !== undefined,
    nosync: options.noSyncWith ?? [],
    priority: 0,
    predicates: [],
    forInames: [],
    tags: [],
    groups: [],
    conflictsWithGroups: [],
    atomic: false,
  };
}

/** The options noOp reads; any other key is an error. */
const NO_OP_OPTIONS = optionKeys<NoOpOptions>()(['dependsOn', 'id', 'predicates']);

/** Options of `noOp`: loopy's `NoOpInstruction` keywords. */
export interface NoOpOptions {
  /** The instruction's id (default: chosen by makeKernel). */
  readonly id?: string;
  /** The instructions it depends on, all of them (the text's `dep=*a:b`). */
  readonly dependsOn?: readonly string[];
  /** Conditions it runs under (the text's `if=`): expressions, or text parsed as one (`'a > 0'`). */
  readonly predicates?: readonly (Expr | string)[];
}

/**
 * An instruction that does nothing (loopy's `NoOpInstruction`, the text's `... nop`): a point
 * that others depend on, which may be predicated. It mixes with text lines in makeKernel's list:
 *
 *   makeKernel([], ['<> a = 1', noOp({ predicates: ['a > 0'] })])
 */
export function noOp(options: NoOpOptions = {}): InstructionSpec {
  checkOptionKeys('noOp', options, NO_OP_OPTIONS);
  const predicates = (options.predicates ?? []).map((p) => (typeof p === 'string' ? parseExpression(p) : p));
  return {
    kind: 'nop',
    id: options.id,
    assignees: [],
    dup: [],
    deps: options.dependsOn ?? [],
    depsExhaustive: options.dependsOn !== undefined,
    nosync: [],
    priority: 0,
    predicates,
    forInames: [],
    tags: [],
    groups: [],
    conflictsWithGroups: [],
    atomic: false,
  };
}

/** The options callInstruction reads; any other key is an error. */
const CALL_INSTRUCTION_OPTIONS = optionKeys<CallInstructionOptions>()(['dependsOn', 'id']);

/** Options of `callInstruction`: loopy's `CallInstruction` keywords. */
export interface CallInstructionOptions {
  /** The instruction's id (default: chosen by makeKernel). */
  readonly id?: string;
  /** The instructions it depends on, all of them (the text's `dep=*a:b`). Absent: guessed from what it reads. */
  readonly dependsOn?: readonly string[];
}

/**
 * A call with no result, as the line `f(x[i])` says it (loopy's `CallInstruction` with no
 * assignees): a call statement of a user function, kept for its side effect, or a call of a
 * kernel of the program that returns nothing. Its arguments are values.
 *
 *   makeKernel('{:}', [callInstruction(call('f', []), { id: 'hi' })])
 */
export function callInstruction(callee: Call, options: CallInstructionOptions = {}): InstructionSpec {
  checkOptionKeys('callInstruction', options, CALL_INSTRUCTION_OPTIONS);
  // where a message about the call points: its text, as a line would have said it
  const text = printExpr(callee);
  const span = { text, start: 0, end: text.length };
  return {
    kind: 'call',
    kernelCall: {
      callee: callee.fn,
      assignees: [],
      args: callee.args.map((expr) => ({ expr, slices: [], span })),
      span,
    },
    id: options.id,
    assignees: [],
    dup: [],
    deps: options.dependsOn ?? [],
    depsExhaustive: options.dependsOn !== undefined,
    nosync: [],
    priority: 0,
    predicates: [],
    forInames: [],
    tags: [],
    groups: [],
    conflictsWithGroups: [],
    atomic: false,
  };
}
