/**
 * `fuseKernels([a, b], { dataFlow: [['exp', 0, 1]] })`: one kernel doing what all of them do
 * (loopy's fuse_kernels). Inames of the same name become one loop (their domains must
 * agree on them); arguments of the same name are one argument (they must agree);
 * temporaries are renamed apart (with `suffixes`, or made unique); instruction ids clashing
 * are renamed. `dataFlow` entries `[name, from, to]` make the instructions of kernel `to`
 * that use `name` (read or write it) wait for its writers in kernel `from`.
 *
 * A variable one kernel writes and another uses, with no chain of data-flow entries of that
 * variable between them (`[x, 0, 1]` and `[x, 1, 2]` order kernels 0 and 2), is refused:
 * nothing would order them.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { LoomError } from '../errors.ts';
import { mapExpr } from '../expr/index.ts';
import { subscript, variable, type Expr } from '../expr/nodes.ts';
import { namesRead, namesWritten } from '../kernel/accesses.ts';
import { LoopKernel, tagToString, type Instruction, type KernelArg, type SubstitutionRule } from '../kernel/model.ts';
import type { BasicSet } from '../sets/index.ts';
import { uniqueName } from '../kernel/rename.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';

/** The options fuseKernels reads; any other key is an error. */
const FUSE_KERNELS_OPTIONS = optionKeys<FuseKernelsOptions>()(['dataFlow', 'suffixes']);

/** Options of `fuseKernels`. */
export interface FuseKernelsOptions {
  /** One per kernel: its temporaries get it appended (loopy's suffixes). */
  readonly suffixes?: readonly string[];
  /** `[name, fromKernel, toKernel]`: the instructions using `name` in `toKernel` wait for its writers in `fromKernel`. */
  readonly dataFlow?: readonly (readonly [string, number, number])[];
}

/** One kernel doing the work of several (loopy's `fuse_kernels`). */
export function fuseKernels(kernels: readonly LoopKernel[], options: FuseKernelsOptions = {}): LoopKernel {
  checkOptionKeys('fuseKernels', options, FUSE_KERNELS_OPTIONS);
  if (kernels.length === 0) throw new LoomError('fuseKernels: no kernel given');
  if (options.suffixes && options.suffixes.length !== kernels.length)
    throw new LoomError(`fuseKernels: ${options.suffixes.length} suffixes for ${kernels.length} kernels`);
  const flow = options.dataFlow ?? [];
  for (const [name, from, to] of flow) {
    if (!kernels[from] || !kernels[to])
      throw new LoomError(
        `fuseKernels: the data flow of '${name}' names kernel ${kernels[from] ? to : from}, which is not given`,
      );
  }
  checkOrdered(kernels, flow);
  const differing = kernels.find((k) => k.indexDtype !== kernels[0].indexDtype);
  if (differing)
    throw new LoomError(
      `fuseKernels: kernel '${differing.name}' indexes in ${differing.indexDtype}, kernel '${kernels[0].name}' in ${kernels[0].indexDtype}`,
    );

  // temporaries renamed apart, then instruction ids
  const renamedKernels = kernels.map((k, idx) => renameTemporaries(k, idx, kernels, options.suffixes?.[idx]));
  const ids = new Set<string>();
  const idMaps = renamedKernels.map((k) => {
    const map = new Map<string, string>();
    for (const insn of k.instructions) {
      const id = uniqueName(insn.id, ids);
      ids.add(id);
      map.set(insn.id, id);
    }
    return map;
  });
  let instructions: Instruction[] = renamedKernels.flatMap((k, idx) =>
    k.instructions.map((insn) => ({
      ...insn,
      id: idMaps[idx].get(insn.id)!,
      dependsOn: insn.dependsOn.map((d) => idMaps[idx].get(d) ?? d),
    })),
  );
  for (const [name, from, to] of flow) {
    const writers = renamedKernels[from].instructions
      .filter((i) => namesWritten(i).includes(name))
      .map((i) => idMaps[from].get(i.id)!);
    // as in loopy, a later writer waits too: the last write must be the later kernel's
    const users = new Set(
      renamedKernels[to].instructions
        .filter((i) => namesRead(i, renamedKernels[to].substitutions).has(name) || namesWritten(i).includes(name))
        .map((i) => idMaps[to].get(i.id)!),
    );
    if (!writers.length || !users.size)
      throw new LoomError(`fuseKernels: kernel ${from} does not write '${name}' or kernel ${to} does not use it`);
    instructions = instructions.map((i) =>
      users.has(i.id) ? { ...i, dependsOn: [...new Set([...i.dependsOn, ...writers])] } : i,
    );
  }

  const first = renamedKernels[0];
  return new LoopKernel({
    name: kernels.map((k) => k.name).join('_and_'),
    domains: fuseDomains(renamedKernels),
    instructions,
    args: fuseArgs(renamedKernels),
    temporaries: new Map(renamedKernels.flatMap((k) => [...k.temporaries])),
    substitutions: mergeMaps(
      renamedKernels.map((k) => k.substitutions),
      'substitution rule',
      (a, b) => JSON.stringify(a) === JSON.stringify(b),
    ) as Map<string, SubstitutionRule>,
    inameTags: mergeMaps(
      renamedKernels.map((k) => k.inameTags),
      'iname tag',
      (a, b) => tagToString(a) === tagToString(b),
    ),
    assumptions: renamedKernels.slice(1).reduce((acc, k) => acc.intersect(k.assumptions), first.assumptions),
    loopPriorities: renamedKernels.flatMap((k) => k.loopPriorities),
    loopSlabs: mergeMaps(
      renamedKernels.map((k) => k.loopSlabs),
      'slab',
      (a, b) => a[0] === b[0] && a[1] === b[1],
    ),
    options: first.options,
    silencedWarnings: [...new Set(renamedKernels.flatMap((k) => k.silencedWarnings))],
    indexDtype: first.indexDtype,
    preambles: renamedKernels
      .flatMap((k) => k.preambles)
      .filter((p, i, all) => all.findIndex((q) => q[0] === p[0] && q[1] === p[1]) === i),
  });
}

/** A variable written by one kernel and used by another needs a data-flow entry between them. */
function checkOrdered(kernels: readonly LoopKernel[], flow: readonly (readonly [string, number, number])[]): void {
  const uses = (k: LoopKernel) =>
    new Set(k.instructions.flatMap((i) => [...namesRead(i, k.substitutions), ...namesWritten(i)]));
  kernels.forEach((a, ia) => {
    const written = new Set(a.instructions.flatMap(namesWritten).filter((n) => !a.temporaries.has(n)));
    kernels.forEach((b, ib) => {
      if (ia === ib) return;
      for (const name of written) {
        if (!uses(b).has(name) || b.temporaries.has(name)) continue;
        if (!flowReaches(flow, name, ia, ib) && !flowReaches(flow, name, ib, ia)) {
          throw new LoomError(
            `fuseKernels: kernel ${ia} writes '${name}' and kernel ${ib} uses it, but nothing orders them: give dataFlow [['${name}', ${ia}, ${ib}]] (or the other way)`,
          );
        }
      }
    });
  });
}

/** Whether data-flow entries of `name` lead from kernel `from` to kernel `to`, directly or through others. */
function flowReaches(
  flow: readonly (readonly [string, number, number])[],
  name: string,
  from: number,
  to: number,
): boolean {
  const reached = new Set([from]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [n, f, t] of flow) {
      if (n === name && reached.has(f) && !reached.has(t)) {
        reached.add(t);
        grew = true;
      }
    }
  }
  return reached.has(to);
}

/** A kernel's temporaries, renamed so no other kernel has a variable of that name. */
function renameTemporaries(
  knl: LoopKernel,
  index: number,
  all: readonly LoopKernel[],
  suffix: string | undefined,
): LoopKernel {
  const others = new Set(
    all
      .filter((_, k) => k !== index)
      .flatMap((k) => [...k.temporaries.keys(), ...k.args.map((a) => a.name), ...k.inames]),
  );
  const renames = new Map<string, string>();
  const taken = new Set([...others, ...knl.args.map((a) => a.name), ...knl.inames, ...knl.temporaries.keys()]);
  for (const name of knl.temporaries.keys()) {
    if (suffix === undefined && !others.has(name)) continue;
    const fresh = suffix === undefined ? uniqueName(name, taken) : `${name}${suffix}`;
    if (suffix !== undefined && taken.has(fresh))
      throw new LoomError(`fuseKernels: renaming '${name}' with the suffix gives '${fresh}', which is already used`);
    taken.add(fresh);
    renames.set(name, fresh);
  }
  if (renames.size === 0) return knl;
  const rename = (e: Expr) =>
    mapExpr(e, (x) => {
      if (x.kind === 'var' && renames.has(x.name)) return variable(renames.get(x.name)!);
      if (x.kind === 'subscript' && renames.has(x.array)) return subscript(renames.get(x.array)!, x.indices);
      return x;
    });
  const rewritten = mapKernelExpressions(knl, rename, { what: 'fuseKernels', assignee: 'whole' });
  return rewritten.with({
    temporaries: new Map(
      [...knl.temporaries].map(([n, t]) => [renames.get(n) ?? n, { ...t, name: renames.get(n) ?? n }]),
    ),
  });
}

/** Domains sharing inames become one (where they agree on those inames). */
function fuseDomains(kernels: readonly LoopKernel[]): BasicSet[] {
  const out: BasicSet[] = [...kernels[0].domains];
  for (const k of kernels.slice(1)) {
    for (const d of k.domains) {
      const at = out.findIndex((o) => o.dims.some((n) => d.dims.includes(n)));
      if (at < 0) {
        out.push(d);
        continue;
      }
      const shared = out[at].dims.filter((n) => d.dims.includes(n));
      const mine = out[at].project(out[at].dims.filter((n) => !shared.includes(n)));
      const theirs = d.project(d.dims.filter((n) => !shared.includes(n)));
      const agree =
        mine.constraints.every((c) => theirs.implies(c)) && theirs.constraints.every((c) => mine.implies(c));
      if (!agree)
        throw new LoomError(
          `fuseKernels: the kernels do not agree on the domain of '${shared.join("', '")}' (${mine.toString()} vs ${theirs.toString()})`,
        );
      out[at] = out[at].intersect(d);
    }
  }
  return out;
}

/** Arguments of the same name are one: dtype and shape must agree; an input if any kernel reads it before an earlier one wrote it. */
function fuseArgs(kernels: readonly LoopKernel[]): KernelArg[] {
  const out = new Map<string, KernelArg>();
  kernels.forEach((k, idx) => {
    for (const a of k.args) {
      const known = out.get(a.name);
      if (!known) {
        out.set(a.name, a);
        continue;
      }
      const same =
        known.kind === a.kind &&
        (known.dtype === undefined || a.dtype === undefined || known.dtype === a.dtype) &&
        JSON.stringify(known.shape) === JSON.stringify(a.shape) &&
        JSON.stringify(known.dimTags) === JSON.stringify(a.dimTags);
      if (!same)
        throw new LoomError(
          `fuseKernels: the argument '${a.name}' is declared differently in kernel ${idx} than before`,
        );
      const writtenBefore = kernels
        .slice(0, idx)
        .some((p) => p.instructions.some((i) => namesWritten(i).includes(a.name)));
      out.set(a.name, {
        ...known,
        dtype: known.dtype ?? a.dtype,
        isInput: known.isInput || (a.isInput && !writtenBefore),
        isOutput: known.isOutput || a.isOutput,
      });
    }
  });
  return [...out.values()];
}

function mergeMaps<V>(
  maps: readonly ReadonlyMap<string, V>[],
  what: string,
  same: (a: V, b: V) => boolean,
): Map<string, V> {
  const out = new Map<string, V>();
  for (const m of maps) {
    for (const [k, v] of m) {
      const known = out.get(k);
      if (known !== undefined && !same(known, v))
        throw new LoomError(`fuseKernels: the kernels disagree on the ${what} of '${k}'`);
      out.set(k, v);
    }
  }
  return out;
}
