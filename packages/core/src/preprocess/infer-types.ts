/**
 * The type-inference pass: the dtypes nobody declared, from what is assigned to them. The
 * typing rules themselves (`exprType`: numpy's promotion, weak literals) are the kernel
 * model's, in ../kernel/type-inference.ts, where code generation and the printers read them too.
 */
import { LoomError } from '../errors.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { assigneeName, expandSubstitutions } from '../kernel/accesses.ts';
import { functionTypes } from '../functions/resolve.ts';
import { combineTypes, INDEX_DTYPE, resultTypes, type ExprType, type NameTypes } from '../kernel/type-inference.ts';

/**
 * Fills in the dtypes of temporaries, and of arguments nobody typed that the kernel
 * writes, from the expressions assigned to them (loopy's type inference: typing `a`
 * as float32 makes `out = 2*a` float32). Names that stay unknown are left for the
 * caller to report.
 */
export function inferTypes(knl: LoopKernel): LoopKernel {
  const temps = new Map(knl.temporaries);
  const argTypes = new Map(knl.args.map((a) => [a.name, a.dtype]));
  const inames = new Set(knl.inames);
  const typeOf: NameTypes = (name) =>
    inames.has(name) ? INDEX_DTYPE : argTypes.has(name) ? argTypes.get(name) : temps.get(name)?.dtype;
  const functions = functionTypes(knl);
  // only what nobody declared is inferred; it may widen as more writers become typeable
  const inferred = [
    ...[...temps.values()].filter((t) => t.dtype === undefined).map((t) => t.name),
    ...knl.args.filter((a) => a.dtype === undefined).map((a) => a.name),
  ];
  // each writer with the position of the target: a multiple assignment writes its k-th result
  // there (an atomic fetch's element is no target: its array was typed when it was declared)
  const writersOf = new Map(
    inferred.map((name) => [
      name,
      knl.instructions.flatMap((insn) =>
        insn.expression ? insn.assignees.map(assigneeName).flatMap((n, k) => (n === name ? [{ insn, k }] : [])) : [],
      ),
    ]),
  );
  for (let round = 0, changed = true; changed && round < 4 * inferred.length + 4; round++) {
    changed = false;
    for (const name of inferred) {
      // writers that cannot be typed yet (they read something untyped, or the variable
      // itself: out = 2*out) contribute once the others have given types
      let found: ExprType | undefined;
      const typeWriters = (types: NameTypes) => {
        for (const { insn, k } of writersOf.get(name)!) {
          try {
            const ty = resultTypes(expandSubstitutions(insn.expression!, knl.substitutions), types, functions)[k];
            found = found ? combineTypes(found, ty) : ty;
          } catch {
            // not typeable yet
          }
        }
      };
      typeWriters(typeOf);
      // only read-modify-writes (`result = result + sum(i, i*i)`): as in loopy, the variable's
      // own unknown type is consistent with any, so the right-hand side's other operands type
      // it. bool stands for it: promotion's identity (bool meets x in x)
      if (found === undefined && typeOf(name) === undefined) typeWriters((n) => (n === name ? 'bool' : typeOf(n)));
      // the writers are typed afresh each round, not joined with the last round's dtype: that
      // one came from fewer writers, and a literal's weak int32 (`b = 0`) joined strongly with
      // float32 would be float64 where loopy (and the writers together) say float32
      if (!found || found.dtype === typeOf(name)) continue;
      const dtype = found.dtype;
      if (temps.has(name)) temps.set(name, { ...temps.get(name)!, dtype });
      else argTypes.set(name, dtype);
      changed = true;
    }
  }
  for (const t of temps.values()) {
    if (t.dtype === undefined) {
      throw new LoomError(
        `could not infer the type of temporary '${t.name}' (it depends on itself or on untyped data); declare it as <float32> ${t.name} = ...`,
      );
    }
  }
  const args = knl.args.map((a) =>
    a.dtype === undefined && argTypes.get(a.name) !== undefined ? { ...a, dtype: argTypes.get(a.name) } : a,
  );
  return knl.with({ temporaries: temps, args });
}
