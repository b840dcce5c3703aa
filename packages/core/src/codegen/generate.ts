/**
 * From a kernel to the target-independent program AST, then to code:
 *
 *   types of temporaries → reductions realized → linearized → loops with bounds
 *   from the domain → guards for what the loop bounds do not already ensure →
 *   flat array indices.
 */
import type { DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { binary, compare, int, logical, subscript, type Expr } from '../expr/nodes.ts';
import { fromLinear, simplify, toLinear } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { BasicSet, type Bound, type Constraint } from '../sets/index.ts';
import { domainOf } from '../kernel/domains.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';
import { realizeReductions } from '../kernel/realize-reductions.ts';
import { rowMajorStrides } from '../kernel/strides.ts';
import { INDEX_DTYPE, inferTypes } from '../kernel/type-inference.ts';
import { linearize, type ScheduleItem } from '../schedule/linearize.ts';
import { block, type KernelFunction, type KernelParam, type ProgramAst, type Stmt } from './ast.ts';
import type { GeneratedCode, Target } from './target.ts';

/** The kernel's code for `target`. Every array argument's dtype must be known (`addDtypes`). */
export function generateCode(knl: LoopKernel, target: Target): GeneratedCode {
  const program = buildProgram(knl, target);
  const code = target.generate(program);
  return { target: target.name, code, program, toString: () => code };
}

export function buildProgram(knl: LoopKernel, target?: Target): ProgramAst {
  const typed = realizeReductions(inferTypes(withDefaultValueTypes(knl)));
  checkTypes(typed, target);
  const schedule = linearize(typed);
  return { kernels: [new KernelBuilder(typed).build(schedule)] };
}

/** Domain parameters and other untyped value arguments are int32, as in loopy's generated code. */
function withDefaultValueTypes(knl: LoopKernel): LoopKernel {
  if (!knl.args.some((a) => a.kind === 'value' && a.dtype === undefined)) return knl;
  return knl.with({ args: knl.args.map((a) => (a.kind === 'value' && a.dtype === undefined ? { ...a, dtype: INDEX_DTYPE } : a)) });
}

function checkTypes(knl: LoopKernel, target: Target | undefined): void {
  for (const arg of knl.args) {
    if (arg.dtype === undefined) {
      throw new LoomError(`the dtype of argument '${arg.name}' is not known: pass data for it when running, or use addDtypes(knl, { ${arg.name}: 'float32' })`);
    }
    const why = target?.unsupportedDType?.(arg.dtype);
    if (why) throw new LoomError(`argument '${arg.name}' has dtype ${arg.dtype}: ${why}`);
  }
  for (const t of knl.temporaries.values()) {
    const why = t.dtype && target?.unsupportedDType?.(t.dtype);
    if (why) throw new LoomError(`temporary '${t.name}' has dtype ${t.dtype}: ${why}`);
  }
}

class KernelBuilder {
  private readonly types = new Map<string, DType>();
  private readonly strides = new Map<string, Expr[]>();
  private readonly byId: Map<string, Instruction>;

  constructor(private readonly knl: LoopKernel) {
    this.byId = new Map(knl.instructions.map((i) => [i.id, i]));
    for (const n of knl.inames) this.types.set(n, INDEX_DTYPE);
    for (const a of knl.args) {
      this.types.set(a.name, a.dtype!);
      if (a.shape) this.strides.set(a.name, rowMajorStrides(a.shape));
    }
    for (const t of knl.temporaries.values()) {
      this.types.set(t.name, t.dtype!);
      this.strides.set(t.name, rowMajorStrides(t.shape));
    }
  }

  build(schedule: readonly ScheduleItem[]): KernelFunction {
    const written = new Set(this.knl.instructions.map((i) => (i.assignee?.kind === 'subscript' ? i.assignee.array : i.assignee?.kind === 'var' ? i.assignee.name : '')));
    const params: KernelParam[] = this.knl.args.map((a) => ({ name: a.name, dtype: a.dtype!, kind: a.kind, written: written.has(a.name) }));
    const declarations: Stmt[] = [...this.knl.temporaries.values()].map((t) => ({
      kind: 'declare',
      name: t.name,
      dtype: t.dtype!,
      addressSpace: t.addressSpace === 'auto' ? 'private' : t.addressSpace,
      length: t.shape.length ? t.shape.reduce((acc, s) => acc * (s.kind === 'int' ? s.value : NaN), 1) : undefined,
    }));
    const context = this.knl.assumptions;
    const body = this.items(schedule, [], context);
    return {
      name: this.knl.name,
      params,
      body: { kind: 'block', body: [...declarations, ...body] },
      localSize: [1],
      groupCount: [int(1)],
      types: this.types,
    };
  }

  /** `enforced`: the set of parameter and loop values the enclosing loops already guarantee. */
  private items(items: readonly ScheduleItem[], loops: readonly string[], enforced: BasicSet): Stmt[] {
    return items.flatMap((item) => (item.kind === 'insn' ? this.instruction(this.byId.get(item.id)!, loops, enforced) : [this.loop(item, loops, enforced)]));
  }

  private loop(item: Extract<ScheduleItem, { kind: 'loop' }>, outer: readonly string[], enforced: BasicSet): Stmt {
    const iname = item.iname;
    const domain = domainOf(this.knl, [...outer, iname]);
    const lower = nonRedundant(domain.lowerBounds(iname, outer), 'lower', iname, enforced);
    const upper = nonRedundant(domain.upperBounds(iname, outer), 'upper', iname, enforced);
    if (lower.length === 0 || upper.length === 0) {
      throw new LoomError(`loop '${iname}' has no ${lower.length === 0 ? 'lower' : 'upper'} bound in its domain (${domain.toString()}); it cannot be generated`);
    }
    const inner = enforced.addDims([iname]).addConstraints([
      ...lower.map((b): Constraint => ({ kind: 'ge', expr: Linear.variable(iname, b.divisor).sub(b.expr) })),
      ...upper.map((b): Constraint => ({ kind: 'ge', expr: b.expr.sub(Linear.variable(iname, b.divisor)) })),
    ]);
    return {
      kind: 'for',
      iname,
      lower: combineBounds(lower, 'lower'),
      upper: combineBounds(upper, 'upper'),
      body: block(this.items(item.body, [...outer, iname], inner)),
    };
  }

  private instruction(insn: Instruction, loops: readonly string[], enforced: BasicSet): Stmt[] {
    if (insn.kind !== 'assign') return [];
    const domain = domainOf(this.knl, insn.withinInames);
    const guard = constraintsToCondition(domain.gist(enforced.addDims(domain.dims.filter((d) => !enforced.dims.includes(d)))), insn);
    const target = this.flatten(insn.assignee!);
    const value = this.flattenAll(insn.expression!);
    const name = insn.assignee!.kind === 'var' ? insn.assignee!.name : (insn.assignee as { array: string }).array;
    let stmt: Stmt = { kind: 'assign', target, value, dtype: this.types.get(name)!, atomic: insn.atomic, insnId: insn.id };
    const predicates = insn.predicates.map((p) => this.flattenAll(p));
    const conditions = [...(guard ? [guard] : []), ...predicates, ...this.writeBoundsGuard(insn)];
    if (conditions.length) stmt = { kind: 'if', condition: conditions.reduce((a, b) => logical('and', a, b)), then: stmt };
    return [stmt];
  }

  /**
   * A write whose index depends on data (`out[idx[i]] = ...`) cannot be checked before
   * the launch, so it is guarded: it never lands outside the array.
   */
  private writeBoundsGuard(insn: Instruction): Expr[] {
    const target = insn.assignee;
    if (target?.kind !== 'subscript') return [];
    const arg = this.knl.arg(target.array);
    const shape = arg?.shape ?? this.knl.temporaries.get(target.array)?.shape;
    if (!shape) return [];
    const guards: Expr[] = [];
    target.indices.forEach((index, axis) => {
      if (toLinear(index)) return;
      const flat = this.flattenAll(index);
      guards.push(logical('and', compare('<=', int(0), flat), compare('<', flat, shape[axis])));
    });
    return guards;
  }

  /** `a[i, j]` → `a[n*i + j]`; a zero-dimensional array `x` → `x[0]`. */
  private flatten(e: Expr): Expr {
    if (e.kind === 'var' && this.strides.has(e.name) && this.strides.get(e.name)!.length === 0 && this.knl.arg(e.name)) {
      return subscript(e.name, [int(0)]);
    }
    if (e.kind !== 'subscript') return e;
    const strides = this.strides.get(e.array);
    if (!strides) throw new LoomError(`'${e.array}' is indexed but is not an array`);
    if (strides.length !== e.indices.length) {
      throw new LoomError(`'${e.array}' has ${strides.length} axes but is indexed with ${e.indices.length}`);
    }
    let flat: Expr | undefined;
    e.indices.forEach((ix, axis) => {
      const index = this.flattenAll(ix);
      const s = strides[axis];
      const term = s.kind === 'int' && s.value === 1 ? index : isZero(index) ? int(0) : binary('*', s, index);
      if (isZero(term)) return;
      flat = flat === undefined ? term : binary('+', flat, term);
    });
    return subscript(e.array, [flat ?? int(0)]);
  }

  private flattenAll(e: Expr): Expr {
    return rewrite(e, (x) => this.flatten(x));
  }
}

function isZero(e: Expr): boolean {
  return e.kind === 'int' && e.value === 0;
}

/** Bottom-up rewrite, applying `f` to subscripts and vars after their children. */
function rewrite(e: Expr, f: (x: Expr) => Expr): Expr {
  switch (e.kind) {
    case 'subscript': return f(subscript(e.array, e.indices.map((i) => rewrite(i, f))));
    case 'var': return f(e);
    case 'int': case 'float': case 'bool': return e;
    case 'neg': return { ...e, operand: rewrite(e.operand, f) };
    case 'not': return { ...e, operand: rewrite(e.operand, f) };
    case 'cast': return { ...e, operand: rewrite(e.operand, f) };
    case 'binary': case 'compare': case 'logical': return { ...e, left: rewrite(e.left, f), right: rewrite(e.right, f) };
    case 'if': return { ...e, condition: rewrite(e.condition, f), then: rewrite(e.then, f), otherwise: rewrite(e.otherwise, f) };
    case 'call': return { ...e, args: e.args.map((a) => rewrite(a, f)) };
    case 'reduce': throw new LoomError('internal: a reduction survived realization');
  }
}

/** Drops bounds that the others (with what is enforced) already imply. */
function nonRedundant(bounds: Bound[], side: 'lower' | 'upper', iname: string, enforced: BasicSet): Bound[] {
  const unique = bounds.filter((b, k) => bounds.findIndex((c) => c.divisor === b.divisor && c.expr.equals(b.expr)) === k);
  if (unique.length <= 1) return unique;
  const asConstraint = (b: Bound): Constraint =>
    side === 'lower'
      ? { kind: 'ge', expr: Linear.variable(iname, b.divisor).sub(b.expr) }
      : { kind: 'ge', expr: b.expr.sub(Linear.variable(iname, b.divisor)) };
  const kept = [...unique];
  for (const b of unique) {
    const others = kept.filter((c) => c !== b);
    if (others.length === 0) break;
    const set = enforced.addDims([iname]).addConstraints(others.map(asConstraint));
    if (set.implies(asConstraint(b))) kept.splice(kept.indexOf(b), 1);
  }
  return kept;
}

function boundExpr(b: Bound, side: 'lower' | 'upper'): Expr {
  const e = fromLinear(b.expr, undefined);
  if (b.divisor === 1) return e;
  // ceil(e/d) = (e + d - 1) // d ; floor(e/d) = e // d   (floor division)
  const numerator = side === 'lower' ? fromLinear(b.expr.add(b.divisor - 1)) : e;
  return binary('//', numerator, int(b.divisor));
}

function combineBounds(bounds: readonly Bound[], side: 'lower' | 'upper'): Expr {
  const exprs = bounds.map((b) => boundExpr(b, side));
  return exprs.slice(1).reduce((acc, x) => ({ kind: 'call', fn: side === 'lower' ? 'max' : 'min', args: [acc, x] }) as Expr, exprs[0]);
}

/** The remaining constraints of a gisted domain as a condition, or undefined when none remain. */
function constraintsToCondition(set: BasicSet, insn: Instruction): Expr | undefined {
  const existentials = new Set(set.existentials);
  const parts: Expr[] = [];
  for (const c of set.constraints) {
    const ex = c.expr.variables.filter((v) => existentials.has(v));
    if (ex.length === 0) {
      parts.push(linearCondition(c, set.dims));
      continue;
    }
    if (c.kind === 'eq' && ex.length === 1) {
      const k = Math.abs(c.expr.coeff(ex[0]));
      let rest = c.expr.without(ex);
      if (rest.variables.some((v) => existentials.has(v))) break;
      // divisibility reads better with a positive leading coefficient: i % 3 == 0
      if ((rest.coeffs.values().next().value ?? 0) < 0) rest = rest.negate();
      parts.push(compare('==', binary('%', fromLinear(rest), int(k)), int(0)));
      continue;
    }
    // bounds on an existential alone say nothing about the inames
    if (c.expr.variables.every((v) => existentials.has(v))) continue;
    throw new LoomError(`instruction '${insn.id}': cannot generate a guard for the domain constraint '${c.expr.toString()} ${c.kind === 'eq' ? '=' : '>='} 0'`, insn.span);
  }
  if (parts.length === 0) return undefined;
  return parts.reduce((a, b) => logical('and', a, b));
}

/** `expr >= 0` written around one of the inames: `i <= n - 1`, `j >= 2`. */
function linearCondition(c: Constraint, dims: readonly string[]): Expr {
  const v = c.expr.variables.find((x) => dims.includes(x)) ?? c.expr.variables[0];
  if (v === undefined) return compare(c.kind === 'eq' ? '==' : '>=', int(c.expr.constant), int(0));
  const k = c.expr.coeff(v);
  const rest = c.expr.without([v]);
  const lhs = simplify(fromLinear(Linear.variable(v, Math.abs(k))));
  // k*v + rest >= 0  →  k>0: |k|v >= -rest ;  k<0: |k|v <= rest
  const rhs = fromLinear(k > 0 ? rest.negate() : rest);
  if (c.kind === 'eq') return compare('==', lhs, rhs);
  return compare(k > 0 ? '>=' : '<=', lhs, rhs);
}

