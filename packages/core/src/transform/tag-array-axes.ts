/**
 * `tagArrayAxes(knl, 'a', 'f,f')`: how an array's axes are laid out in linear memory
 * (loopy's data axis tags), one tag per axis, read left to right:
 *
 *   c             nest this axis around the ones after it (row-major, the default)
 *   f             nest this axis inside the ones after it (column-major)
 *   N0 ... N9     an explicit nesting level; N0 moves fastest (levels must be
 *                 contiguous, and not mixed with c, f or stride:)
 *   stride:EXPR   a fixed stride, in elements (an expression in the parameters)
 *   stride:auto   a stride the array passed decides: a value argument `NAME_strideAXIS`
 *                 (arguments only; `run` takes it from the view passed, kernel/arg-layouts.ts)
 *   sep           one separate array per index of this axis
 *   vec           the axis is the lanes of a vector type
 *
 * A tag ending in `?` is optional: when there are more tags than axes, optional tags
 * are dropped, leftmost first, until the counts agree (so one spec can serve arrays
 * of several ranks). For shape (3, M, 4): `c,c,c` gives strides (M*4, 4, 1), `f,f,f`
 * (1, 3, 3*M), `N1,N0,N2` (M, 1, 3*M).
 *
 * The tags are resolved here (c/f become nesting levels) and stored on the argument
 * or temporary; `stridesOf` (kernel/strides.ts) turns them into strides. For an
 * argument the layout is what the caller's data must follow.
 */
import { nameList } from '../names.ts';
import { LoomError } from '../errors.ts';
import { freeVariables, parseExpression, printExpr, simplify } from '../expr/index.ts';
import type { Expr } from '../expr/nodes.ts';
import type { DimTag, LoopKernel } from '../kernel/model.ts';
import { autoStride } from '../kernel/arg-layouts.ts';

/**
 * `arrayNames`: one name, or several separated by commas, each an argument or a
 * temporary. `tags`: a comma-separated string or a list, one tag per axis.
 */
export function tagArrayAxes(
  knl: LoopKernel,
  arrayNames: string | readonly string[],
  tags: string | readonly string[],
): LoopKernel {
  const names = nameList(arrayNames);
  if (names.length === 0) throw new LoomError('tagArrayAxes: no array named');
  let args = knl.args;
  const temporaries = new Map(knl.temporaries);
  for (const name of names) {
    const arg = knl.arg(name);
    const temp = knl.temporaries.get(name);
    if (arg) {
      if (arg.kind === 'value') throw new LoomError(`tagArrayAxes: '${name}' is a value argument, not an array`);
      if (!arg.shape) throw new LoomError(`tagArrayAxes: the shape of '${name}' is not known; declare it`);
      // `stride:auto`: a value argument per axis, made on the kernel as it stands (names stay unique)
      const auto = (axis: number) => {
        const made = autoStride(knl.with({ args, temporaries }), name, axis);
        args = made.kernel.args;
        return made.stride;
      };
      const dimTags = parseDimTags(tags, arg.shape, name, parameterNames(knl), auto);
      args = args.map((a) => (a.name === name ? { ...a, dimTags } : a));
    } else if (temp) {
      if (temp.shape.length === 0)
        throw new LoomError(`tagArrayAxes: temporary '${name}' is a scalar; it has no axes to tag`);
      // a temporary's size is fixed when the kernel is compiled: its strides must be too
      const dimTags = parseDimTags(tags, temp.shape, name, new Set());
      temporaries.set(name, { ...temp, dimTags });
    } else {
      const arrays = [...knl.args.filter((a) => a.kind !== 'value').map((a) => a.name), ...knl.temporaries.keys()];
      throw new LoomError(`tagArrayAxes: the kernel has no array '${name}' (arrays: ${arrays.join(', ') || 'none'})`);
    }
  }
  return knl.with({ args, temporaries });
}

type Written =
  | { readonly kind: 'c' | 'f' | 'sep' | 'vec' }
  | { readonly kind: 'N'; readonly level: number }
  | { readonly kind: 'stride'; readonly stride: Expr | 'auto' };

/**
 * The tags for an array of this shape, resolved: optional tags dropped, `c`/`f` turned
 * into nesting levels. `parameters`: the names a `stride:EXPR` may use.
 */
export function parseDimTags(
  spec: string | readonly string[],
  shape: readonly Expr[],
  arrayName: string,
  parameters: ReadonlySet<string>,
  autoStride?: (axis: number) => Expr,
): DimTag[] {
  const what = `'${arrayName}'`;
  const raw = typeof spec === 'string' ? splitTopLevel(spec) : spec.map((s) => s.trim());
  const optional = raw.map((t) => t.endsWith('?'));
  let texts = raw.map((t) => (t.endsWith('?') ? t.slice(0, -1).trim() : t));
  // drop optional tags, leftmost first, while there are more tags than axes
  for (let k = 0; k < texts.length && texts.length > shape.length; ) {
    if (optional[k]) {
      texts = texts.filter((_, j) => j !== k);
      optional.splice(k, 1);
    } else k++;
  }
  if (texts.length !== shape.length) {
    throw new LoomError(
      `tagArrayAxes: ${what} has ${shape.length} axes, but ${texts.length} tags were given (${raw.join(', ')})`,
    );
  }
  const written = texts.map((t, axis) => readTag(t, axis, what, parameters));

  if (written.some((w) => w.kind === 'c') && written.some((w) => w.kind === 'f')) {
    throw new LoomError(
      `tagArrayAxes: ${what} mixes 'c' and 'f'; the nesting they ask for is ambiguous (use N0-N9 to spell it out)`,
    );
  }
  const explicit = written.flatMap((w) => (w.kind === 'N' ? [w.level] : []));
  const twice = explicit.find((l, k) => explicit.indexOf(l) !== k);
  if (twice !== undefined) throw new LoomError(`tagArrayAxes: ${what} has two axes at nesting level N${twice}`);
  checkExplicitLevels(written, explicit, what, raw);
  const vecAxes = written.flatMap((w, axis) => (w.kind === 'vec' ? [axis] : []));
  if (vecAxes.length > 1)
    throw new LoomError(`tagArrayAxes: ${what} has ${vecAxes.length} 'vec' axes; at most one axis can be a vector`);
  written.forEach((w, axis) => {
    // a sep axis may stay parametric until fixParameters fixes it (loopy's make_copy_kernel
    // makes such kernels): separateArrays, in preprocessing, needs the length
    if (w.kind !== 'vec') return;
    const extent = simplify(shape[axis], { integer: true });
    if (extent.kind !== 'int') {
      throw new LoomError(
        `tagArrayAxes: axis ${axis} of ${what} is tagged '${w.kind}', so its length must be a constant, not ${printExpr(shape[axis])}`,
      );
    }
  });

  // c/f axes take levels from 0: for `c` the rightmost axis is the fastest, for `f` the leftmost
  const ordered = written.flatMap((w, axis) => (w.kind === 'c' || w.kind === 'f' ? [axis] : []));
  if (written.some((w) => w.kind === 'c')) ordered.reverse();
  const levelOf = new Map(ordered.map((axis, k) => [axis, k] as const));
  // explicit levels count from the lowest one given (loopy: N1,N2 is N0,N1)
  const lowest = Math.min(...explicit);

  return written.map((w, axis): DimTag => {
    switch (w.kind) {
      case 'c':
      case 'f':
        return { kind: 'nested', level: levelOf.get(axis)! };
      case 'N':
        return { kind: 'nested', level: w.level - lowest };
      case 'stride':
        if (w.stride !== 'auto') return { kind: 'stride', stride: w.stride };
        if (!autoStride)
          throw new LoomError(
            `tagArrayAxes: axis ${axis} of ${what} is 'stride:auto', but only an argument's stride can be decided by the array passed (a temporary's strides are fixed when it is compiled)`,
          );
        return { kind: 'stride', stride: autoStride(axis) };
      case 'sep':
        return { kind: 'sep' };
      case 'vec':
        return { kind: 'vec' };
    }
  });
}

/**
 * loopy's rules for explicit nesting levels: they may not be mixed with `c`, `f` or
 * `stride:` (which level would those take?), and they must be contiguous (in
 * `N1,N0,N5` nothing says what lies between N1 and N5).
 */
function checkExplicitLevels(
  written: readonly Written[],
  explicit: readonly number[],
  what: string,
  raw: readonly string[],
): void {
  if (explicit.length === 0) return;
  const other = written.find((w) => w.kind === 'c' || w.kind === 'f' || w.kind === 'stride');
  if (other) {
    throw new LoomError(
      `tagArrayAxes: ${what} mixes explicit nesting levels (N0-N9) with '${other.kind}' in '${raw.join(',')}'; give every strided axis a level, or none`,
    );
  }
  const sorted = [...explicit].sort((a, b) => a - b);
  if (sorted.some((l, k) => l !== sorted[0] + k)) {
    throw new LoomError(
      `tagArrayAxes: the nesting levels of ${what} (${explicit.map((l) => `N${l}`).join(', ')}) are not contiguous`,
    );
  }
}

function readTag(text: string, axis: number, what: string, parameters: ReadonlySet<string>): Written {
  // loopy spells the orders either way ('sep,C'), as numpy's order='C'
  if (text === 'C' || text === 'F') return { kind: text === 'C' ? 'c' : 'f' };
  if (text === 'c' || text === 'f' || text === 'sep' || text === 'vec') return { kind: text };
  const nested = /^N(\d)$/.exec(text);
  if (nested) return { kind: 'N', level: Number(nested[1]) };
  if (text.startsWith('stride:')) {
    const body = text.slice('stride:'.length).trim();
    if (body === 'auto') return { kind: 'stride', stride: 'auto' };
    let stride: Expr;
    try {
      stride = simplify(parseExpression(body), { integer: true });
    } catch (e) {
      throw new LoomError(
        `tagArrayAxes: cannot read the stride '${body}' of axis ${axis} of ${what}: ${(e as Error).message}`,
      );
    }
    const unknown = [...freeVariables(stride)].filter((n) => !parameters.has(n));
    if (unknown.length) {
      throw new LoomError(
        `tagArrayAxes: the stride of axis ${axis} of ${what} uses '${unknown.join("', '")}', which ${parameters.size ? 'is not a parameter of the kernel' : 'is not a constant (a temporary needs constant strides)'}`,
      );
    }
    return { kind: 'stride', stride };
  }
  throw new LoomError(
    `tagArrayAxes: unknown dim tag '${text}' for axis ${axis} of ${what} (known: c, f (or C, F), N0-N9, stride:EXPR, sep, vec, each optionally followed by '?')`,
  );
}

/** Commas inside parentheses belong to a stride expression (`stride:max(n, 1)`). */
function splitTopLevel(spec: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let k = 0; k < spec.length; k++) {
    const ch = spec[k];
    if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth--;
    else if (ch === ',' && depth === 0) {
      out.push(spec.slice(start, k).trim());
      start = k + 1;
    }
  }
  out.push(spec.slice(start).trim());
  return out.filter((t) => t !== '');
}

/** Value arguments and the parameters of the domains: what an array stride may be written in. */
function parameterNames(knl: LoopKernel): Set<string> {
  const inames = new Set(knl.inames);
  return new Set([
    ...knl.args.filter((a) => a.kind === 'value').map((a) => a.name),
    ...knl.domains.flatMap((d) => d.params).filter((p) => !inames.has(p)),
  ]);
}

/**
 * An array of vectors (a vector dtype, the DSL's `f32x4`): its last axis holds each vector's
 * lanes, tagged `vec`, the axes before it row-major.
 */
export function tagVectorLanes(knl: LoopKernel, name: string): LoopKernel {
  const rank = knl.arg(name)?.shape?.length ?? 0;
  return tagArrayAxes(knl, name, [...Array.from({ length: rank - 1 }, () => 'c'), 'vec']);
}
