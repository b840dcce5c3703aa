/**
 * loopy's check_variable_access_ordered: between an instruction that writes a variable and
 * every other that accesses it there is a dependency, direct or through others, or a
 * `nosync` saying no order is meant; else `VariableAccessNotOrdered`, because the kernel
 * may run the two either way. Accesses the integer sets prove disjoint need no order
 * (`a[i]` and `a[i + n]`); indices that are not affine may meet.
 */
import { VariableAccessNotOrdered } from '../errors.ts';
import { toLinear } from '../expr/affine.ts';
import { touchesByVariable, type Touch } from '../kernel/accesses.ts';
import { prerequisiteClosure, waivesBarrier } from '../kernel/dependencies.ts';
import { domainOf } from '../kernel/domains.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { Linear } from '../linear.ts';
import { eq } from '../sets/index.ts';

export function checkVariableAccessOrdered(knl: LoopKernel): void {
  const touches = touchesByVariable(knl);
  const prerequisites = prerequisiteClosure(knl.instructions);
  const ordered = (a: string, b: string) => prerequisites(a).has(b) || prerequisites(b).has(a);
  for (const [name, list] of touches) {
    const scope =
      knl.temporaries.get(name) && knl.temporaries.get(name)!.addressSpace !== 'global' ? 'local' : 'global';
    for (const w of list) {
      if (!w.isWrite) continue;
      for (const o of list) {
        if (o.insn.id === w.insn.id || ordered(w.insn.id, o.insn.id)) continue;
        if (waivesBarrier(w.insn, o.insn.id, scope) || waivesBarrier(o.insn, w.insn.id, scope)) continue;
        if (!mayMeet(knl, w, o)) continue;
        throw new VariableAccessNotOrdered(
          `in kernel '${knl.name}': no dependency relationship found between '${w.insn.id}', which writes the variable '${name}', and '${o.insn.id}', which also accesses it: ` +
            `add a dependency between the two (directly or through others, {dep=${w.insn.id}} on '${o.insn.id}' or the reverse), or add them to each other's nosync set ({nosync=${o.insn.id}} on '${w.insn.id}') to say that no order is meant`,
          o.insn.span ?? w.insn.span,
        );
      }
    }
  }
}

/**
 * Whether some point of `w`'s loops and some point of `o`'s reach one element: the pairs of
 * points (the second's inames primed) with equal indices are not empty.
 */
function mayMeet(knl: LoopKernel, w: Touch, o: Touch): boolean {
  if (!w.indices || !o.indices || w.indices.length !== o.indices.length) return true;
  const first = w.indices.map(toLinear);
  const second = o.indices.map(toLinear);
  if ([...first, ...second].some((f) => f === undefined)) return true;
  const [dw, dob] = [w.insn, o.insn].map((i) => domainOf(knl, i.withinInames));
  const known = (dims: readonly string[], params: readonly string[], fs: readonly (Linear | undefined)[]) =>
    fs.every((f) => [...f!.coeffs.keys()].every((n) => dims.includes(n) || params.includes(n)));
  if (!known(dw.dims, dw.params, first) || !known(dob.dims, dob.params, second)) return true;
  const primed = new Map(dob.dims.map((d) => [d, `${d}'`] as const));
  const renamed = [...primed].reduce((set, [from, to]) => set.renameVariable(from, to), dob);
  const prime = (f: Linear) =>
    Linear.of(
      [...f.coeffs].map(([n, c]) => [primed.get(n) ?? n, c] as const),
      f.constant,
    );
  return !dw
    .intersect(renamed)
    .addConstraints(first.map((f, k) => eq(f!.sub(prime(second[k]!)))))
    .isEmpty();
}
