/**
 * One DeviceArray passed as two arguments of a kernel, one of them written (an in-place update,
 * as a computation's `inOut` makes). CPU and OpenCL would run such a call on the shared buffer,
 * WebGPU refuses it (a buffer bound writable and readable in one dispatch), and what the kernel
 * computes depends on when each work-item reads. So every device treats it alike:
 *
 * - where the aliasing is well defined (every access of either argument is at one and the same
 *   index of distinct inames, by instructions that run once per element, and every read of the
 *   read-only argument comes before the writes of the other), the call runs the kernel with the
 *   read-only argument's accesses renamed to the written one: one argument, one binding, the very
 *   result the shared buffer gives where a device allows it;
 * - otherwise it is a LoomError before anything runs, saying which arguments alias and why.
 *
 * loopy and PyOpenCL pass aliased buffers through and leave the result to the hardware; a result
 * that differs between devices is what Loom refuses.
 */
import { AliasedArgumentsError, LoomError } from '../errors.ts';
import { ownEntry } from '../names.ts';
import { perObject } from '../memo.ts';
import { printExpr, mapExpr } from '../expr/index.ts';
import { toLinear } from '../expr/affine.ts';
import { subscript, type Expr } from '../expr/nodes.ts';
import { Linear } from '../linear.ts';
import { staticMax, staticMin } from '../sets/index.ts';
import { allAccesses } from '../kernel/accesses.ts';
import { domainOf } from '../kernel/domains.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';
import { DeviceArray } from './device.ts';

/** A read-only argument passed the same buffer as a written one. */
interface Alias {
  readonly read: string;
  readonly written: string;
}

/**
 * The kernel and arguments a call runs with: those given when no DeviceArray is passed twice
 * with one of them written; else the kernel with each aliased read-only argument merged into
 * the written one (and that argument left out), or a LoomError when the aliasing is not well defined.
 */
export function resolveAliases<A>(
  knl: LoopKernel,
  args: Readonly<Record<string, A>>,
  caller: string,
): { readonly kernel: LoopKernel; readonly args: Readonly<Record<string, A>>; readonly merged: readonly Alias[] } {
  const aliases = findAliases(knl, args, caller);
  if (aliases.length === 0) return { kernel: knl, args, merged: aliases };
  const key = aliases.map((a) => `${a.read}>${a.written}`).join(',');
  const kernel =
    mergedKernels(knl).get(key) ??
    mergedKernels(knl)
      .set(
        key,
        aliases.reduce((k, a) => mergeAlias(k, a, caller), knl),
      )
      .get(key)!;
  const rest: Record<string, A> = {};
  for (const name of Object.keys(args)) {
    // defined, not assigned: an argument called `__proto__` is an argument like any other
    if (!aliases.some((a) => a.read === name))
      Object.defineProperty(rest, name, {
        value: ownEntry(args, name),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return { kernel, args: rest, merged: aliases };
}

/** Per kernel (weakly), its variants with aliased arguments merged, by which were. */
const mergedKernels = perObject((_: LoopKernel) => new Map<string, LoopKernel>());

/** The pairs of array arguments given the same buffer, one written; both written is an error. */
function findAliases(knl: LoopKernel, args: Readonly<Record<string, unknown>>, caller: string): Alias[] {
  let found: Alias[] | undefined;
  // run calls this on every call: no allocation unless two DeviceArrays share a buffer
  const arrays = knl.args;
  for (let j = 0; j < arrays.length; j++) {
    const a = arrays[j].kind === 'value' ? undefined : ownEntry(args, arrays[j].name);
    if (!(a instanceof DeviceArray)) continue;
    for (let k = j + 1; k < arrays.length; k++) {
      if (arrays[k].kind === 'value') continue;
      const b = ownEntry(args, arrays[k].name);
      if (!(b instanceof DeviceArray) || b.buffer !== a.buffer) continue;
      const [x, y] = [arrays[j], arrays[k]];
      if (!x.isOutput && !y.isOutput) continue; // both read only: nothing to order
      const what = `${caller}: kernel '${knl.name}': arguments '${x.name}' and '${y.name}' are the same buffer`;
      if (x.isOutput && y.isOutput) throw new LoomError(`${what}, and the kernel writes both: pass separate arrays`);
      if (a.dtype !== b.dtype || a.shape.join() !== b.shape.join()) {
        throw new LoomError(
          `${what} seen as different arrays (${a.dtype} (${a.shape.join(', ')}) and ${b.dtype} (${b.shape.join(', ')})): pass separate arrays`,
        );
      }
      (found ??= []).push(x.isOutput ? { read: y.name, written: x.name } : { read: x.name, written: y.name });
    }
  }
  return found ?? [];
}

/** The kernel with `read`'s accesses made `written`'s, once checked that this is what sharing the buffer means. */
function mergeAlias(knl: LoopKernel, { read, written }: Alias, caller: string): LoopKernel {
  const refuse = (why: string) =>
    new AliasedArgumentsError(
      `${caller}: kernel '${knl.name}': arguments '${read}' and '${written}' are the same buffer, and ${why}; the result would depend on the device: pass separate arrays`,
      read,
      written,
    );
  const [r, w] = [knl.arg(read)!, knl.arg(written)!];
  if (
    (r.dtype && w.dtype && r.dtype !== w.dtype) ||
    JSON.stringify(r.dimTags) !== JSON.stringify(w.dimTags) ||
    r.shape!.map(printExpr).join() !== w.shape!.map(printExpr).join()
  ) {
    throw refuse('they are declared with different dtypes, shapes or layouts');
  }
  const accesses = allAccesses(knl).filter((a) => a.array === read || a.array === written);
  const index = accesses.length ? accesses[0].indices.map(printExpr).join(', ') : '';
  const inames = accesses.length ? injectiveInames(knl, accesses[0].indices) : [];
  if (!inames) throw refuse(`'${accesses[0].array}[${index}]' is not indexed by distinct inames`);
  for (const a of accesses) {
    const at = `${a.array}[${a.indices.map(printExpr).join(', ')}]`;
    if (a.isWrite && a.array === read) throw refuse(`the kernel writes '${read}' too`);
    if (a.indices.map(printExpr).join(', ') !== index)
      throw refuse(`'${at}' and '${accesses[0].array}[${index}]' may be different elements`);
    if (a.reductionInames.length > 0 || a.instruction.withinInames.some((n) => !inames.includes(n))) {
      throw refuse(
        `instruction '${a.instruction.id}' reaches '${at}' more than once per element (inside a loop over other inames)`,
      );
    }
  }
  // every read of `read` comes before (or in) every instruction writing `written`
  const writers = [...new Set(accesses.filter((a) => a.isWrite).map((a) => a.instruction))];
  for (const a of accesses.filter((x) => x.array === read)) {
    for (const writer of writers) {
      if (a.instruction !== writer && !dependsOn(knl, writer.id, a.instruction.id)) {
        throw refuse(
          `instruction '${a.instruction.id}' reads '${read}' without coming before '${writer.id}', which writes '${written}'`,
        );
      }
    }
  }
  const rename = (e: Parameters<typeof mapExpr>[0]) =>
    mapExpr(e, (x) => (x.kind === 'subscript' && x.array === read ? subscript(written, x.indices) : x));
  const merged = mapKernelExpressions(knl, rename, { what: 'aliased arguments', assignee: 'whole' });
  return merged.with({
    args: merged.args
      .filter((a) => a.name !== read)
      .map((a) => (a.name === written ? { ...a, isInput: true, dtype: a.dtype ?? r.dtype } : a)),
  });
}

/**
 * The inames of an element index when each of their values reaches its own element, else
 * undefined: each position an iname, or inames in mixed radix as a split leaves them
 * (`256*i_outer + i_inner`, each coefficient beyond the reach of the smaller terms over their
 * extents), no iname in two positions.
 */
function injectiveInames(knl: LoopKernel, indices: readonly Expr[]): string[] | undefined {
  const inames: string[] = [];
  for (const index of indices) {
    const form = toLinear(index);
    if (!form || form.isConstant) return undefined;
    const terms = form.variables.map((name) => ({ name, coeff: form.coeff(name) })).sort((a, b) => a.coeff - b.coeff);
    let reach = 0;
    for (const [k, { name, coeff }] of terms.entries()) {
      if (!knl.inames.includes(name) || inames.includes(name) || coeff <= reach) return undefined;
      inames.push(name);
      // the largest term's extent does not matter
      if (k === terms.length - 1) break;
      const term = [{ set: domainOf(knl, [name]), expr: Linear.variable(name) }];
      const span = staticMax(term, knl.assumptions).sub(staticMin(term, knl.assumptions));
      if (!span.isConstant) return undefined;
      reach += coeff * span.constant;
    }
  }
  return inames;
}

/** Whether instruction `id` depends on `on`, directly or through others. */
function dependsOn(knl: LoopKernel, id: string, on: string): boolean {
  const seen = new Set<string>();
  const todo = [id];
  while (todo.length) {
    const current = todo.pop();
    const next = knl.instructions.find((i) => i.id === current);
    for (const d of next?.dependsOn ?? []) {
      if (d === on) return true;
      if (!seen.has(d)) todo.push((seen.add(d), d));
    }
  }
  return false;
}
