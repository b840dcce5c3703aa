/** Renaming inames inside expressions, and picking fresh names (shared by several transformations). */
import { mapExpr } from '../expr/index.ts';
import { reduce, variable, type Expr } from '../expr/nodes.ts';

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

/** A name not in `taken`: `base`, else `base_0`, `base_1`, ... */
export function uniqueName(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let k = 0; ; k++) if (!taken.has(`${base}_${k}`)) return `${base}_${k}`;
}
