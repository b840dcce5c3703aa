/**
 * What an instruction reads and writes: array accesses with the reduction inames
 * that enclose them, and the scalar names it uses. Substitution-rule calls are
 * expanded first, so an access inside a rule counts where the rule is used.
 */
import type { Expr, Subscript } from '../expr/nodes.ts';
import { children, mapChildren, substitute } from '../expr/index.ts';
import { LoomError } from '../errors.ts';
import type { Instruction, LoopKernel, SubstitutionRule } from './model.ts';

export interface Access {
  readonly array: string;
  readonly indices: readonly Expr[];
  readonly isWrite: boolean;
  /** Inames of the reductions this access sits in (they range too). */
  readonly reductionInames: readonly string[];
  readonly instruction: Instruction;
}

/** Replaces calls of substitution rules by their bodies (recursively, with a depth limit). */
export function expandSubstitutions(e: Expr, rules: ReadonlyMap<string, SubstitutionRule>, depth = 0): Expr {
  if (rules.size === 0) return e;
  if (depth > 50) throw new LoomError('substitution rules expand recursively without end');
  const walk = (x: Expr): Expr => {
    if (x.kind === 'call' && rules.has(x.fn)) {
      const rule = rules.get(x.fn)!;
      if (rule.params.length !== x.args.length) {
        throw new LoomError(`substitution rule '${rule.name}' takes ${rule.params.length} argument(s), got ${x.args.length}`);
      }
      const bindings = new Map(rule.params.map((p, i) => [p, walk(x.args[i])]));
      return expandSubstitutions(substitute(rule.expression, bindings), rules, depth + 1);
    }
    return mapChildren(x, walk);
  };
  return walk(e);
}

/** Calls `visit` for every subscript in `e`, with the reduction inames around it. */
export function forEachSubscript(e: Expr, visit: (s: Subscript, reductionInames: readonly string[]) => void, bound: readonly string[] = []): void {
  if (e.kind === 'subscript') visit(e, bound);
  if (e.kind === 'reduce') {
    forEachSubscript(e.body, visit, [...bound, ...e.inames]);
    return;
  }
  for (const c of children(e)) forEachSubscript(c, visit, bound);
}

/** Scalar names read by `e` (not subscripted arrays, not reduction-bound inames). */
export function scalarNamesRead(e: Expr, bound: ReadonlySet<string> = new Set()): Set<string> {
  const out = new Set<string>();
  const walk = (x: Expr, b: ReadonlySet<string>) => {
    if (x.kind === 'var') {
      if (!b.has(x.name)) out.add(x.name);
      return;
    }
    if (x.kind === 'reduce') {
      walk(x.body, new Set([...b, ...x.inames]));
      return;
    }
    for (const c of children(x)) walk(c, b);
  };
  walk(e, bound);
  return out;
}

/** Every name an instruction reads: arrays, scalars and the variables in its assignee's indices. */
export function namesRead(insn: Instruction, rules: ReadonlyMap<string, SubstitutionRule>): Set<string> {
  const out = new Set<string>();
  const exprs = readExpressions(insn, rules);
  for (const e of exprs) {
    for (const n of scalarNamesRead(e)) out.add(n);
    forEachSubscript(e, (s) => out.add(s.array));
  }
  return out;
}

/** The variable an instruction writes, if any. */
export function nameWritten(insn: Instruction): string | undefined {
  const a = insn.assignee;
  if (!a) return undefined;
  return a.kind === 'var' ? a.name : a.kind === 'subscript' ? a.array : undefined;
}

/** Expressions evaluated by the instruction: its value, its predicates, the assignee's indices. */
export function readExpressions(insn: Instruction, rules: ReadonlyMap<string, SubstitutionRule>): Expr[] {
  const out: Expr[] = [];
  if (insn.expression) out.push(expandSubstitutions(insn.expression, rules));
  for (const p of insn.predicates) out.push(expandSubstitutions(p, rules));
  if (insn.assignee?.kind === 'subscript') out.push(...insn.assignee.indices);
  return out;
}

/** Reduction inames used anywhere in the instruction. */
export function reductionInames(insn: Instruction, rules: ReadonlyMap<string, SubstitutionRule>): Set<string> {
  const out = new Set<string>();
  const walk = (x: Expr) => {
    if (x.kind === 'reduce') for (const n of x.inames) out.add(n);
    for (const c of children(x)) walk(c);
  };
  for (const e of readExpressions(insn, rules)) walk(e);
  return out;
}

/** All array accesses of the kernel (arguments and array temporaries). */
export function allAccesses(knl: LoopKernel): Access[] {
  const out: Access[] = [];
  for (const insn of knl.instructions) {
    if (insn.assignee?.kind === 'subscript') {
      out.push({ array: insn.assignee.array, indices: insn.assignee.indices, isWrite: true, reductionInames: [], instruction: insn });
    }
    for (const e of readExpressions(insn, knl.substitutions)) {
      forEachSubscript(e, (s, red) => out.push({ array: s.array, indices: s.indices, isWrite: false, reductionInames: red, instruction: insn }));
    }
  }
  return out;
}

/** Which instructions write each variable. */
export function writerMap(knl: LoopKernel): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const insn of knl.instructions) {
    const name = nameWritten(insn);
    if (name === undefined) continue;
    const list = map.get(name) ?? [];
    list.push(insn.id);
    map.set(name, list);
  }
  return map;
}
