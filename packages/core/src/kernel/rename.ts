/** Renaming inames inside expressions, and picking fresh names (shared by several transformations). */
import { mapExpr } from '../expr/index.ts';
import { reduce, variable, type Expr } from '../expr/nodes.ts';
import type { LoopKernel } from './model.ts';

export function renameInExpr(e: Expr, renames: ReadonlyMap<string, string>): Expr {
  if (renames.size === 0) return e;
  return mapExpr(e, (x) => {
    if (x.kind === 'var' && renames.has(x.name)) return variable(renames.get(x.name)!);
    if (x.kind === 'reduce' && x.inames.some((n) => renames.has(n))) {
      return reduce(
        x.op,
        x.inames.map((n) => renames.get(n) ?? n),
        x.operands,
        x.simultaneous,
      );
    }
    return x;
  });
}

/**
 * A maker of names `base_0`, `base_1`, ... none of them in `taken` nor made before (it adds
 * each to `taken`): the ids of instructions that the front end writes out of one line.
 */
export function suffixedNames(taken: Set<string>): (base: string) => string {
  return (base) => {
    let k = 0;
    while (taken.has(`${base}_${k}`)) k++;
    taken.add(`${base}_${k}`);
    return `${base}_${k}`;
  };
}

/** A name not in `taken`: `base`, else `base_0`, `base_1`, ... */
export function uniqueName(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let k = 0; ; k++) if (!taken.has(`${base}_${k}`)) return `${base}_${k}`;
}

/**
 * The names `knl` uses (inames, arguments, temporaries, substitution rules, instruction ids) and a maker of fresh
 * ones (`uniqueName`), each added to `taken` as it is made: for a transformation that adds inames,
 * temporaries and instructions together.
 */
export function kernelNamer(knl: LoopKernel): {
  readonly taken: Set<string>;
  readonly fresh: (base: string) => string;
} {
  const taken = new Set([
    ...knl.inames,
    ...knl.args.map((a) => a.name),
    ...knl.temporaries.keys(),
    ...knl.substitutions.keys(),
    ...knl.instructions.map((i) => i.id),
  ]);
  const fresh = (base: string) => {
    const name = uniqueName(base, taken);
    taken.add(name);
    return name;
  };
  return { taken, fresh };
}
