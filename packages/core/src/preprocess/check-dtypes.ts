/**
 * The last pass: every argument has a dtype (an input nobody typed cannot be guessed from
 * the kernel), and the target can store every dtype the kernel uses, accumulators of
 * realized reductions included (WGSL has no float64, say). Reported as the user's error,
 * before any code is written.
 */
import { complexPart, isComplex } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import type { LoopKernel } from '../kernel/model.ts';
import type { Target } from '../codegen/target.ts';

export function checkDtypes(knl: LoopKernel, target: Target | undefined): LoopKernel {
  for (const arg of knl.args) {
    if (arg.dtype === undefined) {
      throw new LoomError(`the dtype of argument '${arg.name}' is not known: pass data for it when running, or use addDtypes(knl, { ${arg.name}: 'float32' })`);
    }
    const why = target?.unsupportedDType?.(arg.dtype);
    if (why) throw new LoomError(`argument '${arg.name}' has dtype ${arg.dtype}: ${why}`);
  }
  for (const t of knl.temporaries.values()) {
    const why = t.dtype && target?.unsupportedDType?.(t.dtype);
    if (why) throw new LoomError(`temporary '${t.name}' has dtype ${t.dtype}: ${why}`);
  }
  return knl;
}

/** Complex arguments and temporaries need their parts' dtype on the target (WGSL has no complex128: no float64). */
export function checkComplexTypes(knl: LoopKernel, target: Target | undefined): LoopKernel {
  const named = [...knl.args.map((a) => ['argument', a] as const), ...[...knl.temporaries.values()].map((t) => ['temporary', t] as const)];
  for (const [what, { name, dtype }] of named) {
    if (!dtype || !isComplex(dtype)) continue;
    const why = target?.unsupportedDType?.(complexPart(dtype));
    if (why) throw new LoomError(`${what} '${name}' has dtype ${dtype}, whose parts are ${complexPart(dtype)}: ${why}`);
  }
  return knl;
}
