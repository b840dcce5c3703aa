/**
 * What an instruction reads and writes: array accesses with the reduction inames
 * that enclose them, and the scalar names it uses. Substitution-rule calls are
 * expanded first, so an access inside a rule counts where the rule is used.
 */
import { variable, type Call, type Expr, type Subscript } from '../expr/nodes.ts';
import { isAtomicFunction } from '../expr/atomic-functions.ts';
import {
  checkExpressionBounds,
  freeVariables,
  mapChildren,
  reductionInamesIn,
  substitute,
  walkGuarded,
} from '../expr/index.ts';
import { InternalError, LoomError } from '../errors.ts';
import type { Instruction, LoopKernel, SubstitutionRule } from './model.ts';

export interface Access {
  readonly array: string;
  readonly indices: readonly Expr[];
  readonly isWrite: boolean;
  /** A read's tag, as loopy's `a$tag[i]` names it (tag-selective addPrefetch). */
  readonly tag?: string;
  /** Inames of the reductions this access sits in (they range too). */
  readonly reductionInames: readonly string[];
  readonly instruction: Instruction;
  /**
   * The conditions under which the access happens: the instruction's predicates and, for
   * a read, the branches of `if(c, t, e)` around it (`c` in `t`, `not(c)` in `e`).
   */
  readonly guards: readonly Expr[];
}

/**
 * Replaces calls of substitution rules by their bodies (recursively, with a depth limit).
 *
 * The result shares what it can: a rule called twice with the same arguments (the same
 * nodes) is expanded once and both calls point at that one expansion, and a node met twice
 * is rewritten once. So `f_k(x) := f_{k-1}(x) + f_{k-1}(x)` costs k expansions, not 2^k;
 * but the tree it stands for still has 2^k leaves, which the passes after this one would
 * walk, so the unfolded size is bounded (`checkExpressionBounds`) before anyone does.
 */
export function expandSubstitutions(e: Expr, rules: ReadonlyMap<string, SubstitutionRule>): Expr {
  if (rules.size === 0) return e;
  const expanded = new RuleExpansion(rules).expand(e, 0);
  if (expanded !== e) checkExpressionBounds(expanded, 'an expression with its substitution rules written out');
  return expanded;
}

class RuleExpansion {
  /** Node → its expansion: shared nodes are expanded once (and expansions map to themselves). */
  private readonly done = new Map<Expr, Expr>();
  /** `rule(arg ids)` → the expansion of that call. */
  private readonly calls = new Map<string, Expr>();
  private readonly ids = new Map<Expr, number>();

  constructor(private readonly rules: ReadonlyMap<string, SubstitutionRule>) {}

  expand(x: Expr, depth: number): Expr {
    const known = this.done.get(x);
    if (known !== undefined) return known;
    const result =
      x.kind === 'call' && this.rules.has(x.fn) ? this.call(x, depth) : mapChildren(x, (c) => this.expand(c, depth));
    this.done.set(x, result);
    this.done.set(result, result);
    return result;
  }

  private call(x: Extract<Expr, { kind: 'call' }>, depth: number): Expr {
    if (depth > 50) throw new LoomError('substitution rules expand recursively without end');
    const rule = this.rules.get(x.fn)!;
    if (rule.params.length !== x.args.length) {
      throw new LoomError(
        `substitution rule '${rule.name}' takes ${rule.params.length} argument(s), got ${x.args.length}`,
      );
    }
    const args = x.args.map((a) => this.expand(a, depth));
    const key = `${rule.name}(${args.map((a) => this.idOf(a)).join(',')})`;
    let result = this.calls.get(key);
    if (result === undefined) {
      const body = substitute(rule.expression, new Map(rule.params.map((p, i) => [p, args[i]])));
      result = this.expand(body, depth + 1);
      this.calls.set(key, result);
    }
    return result;
  }

  private idOf(e: Expr): number {
    let id = this.ids.get(e);
    if (id === undefined) this.ids.set(e, (id = this.ids.size));
    return id;
  }
}

/** Calls `visit` for every subscript in `e`, with the reduction inames and the `if` conditions around it. */
export function forEachSubscript(
  e: Expr,
  visit: (s: Subscript, reductionInames: readonly string[], guards: readonly Expr[]) => void,
): void {
  walkGuarded(e, (x, bound, guards) => {
    if (x.kind === 'subscript') visit(x, bound, guards);
  });
}

/** Every name an instruction reads: arrays, scalars and the variables in its assignee's indices. */
export function namesRead(insn: Instruction, rules: ReadonlyMap<string, SubstitutionRule>): Set<string> {
  const out = new Set<string>();
  const exprs = readExpressions(insn, rules);
  for (const e of exprs) {
    for (const n of freeVariables(e)) out.add(n);
    forEachSubscript(e, (s) => out.add(s.array));
  }
  return out;
}

/** The variable an assignee writes: `x` of `x` and of `x[i, j]`. */
export function assigneeName(a: Expr): string {
  if (a.kind === 'var') return a.name;
  if (a.kind === 'subscript') return a.array;
  throw new InternalError(`an assignee must be a variable or an array element, not a ${a.kind}`);
}

/**
 * The variables an instruction writes, in order: its assignees' (several for a multiple
 * assignment), then the array whose element an atomic fetch updates (`old = atomicAdd(c[0], 1)`
 * writes `old` and `c`).
 */
export function namesWritten(insn: Instruction): string[] {
  const fetch = atomicFetchOf(insn);
  const assigned = insn.assignees.map(assigneeName);
  return fetch ? [...assigned, fetch.element.array] : assigned;
}

/**
 * The atomic fetch an instruction makes (`old = atomicAdd(counter[0], 1)`: its whole value, the
 * only place the front end lets one stand), with the element it updates; undefined for any other.
 */
export function atomicFetchOf(insn: Instruction): { readonly call: Call; readonly element: Subscript } | undefined {
  const e = insn.expression;
  if (insn.kind !== 'assign' || e?.kind !== 'call' || !isAtomicFunction(e.fn)) return undefined;
  const element = e.args[0];
  if (element?.kind !== 'subscript')
    throw new InternalError(`instruction '${insn.id}': ${e.fn} updates no array element`);
  return { call: e, element };
}

/**
 * The one assignee of an instruction, where multiple assignments no longer exist (they are
 * realized with their reductions, before linearization).
 */
export function soleAssignee(insn: Instruction): Expr {
  if (insn.assignees.length !== 1)
    throw new InternalError(`instruction '${insn.id}' has ${insn.assignees.length} assignees where one was expected`);
  return insn.assignees[0];
}

/** The variable an instruction writes, if any, where there is at most one (see `soleAssignee`). */
export function nameWritten(insn: Instruction): string | undefined {
  return insn.assignees.length === 0 ? undefined : assigneeName(soleAssignee(insn));
}

/** Expressions evaluated by the instruction: its value, its predicates, the assignees' indices. */
export function readExpressions(insn: Instruction, rules: ReadonlyMap<string, SubstitutionRule>): Expr[] {
  const out: Expr[] = [];
  if (insn.expression) out.push(expandSubstitutions(insn.expression, rules));
  for (const p of insn.predicates) out.push(expandSubstitutions(p, rules));
  for (const a of insn.assignees) if (a.kind === 'subscript') out.push(...a.indices);
  // C code reads the names its iname expressions use and the variables it says it reads
  if (insn.cCode) {
    for (const { value } of insn.cCode.inameExprs) out.push(value);
    for (const name of insn.cCode.readVariables) out.push(variable(name));
  }
  return out;
}

/** Reduction inames used anywhere in the instruction. */
export function reductionInames(insn: Instruction, rules: ReadonlyMap<string, SubstitutionRule>): Set<string> {
  return new Set(readExpressions(insn, rules).flatMap((e) => [...reductionInamesIn(e)]));
}

/** All array accesses of the kernel (arguments and array temporaries). */
export function allAccesses(knl: LoopKernel): Access[] {
  const out: Access[] = [];
  for (const insn of knl.instructions) {
    // an atomic fetch reads its element (below, with the value) and writes it
    const fetched = atomicFetchOf(insn)?.element;
    for (const a of fetched ? [...insn.assignees, fetched] : insn.assignees) {
      if (a.kind === 'subscript')
        out.push({
          array: a.array,
          indices: a.indices,
          isWrite: true,
          reductionInames: [],
          instruction: insn,
          guards: insn.predicates,
        });
    }
    // the predicates guard the value; the assignee's indices and the predicates themselves are evaluated anyway
    const rules = knl.substitutions;
    const value = insn.expression ? [expandSubstitutions(insn.expression, rules)] : [];
    const unguarded = [
      ...insn.predicates.map((p) => expandSubstitutions(p, rules)),
      ...insn.assignees.flatMap((a) => (a.kind === 'subscript' ? a.indices : [])),
    ];
    for (const [exprs, guards] of [
      [value, insn.predicates],
      [unguarded, []],
    ] as const) {
      for (const e of exprs) {
        forEachSubscript(e, (s, red, inner) =>
          out.push({
            array: s.array,
            indices: s.indices,
            isWrite: false,
            ...(s.tag !== undefined ? { tag: s.tag } : {}),
            reductionInames: red,
            instruction: insn,
            guards: [...guards, ...inner],
          }),
        );
      }
    }
  }
  return out;
}

/** Which instructions write each variable. */
export function writerMap(knl: LoopKernel): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const insn of knl.instructions) {
    for (const name of new Set(namesWritten(insn))) {
      const list = map.get(name) ?? [];
      list.push(insn.id);
      map.set(name, list);
    }
  }
  return map;
}

/** One instruction's touch of a variable: one element (its indices), or the whole of it. */
export interface Touch {
  readonly insn: Instruction;
  /** undefined: the whole variable (a scalar, or a read through a rule) */
  readonly indices: readonly Expr[] | undefined;
  readonly isWrite: boolean;
}

/** For each array and scalar variable (arguments and temporaries, not values), every touch of it. */
export function touchesByVariable(knl: LoopKernel): Map<string, Touch[]> {
  const out = new Map<string, Touch[]>();
  const add = (name: string, t: Touch) => out.set(name, [...(out.get(name) ?? []), t]);
  const subscripted = new Map<string, Set<string>>();
  for (const a of allAccesses(knl)) {
    add(a.array, { insn: a.instruction, indices: a.indices, isWrite: a.isWrite });
    subscripted.set(a.instruction.id, (subscripted.get(a.instruction.id) ?? new Set()).add(a.array));
  }
  const isVariable = (name: string) =>
    knl.temporaries.has(name) || (knl.arg(name) !== undefined && knl.arg(name)!.kind !== 'value');
  for (const insn of knl.instructions) {
    if (insn.kind !== 'assign' && insn.kind !== 'user-call') continue;
    for (const target of insn.assignees)
      if (target.kind === 'var' && isVariable(target.name))
        add(target.name, { insn, indices: undefined, isWrite: true });
    // a variable read without a subscript (a scalar) is touched whole
    for (const name of namesRead(insn, knl.substitutions)) {
      if (isVariable(name) && !subscripted.get(insn.id)?.has(name))
        add(name, { insn, indices: undefined, isWrite: false });
    }
  }
  return out;
}
