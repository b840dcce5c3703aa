/**
 * loopy's `indexof(a[i, j])`: the flat index of an array element, in elements from the
 * array's start, as its layout (strides, Fortran order) places it — what loopy's C code
 * generator computes for the subscript. `indexof_vec(a[i, j])` is the same for an array with
 * a vec axis, counted in scalars (lanes · the vector's index + the lane). Either becomes that
 * integer arithmetic before type inference, so every later pass sees plain index arithmetic
 * (and the array as not read).
 */
import { LoomError } from '../errors.ts';
import { binary, int, type Expr } from '../expr/nodes.ts';
import { mapExpr, printExpr, walk } from '../expr/index.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { stridesOf } from '../kernel/strides.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';

/** `knl` with each `indexof(a[...])` made the element's flat index. */
export function lowerIndexof(knl: LoopKernel): LoopKernel {
  if (!mentionsIndexof(knl)) return knl;
  return mapKernelExpressions(knl, (e) => mapExpr(e, (x) => (isIndexof(x) ? flatIndex(knl, x) : x)), {
    what: 'indexof',
  });
}

const isIndexof = (x: Expr): x is Extract<Expr, { kind: 'call' }> =>
  x.kind === 'call' && (x.fn === 'indexof' || x.fn === 'indexof_vec');

function mentionsIndexof(knl: LoopKernel): boolean {
  const expressions = [
    ...knl.instructions.flatMap((i) => [...i.assignees, ...i.predicates, ...(i.expression ? [i.expression] : [])]),
    ...[...knl.substitutions.values()].map((rule) => rule.expression),
  ];
  let found = false;
  for (const e of expressions) walk(e, (x) => void (found ||= isIndexof(x)));
  return found;
}

function flatIndex(knl: LoopKernel, call: Extract<Expr, { kind: 'call' }>): Expr {
  const fn = call.fn;
  const where = `${fn}: in ${printExpr(call)}`;
  const [access] = call.args;
  if (call.args.length !== 1 || access.kind !== 'subscript')
    throw new LoomError(`${where}: ${fn} takes one argument, an array element (${fn}(a[i, j]))`);
  const arg = knl.arg(access.array);
  const temporary = knl.temporaries.get(access.array);
  const shape = arg?.shape ?? temporary?.shape;
  if (shape === undefined) throw new LoomError(`${where}: '${access.array}' is not an array of the kernel`);
  if (shape.length !== access.indices.length)
    throw new LoomError(
      `${where}: '${access.array}' has ${shape.length} axes, the element ${access.indices.length} indices`,
    );
  const dimTags = arg?.dimTags ?? temporary?.dimTags;
  // a sep axis has no flat index at all; indexof leaves the lane of a vec axis out, which
  // Loom's flat indices (in scalars) cannot express: that is indexof_vec's answer
  if (dimTags?.some((t) => t.kind === 'sep'))
    throw new LoomError(`${where}: '${access.array}' has a sep axis, where ${fn} is not defined`);
  const vec = dimTags?.some((t) => t.kind === 'vec') ?? false;
  if (fn === 'indexof' && vec)
    throw new LoomError(
      `${where}: '${access.array}' has a vec axis, where indexof (in vectors) is not defined: indexof_vec counts scalars`,
    );
  if (fn === 'indexof_vec' && !vec)
    throw new LoomError(`${where}: '${access.array}' has no vec axis: indexof_vec is for vector arrays (use indexof)`);
  if (arg?.offset !== undefined)
    throw new LoomError(
      `${where}: '${access.array}' has an offset, which ${fn} would have to count or not: not supported`,
    );
  const strides = stridesOf(shape, dimTags);
  return access.indices
    .map((ix, k) => binary('*', ix, strides[k]))
    .reduce((sum, term) => binary('+', sum, term), int(0) as Expr);
}
