/**
 * `bulkCopies(knl, 'a_fetch')`: the fills of a local tile become one bulk transfer a step.
 * An asynchronous copy (`asyncCopies`) still has every work-item issue its share of the tile, 16
 * bytes at a time, and compute their addresses. Hopper's tensor memory accelerator (TMA: CUDA's
 * `cp.async.bulk.tensor`) moves a whole box of a tensor between global and local memory on one
 * work-item's request, addresses and bounds computed by the hardware, and signals its completion
 * on a barrier object in local memory that the readers wait on:
 *
 *     if (first work-item) copy the box of a at (i0, k0) into a_fetch     (one request, no per-element work)
 *     ... what reads a_fetch waits for the transfer at the step's barrier ...
 *
 * The instructions keep their meaning (an asynchronous copy of each element, waited for at the
 * next barrier), so every analysis and every device that runs work-items one after another read
 * them as before; the target finds, step by step, the tile that all the copies of one nest fill
 * together (codegen-cfamily's bulk-copies.ts), checks that it is a box of the global array laid
 * out in local memory as the transfer writes it, and refuses the kernel with a LoomError where it
 * is not. A target that issues asynchronous copies but no bulk ones refuses the kernel.
 */
import type { LoopKernel } from '../kernel/model.ts';
import { copyInstructions } from './async-copies.ts';

/**
 * Makes every instruction that writes the local `temporaries` an asynchronous copy moved as one
 * bulk transfer a step (see the file's comment); each must copy one element of a global argument
 * as it is (`asyncCopies`' rule).
 * ```ts
 * knl = addPrefetch(knl, 'a', ['i_tile', 'k_inner'], { temporaryAddressSpace: 'local', fetchOuterInames: ['i_outer', 'k_outer'] });
 * knl = doubleBuffer(knl, 'a_fetch', 'k_outer', { stages: 4 });
 * knl = bulkCopies(knl, 'a_fetch');      // CUDA on sm_90: cp.async.bulk.tensor, waited for at the step's barrier
 * ```
 * @param temporaries local temporaries, by name, list or wildcard (`'*_fetch'`)
 */
export function bulkCopies(knl: LoopKernel, temporaries: string | readonly string[]): LoopKernel {
  const copies = copyInstructions(knl, temporaries, 'bulkCopies');
  return knl.with({
    instructions: knl.instructions.map((i) => (copies.has(i.id) ? { ...i, asyncCopy: true, bulkCopy: true } : i)),
  });
}
