/**
 * The last pass: every argument has a dtype (an input nobody typed cannot be guessed from
 * the kernel), the target can store every dtype the kernel uses, accumulators of realized
 * reductions included (WGSL has no float64, say), and has atomics of the dtypes the kernel
 * updates or stores atomically, and of those of the variables it loads atomically (`forAtomic`). Reported as the user's error, before any code is written.
 */
import { complexPart, isComplex } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { namesRead, namesWritten } from '../kernel/accesses.ts';
import type { LoopKernel } from '../kernel/model.ts';
import type { Target } from '../codegen/target.ts';
import { targetFacts } from '../codegen/target-facts.ts';
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
  if (target) checkAtomics(knl, target);
  return knl;
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
