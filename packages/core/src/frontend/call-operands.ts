/**
 * The operands of kernel calls (parse-call.ts) made sub-array references once the arrays'
 * declared shapes are known: each slice becomes an iname of its own over the slice's length
 * (`x[3:-1:-1]` sweeps `s` over `0 <= s < 4` at index `3 - s`), and an array passed whole
 * (`f(x)` for an array `x`) sweeps every axis.
 */
import { LoomError } from '../errors.ts';
import { binary, call, int, subscript, variable, type Expr } from '../expr/nodes.ts';
import { freeVariables, printExpr, simplify, substitute } from '../expr/index.ts';
import type { Instruction, KernelCall } from '../kernel/model.ts';
import { uniqueName } from '../kernel/rename.ts';
import { BasicSet } from '../sets/index.ts';
import type { ParsedKernelCall, ParsedOperand, ParsedSlice } from './parse-call.ts';

/**
 * `insns[k]` with the call `calls[k]` (where there is one) written as a call instruction;
 * `domains` and `inames` gain the slices' inames.
 */
export function resolveKernelCalls(
  insns: readonly Instruction[],
  calls: readonly (ParsedKernelCall | undefined)[],
  shapes: ReadonlyMap<string, readonly Expr[]>,
  domains: BasicSet[],
  inames: Set<string>,
): Instruction[] {
  const taken = new Set<string>(inames);
  for (const c of calls)
    for (const o of [...(c?.assignees ?? []), ...(c?.args ?? [])]) for (const n of freeVariables(o.expr)) taken.add(n);
  return insns.map((insn, k) => {
    const parsed = calls[k];
    if (!parsed) return insn;
    const operand = (o: ParsedOperand, isResult: boolean): { expr: Expr; sweep?: readonly string[] } => {
      let expr = o.expr;
      const sweep = [...(o.sweep ?? [])];
      for (const s of o.slices) {
        const name = uniqueName(`${s.array}_slice`, taken);
        taken.add(name);
        inames.add(name);
        const { start, count } = sliceRange(s, shapes.get(s.array));
        domains.push(BasicSet.parse(`{ [${name}]: 0 <= ${name} < ${printExpr(count)} }`));
        const scaled = s.step === 1 ? variable(name) : binary('*', int(s.step), variable(name));
        const at = start.kind === 'int' && Number(start.value) === 0 ? scaled : binary('+', start, scaled);
        expr = substitute(expr, new Map([[s.placeholder, at]]));
        sweep.push(name);
      }
      const whole = expr.kind === 'var' && o.sweep === undefined ? expr.name : undefined;
      const wholeShape = whole === undefined ? undefined : shapes.get(whole);
      if (whole !== undefined && wholeShape !== undefined && wholeShape.length > 0) {
        const axes = wholeShape.map((extent, axis) => {
          const name = uniqueName(`${whole}_dim${axis}`, taken);
          taken.add(name);
          inames.add(name);
          domains.push(BasicSet.parse(`{ [${name}]: 0 <= ${name} < ${printExpr(extent)} }`));
          return name;
        });
        return { expr: subscript(whole, axes.map(variable)), sweep: axes };
      }
      if (isResult && expr.kind !== 'var' && expr.kind !== 'subscript')
        throw new LoomError('a result of a call is a variable, an array element or a sub-array reference', o.span);
      if (o.sweep === undefined && o.slices.length === 0) return isResult ? { expr, sweep: [] } : { expr };
      if (expr.kind !== 'var' && expr.kind !== 'subscript')
        throw new LoomError('a sub-array reference is an array element with its swept inames', o.span);
      return { expr, sweep };
    };
    const results = parsed.assignees.map((o) => operand(o, true));
    const args = parsed.args.map((o) => operand(o, false));
    const kernelCall: KernelCall = {
      callee: parsed.callee,
      assigneeSweeps: results.map((r) => r.sweep ?? []),
      argSweeps: args.map((a) => a.sweep),
    };
    return {
      ...insn,
      kind: 'call',
      assignees: results.map((r) => r.expr),
      expression: call(
        parsed.callee,
        args.map((a) => a.expr),
      ),
      call: kernelCall,
    };
  });
}

/** Where a slice starts and how many elements it takes, `shape` giving what it leaves out. */
function sliceRange(s: ParsedSlice, shape: readonly Expr[] | undefined): { start: Expr; count: Expr } {
  const extent = shape?.[s.axis];
  const need = (): Expr => {
    if (extent === undefined)
      throw new LoomError(`the slice of '${s.array}' needs its bounds, or '${s.array}' a declared shape`, s.span);
    return extent;
  };
  if (s.step > 0) {
    const start = s.start ?? int(0);
    const stop = s.stop ?? need();
    if (s.step === 1) return { start, count: simplify(binary('-', stop, start)) };
    const [a, b] = [constant(start, s), constant(stop, s)];
    return { start, count: int(Math.max(0, Math.ceil((b - a) / s.step))) };
  }
  const start = s.start ?? simplify(binary('-', need(), int(1)));
  const a = constant(start, s);
  const b = s.stop === undefined ? -1 : constant(s.stop, s);
  return { start: int(a), count: int(Math.max(0, Math.ceil((b - a) / s.step))) };
}

function constant(e: Expr, s: ParsedSlice): number {
  const v = simplify(e);
  if (v.kind === 'int') return Number(v.value);
  throw new LoomError(`a slice of '${s.array}' with a step other than 1 has constant bounds`, s.span);
}
