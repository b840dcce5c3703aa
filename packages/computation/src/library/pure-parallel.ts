/**
 * `pureParallel`: a computation whose one kernel runs its body once per element of a
 * guiding shape (Reikna's PureParallel), spread over the device (parallel.ts).
 *
 *   const saxpy = pureParallel({
 *     params: [
 *       { name: 'y', dtype: 'float32', shape: [n], role: 'o' },
 *       { name: 'x', dtype: 'float32', shape: [n], role: 'i' },
 *       { name: 'a', dtype: 'float32', role: 's' },
 *     ],
 *     body: 'y[idx0] = a * x[idx0]',          // Loom instructions over idx0, idx1, ...
 *   });
 *
 * The body may also be a function of the index names (`(idx) => \`y[${idx[0]}] = ...\``).
 * The guiding shape is the first array parameter's unless given.
 */
import { LoomError, globalArg, makeKernel, valueArg, type ArgSpec } from '@loom/core';
import { computation, type Computation } from '../computation/computation.ts';
import type { ComputationParam } from '../computation/params.ts';
import { spreadOverGrid } from './parallel.ts';

export interface PureParallelSpec<P extends readonly ComputationParam[]> {
  readonly name?: string;
  readonly params: P;
  readonly body: string | ((idx: readonly string[]) => string);
  readonly guidingShape?: readonly number[];
}

export function pureParallel<const P extends readonly ComputationParam[]>(spec: PureParallelSpec<P>): Computation<P> {
  const name = spec.name ?? 'pure_parallel';
  const shape = spec.guidingShape ?? spec.params.find((p) => p.role !== 's')?.shape;
  if (!shape) throw new LoomError(`pureParallel '${name}': give guidingShape (no array parameter to take it from)`);
  const idx = shape.map((_, k) => `idx${k}`);
  const body = typeof spec.body === 'function' ? spec.body(idx) : spec.body;
  if (typeof body !== 'string') throw new LoomError(`pureParallel '${name}': the body must be Loom instructions (a string, or a function of the index names returning one)`);
  const domain = idx.length ? `{ [${idx.join(', ')}]: ${idx.map((i, k) => `0 <= ${i} < ${shape[k]}`).join(' and ')} }` : '{ [idx_none]: 0 <= idx_none < 1 }';
  const args: ArgSpec[] = spec.params.map((p) =>
    p.role === 's' ? valueArg(p.name, p.dtype) : globalArg(p.name, { dtype: p.dtype, shape: p.shape, isInput: p.role !== 'o', isOutput: p.role !== 'i' }),
  );
  const kernel = makeKernel(domain, body, args, { name });
  return computation({
    name,
    params: spec.params,
    buildPlan(plan, device, ...params) {
      plan.kernelCall(spreadOverGrid(kernel, idx, shape, device), Object.fromEntries(params.map((p) => [p.name, p])));
    },
  });
}
