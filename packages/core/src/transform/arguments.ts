/**
 * Transformations of the argument list (loopy's transform/data.py): renaming an argument
 * (an array, or a value the domains use as a parameter), ordering, dropping unused ones.
 */
import { LoomError } from '../errors.ts';
import { checkName, nameList } from '../names.ts';
import { mapExpr } from '../expr/index.ts';
import { subscript, variable, type Expr } from '../expr/nodes.ts';
import type { BasicSet } from '../sets/index.ts';
import { namesRead, namesWritten } from '../kernel/accesses.ts';
import type { DimTag, KernelArg, LoopKernel } from '../kernel/model.ts';
import { checkImageArgument } from '../kernel/images.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';

/**
 * `renameArgument(knl, 'n', 'N')`: the argument is called `N` from now on, everywhere: in
 * the instructions, rules, shapes and strides, and (for a value) in the domains and the
 * assumptions. The new name must be unused.
 */
export function renameArgument(knl: LoopKernel, oldName: string, newName: string): LoopKernel {
  const arg = knl.arg(oldName);
  if (!arg)
    throw new LoomError(
      `renameArgument: the kernel has no argument '${oldName}' (arguments: ${knl.args.map((a) => a.name).join(', ')})`,
    );
  checkName(newName, 'renameArgument: the new name');
  if (newName === oldName) return knl;
  const used = [
    ...knl.args.map((a) => a.name),
    ...knl.inames,
    ...knl.temporaries.keys(),
    ...knl.substitutions.keys(),
    ...knl.domains.flatMap((d) => d.params),
    ...knl.assumptions.params,
  ];
  if (used.includes(newName)) throw new LoomError(`renameArgument: '${newName}' is already used in the kernel`);
  const rename = (e: Expr) =>
    mapExpr(e, (x) => {
      if (x.kind === 'var' && x.name === oldName) return variable(newName);
      if (x.kind === 'subscript' && x.array === oldName) return subscript(newName, x.indices);
      return x;
    });
  const rewritten = mapKernelExpressions(knl, rename, { what: 'renameArgument', assignee: 'whole', shapes: rename });
  const inSet = (s: BasicSet) => (s.params.includes(oldName) ? s.renameVariable(oldName, newName) : s);
  const strides = (tags: readonly DimTag[] | undefined) =>
    tags?.map((t) => (t.kind === 'stride' ? { kind: 'stride' as const, stride: rename(t.stride) } : t));
  const args = rewritten.args.map((a) => ({
    ...a,
    name: a.name === oldName ? newName : a.name,
    dimTags: strides(a.dimTags),
  }));
  const temporaries = new Map([...rewritten.temporaries].map(([n, t]) => [n, { ...t, dimTags: strides(t.dimTags) }]));
  return rewritten.with({ args, temporaries, domains: knl.domains.map(inSet), assumptions: inSet(knl.assumptions) });
}

/** `setArgumentOrder(knl, 'out,a,n,b')`: the arguments in this order (all of them, each once). */
export function setArgumentOrder(knl: LoopKernel, names: string | readonly string[]): LoopKernel {
  const order = nameList(names);
  const known = knl.args.map((a) => a.name);
  const unknown = order.filter((n) => !known.includes(n));
  if (unknown.length)
    throw new LoomError(`setArgumentOrder: '${unknown.join("', '")}' is no argument (arguments: ${known.join(', ')})`);
  if (new Set(order).size !== order.length)
    throw new LoomError(`setArgumentOrder: an argument is listed twice in '${order.join(', ')}'`);
  const missing = known.filter((n) => !order.includes(n));
  if (missing.length)
    throw new LoomError(`setArgumentOrder: '${missing.join("', '")}' is missing from the order; list every argument`);
  return knl.with({ args: order.map((n) => knl.arg(n)!) });
}

/**
 * `removeUnusedArguments(knl)`: arguments nothing uses go: no instruction reads or writes
 * them, no domain, shape, stride or assumption names them.
 */
export function removeUnusedArguments(knl: LoopKernel): LoopKernel {
  const used = new Set<string>();
  for (const insn of knl.instructions) {
    for (const n of namesRead(insn, knl.substitutions)) used.add(n);
    for (const w of namesWritten(insn)) used.add(w);
  }
  for (const d of [...knl.domains, knl.assumptions]) for (const p of d.params) used.add(p);
  const note = (e: Expr) => mapExpr(e, (x) => (x.kind === 'var' && used.add(x.name), x));
  for (const a of knl.args) {
    a.shape?.forEach(note);
    a.dimTags?.forEach((t) => t.kind === 'stride' && note(t.stride));
  }
  for (const t of knl.temporaries.values()) t.shape.forEach(note);
  return knl.with({ args: knl.args.filter((a) => used.has(a.name)) });
}

/**
 * loopy's change_arg_to_image: the read-only array argument `name` becomes an image (loopy's
 * `ImageArg`), which OpenCL reads as an `image2d_t`/`image3d_t` and WebGPU as a texture, through
 * their texture caches; the other targets read it as before. The caller passes the same array.
 * ```ts
 * const knl = changeArgToImage(matrixVector, 'a');   // a[i, j]: read_imagef(a, loopy_sampler, (int2)(j, i)).x
 * ```
 */
export function changeArgToImage(knl: LoopKernel, name: string): LoopKernel {
  const arg = knl.arg(name);
  if (!arg) throw new LoomError(`changeArgToImage: the kernel has no argument '${name}'`);
  if (arg.kind === 'value')
    throw new LoomError(`changeArgToImage: '${name}' is a value argument; only an array can become an image`);
  if (arg.kind === 'image') return knl;
  const image: KernelArg = { ...arg, kind: 'image' };
  checkImageArgument(knl, image, 'changeArgToImage');
  return knl.with({ args: knl.args.map((a) => (a.name === name ? image : a)) });
}

/**
 * `setArrayAxisNames(knl, 'a,b', 'i')`: names for the axes of arrays (arguments or
 * temporaries), which the inames made for them take: a prefetch of `a` then sweeps
 * `a_dim_i` rather than `a_dim_0` (loopy's set_array_axis_names).
 */
export function setArrayAxisNames(
  knl: LoopKernel,
  arrays: string | readonly string[],
  dimNames: string | readonly string[],
): LoopKernel {
  const names = nameList(arrays);
  const axes = nameList(dimNames).map((n) => checkName(n, 'setArrayAxisNames: an axis name'));
  let args = knl.args;
  const temporaries = new Map(knl.temporaries);
  for (const name of names) {
    const arg = knl.arg(name);
    const temp = knl.temporaries.get(name);
    const rank = arg?.kind === 'value' ? undefined : arg ? arg.shape?.length : temp?.shape.length;
    if (rank === undefined)
      throw new LoomError(`setArrayAxisNames: '${name}' is not an array of the kernel (or its shape is not known)`);
    if (rank !== axes.length)
      throw new LoomError(`setArrayAxisNames: '${name}' has ${rank} axes, but ${axes.length} names were given`);
    if (arg) args = args.map((a) => (a.name === name ? { ...a, dimNames: axes } : a));
    else temporaries.set(name, { ...temp!, dimNames: axes });
  }
  return knl.with({ args, temporaries });
}
