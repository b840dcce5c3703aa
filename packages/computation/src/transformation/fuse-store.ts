/**
 * A transformation on what a kernel writes: each instruction `c[e] = v` becomes the body's
 * stores at index `e`, with `loadSame(connector)` standing for `v`. With
 *
 *   t = loadSame(in1) * param
 *   storeSame(out1, t)
 *   if idx0 < 80
 *     storeIdx(out2, idx0, t)
 *   end
 *
 * `c[i] = a[i] + 1` becomes two instructions, `out1[i] = tmp*param` and
 * `out2[i] = tmp*param {if i < 80}`, after `tmp = a[i] + 1`: a value the body uses more
 * than once is computed once, into a private temporary (a sum over `k` must not run twice).
 * A body that stores nothing (Reikna's `ignore`) leaves a no-op in the instruction's place.
 */
import { LoomError, expr, type Expr, type Instruction, type LoopKernel, type TemporaryVariable } from '@loom/core';
import { element, instantiate, usesOfValue, type Resolved } from './resolve.ts';
import type { Transformation } from './transformation.ts';

export function fuseStores(
  knl: LoopKernel,
  argName: string,
  tr: Transformation,
  resolved: Resolved,
  what: string,
): LoopKernel {
  const connector = resolved.connector.param;
  const uses = tr.body.stores.reduce(
    (n, s) => n + [s.value, ...s.indices, ...s.guards].reduce((m, e) => m + usesOfValue(e, connector), 0),
    0,
  );
  const ids = new Set(knl.instructions.map((i) => i.id));
  const names = new Set([
    ...knl.args.map((a) => a.name),
    ...knl.temporaries.keys(),
    ...knl.inames,
    ...knl.substitutions.keys(),
  ]);
  const temporaries = new Map(knl.temporaries);
  const replaced = new Map<string, string[]>();

  const instructions = knl.instructions.flatMap((insn): Instruction[] => {
    const written = insn.assignees.filter(
      (a) => (a.kind === 'subscript' ? a.array : a.kind === 'var' ? a.name : undefined) === argName,
    );
    if (written.length > 0 && insn.assignees.length > 1) {
      throw new LoomError(
        `${what}: instruction '${insn.id}' assigns '${argName}' among several results; a transformation can be attached to a single assignment's target only`,
        insn.span,
      );
    }
    const target = insn.assignees.length === 1 ? insn.assignees[0] : undefined;
    const index =
      target?.kind === 'subscript' && target.array === argName
        ? target.indices
        : target?.kind === 'var' && target.name === argName
          ? []
          : undefined;
    if (index === undefined) return [insn];
    if (insn.atomic || knl.arg(argName)?.forAtomic) {
      throw new LoomError(
        `${what}: instruction '${insn.id}' updates '${argName}' atomically; a transformation cannot run inside an atomic update`,
        insn.span,
      );
    }
    const dtype = resolved.connector.dtype;
    let value: Expr = dtype === undefined ? insn.expression! : expr.cast(dtype, insn.expression!);
    const out: Instruction[] = [];
    let computed: string | undefined;
    if (uses > 1 && value.kind !== 'var' && value.kind !== 'int' && value.kind !== 'float') {
      const temp = fresh(`${argName}_value`, names);
      temporaries.set(temp, { name: temp, dtype, shape: [], addressSpace: 'private' } satisfies TemporaryVariable);
      out.push({ ...insn, assignees: [expr.variable(temp)], expression: value });
      computed = insn.id;
      value = expr.variable(temp);
    }
    tr.body.stores.forEach((store) => {
      const at = store.same ? index : store.indices.map((i) => instantiate(i, index, resolved, value));
      const leaf = resolved.params.find((p) => p.param === store.param)!.arg;
      const id = out.length === 0 ? insn.id : fresh(`${insn.id}_${leaf}`, ids);
      out.push({
        ...insn,
        id,
        assignees: [element(leaf, at)],
        expression: instantiate(store.value, index, resolved, value),
        predicates: [...insn.predicates, ...store.guards.map((g) => instantiate(g, index, resolved, value))],
        dependsOn: computed === undefined ? insn.dependsOn : [computed],
      });
    });
    if (out.length === 0) out.push({ ...insn, kind: 'nop', assignees: [], expression: undefined });
    replaced.set(
      insn.id,
      out.map((i) => i.id),
    );
    return out;
  });

  // whatever waited for the store waits for every instruction that took its place
  const made = new Set([...replaced.values()].flat());
  const after = instructions.map((insn) => {
    if (made.has(insn.id)) return insn;
    const extra = insn.dependsOn.flatMap((d) => (replaced.get(d) ?? []).filter((id) => id !== d && id !== insn.id));
    return extra.length ? { ...insn, dependsOn: [...new Set([...insn.dependsOn, ...extra])] } : insn;
  });
  return knl.with({ instructions: after, temporaries });
}

function fresh(base: string, taken: Set<string>): string {
  let name = base;
  for (let k = 0; taken.has(name); k++) name = `${base}_${k}`;
  taken.add(name);
  return name;
}
