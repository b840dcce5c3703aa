/**
 * `packAndUnpackArgsForCall` (loopy's `pack_and_unpack_args_for_call`): each sub-array passed to
 * a callee is copied into a temporary of the callee's own shape before the call, and each
 * result copied back out after it. The elements keep their order (row-major over the swept
 * inames, row-major in the callee's shape), so a call may pass `[i, j]: x[i, j]` (3 × 2) to a
 * callee taking `a[6]`, which inlining alone refuses.
 */
import { LoomError } from '../errors.ts';
import { binary, call as callExpr, int, subscript, variable, type Expr } from '../expr/nodes.ts';
import { substitute, toLinear } from '../expr/index.ts';
import { LoopKernel, type Instruction, type KernelArg } from '../kernel/model.ts';
import { uniqueName } from '../kernel/rename.ts';
import { domainOf } from '../kernel/domains.ts';
import { layoutArgNames } from '../kernel/arg-layouts.ts';
import { BasicSet } from '../sets/index.ts';
import { asProgram, Program, type Callable } from './program.ts';

/**
 * The program with every call of kernel `callee` passing and receiving packed copies of its
 * sub-arrays; `args` limits that to some of the callee's arguments (default: all arrays).
 * ```ts
 * prog = packAndUnpackArgsForCall(prog, 'callee_fn1');
 * ```
 */
export function packAndUnpackArgsForCall(
  prog: LoopKernel | Program,
  callee: string,
  args?: readonly string[],
): Program {
  const p = asProgram(prog);
  const target = p.kernel(callee);
  const callables = new Map<string, Callable>();
  for (const [name, c] of p.callables) callables.set(name, c instanceof LoopKernel ? packCalls(c, target, args) : c);
  return new Program(callables, p.entrypoints);
}

function packCalls(knl: LoopKernel, callee: LoopKernel, only: readonly string[] | undefined): LoopKernel {
  let out = knl;
  const done = new Set<string>();
  for (;;) {
    const site = out.instructions.find((i) => i.call?.callee === callee.name && !done.has(i.id));
    if (!site) return out;
    out = packCall(out, site, callee, only);
    done.add(site.id);
  }
}

function packCall(
  knl: LoopKernel,
  site: Instruction,
  callee: LoopKernel,
  only: readonly string[] | undefined,
): LoopKernel {
  const call = site.call!;
  const layout = layoutArgNames(callee);
  const inputs = callee.args.filter((a) => (a.isInput || a.kind === 'value') && !layout.has(a.name));
  const outputs = callee.args.filter((a) => a.isOutput && a.kind !== 'value');
  const passed = [...(site.expression as Extract<Expr, { kind: 'call' }>).args];
  const values = new Map<string, Expr>();
  inputs.forEach((a, k) => {
    if (a.kind === 'value' && call.argSweeps[k] === undefined) values.set(a.name, passed[k]);
  });
  const taken = new Set([...knl.inames, ...knl.args.map((a) => a.name), ...knl.temporaries.keys()]);
  const ids = new Set(knl.instructions.map((i) => i.id));
  const domains = [...knl.domains];
  const temporaries = new Map(knl.temporaries);
  const before: Instruction[] = [];
  const after: Instruction[] = [];
  const argSweeps = [...call.argSweeps];
  const assigneeSweeps = [...call.assigneeSweeps];
  const assignees = [...site.assignees];

  /** A temporary in the callee's shape for `arg`: where the swept element goes, and the reference the call takes instead. */
  const pack = (arg: KernelArg, sweep: readonly string[]) => {
    const shape = (arg.shape ?? []).map((e) => constantOf(substitute(e, values), arg, site));
    const temp = uniqueName(`${arg.name}_${callee.name}_packed`, taken);
    taken.add(temp);
    temporaries.set(temp, { name: temp, dtype: undefined, shape: shape.map(int), addressSpace: 'auto' });
    // the element's place in the sweep, row-major, then in the callee's shape
    const extents = sweep.map((s) => extentOf(knl, s, site));
    let flat: Expr | undefined;
    sweep.forEach((s, k) => {
      const offset = extents[k].lower === 0 ? variable(s) : binary('-', variable(s), int(extents[k].lower));
      flat = flat === undefined ? offset : binary('+', binary('*', flat, int(extents[k].count)), offset);
    });
    const total = shape.reduce((x, y) => x * y, 1);
    if (total !== extents.reduce((x, e) => x * e.count, 1))
      throw new LoomError(
        `'${callee.name}' takes '${arg.name}' with ${total} elements; the call sweeps ${extents.reduce((x, e) => x * e.count, 1)}`,
        site.span,
      );
    let stride = total;
    const packedIndex = shape.map((n, k) => {
      stride /= n;
      const quotient = stride === 1 ? flat! : binary('//', flat!, int(stride));
      return k === 0 ? quotient : binary('%', quotient, int(n));
    });
    const packed = shape.length ? subscript(temp, packedIndex) : variable(temp);
    const newSweep = shape.map((n, k) => {
      const name = uniqueName(`${temp}_dim${k}`, taken);
      taken.add(name);
      domains.push(BasicSet.parse(`{ [${name}]: 0 <= ${name} < ${n} }`));
      return name;
    });
    const newRef = shape.length ? subscript(temp, newSweep.map(variable)) : variable(temp);
    return { packed, newRef, newSweep };
  };
  // each copy loops over inames of its own (the call's swept ones are bound by the call)
  const copy = (id: string, assignee: Expr, value: Expr, sweep: readonly string[], dependsOn: string[]) => {
    const fresh = uniqueName(id, ids);
    ids.add(fresh);
    const loops = new Map<string, Expr>();
    for (const s of sweep) {
      const { lower, count } = extentOf(knl, s, site);
      const name = uniqueName(s, taken);
      taken.add(name);
      domains.push(BasicSet.parse(`{ [${name}]: ${lower} <= ${name} < ${lower + count} }`));
      loops.set(s, variable(name));
    }
    return {
      ...site,
      kind: 'assign' as const,
      id: fresh,
      assignees: [substitute(assignee, loops)],
      expression: substitute(value, loops),
      call: undefined,
      withinInames: [...site.withinInames, ...[...loops.values()].map((v) => (v as { name: string }).name)],
      dependsOn,
    };
  };
  inputs.forEach((a, k) => {
    const sweep = call.argSweeps[k];
    if (sweep === undefined || a.kind === 'value' || (only && !only.includes(a.name))) return;
    const { packed, newRef, newSweep } = pack(a, sweep);
    before.push(copy(`${site.id}_pack_${a.name}`, packed, passed[k], sweep, [...site.dependsOn]));
    passed[k] = newRef;
    argSweeps[k] = newSweep;
  });
  outputs.forEach((a, k) => {
    const sweep = call.assigneeSweeps[k];
    if (only && !only.includes(a.name)) return;
    const { packed, newRef, newSweep } = pack(a, sweep);
    after.push(copy(`${site.id}_unpack_${a.name}`, site.assignees[k], packed, sweep, [site.id]));
    assignees[k] = newRef;
    assigneeSweeps[k] = newSweep;
  });
  const newCall: Instruction = {
    ...site,
    assignees,
    expression: callExpr(callee.name, passed),
    call: { ...call, argSweeps, assigneeSweeps },
    dependsOn: [...new Set([...site.dependsOn, ...before.map((i) => i.id)])],
  };
  const last = after.length ? after.map((i) => i.id) : [site.id];
  const instructions = knl.instructions.flatMap((insn) => {
    if (insn === site) return [...before, newCall, ...after];
    if (!after.length || !insn.dependsOn.includes(site.id)) return [insn];
    return [{ ...insn, dependsOn: [...new Set(insn.dependsOn.flatMap((d) => (d === site.id ? last : [d])))] }];
  });
  return knl.with({ instructions, domains, temporaries });
}

function constantOf(e: Expr, arg: KernelArg, site: Instruction): number {
  const l = toLinear(e);
  if (!l?.isConstant)
    throw new LoomError(`packing '${arg.name}' needs a constant shape in the callee, not ${String(e)}`, site.span);
  return l.constant;
}

function extentOf(knl: LoopKernel, s: string, site: Instruction): { lower: number; count: number } {
  const set = domainOf(knl, [s]);
  const lo = set.lowerBounds(s, []);
  const hi = set.upperBounds(s, []);
  if (lo.length === 1 && hi.length === 1 && lo[0].expr.isConstant && hi[0].expr.isConstant)
    return { lower: lo[0].expr.constant, count: hi[0].expr.constant - lo[0].expr.constant + 1 };
  throw new LoomError(`packing needs the swept iname '${s}' to have constant bounds`, site.span);
}
