/**
 * Before a launch: every affine access of an argument with a declared shape, or of a
 * constant table, stays inside that shape for the parameter values given. (Inferred shapes hold by
 * construction once the assumptions are checked.) Accesses whose index or loop
 * bounds depend on data cannot be checked here: the generated code guards them
 * (codegen/access-guards.ts). And every array's buffer holds its layout's largest
 * offset, so that an index in range on every axis is in range in memory too.
 */
import { LoomError } from '../errors.ts';
import { LruCache } from '../lru.ts';
import { perObject } from '../memo.ts';
import { printExpr, toLinear } from '../expr/index.ts';
import type { Expr } from '../expr/nodes.ts';
import { BasicSet, staticMax, staticMin } from '../sets/index.ts';
import { conditionConstraints, restrictToNonzero } from '../kernel/conditions.ts';
import { Linear } from '../linear.ts';
import { allAccesses } from '../kernel/accesses.ts';
import { domainOf } from '../kernel/domains.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { tableShape } from '../kernel/tables.ts';
import { requiredLength, stridesOf } from '../kernel/strides.ts';
import { byteSize } from '../dtypes.ts';
import type { ArgumentBinding } from './arguments.ts';
import { DeviceArray } from './device.ts';
import { evaluateInt, valuesEnv } from './evaluate.ts';

/** Per kernel (weakly), the parameter values already checked: elementwise kernels see every size, so bounded. */
const checked = perObject((_: LoopKernel) => new LruCache<string, true>(CHECKED_PER_KERNEL));
const CHECKED_PER_KERNEL = 256;

export function checkAccessBounds(
  knl: LoopKernel,
  values: ReadonlyMap<string, number | bigint>,
  shapes: ReadonlyMap<string, readonly number[]>,
): void {
  const key = [...values].map(([k, v]) => `${k}=${v}`).join(',');
  const done = checked(knl);
  if (done.has(key)) return;

  const params = knl.domains.flatMap((d) => d.params).filter((p) => values.has(p));
  const fixed = BasicSet.universe([...new Set(params)], []).addConstraints(
    [...new Set(params)].map((p) => ({ kind: 'eq' as const, expr: Linear.variable(p).sub(Number(values.get(p))) })),
  );
  for (const access of allAccesses(knl)) {
    const table = knl.arg(access.array) ? undefined : tableShape(knl, access.array);
    const shape = table ?? (knl.arg(access.array) ? shapes.get(access.array) : undefined);
    if (!shape) continue;
    const symbolic = restrictTo(
      domainOf(knl, [...access.instruction.withinInames, ...access.reductionInames]),
      access.guards,
      values,
    );
    // bounds read from data at run time (a temporary: loopy's data-dependent domain)
    if (symbolic.params.some((p) => knl.temporaries.has(p))) continue;
    const domain = symbolic.intersect(fixed);
    if (domain.isEmpty()) continue;
    access.indices.forEach((index, axis) => {
      const lin = toLinear(index);
      if (!lin || lin.variables.some((v) => !domain.dims.includes(v) && !values.has(v))) return;
      // exact: is there an iteration whose index falls below 0 or reaches the size?
      const at = lin
        .without([...values.keys()])
        .add(lin.variables.filter((v) => values.has(v)).reduce((s, v) => s + lin.coeff(v) * Number(values.get(v)), 0));
      const below = domain.addConstraints([{ kind: 'ge', expr: at.negate().sub(1) }]);
      const beyond = domain.addConstraints([{ kind: 'ge', expr: at.sub(shape[axis]) }]);
      if (below.isEmpty() && beyond.isEmpty()) return;
      const hi = extremum(staticMax, symbolic, domain, lin, knl, fixed).evaluate(numeric(values));
      const lo = extremum(staticMin, symbolic, domain, lin, knl, fixed).evaluate(numeric(values));
      throw new LoomError(
        `instruction '${access.instruction.id}' would access ${table ? 'the constant table ' : ''}'${access.array}' at index ${printExpr(index)} ` +
          `${below.isEmpty() ? '' : `below 0 `}${beyond.isEmpty() ? '' : `up to ${Math.max(hi, shape[axis])} `}(from about ${lo} to ${hi}) along axis ${axis}, outside its shape (${shape.join(', ')})`,
        access.instruction.span,
      );
    });
  }
  done.set(key, true);
}

/**
 * The iterations where the access happens: the domain where its affine guards hold
 * (`if i < 80 ... end`, `if(i < 80, a[i], 0)`: a store or a read guarded so it stays in
 * a smaller array; `in[i-1] if i else 0`, where `i` is not 0). A guard that is not a
 * conjunction of affine comparisons is left out: the set is then larger than the truth,
 * which can only refuse a kernel, never let one through that leaves its arrays.
 */
function restrictTo(domain: BasicSet, guards: readonly Expr[], values: ReadonlyMap<string, number | bigint>): BasicSet {
  const known = new Set([...domain.dims, ...domain.params]);
  // a parameter the domain does not name (`i < n` where only `m` bounds the loops) is its value
  const withValues = (e: Linear) =>
    e.variables
      .filter((v) => !known.has(v) && values.has(v))
      .reduce((x, v) => x.substitute(v, Linear.constant(Number(values.get(v)))), e);
  const mentionsKnown = (e: Linear) => e.variables.every((v) => known.has(v));
  const parts = guards.map(conditionConstraints);
  const constraints = parts
    .flatMap((p) => p.constraints)
    .map((c) => ({ ...c, expr: withValues(c.expr) }))
    .filter((c) => mentionsKnown(c.expr));
  const restricted = constraints.length ? domain.addConstraints(constraints) : domain;
  return parts
    .flatMap((p) => p.nonzero)
    .map(withValues)
    .filter(mentionsKnown)
    .reduce(restrictToNonzero, restricted);
}

/**
 * The bound as a function of the parameters (then evaluated), which projection gets
 * tightest; with the parameters fixed only when no single symbolic bound exists.
 */
function extremum(
  find: typeof staticMax,
  symbolic: BasicSet,
  fixedDomain: BasicSet,
  index: Linear,
  knl: LoopKernel,
  fixed: BasicSet,
): Linear {
  try {
    return find([{ set: symbolic, expr: index }], knl.assumptions);
  } catch {
    return find([{ set: fixedDomain, expr: index }], fixed);
  }
}

function numeric(values: ReadonlyMap<string, number | bigint>): Record<string, number> {
  return Object.fromEntries([...values].map(([k, v]) => [k, Number(v)]));
}

/**
 * Strided and padded layouts (`stride:EXPR` tags) reach further than the element
 * count: a (2, 3) array with rows 4 apart needs 7 elements, not 6; an offset moves the
 * whole array into its buffer. A buffer shorter than the layout's last element would let
 * an in-range `a[1, 2]` land past its end, so it is refused, naming the argument. A
 * DeviceArray holds what its buffer was allocated with; a host array its data (a view's
 * whole buffer, views.ts); an output not passed is allocated to fit.
 */
export function checkLayoutsFit(_knl: LoopKernel, binding: ArgumentBinding): void {
  for (const a of binding.arrays) {
    // row-major from the start is dense; an array with a sep axis is split up into dense ones
    if (!a.arg.shape || (!a.arg.dimTags && !a.arg.offset) || a.arg.dimTags?.some((t) => t.kind === 'sep')) continue;
    const what = `the layout of '${a.arg.name}'`;
    const env = valuesEnv(binding.values, what);
    const strides = stridesOf(a.arg.shape, a.arg.dimTags).map((s) => evaluateInt(s, env, what));
    const offset = a.arg.offset ? evaluateInt(a.arg.offset, env, what) : 0;
    if (offset < 0)
      throw new LoomError(`array '${a.arg.name}' would start at offset ${offset}, before its buffer's start`);
    // an output nobody passed is allocated as long as its layout reaches (call-plan.ts)
    if (!a.given) continue;
    const reach = requiredLength(a.shape, strides);
    const needed = reach === 0 ? 0 : offset + reach;
    const held =
      a.given instanceof DeviceArray
        ? Math.floor(a.given.buffer.byteLength / byteSize(a.given.partsView().dtype))
        : a.given.length;
    if (needed > held) throw layoutDoesNotFit(a.arg.name, strides, needed, held, offset);
  }
}

/** The error for a layout that reaches past its buffer's end. */
export function layoutDoesNotFit(
  name: string,
  strides: readonly number[],
  needed: number,
  held: number,
  offset = 0,
): LoomError {
  return new LoomError(
    `array '${name}' has a layout (${offset ? `offset ${offset}, ` : ''}strides ${strides.join(', ')}) that reaches element ${needed - 1}, ` +
      `but its buffer holds ${held}: pass a buffer of at least ${needed} elements`,
  );
}
