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
 * The guiding shape is the first array parameter's unless given (`guidingArray`: a shape, or
 * a parameter's name). `pureParallelFromTransformation(tr)` runs a transformation on its own.
 */
import {
  checkOptionKeys,
  LoomError,
  expr,
  globalArg,
  optionKeys,
  makeKernel,
  valueArg,
  type ArgSpec,
  type Expr,
} from '@loom/core';
import { LOAD_IDX, LOAD_SAME } from '../transformation/body.ts';
import type { Transformation } from '../transformation/transformation.ts';
import { computation, type Computation } from '../computation/computation.ts';
import type { ComputationParam } from '../computation/params.ts';
import type { RegisteredParams } from '../computation/typed.ts';
import { spreadOverGrid } from './parallel.ts';

/** What `pureParallel` takes: the parameters, the body, and the iteration shape. */
export interface PureParallelSpec<P extends readonly ComputationParam[]> {
  /** The computation's name (default `'pure_parallel'`). */
  readonly name?: string;
  /** Its parameters, as a computation's (Reikna's `Parameter`s). */
  readonly params: P;
  /**
   * Loom instructions run once per index of the guiding shape, over the index names `idx0`,
   * `idx1`, ... and the parameters by name; or a function of those index names that returns them.
   */
  readonly body: string | ((idx: readonly string[]) => string);
  /** The shape the body runs over, or the name of the parameter whose shape it is; default the first array parameter's. */
  readonly guidingArray?: P[number]['name'] | readonly number[];
}

/** What pureParallel's spec may say; any other key is an error. */
const PURE_PARALLEL_SPEC_KEYS = optionKeys<
  PureParallelSpec<readonly ComputationParam[]> & { readonly name?: string }
>()(['body', 'guidingArray', 'name', 'params']);

/** A computation of one kernel whose body runs once per index of a shape (Reikna's `PureParallel`). */
export function pureParallel<const P extends readonly ComputationParam[], const N extends string = string>(
  spec: PureParallelSpec<P> & { readonly name?: N },
): Computation<RegisteredParams<N, P>> {
  checkOptionKeys('pureParallel', spec, PURE_PARALLEL_SPEC_KEYS);
  const name = spec.name ?? 'pure_parallel';
  const guide = spec.guidingArray;
  const shape = Array.isArray(guide)
    ? (guide as readonly number[])
    : spec.params.find((p) => p.role !== 's' && (guide === undefined || p.name === guide))?.shape;
  if (!shape)
    throw new LoomError(
      `pureParallel '${name}': ${guide === undefined ? 'give guidingArray (there is no array parameter to take its shape from)' : `no array parameter '${String(guide)}' to take the guiding shape from`}`,
    );
  const idx = shape.map((_, k) => `idx${k}`);
  const body = typeof spec.body === 'function' ? spec.body(idx) : spec.body;
  if (typeof body !== 'string')
    throw new LoomError(
      `pureParallel '${name}': the body must be Loom instructions (a string, or a function of the index names returning one)`,
    );
  const domain = idx.length
    ? `{ [${idx.join(', ')}]: ${idx.map((i, k) => `0 <= ${i} < ${shape[k]}`).join(' and ')} }`
    : '{ [idx_none]: 0 <= idx_none < 1 }';
  const args: ArgSpec[] = spec.params.map((p) =>
    p.role === 's'
      ? valueArg(p.name, p.dtype)
      : globalArg(p.name, { dtype: p.dtype, shape: p.shape, isInput: p.role !== 'o', isOutput: p.role !== 'i' }),
  );
  const kernel = makeKernel(domain, body, args, { name });
  return computation<readonly ComputationParam[]>({
    name,
    params: spec.params,
    buildPlan(plan, device, ...params) {
      plan.kernelCall(spreadOverGrid(kernel, idx, shape, device), Object.fromEntries(params.map((p) => [p.name, p])));
    },
  }) as unknown as Computation<RegisteredParams<N, P>>;
}

/**
 * A transformation run on its own (Reikna's PureParallel.from_trf): its parameters become the
 * computation's, its body runs once per element of the guiding shape (by default the first
 * parameter's), `loadSame`/`storeSame` at that element. Parameters whose shape the
 * transformation leaves open take the guiding shape; dtypes must be given.
 */
export function pureParallelFromTransformation(
  tr: Transformation,
  guidingArray?: string | readonly number[],
): Computation {
  const what = `pureParallelFromTransformation('${tr.name}')`;
  const first = tr.params.find((p) => p.role !== 's');
  const guide = Array.isArray(guidingArray)
    ? guidingArray
    : tr.param((guidingArray as string | undefined) ?? first?.name ?? '')?.shape;
  if (!guide || guide.some((n) => typeof n !== 'number'))
    throw new LoomError(`${what}: the guiding shape must be known numbers (give guidingArray)`);
  const shape = guide as readonly number[];
  const params = tr.params.map((p): ComputationParam => {
    if (!p.dtype) throw new LoomError(`${what}: parameter '${p.name}' needs a dtype`);
    if (p.role === 's') return { name: p.name, dtype: p.dtype, role: 's' };
    const own = p.shape ?? shape;
    if (own.some((n) => typeof n !== 'number'))
      throw new LoomError(`${what}: parameter '${p.name}' has a symbolic shape`);
    return { name: p.name, dtype: p.dtype, shape: own as readonly number[], role: p.role };
  });
  return pureParallel<readonly ComputationParam[]>({
    name: tr.name,
    params,
    guidingArray: shape,
    body: (idx) => bodyAsInstructions(tr, idx),
  });
}

/** The transformation's stores as instructions: loads as elements, guards as if blocks. */
function bodyAsInstructions(tr: Transformation, idx: readonly string[]): string {
  const index = new Map(idx.map((name, k) => [`idx${k}`, expr.variable(name)]));
  const lower = (e: Expr): Expr =>
    expr.mapExpr(e, (x) => {
      if (x.kind === 'var') return index.get(x.name) ?? x;
      if (x.kind !== 'call' || (x.fn !== LOAD_SAME && x.fn !== LOAD_IDX)) return x;
      const target = (x.args[0] as Extract<Expr, { kind: 'var' }>).name;
      const at = x.fn === LOAD_SAME ? idx.map((n) => expr.variable(n)) : x.args.slice(1);
      return at.length ? expr.subscript(target, at) : expr.variable(target);
    });
  return tr.body.stores
    .map((s) => {
      const at = (s.same ? idx.map((n) => expr.variable(n)) : s.indices.map(lower)).map(expr.printExpr);
      const line = `${s.param}${at.length ? `[${at.join(', ')}]` : ''} = ${expr.printExpr(lower(s.value))}`;
      return s.guards.length
        ? `if ${s.guards.map((g) => `(${expr.printExpr(lower(g))})`).join(' and ')}\n  ${line}\nend`
        : line;
    })
    .join('\n');
}
