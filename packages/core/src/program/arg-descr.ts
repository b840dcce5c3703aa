/**
 * `inferArgDescr` (loopy's `infer_arg_descr`): what the callers' calls say about a callee's
 * array arguments, written into the callee. A callee's argument without a dtype takes the
 * dtype of the caller's array it is passed; a dtype that disagrees with the caller's, or two
 * callers passing different dtypes, is a `LoomError` under the call. (Shapes need no
 * inference: a callee's shapes come from its own domains, and inlining checks them against
 * each call's swept extents.)
 */
import type { DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import type { Expr } from '../expr/nodes.ts';
import { LoopKernel, type Instruction } from '../kernel/model.ts';
import { assigneeName } from '../kernel/accesses.ts';
import { layoutArgNames } from '../kernel/arg-layouts.ts';
import { asProgram, Program, type Callable } from './program.ts';

/**
 * The program with each callee's untyped array arguments typed from the arrays its callers pass.
 * ```ts
 * prog = inferArgDescr(merge([caller, callee]));
 * ```
 */
export function inferArgDescr(prog: LoopKernel | Program): Program {
  const p = asProgram(prog);
  const seen = new Map<string, Map<string, { dtype: DType; site: Instruction }>>();
  for (const [, caller] of p.callables) {
    if (!(caller instanceof LoopKernel)) continue;
    for (const site of caller.instructions) {
      if (!site.call) continue;
      const callee = p.callables.get(site.call.callee);
      if (!(callee instanceof LoopKernel)) continue;
      const mine = seen.get(callee.name) ?? new Map();
      seen.set(callee.name, mine);
      for (const [name, ref] of passedArrays(callee, site)) {
        const dtype = dtypeOf(caller, ref);
        if (dtype === undefined) continue;
        const declared = callee.arg(name)?.dtype;
        if (declared !== undefined && declared !== dtype)
          throw new LoomError(
            `'${callee.name}' takes '${name}' as ${declared}; the call passes ${assigneeName(ref)}, a ${dtype}`,
            site.span,
          );
        const earlier = mine.get(name);
        if (earlier && earlier.dtype !== dtype)
          throw new LoomError(
            `'${callee.name}' is passed '${name}' as ${earlier.dtype} and as ${dtype}: give each its own copy (renameCallable)`,
            site.span,
          );
        mine.set(name, { dtype, site });
      }
    }
  }
  const callables = new Map<string, Callable>();
  for (const [name, c] of p.callables) {
    const found = seen.get(name);
    if (!(c instanceof LoopKernel) || !found?.size) {
      callables.set(name, c);
      continue;
    }
    const args = c.args.map((a) =>
      a.dtype === undefined && found.has(a.name) ? { ...a, dtype: found.get(a.name)!.dtype } : a,
    );
    callables.set(name, c.with({ args }));
  }
  return new Program(callables, p.entrypoints);
}

/** The callee's array arguments with the caller's references passed to them (arguments, then results). */
function passedArrays(callee: LoopKernel, site: Instruction): [string, Expr][] {
  const layout = layoutArgNames(callee);
  const inputs = callee.args.filter((a) => (a.isInput || a.kind === 'value') && !layout.has(a.name));
  const outputs = callee.args.filter((a) => a.isOutput && a.kind !== 'value');
  const passed = (site.expression as Extract<Expr, { kind: 'call' }>).args;
  const out: [string, Expr][] = [];
  inputs.forEach((a, k) => {
    const ref = passed[k];
    if (a.kind !== 'value' && site.call!.argSweeps[k] !== undefined && ref) out.push([a.name, ref]);
  });
  outputs.forEach((a, k) => {
    const ref = site.assignees[k];
    if (ref) out.push([a.name, ref]);
  });
  return out;
}

function dtypeOf(knl: LoopKernel, ref: Expr): DType | undefined {
  if (ref.kind !== 'var' && ref.kind !== 'subscript') return undefined;
  const name = assigneeName(ref);
  return knl.arg(name)?.dtype ?? knl.temporaries.get(name)?.dtype;
}
