/**
 * Reductions inside a stored value whose domain is coupled to an iname the store replaces.
 *
 * `red(i_outer) := sum(i_inner, a[2560*i_outer + i_inner])` with the domain
 * `2560*i_outer + i_inner < n` sums, for each `i_outer`, only the `i_inner` in range. The
 * store computes `red` at `i_outer_0` (a new iname standing for the argument `i_outer`),
 * outside the loop over `i_outer`: a loop over `i_inner` there would lose the constraint
 * that ties it to `i_outer` and sum past `n`. As loopy's precompute builds the store's
 * domain from the uses' domain with the argument replaced by the storage iname, the store
 * gets fresh reduction inames (`i_inner_0`) whose domain is the original one with `i_outer`
 * written in terms of `i_outer_0` (solved from the use's argument), so it sums exactly the
 * values the use would have.
 */
import { InternalError, LoomError } from '../errors.ts';
import { reductionInamesIn, type Expr } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { BasicSet, type Constraint } from '../sets/index.ts';
import { domainOf } from '../kernel/domains.ts';
import type { InameTag, LoopKernel } from '../kernel/model.ts';
import { renameInExpr, uniqueName } from '../kernel/rename.ts';
import type { Use } from './footprint.ts';

export interface CoupledReductions {
  readonly what: string;
  /** What is stored, for messages. */
  readonly base: string;
  /** The value the store computes, in terms of its inames. */
  readonly value: Expr;
  /** The uses redirected to the store. */
  readonly uses: readonly Use[];
  /** Per axis, the argument value the store's point stands for: base + storage iname (if stored). */
  readonly stored: readonly Linear[];
  /** The store's own inames (new storage inames, and the outer inames it keeps unchanged). */
  readonly storeInames: readonly string[];
  /** Inames that the store runs inside but whose value it does not share with the uses (swept ones). */
  readonly moved: ReadonlySet<string>;
  /** Names in use; the fresh inames are added. */
  readonly taken: Set<string>;
}

export interface RebasedReductions {
  readonly value: Expr;
  /** The domain of the fresh reduction inames (after the store's own), if any. */
  readonly domain?: BasicSet;
  readonly tags: readonly (readonly [string, InameTag])[];
}

/** The value with reductions coupled to a replaced iname running over fresh, exactly bounded inames. */
export function rebaseCoupledReductions(knl: LoopKernel, c: CoupledReductions): RebasedReductions {
  const inames = new Set(knl.inames);
  const reductions = [...reductionInamesIn(c.value)].filter((n) => inames.has(n));
  if (reductions.length === 0) return { value: c.value, tags: [] };
  const domain = domainOf(knl, reductions, true);
  // inames whose values the store has as the uses do: constants for the reductions' bounds
  const known = new Set([
    ...c.storeInames.filter((n) => !c.moved.has(n)),
    ...domain.params.filter((p) => !inames.has(p)),
  ]);
  const coupled = coupledTo(domain.constraints, reductions, known);
  // the uses' inames that bound the reductions and that the store lacks; inames the uses do
  // not run in bound them only as existing somewhere (projected out), for the store too
  const useInames = new Set(c.uses.flatMap((u) => [...u.instruction.withinInames, ...u.reductionInames]));
  const lost = [...coupled].filter((n) => useInames.has(n) && !reductions.includes(n) && !known.has(n));
  if (lost.length === 0) return { value: c.value, tags: [] };

  const equations = lost.map((v) => solveForIname(c, v, known));
  const fresh = new Map(
    reductions.map((r) => {
      const name = uniqueName(r, c.taken);
      c.taken.add(name);
      return [r, name] as const;
    }),
  );
  let set = domain;
  for (const [r, name] of fresh) set = set.renameVariable(r, name);
  const storage = [...new Set(equations.flatMap((e) => e.variables))].filter(
    (n) => ![...set.params, ...set.dims].includes(n) && !lost.includes(n),
  );
  set = set.intersect(
    BasicSet.fromConstraints(
      storage,
      [],
      equations.map((expr): Constraint => ({ kind: 'eq', expr })),
    ),
  );
  // the replaced inames are now fixed by the storage inames, and go; inames the store runs
  // in become parents of the new domain; others (not in the store) bound nothing coupled: go
  const kept = (n: string) => known.has(n) || storage.includes(n) || !inames.has(n);
  const renamed = new Set(fresh.values());
  set = set.project([...set.params, ...set.dims].filter((n) => !renamed.has(n) && !kept(n)));
  set = set.moveDimsToParams(set.dims.filter((n) => !renamed.has(n)));
  const tags = [...fresh].flatMap(([r, name]) => {
    const tag = knl.inameTags.get(r);
    return tag ? [[name, tag] as const] : [];
  });
  return { value: renameInExpr(c.value, fresh), domain: set, tags };
}

/** The variables that constrain `start` (directly, or through others), not passing through `known` ones. */
function coupledTo(
  constraints: readonly Constraint[],
  start: readonly string[],
  known: ReadonlySet<string>,
): Set<string> {
  const out = new Set(start);
  for (let grown = true; grown; ) {
    grown = false;
    for (const con of constraints) {
      const vars = con.expr.variables;
      if (!vars.some((v) => out.has(v) && !known.has(v))) continue;
      for (const v of vars) {
        if (out.has(v)) continue;
        out.add(v);
        grown = true;
      }
    }
  }
  return out;
}

/**
 * `v`, an iname the store replaces, as the store has it: from a use's argument that is
 * `±v` plus inames the store knows (`2560*i_outer_0`'s argument `i_outer` gives
 * `i_outer = i_outer_0`), the same for every use. Returned as `v - value == 0`.
 */
function solveForIname(c: CoupledReductions, v: string, known: ReadonlySet<string>): Linear {
  let found: Linear | undefined;
  for (const u of c.uses) {
    const d = u.args.findIndex((a) => Math.abs(a.coeff(v)) === 1 && a.variables.every((n) => n === v || known.has(n)));
    if (d < 0) {
      throw new LoomError(
        `${c.what}: the domain of a reduction in '${c.base}' depends on '${v}', which the store does not run in as the use in ` +
          `instruction '${u.instruction.id}' does (it sweeps it or runs outside it), and no argument of that use is '±${v}' plus ` +
          `inames the store runs in, to read '${v}' off: the store could not bound the reduction as the use does ` +
          `(run the store inside '${v}' with precomputeOuterInames, or pass '${v}' to the rule)`,
        u.instruction.span,
      );
    }
    // arg = stored  <=>  coeff*v + rest = stored  <=>  v - coeff*(stored - rest) = 0
    const arg = u.args[d];
    const coeff = arg.coeff(v);
    const eq = Linear.variable(v).sub(c.stored[d].sub(arg.without([v])).scale(coeff));
    if (found && !found.equals(eq)) {
      throw new LoomError(
        `${c.what}: the domain of a reduction in '${c.base}' depends on '${v}', and the uses give '${v}' differently ` +
          `(${found.toString()} = 0, ${eq.toString()} = 0): one store cannot bound the reduction for all of them`,
        u.instruction.span,
      );
    }
    found = eq;
  }
  if (!found) throw new InternalError(`${c.what}: no use of '${c.base}' to read '${v}' off`);
  return found;
}
