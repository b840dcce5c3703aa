/**
 * Reduce and Scan of struct dtypes (Reikna's structure-type tests): an array of structs is
 * its bytes (core's struct arrays: uint8, the struct's size as a last axis), so the
 * computation's parameters are those bytes, which `packStructs`/`unpackStructs` fill and read.
 * The predicate combines each real field on its own (fieldwise: `a + b` sums every field,
 * its empty value is every field's), so the struct computation is the scalar one run on each
 * field: the field copied out of the structs into an array of its dtype, the scalar
 * computation on it, and its result copied into the same field of the output structs.
 */
import {
  globalArg,
  makeKernel,
  structLayout,
  structLeaves,
  type DType,
  type LoopKernel,
  type StructDType,
} from '@loom/core';
import { computation, type Computation } from '../computation/computation.ts';
import type { DeviceParameters } from '../computation/device-parameters.ts';
import type { NestedComputation } from '../computation/plan.ts';
import { spreadOverGrid } from './parallel.ts';
import { domainOf } from './reduce.ts';

/** The parameters of a struct computation: the output and input structs, as their bytes. */
export type StructParams = readonly [
  { readonly name: 'output'; readonly dtype: 'uint8'; readonly shape: readonly number[]; readonly role: 'o' },
  { readonly name: 'input'; readonly dtype: 'uint8'; readonly shape: readonly number[]; readonly role: 'i' },
];

/** A computation on an array of structs of `shape` (output of `outShape`): `perField` on each real field. */
export function fieldwise(
  name: string,
  struct: StructDType,
  shape: readonly number[],
  outShape: readonly number[],
  perField: (dtype: DType) => NestedComputation,
): Computation<StructParams> {
  const layout = structLayout(struct);
  return computation<StructParams>({
    name,
    params: [
      { name: 'output', dtype: 'uint8', shape: [...outShape, layout.size], role: 'o' },
      { name: 'input', dtype: 'uint8', shape: [...shape, layout.size], role: 'i' },
    ],
    buildPlan(plan, device, output, input) {
      for (const leaf of structLeaves(layout)) {
        const path = leaf.path.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('');
        const values = plan.tempArray(leaf.dtype, shape);
        plan.kernelCall(copyField(struct, leaf.dtype, path, shape, 'out', device), { inp: input, out: values });
        const results = plan.tempArray(leaf.dtype, outShape);
        plan.computationCall(perField(leaf.dtype), results, values);
        plan.kernelCall(copyField(struct, leaf.dtype, path, outShape, 'in', device), { inp: results, out: output });
      }
    },
  });
}

/** `out[...] = inp[...].path` (the field out of the structs), or `out[...].path = inp[...]` (into them). */
function copyField(
  struct: StructDType,
  dtype: DType,
  path: string,
  shape: readonly number[],
  way: 'out' | 'in',
  device: DeviceParameters,
): LoopKernel {
  const idx = shape.map((_, k) => `i${k}`);
  const at = `[${idx.join(', ')}]`;
  const knl = makeKernel(
    domainOf(idx, shape),
    way === 'out' ? `out${at} = inp${at}${path}` : `out${at}${path} = inp${at}`,
    [
      globalArg('inp', { dtype: way === 'out' ? struct : dtype, shape }),
      globalArg('out', { dtype: way === 'out' ? dtype : struct, shape }),
    ],
    { name: way === 'out' ? 'field_out' : 'field_in' },
  );
  return spreadOverGrid(knl, idx, shape, device);
}
