/**
 * What `run` takes for an array of structs (kernel/model.ts `KernelArg.struct`): its bytes (a
 * Uint8Array or any typed array over them, an ArrayBuffer), or the structs as JS objects,
 * packed here by the layout every target shares (structs/layout.ts; packStructs). The output
 * comes back as its bytes: `unpackStructs(structLayout(dtype), out)` reads them.
 */
import { ownEntry } from '../names.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { structLayout } from '../structs/layout.ts';
import { packStructs, type StructValue } from '../structs/host.ts';
import type { RunArgument } from './arguments.ts';

/** An array of structs as `run` takes it: JS objects, or their bytes. */
export type StructArgument = readonly StructValue[] | ArrayBuffer;

/** The arguments with each struct array given as objects or an ArrayBuffer turned into its bytes. */
export function packStructArguments(
  knl: LoopKernel,
  given: Readonly<Record<string, RunArgument | StructArgument>>,
): Readonly<Record<string, RunArgument>> {
  let out: Record<string, RunArgument | StructArgument> | undefined;
  for (const a of knl.args) {
    if (!a.struct) continue;
    const v = ownEntry(given, a.name);
    if (v instanceof ArrayBuffer || Array.isArray(v)) {
      out ??= { ...given };
      out[a.name] = v instanceof ArrayBuffer ? new Uint8Array(v) : packStructs(structLayout(a.struct), v);
    }
  }
  return (out ?? given) as Readonly<Record<string, RunArgument>>;
}
