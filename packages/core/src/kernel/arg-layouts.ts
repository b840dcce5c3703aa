/**
 * Layouts of array arguments that the caller's data decides (loopy's
 * `make_args_for_offsets_and_strides`): an offset `'auto'`, a stride `stride:auto`, and
 * an argument without a shape (loopy's `shape=None`) each become a value argument of
 * the kernel, named after the array (`a_offset`, `a_stride0`, `a_length`). `run` fills
 * them in from the array passed (runtime/views.ts) unless the caller passes them, and
 * checks every element the layout reaches against the buffer before any launch.
 *
 * Loom makes these arguments when the option is given (makeKernel, tagArrayAxes),
 * not in preprocessing as loopy does: `run` binds arguments before preprocessing, and
 * a kernel printed shows the arguments a caller can pass.
 */
import { LoomError } from '../errors.ts';
import { variable, type Expr } from '../expr/nodes.ts';
import type { DimTag, KernelArg, LoopKernel } from './model.ts';
import { uniqueName } from './rename.ts';
import { INDEX_DTYPE } from './type-inference.ts';

/** Every name the kernel uses: arguments, temporaries, inames, rules, domain parameters. */
export function takenNames(knl: LoopKernel): Set<string> {
  return new Set([
    ...knl.args.map((a) => a.name),
    ...knl.temporaries.keys(),
    ...knl.inames,
    ...knl.substitutions.keys(),
    ...knl.domains.flatMap((d) => d.params),
  ]);
}

/**
 * The value arguments made here for an array's layout (`a_offset`, `a_length`, `a_stride0`):
 * what a caller's data fills in, not arguments a call of the kernel passes (program/inline.ts).
 */
export function layoutArgNames(knl: LoopKernel): Set<string> {
  const out = new Set<string>();
  const isVar = (e: Expr | undefined, prefix: string) => e?.kind === 'var' && e.name.startsWith(prefix) && e.name;
  for (const a of knl.args) {
    const prefix = `${a.name}_`;
    const names = [
      isVar(a.offset, prefix),
      ...(a.shape ?? []).map((e) => isVar(e, prefix)),
      ...(a.dimTags ?? []).map((t) => t.kind === 'stride' && isVar(t.stride, prefix)),
    ];
    for (const n of names) if (n && knl.args.some((v) => v.kind === 'value' && v.name === n)) out.add(n);
  }
  return out;
}

/** A value argument of the index dtype that a layout is written in. */
function indexArg(name: string): KernelArg {
  return {
    name,
    kind: 'value',
    dtype: INDEX_DTYPE,
    shape: undefined,
    isInput: true,
    isOutput: false,
    forAtomic: false,
  };
}

function arrayArg(knl: LoopKernel, name: string, what: string): KernelArg {
  const arg = knl.arg(name);
  if (!arg || arg.kind === 'value')
    throw new LoomError(`${what}: '${name}' is not an array argument of kernel '${knl.name}'`);
  return arg;
}

/**
 * Each named array starts where the view passed for it starts (loopy's `offset=lp.auto`):
 * a value argument `NAME_offset` is added, and every access of the array adds it.
 * ```ts
 * makeKernel('{[i]: 0<=i<n}', 'b[i] = 2*a[i]', [globalArg('a', { offset: 'auto' }), '...']);
 * ```
 */
export function withAutoOffsets(knl: LoopKernel, names: readonly string[]): LoopKernel {
  if (names.length === 0) return knl;
  const taken = takenNames(knl);
  const added: KernelArg[] = [];
  const offsets = new Map<string, Expr>();
  for (const name of names) {
    const arg = arrayArg(knl, name, "offset 'auto'");
    if (arg.offset !== undefined) continue;
    const offset = uniqueName(`${name}_offset`, taken);
    taken.add(offset);
    added.push(indexArg(offset));
    offsets.set(name, variable(offset));
  }
  return knl.with({
    args: [...knl.args.map((a) => (offsets.has(a.name) ? { ...a, offset: offsets.get(a.name) } : a)), ...added],
  });
}

/** A fixed offset (a number or an expression in the value arguments, loopy's `offset=EXPR`). */
export function withOffset(knl: LoopKernel, name: string, offset: Expr): LoopKernel {
  arrayArg(knl, name, 'offset');
  return knl.with({ args: knl.args.map((a) => (a.name === name ? { ...a, offset } : a)) });
}

/**
 * Column-major arrays (loopy's `order='F'`): the first axis moves fastest. An array with
 * tags already keeps them.
 */
export function withFortranOrder(knl: LoopKernel, names: readonly string[]): LoopKernel {
  const wanted = new Set(names);
  return knl.with({
    args: knl.args.map((a) =>
      wanted.has(a.name) && a.shape && !a.dimTags
        ? { ...a, dimTags: a.shape.map((_, axis): DimTag => ({ kind: 'nested', level: axis })) }
        : a,
    ),
  });
}

/**
 * Arrays of loopy's `order=auto`: every axis `stride:auto`, a value argument per axis
 * (`a_stride0`, ...) that `run` takes from the array passed, so a transposed view runs as is.
 * An array whose layout was given already keeps it.
 * ```ts
 * withAutoStrides(makeKernel('{[i,j]: 0<=i,j<n}', 'b[i,j] = a[j,i]'), ['a']);
 * ```
 */
export function withAutoStrides(knl: LoopKernel, names: readonly string[]): LoopKernel {
  for (const name of names) {
    const arg = arrayArg(knl, name, 'order auto');
    if (!arg.shape || arg.dimTags) continue;
    const dimTags: DimTag[] = [];
    for (let axis = 0; axis < arg.shape.length; axis++) {
      const made = autoStride(knl, name, axis);
      knl = made.kernel;
      dimTags.push({ kind: 'stride', stride: made.stride });
    }
    knl = knl.with({ args: knl.args.map((a) => (a.name === name ? { ...a, dimTags } : a)) });
  }
  return knl;
}

/**
 * Arrays without a shape (loopy's `shape=None`): one axis, as long as the array passed.
 * Its length is a value argument `NAME_length` that `run` takes from the array; an
 * index that cannot be proven in range before the launch is guarded in the generated
 * code, as every access of an array of a size known only at run time is.
 */
export function withShapeLessArgs(knl: LoopKernel, names: readonly string[]): LoopKernel {
  if (names.length === 0) return knl;
  const taken = takenNames(knl);
  const added: KernelArg[] = [];
  const shapes = new Map<string, Expr[]>();
  for (const name of names) {
    arrayArg(knl, name, 'shape null');
    const length = uniqueName(`${name}_length`, taken);
    taken.add(length);
    added.push(indexArg(length));
    shapes.set(name, [variable(length)]);
  }
  return knl.with({
    args: [...knl.args.map((a) => (shapes.has(a.name) ? { ...a, shape: shapes.get(a.name) } : a)), ...added],
  });
}

/**
 * The value argument for `stride:auto` on `axis` of array `name` (`a_stride0`), and the
 * kernel with it added: a stride the caller's array decides.
 */
export function autoStride(
  knl: LoopKernel,
  name: string,
  axis: number,
): { readonly kernel: LoopKernel; readonly stride: Expr } {
  const stride = uniqueName(`${name}_stride${axis}`, takenNames(knl));
  return { kernel: knl.with({ args: [...knl.args, indexArg(stride)] }), stride: variable(stride) };
}
