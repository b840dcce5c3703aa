/**
 * Which loops each instruction lives in (loopy's `within_inames`), when not given:
 * the inames it uses, those of enclosing `for` blocks, the inames its domain's
 * bounds depend on (the inames among its domain's parameters, and every iname of the
 * writers of a temporary among them: `{[s]: start<=s<stop}` with `<> start = starts[b]`
 * puts the loop over `s` inside `b`, where its bounds are set, as loopy's
 * `find_all_insn_inames` does), and — loopy's heuristic — the inames shared by every writer of
 * a variable it reads that are not visible in that writer's assignee
 * (`<> t = a[i]` carries `i` to the readers of `t`), except inside a `for` block, whose
 * inames are final (loopy's `within_inames_is_final`).
 */
import type { SubstitutionRule } from '../kernel/model.ts';
import { sweptInames, type Instruction } from '../kernel/model.ts';
import type { BasicSet } from '../sets/index.ts';
import { freeVariables } from '../expr/index.ts';
import { namesRead, namesWritten, readExpressions, reductionInames } from '../kernel/accesses.ts';

export interface InameRequest {
  readonly insn: Instruction;
  /** From `for` blocks. */
  readonly forInames: readonly string[];
  /** From the `inames=` attribute. */
  readonly explicit?: { readonly names: readonly string[]; readonly additive: boolean };
}

export function inferWithinInames(
  requests: readonly InameRequest[],
  domains: readonly BasicSet[],
  rules: ReadonlyMap<string, SubstitutionRule>,
): Map<string, string[]> {
  const allInames = new Set(domains.flatMap((d) => d.dims));
  const parents = new Map<string, string[]>();
  /** The parameters of each iname's domain that are not inames: temporaries among them bring their writers' loops. */
  const boundParams = new Map<string, string[]>();
  for (const d of domains)
    for (const dim of d.dims) {
      parents.set(
        dim,
        d.params.filter((p) => allInames.has(p)),
      );
      boundParams.set(
        dim,
        d.params.filter((p) => !allInames.has(p)),
      );
    }

  const result = new Map<string, Set<string>>();
  const fixed = new Set<string>();
  const reduction = new Map<string, Set<string>>();
  for (const { insn, forInames, explicit } of requests) {
    // the inames a call's sub-array references sweep are bound by the call, as a reduction's are
    reduction.set(insn.id, new Set([...reductionInames(insn, rules), ...sweptInames(insn)]));
    if (explicit && !explicit.additive) {
      result.set(insn.id, new Set(explicit.names));
      fixed.add(insn.id);
      continue;
    }
    const used = new Set<string>();
    const swept = sweptInames(insn);
    for (const e of readExpressions(insn, rules))
      for (const n of freeVariables(e)) if (allInames.has(n) && !swept.has(n)) used.add(n);
    for (const n of forInames) used.add(n);
    for (const n of explicit?.names ?? []) used.add(n);
    result.set(insn.id, used);
    // inside a `for` block the loops are the blocks' (and the inames used): final, as in loopy
    if (forInames.length) fixed.add(insn.id);
  }

  const byId = new Map(requests.map((r) => [r.insn.id, r.insn]));
  const writers = new Map<string, string[]>();
  for (const { insn } of requests) {
    for (const w of new Set(namesWritten(insn))) writers.set(w, [...(writers.get(w) ?? []), insn.id]);
  }
  /** The inames in the indices where `insn` writes `name`. */
  const assigneeInames = (insn: Instruction, name: string): Set<string> => {
    const out = new Set<string>();
    for (const a of insn.assignees) {
      if (a.kind === 'subscript' && a.array === name)
        for (const ix of a.indices) for (const n of freeVariables(ix)) out.add(n);
    }
    return out;
  };

  for (let changed = true; changed; ) {
    changed = false;
    for (const { insn } of requests) {
      if (fixed.has(insn.id)) continue;
      const mine = result.get(insn.id)!;
      const before = mine.size;
      for (const name of namesRead(insn, rules)) {
        const ws = writers.get(name);
        if (!ws) continue;
        let common: Set<string> | undefined;
        for (const wid of ws) {
          const implicit = new Set(result.get(wid)!);
          for (const n of assigneeInames(byId.get(wid)!, name)) implicit.delete(n);
          common = common ? new Set([...common].filter((n) => implicit.has(n))) : implicit;
        }
        for (const n of common ?? []) if (!reduction.get(insn.id)!.has(n)) mine.add(n);
      }
      // the domains of its loops and of its reductions' inames (`<> acc = sum(s, x[s])` with s
      // bounded by temporaries set in b runs inside b) need the inames they depend on
      const reduced = reduction.get(insn.id)!;
      const add = (n: string) => {
        if (!reduced.has(n)) mine.add(n);
      };
      for (const n of [...mine, ...reduced]) for (const p of parents.get(n) ?? []) add(p);
      // a loop whose bounds are written by instructions runs inside every loop they run in
      for (const n of [...mine, ...reduced])
        for (const p of boundParams.get(n) ?? [])
          for (const wid of writers.get(p) ?? []) for (const w of result.get(wid)!) add(w);
      if (mine.size !== before) changed = true;
    }
  }
  const ordered = [...allInames];
  return new Map(
    [...result].map(([id, s]) => [id, ordered.filter((n) => s.has(n)).concat([...s].filter((n) => !allInames.has(n)))]),
  );
}
