/**
 * `asyncCopies(knl, 'a_fetch')`: the fills of a local temporary become asynchronous copies.
 * A prefetch fills local memory through each work-item's registers: the work-item loads an
 * element from global memory, waits for it, and stores it. An asynchronous copy (CUDA's
 * `cp.async`) moves the element from global into local memory without the work-item waiting:
 * it issues its copies and goes on to compute, and waits for them at the next barrier. With a
 * double buffer (`doubleBuffer`), the copies of the next step land while the step computes:
 *
 *     a_fetch[1 - parity, ...] = a[..., k + 1]   {async}   (issued, not waited for)
 *     ... what reads a_fetch[parity, ...] ...
 *     wait for this work-item's copies; barrier
 *
 * Each copy is an instruction `t[...] = g[...]` from a global argument into a local temporary of
 * the same dtype, element by element (a code generator may merge a run of them into wider
 * copies). Its meaning is a plain copy's: what reads the temporary waits for it at a barrier,
 * which the schedule places between the copy and every instruction that depends on it, even in
 * the work-item that copied (schedule/barriers.ts). A target without asynchronous copies
 * refuses the kernel; one whose work-items run one after another (the CPU device) completes
 * each copy at once, which is one of the meanings an asynchronous copy may have.
 */
import { LoomError } from '../errors.ts';
import { nameList } from '../names.ts';
import { matchIds } from '../kernel/dependencies.ts';
import { namesWritten } from '../kernel/accesses.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';

/**
 * Makes every instruction that writes the local `temporaries` an asynchronous copy (see the
 * file's comment); each must copy one element of a global argument as it is.
 * ```ts
 * knl = addPrefetch(knl, 'b', ['k_inner', 'j_inner'], { temporaryAddressSpace: 'local' });
 * knl = doubleBuffer(knl, 'b_fetch', 'k_outer');
 * knl = asyncCopies(knl, 'b_fetch');      // CUDA: cp.async, waited for at the step's barrier
 * ```
 * @param temporaries local temporaries, by name, list or wildcard (`'*_fetch'`)
 */
export function asyncCopies(knl: LoopKernel, temporaries: string | readonly string[]): LoopKernel {
  const copies = copyInstructions(knl, temporaries, 'asyncCopies');
  return knl.with({
    instructions: knl.instructions.map((i) => (copies.has(i.id) ? { ...i, asyncCopy: true } : i)),
  });
}

/**
 * The ids of the instructions that write the local `temporaries`, each checked to be a copy that
 * can complete asynchronously; `verb` names the transformation in its errors.
 */
export function copyInstructions(knl: LoopKernel, temporaries: string | readonly string[], verb: string): Set<string> {
  const patterns = nameList(temporaries);
  if (patterns.length === 0) throw new LoomError(`${verb}: no temporary named`);
  const known = [...knl.temporaries.keys()];
  const chosen = new Set<string>();
  for (const pattern of patterns) {
    const matched = matchIds(pattern, known);
    if (matched.length === 0)
      throw new LoomError(
        `${verb}: ${knl.arg(pattern) ? `'${pattern}' is an argument, not a temporary` : `no temporary matches '${pattern}'`} (temporaries: ${known.join(', ') || 'none'})`,
      );
    for (const m of matched) chosen.add(m);
  }
  const copies = new Set<string>();
  for (const name of chosen) {
    const writers = knl.instructions.filter((i) => namesWritten(i).includes(name));
    if (writers.length === 0) throw new LoomError(`${verb}: no instruction writes '${name}'`);
    for (const w of writers) {
      const problem = asyncCopyProblem(knl, w);
      if (problem) throw new LoomError(`${verb}: '${w.id}' ${problem}`, w.span);
      copies.add(w.id);
    }
  }
  return copies;
}

/**
 * Why `insn` cannot be an asynchronous copy, or undefined when it can: it must assign one
 * element of a global array (an argument or a global temporary), as it is, to one element of a local
 * temporary.
 */
export function asyncCopyProblem(knl: LoopKernel, insn: Instruction): string | undefined {
  if (insn.kind !== 'assign' || insn.assignees.length !== 1 || !insn.expression)
    return 'is not an assignment of one value; only a copy can complete asynchronously';
  if (insn.atomic) return 'is atomic; an asynchronous copy is a plain one';
  const target = insn.assignees[0];
  const value = insn.expression;
  if (target.kind !== 'subscript' || target.field)
    return 'does not write an element of an array; an asynchronous copy fills local memory';
  const temp = knl.temporaries.get(target.array);
  if (!temp || temp.addressSpace !== 'local')
    return `writes '${target.array}', which is not a local temporary${temp?.addressSpace === 'auto' ? ' (its address space is not chosen yet: setTemporaryAddressSpace)' : ''}; an asynchronous copy fills local memory`;
  if (value.kind !== 'subscript' || value.field)
    return 'computes its value; an asynchronous copy moves an element of a global array as it is (a guard or a conversion is computation)';
  // a global argument, or a global temporary (another kernel of the program wrote it, before a global barrier)
  const argument = knl.arg(value.array);
  const globalTemporary = knl.temporaries.get(value.array);
  const source =
    argument?.kind === 'global' ? argument : globalTemporary?.addressSpace === 'global' ? globalTemporary : undefined;
  if (!source)
    return `reads '${value.array}', which is not a global argument or temporary; an asynchronous copy reads global memory`;
  if (source.dtype !== undefined && temp.dtype !== undefined && source.dtype !== temp.dtype)
    return `copies ${source.dtype} into ${temp.dtype}; an asynchronous copy moves bytes and converts nothing`;
  return undefined;
}
