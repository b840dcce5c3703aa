/**
 * `entrywiseNorm(arr, order, axes)`: `(sum |x|^order)^(1/order)` over `axes` (Reikna's
 * linalg EntrywiseNorm), keeping the reduced axes as 1. A Reduce with two transformations
 * attached: `|x|^order` on what it reads, the root on what it writes, so the norm costs what
 * the sum costs.
 */
import { LoomError, type DType } from '@loom/core';
import { computation, type Computation } from '../computation/computation.ts';
import { transformation } from '../transformation/transformation.ts';
import { predicateSum } from './predicates.ts';
import { reduce } from './reduce.ts';
import { normConst } from './transformations.ts';

type Params<D extends DType> = readonly [
  { readonly name: 'output'; readonly dtype: D; readonly shape: readonly number[]; readonly role: 'o' },
  { readonly name: 'input'; readonly dtype: D; readonly shape: readonly number[]; readonly role: 'i' },
];

/** The entrywise norm `(sum |x|^order)^(1/order)` of an array over `axes` (default all), the reduced axes kept as 1 (Reikna's `EntrywiseNorm`). */
export function entrywiseNorm<D extends DType>(
  arr: { readonly dtype: D; readonly shape: readonly number[] },
  order = 2,
  axes?: readonly number[],
): Computation<Params<D>> {
  if (!(order > 0) || !Number.isFinite(order))
    throw new LoomError(`entrywiseNorm: the order must be a positive number, got ${order}`);
  const { dtype, shape } = arr;
  const sum = reduce(arr, predicateSum(dtype), axes);
  const outShape = sum.params[0].shape;
  const root = transformation({
    name: 'root',
    params: [
      { name: 'output', dtype, role: 'o' },
      { name: 'input', dtype, role: 'i' },
    ],
    body:
      order === 1
        ? 'storeSame(output, loadSame(input))'
        : order === 2
          ? 'storeSame(output, sqrt(loadSame(input)))'
          : `storeSame(output, ${dtype}(pow(loadSame(input), ${1 / order})))`,
  });
  // (with D generic the compiler cannot follow the signature: the loose view)
  const norm = (sum as unknown as Computation)
    .attach('input', normConst({ dtype }, order), 'output', { input: 'values' })
    .attach('output', root, 'input', { output: 'norms' });
  return computation<Params<D>>({
    name: 'entrywiseNorm',
    params: [
      { name: 'output', dtype, shape: outShape, role: 'o' },
      { name: 'input', dtype, shape, role: 'i' },
    ],
    buildPlan(plan, _device, output, input) {
      plan.computationCall(norm, output, input);
    },
  });
}
