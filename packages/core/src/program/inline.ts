/**
 * Inlining a callable kernel into its callers (loopy's `inline_callable_kernel`): each call
 * instruction becomes the callee's instructions, with
 *  - the callee's inames, temporaries and instruction ids renamed apart from the caller's;
 *  - its value arguments replaced by the values passed (in its domains too: `0 <= i < n`
 *    called with `n = 10` loops to 10);
 *  - its array arguments replaced by the caller's sub-array references: the callee's index
 *    along axis `k` is the `k`-th swept iname's offset from its lower bound, so slices with
 *    steps (negative ones too), offsets and the caller's strides all follow;
 *  - the call's loops, predicates and dependencies carried: the callee's first instructions
 *    depend on what the call depended on, and what depended on the call depends on the
 *    callee's last ones. C code, preambles, barriers (global ones too) and user functions come along.
 */
import { LoomError } from '../errors.ts';
import { mapExpr, substitute, toLinear, fromLinear, freeVariables } from '../expr/index.ts';
import { subscript, variable, type Expr } from '../expr/nodes.ts';
import { LoopKernel, sweptInames, type InlinedCall, type Instruction, type KernelArg } from '../kernel/model.ts';
import { uniqueName } from '../kernel/rename.ts';
import { domainOf } from '../kernel/domains.ts';
import { assigneeName } from '../kernel/accesses.ts';
import { BasicSet } from '../sets/index.ts';
import { layoutArgNames, takenNames } from '../kernel/arg-layouts.ts';
import { removeUnusedInames } from '../transform/remove-unused-inames.ts';
import type { Linear } from '../linear.ts';
import { asProgram, Program, type Callable } from './program.ts';

/**
 * The program with every call of the kernel `name` replaced by the kernel's instructions;
 * `name` leaves the program where it is not an entrypoint.
 * ```ts
 * prog = inlineCallableKernel(prog, 'linear_combo');
 * ```
 */
export function inlineCallableKernel(prog: LoopKernel | Program, name: string): Program {
  const p = asProgram(prog);
  const callee = p.kernel(name);
  if (callee.instructions.some((i) => i.call?.callee === name))
    throw new LoomError(`inlineCallableKernel: kernel '${name}' calls itself`);
  const callables = new Map<string, Callable>();
  for (const [n, c] of p.callables) {
    if (n === name && !p.entrypoints.includes(n)) continue;
    callables.set(n, c instanceof LoopKernel && n !== name ? inlineInto(c, callee) : c);
  }
  return new Program(callables, p.entrypoints);
}

/** How `inlineInto` inlines. */
export interface InlineOptions {
  /**
   * Mark the inlined instructions with the call they come from (`Instruction.inlinedFrom`), so
   * that code generation makes the call's code a device function where the target can call one.
   */
  readonly asFunction?: boolean;
}

/** `caller` with each of its calls of `callee` inlined. */
export function inlineInto(caller: LoopKernel, callee: LoopKernel, options: InlineOptions = {}): LoopKernel {
  // loopy's check_all_callees_have_same_index_dtype: inlined, the callee's index arithmetic becomes the caller's
  if (callee.indexDtype !== caller.indexDtype && callsIn(caller).includes(callee.name))
    throw new LoomError(
      `kernel '${caller.name}' (index dtype ${caller.indexDtype}) calls '${callee.name}', whose index dtype is ${callee.indexDtype}: a callee must index in its caller's dtype (makeKernel's indexDtype)`,
      caller.instructions.find((i) => i.call?.callee === callee.name)?.span,
    );
  let knl = caller;
  for (;;) {
    const site = knl.instructions.find((i) => i.call?.callee === callee.name);
    if (!site) return knl;
    knl = inlineCall(knl, site, callee, options);
  }
}

interface Binding {
  /** A value (a value argument, or a scalar passed by value). */
  readonly value?: Expr;
  /** A sub-array reference read (`read`) and written (`write`). */
  readonly read?: { readonly ref: Expr; readonly sweep: readonly string[] };
  readonly write?: { readonly ref: Expr; readonly sweep: readonly string[] };
}

function inlineCall(caller: LoopKernel, site: Instruction, callee: LoopKernel, options: InlineOptions): LoopKernel {
  const call = site.call!;
  const passed = (site.expression as Extract<Expr, { kind: 'call' }>).args;
  // the values a layout takes from the data passed (`a_offset`) are the caller's sub-array's own
  const layout = layoutArgNames(callee);
  const inputs = callee.args.filter((a) => (a.isInput || a.kind === 'value') && !layout.has(a.name));
  const outputs = callee.args.filter((a) => a.isOutput && a.kind !== 'value');
  const where = site.span;
  if (passed.length !== inputs.length)
    throw new LoomError(
      `the call of '${callee.name}' passes ${passed.length} argument(s); it takes ${inputs.length} (${inputs.map((a) => a.name).join(', ')})`,
      where,
    );
  if (site.assignees.length !== outputs.length)
    throw new LoomError(
      `the call of '${callee.name}' assigns ${site.assignees.length} result(s); it has ${outputs.length} (${outputs.map((a) => a.name).join(', ')})`,
      where,
    );
  const bindings = new Map<string, Binding>();
  inputs.forEach((a, k) => {
    const sweep = call.argSweeps[k];
    if (sweep === undefined) {
      if (a.kind !== 'value' && (a.shape?.length ?? 0) > 0)
        throw new LoomError(
          `'${callee.name}' takes the array '${a.name}', passed a value: pass a sub-array reference ([i]: x[i])`,
          where,
        );
      bindings.set(a.name, { value: passed[k] });
    } else {
      if (a.kind === 'value')
        throw new LoomError(`'${callee.name}' takes '${a.name}' by value, passed a sub-array reference`, where);
      bindings.set(a.name, { read: { ref: passed[k], sweep } });
    }
  });
  outputs.forEach((a, k) => {
    const there = bindings.get(a.name) ?? {};
    bindings.set(a.name, { ...there, write: { ref: site.assignees[k], sweep: call.assigneeSweeps[k] } });
  });

  // names apart from the caller's
  const taken = new Set<string>([
    ...takenNames(caller),
    ...caller.instructions.flatMap((i) => [
      ...(i.expression ? freeVariables(i.expression) : []),
      ...i.predicates.flatMap((p) => [...freeVariables(p)]),
    ]),
  ]);
  const rename = new Map<string, string>();
  const fresh = (n: string) => {
    const m = uniqueName(n, taken);
    taken.add(m);
    rename.set(n, m);
    return m;
  };
  for (const n of callee.inames) fresh(n);
  for (const n of callee.temporaries.keys()) fresh(n);
  if (callee.substitutions.size)
    throw new LoomError(
      `kernel '${callee.name}' has substitution rules: expand them (expandSubst) before inlining it`,
      where,
    );

  const values = new Map<string, Expr>();
  for (const [n, b] of bindings) if (b.value) values.set(n, b.value);
  const renamedVars = new Map([...rename].map(([a, b]) => [a, variable(b)] as const));
  const argOf = new Map(callee.args.map((a) => [a.name, a]));

  // the callee's index along each axis is the swept iname's offset from its lower bound
  const lower = (s: string): Expr => {
    const bounds = domainOf(caller, [s]).lowerBounds(s, []);
    if (bounds.length !== 1 || bounds[0].divisor !== 1)
      throw new LoomError(`the swept iname '${s}' needs one lower bound to be inlined`, where);
    return fromLinear(bounds[0].expr);
  };
  const through = (arg: KernelArg, r: { ref: Expr; sweep: readonly string[] }, indices: readonly Expr[]): Expr => {
    const rank = arg.shape?.length ?? 0;
    if (indices.length !== r.sweep.length || rank !== r.sweep.length)
      throw new LoomError(
        `'${callee.name}' takes '${arg.name}' with ${rank} axes; the call passes a reference sweeping ${r.sweep.length} (packAndUnpackArgsForCall packs it into the callee's shape)`,
        where,
      );
    const at = new Map(r.sweep.map((s, k) => [s, binaryPlus(lower(s), indices[k])] as const));
    return substitute(r.ref, at);
  };
  // bottom-up: a subscript's indices are the callee's, already mapped, when it is met
  const mapRead = (e: Expr): Expr =>
    mapExpr(e, (x) => {
      if (x.kind === 'var') {
        if (values.has(x.name)) return values.get(x.name)!;
        const b = bindings.get(x.name);
        if (b) return through(argOf.get(x.name)!, refOf(b, 'read', x.name), []);
        return renamedVars.get(x.name) ?? x;
      }
      if (x.kind === 'subscript') {
        const b = bindings.get(x.array);
        if (b) return through(argOf.get(x.array)!, refOf(b, 'read', x.array), x.indices);
        return subscript(rename.get(x.array) ?? x.array, x.indices, x.linear, x.tag);
      }
      // a reduction's body is mapped already; the inames it binds are renamed
      if (x.kind === 'reduce') return { ...x, inames: x.inames.map((n) => rename.get(n) ?? n) };
      return x;
    });
  const mapWrite = (a: Expr): Expr => {
    const name = assigneeName(a);
    const b = bindings.get(name);
    const indices = a.kind === 'subscript' ? a.indices.map(mapRead) : [];
    if (b) return through(argOf.get(name)!, refOf(b, 'write', name), indices);
    const to = rename.get(name) ?? name;
    return a.kind === 'subscript' ? subscript(to, indices, a.linear, a.tag) : variable(to);
  };
  function refOf(b: Binding, how: 'read' | 'write', name: string) {
    const r = b[how] ?? b.read ?? b.write;
    if (!r)
      throw new LoomError(`'${callee.name}' ${how === 'read' ? 'reads' : 'writes'} '${name}', passed no array`, where);
    return r;
  }
  checkExtents(caller, callee, bindings, values, where);

  // instructions: ids apart from the caller's, the call's loops, predicates and dependencies
  const ids = new Set(caller.instructions.map((i) => i.id));
  const idOf = new Map<string, string>();
  for (const insn of callee.instructions) {
    const id = uniqueName(insn.id, ids);
    ids.add(id);
    idOf.set(insn.id, id);
  }
  const dependedOn = new Set(callee.instructions.flatMap((i) => i.dependsOn));
  const renamedIname = (n: string) => rename.get(n) ?? n;
  const from: InlinedCall = { callee: callee.name, site: site.id, inames: callee.inames.map(renamedIname) };
  // the calls inlined into the callee before are inside this one, their inames renamed with the callee's
  const inlinedFrom = (insn: Instruction): Pick<Instruction, 'inlinedFrom'> => {
    const inner = (insn.inlinedFrom ?? []).map((c) => ({ ...c, inames: c.inames.map(renamedIname) }));
    const all = options.asFunction ? [from, ...inner] : inner;
    return all.length ? { inlinedFrom: all } : {};
  };
  const sinks = callee.instructions.filter((i) => !dependedOn.has(i.id)).map((i) => idOf.get(i.id)!);
  const inlined: Instruction[] = callee.instructions.map((insn) => {
    const own = insn.dependsOn.filter((d) => idOf.has(d)).map((d) => idOf.get(d)!);
    return {
      ...insn,
      id: idOf.get(insn.id)!,
      assignees: insn.assignees.map(mapWrite),
      expression: insn.expression && mapRead(insn.expression),
      predicates: [...site.predicates, ...insn.predicates.map(mapRead)],
      withinInames: [...site.withinInames, ...insn.withinInames.map((n) => rename.get(n) ?? n)],
      dependsOn: own.length ? own : [...site.dependsOn],
      noSyncWith: insn.noSyncWith.map((n) => idOf.get(n) ?? n),
      ...(insn.cCode
        ? {
            cCode: {
              ...insn.cCode,
              inameExprs: insn.cCode.inameExprs.map((b) => ({ ...b, value: mapRead(b.value) })),
              readVariables: insn.cCode.readVariables.map((v) => {
                const mapped = mapRead(variable(v));
                return mapped.kind === 'var' ? mapped.name : mapped.kind === 'subscript' ? mapped.array : v;
              }),
            },
          }
        : {}),
      ...(insn.call ? { call: renameSweeps(insn.call, rename) } : {}),
      span: insn.span ?? site.span,
      ...inlinedFrom(insn),
    };
  });
  const after = sinks.length ? sinks : [...site.dependsOn];
  const instructions: Instruction[] = [];
  for (const insn of caller.instructions) {
    if (insn === site) {
      instructions.push(...inlined);
      continue;
    }
    instructions.push(
      insn.dependsOn.includes(site.id)
        ? { ...insn, dependsOn: [...new Set(insn.dependsOn.flatMap((d) => (d === site.id ? after : [d])))] }
        : insn,
    );
  }

  const domains = [...caller.domains, ...callee.domains.map((d) => substituteInSet(d, rename, values, where))];
  const temporaries = new Map(caller.temporaries);
  for (const [n, t] of callee.temporaries) {
    const shape = t.shape.map((e) => substitute(e, values));
    temporaries.set(rename.get(n)!, { ...t, name: rename.get(n)!, shape });
  }
  const inameTags = new Map(caller.inameTags);
  for (const [n, tag] of callee.inameTags) inameTags.set(rename.get(n) ?? n, tag);
  const loopSlabs = new Map(caller.loopSlabs);
  for (const [n, s] of callee.loopSlabs) loopSlabs.set(rename.get(n) ?? n, s);
  const functions = new Map(caller.functions);
  for (const [n, f] of callee.functions) functions.set(n, f);
  const preambles = [...caller.preambles];
  for (const p of callee.preambles) if (!preambles.some((q) => q[0] === p[0] && q[1] === p[1])) preambles.push(p);
  const withCallee = caller.with({
    instructions,
    ...(preambles.length !== caller.preambles.length ? { preambles } : {}),
    domains,
    temporaries,
    inameTags,
    loopSlabs,
    functions,
    // the callee runs inside the call's loops, as its body would
    loopPriorities: [
      ...caller.loopPriorities,
      ...callee.loopPriorities.map((p) => p.map((n) => rename.get(n) ?? n)),
      ...site.withinInames.flatMap((s) => callee.inames.map((n) => [s, rename.get(n)!])),
    ],
  });
  // the inames the call swept are the callee's now: left unused, they leave the domains
  return removeUnusedInames(withCallee, [...sweptInames(site)]);
}

function binaryPlus(a: Expr, b: Expr): Expr {
  if (a.kind === 'int' && Number(a.value) === 0) return b;
  return { kind: 'binary', op: '+', left: a, right: b } as Expr;
}

function renameSweeps(call: NonNullable<Instruction['call']>, rename: ReadonlyMap<string, string>) {
  const one = (n: string) => rename.get(n) ?? n;
  return {
    ...call,
    assigneeSweeps: call.assigneeSweeps.map((s) => s.map(one)),
    argSweeps: call.argSweeps.map((s) => s?.map(one)),
  };
}

/** The callee's domain in the caller's names: inames renamed, value arguments replaced by the values passed. */
function substituteInSet(
  set: BasicSet,
  rename: ReadonlyMap<string, string>,
  values: ReadonlyMap<string, Expr>,
  where: Instruction['span'],
): BasicSet {
  let s = set;
  for (const d of set.dims) s = s.renameVariable(d, rename.get(d) ?? d);
  const fixed = s.params.filter((p) => values.has(p));
  if (!fixed.length) return s;
  const linear = new Map<string, Linear>();
  for (const p of fixed) {
    const l = toLinear(values.get(p)!);
    if (!l)
      throw new LoomError(
        `the callee's domain uses '${p}', passed a value that is not affine in the parameters`,
        where,
      );
    linear.set(p, l);
  }
  const constraints = s.constraints.map((c) => ({
    kind: c.kind,
    expr: fixed.reduce((e, n) => e.substitute(n, linear.get(n)!), c.expr),
  }));
  return BasicSet.fromConstraints(
    s.params.filter((p) => !values.has(p)),
    s.dims,
    constraints,
    s.existentials,
  );
}

/** Where the callee's shape and the caller's swept extents are both constant, they agree. */
function checkExtents(
  caller: LoopKernel,
  callee: LoopKernel,
  bindings: ReadonlyMap<string, Binding>,
  values: ReadonlyMap<string, Expr>,
  where: Instruction['span'],
): void {
  for (const [name, b] of bindings) {
    const arg = callee.args.find((a) => a.name === name)!;
    for (const r of [b.read, b.write]) {
      if (!r || !arg.shape || arg.shape.length !== r.sweep.length) continue;
      r.sweep.forEach((s, k) => {
        const extent = toLinear(substitute(arg.shape![k], values));
        const set = domainOf(caller, [s]);
        const lo = set.lowerBounds(s, []);
        const hi = set.upperBounds(s, []);
        if (!extent?.isConstant || lo.length !== 1 || hi.length !== 1) return;
        const [l, h] = [lo[0].expr, hi[0].expr];
        if (!l.isConstant || !h.isConstant) return;
        const count = h.constant - l.constant + 1;
        if (count !== extent.constant)
          throw new LoomError(
            `'${callee.name}' takes '${name}' with ${extent.constant} elements along axis ${k}; the call sweeps ${count} ('${s}')`,
            where,
          );
      });
    }
  }
}

/** Whether any call instruction is left in the kernel. */
export function callsIn(knl: LoopKernel): string[] {
  return [...new Set(knl.instructions.filter((i) => i.kind === 'call').map((i) => i.call!.callee))];
}
