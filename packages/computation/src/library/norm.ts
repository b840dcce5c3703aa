/**
 * `entrywiseNorm(arr, order, axes)`: `(sum |x|^order)^(1/order)` over `axes` (Reikna's
 * linalg EntrywiseNorm), keeping the reduced axes as 1. A Reduce with two transformations
 * attached: `|x|^order` on what it reads, the root on what it writes, so the norm costs what
 * the sum costs. The norm of a complex array is real, of its parts' dtype, as the sum is.
 */
import { complexPart, LoomError, type DType } from '@loom/core';
import { computation, type Computation } from '../computation/computation.ts';
import { predicateSum } from './predicates.ts';
import { reduce } from './reduce.ts';
import { normConst, type RealOf } from './transformations.ts';

type Params<D extends DType> = readonly [
  { readonly name: 'output'; readonly dtype: RealOf<D>; readonly shape: readonly number[]; readonly role: 'o' },
  { readonly name: 'input'; readonly dtype: D; readonly shape: readonly number[]; readonly role: 'i' },
];

/**
 * The entrywise norm `(sum |x|^order)^(1/order)` of an array over `axes` (default all), the
 * reduced axes kept as 1 (Reikna's `EntrywiseNorm`); of a complex array, a real one.
 */
export function entrywiseNorm<D extends DType>(
  arr: { readonly dtype: D; readonly shape: readonly number[] },
  order = 2,
  axes?: readonly number[],
): Computation<Params<D>> {
  if (!(order > 0) || !Number.isFinite(order))
    throw new LoomError(`entrywiseNorm: the order must be a positive number, got ${order}`);
  const { dtype, shape } = arr;
  const real = complexPart(dtype) as RealOf<D>;
  const sum = reduce({ dtype: real, shape }, predicateSum(real), axes);
  const outShape = sum.params[0].shape;
  // the root is the sum's norm of order 1/order: the sum is not negative, its modulus itself (Reikna's)
  // (with D generic the compiler cannot follow the signature: the loose view)
  const norm = (sum as unknown as Computation)
    .attach('input', normConst({ dtype }, order), 'output', { input: 'values' })
    .attach('output', normConst({ dtype: real }, 1 / order), 'input', { output: 'norms' });
  return computation<Params<D>>({
    name: 'entrywiseNorm',
    params: [
      { name: 'output', dtype: real, shape: outShape, role: 'o' },
      { name: 'input', dtype, shape, role: 'i' },
    ],
    buildPlan(plan, _device, output, input) {
      plan.computationCall(norm, output, input);
    },
  });
}
