/**
 * The last pass: every argument has a dtype (an input nobody typed cannot be guessed from
 * the kernel), the target can store every dtype the kernel uses, accumulators of realized
 * reductions included (WGSL has no float64, say), and has atomics of the dtypes the kernel
 * updates or stores atomically, and of those of the variables it loads atomically (`forAtomic`). Reported as the user's error, before any code is written.
 */
import { complexPart, isComplex } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { namesRead, namesWritten, readExpressions } from '../kernel/accesses.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';
import type { Expr } from '../expr/nodes.ts';
import { printExpr, walk } from '../expr/index.ts';
import type { Target } from '../codegen/target.ts';
import { targetFacts } from '../codegen/target-facts.ts';
import { checkAtomicFetchSupport } from '../check/atomic-fetches.ts';
import { structLayout, structLeaves } from '../structs/layout.ts';
import type { StructDType } from '../structs/struct-dtype.ts';

export function checkDtypes(knl: LoopKernel, target: Target | undefined): LoopKernel {
  for (const arg of knl.args) {
    if (arg.dtype === undefined) {
      throw new LoomError(
        `the dtype of argument '${arg.name}' is not known: pass data for it when running, or use addDtypes(knl, { ${arg.name}: 'float32' })`,
      );
    }
    const why = target?.unsupportedDType?.(arg.dtype);
    if (why) throw new LoomError(`argument '${arg.name}' has dtype ${arg.dtype}: ${why}`);
    if (arg.struct && target) checkStructFields(arg.name, arg.struct, target);
  }
  for (const t of knl.temporaries.values()) {
    const why = t.dtype && target?.unsupportedDType?.(t.dtype);
    if (why) throw new LoomError(`temporary '${t.name}' has dtype ${t.dtype}: ${why}`);
  }
  // a fetch first: a target without fetches says so, rather than that it has no atomics of the element's dtype
  if (target) checkAtomicFetchSupport(knl, target);
  if (target) checkAtomics(knl, target);
  checkStructAccesses(knl);
  return knl;
}

/**
 * Every field access is of a struct array, at an element's first byte: a transformation that
 * copies a struct array's bytes elsewhere (a prefetch, a precompute) or reshapes its byte axis
 * leaves accesses no target can spell, refused here rather than guessed.
 */
function checkStructAccesses(knl: LoopKernel): void {
  const structs = new Map(knl.args.flatMap((a) => (a.struct ? [[a.name, a] as const] : [])));
  const check = (insn: Instruction, e: Expr) =>
    walk(e, (x) => {
      if (x.kind !== 'subscript') return;
      const arg = structs.get(x.array);
      if (!x.field && !arg) return;
      const last = x.indices[x.indices.length - 1];
      if (
        !x.field ||
        !arg ||
        x.linear ||
        x.indices.length !== arg.shape?.length ||
        last?.kind !== 'int' ||
        last.value !== 0
      )
        throw new LoomError(
          `instruction '${insn.id}' reads or writes '${printExpr(x)}', which is no field of an element of a struct array as makeKernel made it (transformations that copy or reshape a struct array's bytes are not supported)`,
          insn.span,
        );
    });
  for (const insn of knl.instructions) {
    for (const e of readExpressions(insn, knl.substitutions)) check(insn, e);
    for (const a of insn.assignees) check(insn, a);
  }
}

/** Every field of a struct array is a dtype the target has, in a struct its layout rules can place. */
function checkStructFields(name: string, struct: StructDType, target: Target): void {
  try {
    for (const leaf of structLeaves(structLayout(struct, targetFacts(target).structLayoutRules))) {
      const why = target.unsupportedDType?.(leaf.dtype);
      if (why) throw new LoomError(`field '${leaf.path.join('.')}' has dtype ${leaf.dtype}: ${why}`);
    }
  } catch (e) {
    if (e instanceof LoomError)
      throw new LoomError(`argument '${name}' is an array of '${struct.name}' structs: ${e.message}`);
    throw e;
  }
}

/**
 * Every `{atomic}` update or store, and every read of a variable accessed atomically (`forAtomic`:
 * an atomic load, loopy's AtomicLoad), is of a dtype the target has atomics of (`Target.atomicDTypes`).
 */
function checkAtomics(knl: LoopKernel, target: Target): void {
  const { atomicDTypes } = targetFacts(target);
  const has = atomicDTypes.size ? `only of ${[...atomicDTypes].join(', ')}` : 'none';
  const dtypeOf = (name: string) => knl.args.find((a) => a.name === name)?.dtype ?? knl.temporaries.get(name)?.dtype;
  const forAtomic = (name: string) =>
    knl.args.find((a) => a.name === name)?.forAtomic ?? knl.temporaries.get(name)?.forAtomic ?? false;
  for (const insn of knl.instructions) {
    if (insn.atomic) {
      for (const name of namesWritten(insn)) {
        const dtype = dtypeOf(name);
        if (dtype === undefined || atomicDTypes.has(dtype)) continue;
        throw new LoomError(
          `instruction '${insn.id}' ${insn.atomicInit ? 'stores' : 'updates'} '${name}' (${dtype}) atomically, but the ${target.name} target has atomics ${has}`,
          insn.span,
        );
      }
    }
    for (const name of namesRead(insn, knl.substitutions)) {
      const dtype = dtypeOf(name);
      if (!forAtomic(name) || dtype === undefined || atomicDTypes.has(dtype)) continue;
      throw new LoomError(
        `instruction '${insn.id}' reads '${name}' (${dtype}), which is accessed atomically (forAtomic), but the ${target.name} target has atomics ${has}`,
        insn.span,
      );
    }
  }
}

/** Complex arguments and temporaries need their parts' dtype on the target (WGSL has no complex128: no float64). */
export function checkComplexTypes(knl: LoopKernel, target: Target | undefined): LoopKernel {
  const named = [
    ...knl.args.map((a) => ['argument', a] as const),
    ...[...knl.temporaries.values()].map((t) => ['temporary', t] as const),
  ];
  for (const [what, { name, dtype }] of named) {
    if (!dtype || !isComplex(dtype)) continue;
    const why = target?.unsupportedDType?.(complexPart(dtype));
    if (why) throw new LoomError(`${what} '${name}' has dtype ${dtype}, whose parts are ${complexPart(dtype)}: ${why}`);
  }
  return knl;
}
