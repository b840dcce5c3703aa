/**
 * Arrays passed as views: a `DeviceArrayView` (`DeviceArray.view`) or a host array with
 * strides and an offset (`{ data, shape, strides, offset }`). Their layout fills in the
 * kernel's layout arguments (`a_offset`, `a_stride0`: kernel/arg-layouts.ts), as loopy's
 * invoker takes them from the numpy array passed, and is checked against the kernel's:
 * a view the kernel would read with other strides or from another start is refused, and
 * so is any layout that reaches outside the buffer passed. Nothing is ever read or
 * written outside a caller's buffer.
 */
import { ownEntry } from '../names.ts';
import { LoomError } from '../errors.ts';
import { printExpr } from '../expr/index.ts';
import type { Expr } from '../expr/nodes.ts';
import type { KernelArg, LoopKernel } from '../kernel/model.ts';
import { stridesOf } from '../kernel/strides.ts';
import { DeviceArray, DeviceArrayView, rowMajor } from './device.ts';
import type { RunArgument, ShapedHostArray } from './arguments.ts';
import { evaluateInt, valuesEnv } from './evaluate.ts';

/** Where a view's element 0 lies in its buffer, and its strides, in elements. */
export interface ViewLayout {
  readonly shape: readonly number[];
  readonly offset: number;
  readonly strides: readonly number[];
}

/** No views: the common call. */
export const NO_VIEWS: ReadonlyMap<string, ViewLayout> = new Map();

/** What `run` binds in place of views: plain arrays of the views' shapes, and each view's layout by argument name. */
export interface UnpackedViews {
  readonly args: Readonly<Record<string, RunArgument>>;
  readonly views: ReadonlyMap<string, ViewLayout>;
}

/**
 * Each view as the array of its shape that the binding knows (a DeviceArray on the same
 * buffer, or `{ data, shape }` of the whole data), its layout kept aside.
 */
export function unpackViews(given: Readonly<Record<string, RunArgument>>): UnpackedViews {
  let views: Map<string, ViewLayout> | undefined;
  let args: Record<string, RunArgument> | undefined;
  for (const name of Object.keys(given)) {
    const v = ownEntry(given, name);
    let plain: RunArgument | undefined;
    let layout: ViewLayout | undefined;
    if (v instanceof DeviceArrayView) {
      plain = new DeviceArray(v.base.device, v.base.buffer, v.base.dtype, v.shape);
      layout = { shape: v.shape, offset: v.offset, strides: v.strides };
    } else if (isHostView(v)) {
      const { strides, offset = 0 } = v;
      if (
        strides !== undefined &&
        (strides.length !== v.shape.length || !strides.every((s) => Number.isInteger(s) && s >= 0))
      ) {
        throw new LoomError(
          `argument '${name}': strides must be one whole number of elements (at least 0) per axis of shape (${v.shape.join(', ')}), not (${strides.join(', ')})`,
        );
      }
      if (!Number.isInteger(offset) || offset < 0)
        throw new LoomError(
          `argument '${name}': the offset must be a whole number of elements, at least 0, not ${offset}`,
        );
      plain = { data: v.data, shape: v.shape };
      layout = { shape: v.shape, offset, strides: strides ?? rowMajor(v.shape) };
    }
    if (!layout) continue;
    views ??= new Map();
    args ??= { ...given };
    views.set(name, layout);
    Object.defineProperty(args, name, { value: plain, enumerable: true, writable: true, configurable: true });
  }
  return views ? { args: args!, views } : { args: given, views: NO_VIEWS };
}

function isHostView(v: unknown): v is ShapedHostArray {
  return (
    typeof v === 'object' &&
    v !== null &&
    !(v instanceof DeviceArray) &&
    'data' in v &&
    'shape' in v &&
    ('strides' in v || 'offset' in v)
  );
}

/** A layout value argument the caller did not pass: the name of a `Var`, if it is one of the kernel's value arguments. */
function derived(
  knl: LoopKernel,
  e: Expr | undefined,
  values: ReadonlyMap<string, number | bigint>,
): string | undefined {
  return e?.kind === 'var' && knl.arg(e.name)?.kind === 'value' && !values.has(e.name) ? e.name : undefined;
}

/**
 * The offsets and strides (`NAME_offset`, `NAME_strideK`) of the arrays passed, for the
 * layout arguments the caller did not pass: from a view its own, from any other array 0
 * and the row-major strides of its shape (what a plain array is), as for an output `run`
 * allocates (loopy's invoker allocates those C-contiguous). `shapeOf` evaluates an argument's
 * shape once its parameters are known.
 */
export function bindLayoutValues(
  knl: LoopKernel,
  given: Readonly<Record<string, RunArgument>>,
  views: ReadonlyMap<string, ViewLayout>,
  values: Map<string, number | bigint>,
  shapeOf: (arg: KernelArg) => readonly number[],
): void {
  for (const arg of knl.args) {
    if (arg.kind === 'value' || (ownEntry(given, arg.name) === undefined && arg.isInput)) continue;
    const view = views.get(arg.name);
    const offset = derived(knl, arg.offset, values);
    if (offset) values.set(offset, view?.offset ?? 0);
    const tags = arg.dimTags ?? [];
    const autos = tags.map((t) => (t.kind === 'stride' ? derived(knl, t.stride, values) : undefined));
    if (!autos.some((n) => n !== undefined)) continue;
    const strides = view?.strides ?? rowMajor(shapeOf(arg));
    autos.forEach((name, axis) => {
      if (name) values.set(name, strides[axis]);
    });
  }
}

/**
 * A view matches the kernel's layout of its argument: the same strides, and an offset the
 * kernel reads it at (an argument without one starts at the buffer's start).
 */
export function checkViewsMatch(
  knl: LoopKernel,
  views: ReadonlyMap<string, ViewLayout>,
  values: ReadonlyMap<string, number | bigint>,
): void {
  for (const [name, view] of views) {
    const arg = knl.arg(name)!;
    if (arg.dimTags?.some((t) => t.kind === 'sep' || t.kind === 'vec'))
      throw new LoomError(`argument '${name}' has a 'sep' or 'vec' axis: pass it as a plain array, not a view`);
    // an empty array reaches no element, so no offset or stride of it matters (loopy#583)
    if (view.shape.includes(0)) continue;
    const what = `the layout of '${name}'`;
    const env = valuesEnv(values, what);
    const offset = arg.offset ? evaluateInt(arg.offset, env, what) : 0;
    if (offset !== view.offset) {
      throw new LoomError(
        arg.offset
          ? `argument '${name}' is passed at offset ${view.offset}, but the kernel reads it at offset ${printExpr(arg.offset)} = ${offset}`
          : `argument '${name}' is passed at offset ${view.offset}, but the kernel reads it from its buffer's start: declare it with offset: 'auto' (or makeKernel's defaultOffset: 'auto')`,
      );
    }
    const strides = stridesOf(arg.shape!, arg.dimTags).map((s) => evaluateInt(s, env, what));
    // the stride of an axis of one element is never used (numpy's may be anything)
    if (strides.some((s, axis) => s !== view.strides[axis] && view.shape[axis] > 1)) {
      throw new LoomError(
        `argument '${name}': strides mismatch: the array passed has strides (${view.strides.join(', ')}), the kernel's layout of it (${strides.join(', ')}); ` +
          `pass an array with the kernel's layout, or tag its axes 'stride:auto' to take the strides passed`,
      );
    }
  }
}
