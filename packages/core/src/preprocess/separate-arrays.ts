/**
 * `sep` array axes: each index along the axis is its own device array (`a_s0`,
 * `a_s1`, ...). A use with a constant index picks its array; any other index
 * chooses among them at run time (reads through a chain of conditionals, writes as
 * one guarded copy of the instruction per array).
 */
import { LoomError } from '../errors.ts';
import { compare, ifThenElse, int, subscript, type Expr } from '../expr/nodes.ts';
import { mapExpr, printExpr } from '../expr/index.ts';
import type { Instruction, KernelArg, LoopKernel } from '../kernel/model.ts';
import { soleAssignee } from '../kernel/accesses.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';

export const separateName = (name: string, k: number) => `${name}_s${k}`;

/** The sep axis of an argument and its length, if it has one. */
export function sepAxisOf(arg: KernelArg): { axis: number; length: number } | undefined {
  const axis = arg.dimTags?.findIndex((t) => t.kind === 'sep') ?? -1;
  if (axis < 0 || !arg.shape) return undefined;
  const size = arg.shape[axis];
  if (size.kind !== 'int') {
    throw new LoomError(
      `'${arg.name}': axis ${axis} is tagged 'sep', so each of its indices is an array of its own, and their number must be known when the code is generated, not ${printExpr(size)} (fix it: fixParameters(knl, { ${printExpr(size)}: ... }) where it is a parameter)`,
    );
  }
  // each separate array is laid out by its own tags; the caller's array stays row-major
  // (runtime/sep-pieces.ts moves the elements between the two)
  return { axis, length: size.value };
}

export function separateArrays(knl: LoopKernel): LoopKernel {
  const seps = new Map(
    knl.args.flatMap((a) => {
      const sep = sepAxisOf(a);
      return sep ? [[a.name, sep] as const] : [];
    }),
  );
  if (seps.size === 0) return knl;
  const args = knl.args.flatMap((a) => {
    const sep = seps.get(a.name);
    if (!sep) return [a];
    const shape = a.shape!.filter((_, k) => k !== sep.axis);
    const dimTags = a.dimTags!.filter((_, k) => k !== sep.axis);
    return Array.from({ length: sep.length }, (_, k) => ({ ...a, name: separateName(a.name, k), shape, dimTags }));
  });
  const pick = (name: string, indices: readonly Expr[], axis: number, k: number) =>
    subscript(
      separateName(name, k),
      indices.filter((_, j) => j !== axis),
    );
  const rewriteReads = (e: Expr): Expr =>
    mapExpr(e, (x) => {
      if (x.kind !== 'subscript' || !seps.has(x.array)) return x;
      const { axis, length } = seps.get(x.array)!;
      const index = x.indices[axis];
      if (index.kind === 'int') return pick(x.array, x.indices, axis, checked(index.value, length, x.array));
      let chosen: Expr = pick(x.array, x.indices, axis, length - 1);
      for (let k = length - 2; k >= 0; k--)
        chosen = ifThenElse(compare('==', index, int(k)), pick(x.array, x.indices, axis, k), chosen);
      return chosen;
    });
  // reads everywhere (the indices of what is written included, and rule bodies, which
  // are written out later); then each write to a separated array picks its array
  const read = mapKernelExpressions(knl, rewriteReads, { what: 'separateArrays' });
  const instructions = read.instructions.flatMap((insn): Instruction[] => {
    const target = soleAssignee(insn);
    if (target.kind !== 'subscript' || !seps.has(target.array)) return [insn];
    const { axis, length } = seps.get(target.array)!;
    const index = target.indices[axis];
    if (index.kind === 'int')
      return [
        { ...insn, assignees: [pick(target.array, target.indices, axis, checked(index.value, length, target.array))] },
      ];
    return Array.from({ length }, (_, k) => ({
      ...insn,
      id: k === 0 ? insn.id : `${insn.id}_s${k}`,
      assignees: [pick(target.array, target.indices, axis, k)],
      predicates: [...insn.predicates, compare('==', index, int(k))],
    }));
  });
  // whoever waited for a split write waits for every copy of it
  const copies = new Map<string, string[]>();
  for (const i of instructions) {
    const original = i.id.replace(/_s\d+$/, '');
    if (i.id !== original || knl.instructions.some((k) => k.id === i.id))
      copies.set(original, [...(copies.get(original) ?? []), i.id]);
  }
  const withDeps = instructions.map((i) => ({
    ...i,
    dependsOn: [...new Set(i.dependsOn.flatMap((d) => copies.get(d) ?? [d]))],
  }));
  return read.with({ args, instructions: withDeps });
}

function checked(k: number, length: number, name: string): number {
  if (k < 0 || k >= length)
    throw new LoomError(`'${name}' is indexed at ${k} along its 'sep' axis of length ${length}`);
  return k;
}
