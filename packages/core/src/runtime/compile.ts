/**
 * `compileFor`: a kernel's code for one device and one set of dtypes, generated and
 * compiled once and cached per device, kernel and dtypes.
 */
import type { DType } from '../dtypes.ts';
import { LruCache } from '../lru.ts';
import { perObject } from '../memo.ts';
import { generateCode, type CodegenOptions } from '../codegen/generate.ts';
import type { GeneratedCode } from '../codegen/generated.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { addDtypes } from '../transform/basic.ts';
import type { Device } from './device.ts';

/** A variant's generated code, and what the device compiled it to (only ever handed back to that device's `launch`). */
export interface Compiled {
  readonly code: GeneratedCode;
  readonly compiled: unknown;
}

/**
 * Per device and kernel (both weakly: a dropped kernel's entries go with it), the variants
 * compiled for each set of dtypes: a kernel sees few, and an LRU bounds the rest.
 */
const compiledVariants = perObject((_: Device) =>
  perObject((_: LoopKernel) => new LruCache<string, Promise<Compiled>>(VARIANTS_PER_KERNEL)),
);
const VARIANTS_PER_KERNEL = 16;

/**
 * Generates and compiles the variant of `knl` for these dtypes on `device`, cached. The
 * dtypes of what the caller passed decide the rest (outputs' are inferred from them).
 */
export function compileFor(
  knl: LoopKernel,
  device: Device,
  dtypes: ReadonlyMap<string, DType>,
  options: CodegenOptions = {},
): Promise<Compiled> {
  const variants = compiledVariants(device)(knl);
  const key =
    knl.args.map((a) => `${a.name}:${dtypes.get(a.name)}`).join(',') + (options.checkBounds ? '|checked' : '');
  return variants.memo(key, () => {
    const entry = (async () => {
      const untyped = Object.fromEntries(
        knl.args.filter((a) => a.dtype === undefined && dtypes.has(a.name)).map((a) => [a.name, dtypes.get(a.name)!]),
      );
      const typed = Object.keys(untyped).length ? addDtypes(knl, untyped) : knl;
      const code = generateCode(typed, device.target, { checkBounds: options.checkBounds ?? false });
      if (knl.options.writeCode) console.log(code.code);
      const compiled = await device.compile(code, { buildOptions: knl.options.buildOptions });
      return { code, compiled };
    })();
    // a failed compilation is not remembered: the next call tries again
    entry.catch(() => variants.delete(key));
    return entry;
  });
}
