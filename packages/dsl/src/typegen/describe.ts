/**
 * A built kernel as the compiler should see it: its inames and its signature, in the
 * shape of a `KernelRegistry` entry (signature/signature.ts).
 *
 * Unlike the type-level reader, this sees the real kernel: which names are arrays,
 * inputs and outputs, their shapes, and so which parameters `run` can find from the
 * sizes of the inputs. That is worked out as `run` does it for flat arrays: an input
 * whose shape has a single unknown parameter settles it, which may settle the next.
 */
import { expr, type LoopKernel } from '@loom/core';
import type { ArgInfo } from '../signature/signature.ts';

export interface KernelDescription {
  readonly inames: readonly string[];
  readonly args: readonly (ArgInfo & { readonly name: string })[];
}

export function describeKernel(knl: LoopKernel): KernelDescription {
  const inferable = inferableParameters(knl);
  const domainParams = new Set(knl.domains.flatMap((d) => d.params));
  const args = knl.args.map((arg) =>
    arg.kind === 'value'
      ? {
          name: arg.name,
          kind: 'value' as const,
          dtype: arg.dtype ?? (domainParams.has(arg.name) ? ('int32' as const) : ('auto' as const)),
          required: !inferable.has(arg.name),
          output: false,
        }
      : {
          name: arg.name,
          kind: 'array' as const,
          dtype: arg.dtype ?? ('auto' as const),
          required: arg.isInput,
          output: arg.isOutput,
        },
  );
  return { inames: knl.inames, args };
}

function inferableParameters(knl: LoopKernel): Set<string> {
  const values = new Set(knl.args.filter((a) => a.kind === 'value').map((a) => a.name));
  const inputs = knl.args.filter((a) => a.kind !== 'value' && a.isInput && a.shape);
  const namesOf = (shape: readonly expr.Expr[]) =>
    new Set(shape.flatMap((s) => [...expr.freeVariables(s)]).filter((n) => values.has(n)));
  const known = new Set<string>();
  for (let progress = true; progress; ) {
    progress = false;
    for (const input of inputs) {
      const unknown = [...namesOf(input.shape!)].filter((n) => !known.has(n));
      if (unknown.length === 1) {
        known.add(unknown[0]);
        progress = true;
      }
    }
  }
  return known;
}
