/**
 * `swizzleArray(knl, 'a_fetch', 128)`: a local array stored swizzled, as Hopper's tensor memory
 * accelerator writes tiles and its warpgroup instructions read them at full speed. Row after row
 * of 128 bytes, the 16-byte units of row r are exchanged by r's low bits (unit u of row r lies at
 * unit u ^ (r % 8) for 128 bytes; within 64 or 32 bytes, by fewer bits), so that a column of 8
 * consecutive rows spreads over all banks instead of one. Every access follows (codegen's
 * swizzle.ts): which element an index reads does not change, only where it lies, so every device
 * computes the same; a tile copied in bulk (`bulkCopies`) is requested swizzled, and a tile of
 * `tensorize`d products is read through swizzled descriptors (the lines of a 64 x 64 tile of
 * 16-bit factors, one 128-byte row each: `[rows][64]`, or for b, `[columns / 64][rows][64]`).
 */
import { LoomError } from '../errors.ts';
import type { LoopKernel } from '../kernel/model.ts';

/** The spans a swizzle may have, in bytes. */
const SPANS = [32, 64, 128] as const;

/**
 * Stores local temporary `name` swizzled over `span` bytes (see the file's comment). Its bytes must
 * be a multiple of `span` (checked when code is generated, where its dtype is known).
 * ```ts
 * knl = addPrefetch(knl, 'a', ['i_tile', 'k_tile'], { temporaryAddressSpace: 'local' });   // a_fetch[128][64] of halves
 * knl = swizzleArray(knl, 'a_fetch', 128);
 * knl = bulkCopies(knl, 'a_fetch');       // one request of the tensor memory accelerator, swizzled as it lands
 * ```
 */
export function swizzleArray(knl: LoopKernel, name: string, span: 32 | 64 | 128): LoopKernel {
  const t = knl.temporaries.get(name);
  if (!t)
    throw new LoomError(
      `swizzleArray: ${knl.arg(name) ? `'${name}' is an argument; only a local temporary is stored swizzled` : `no temporary '${name}' (temporaries: ${[...knl.temporaries.keys()].join(', ') || 'none'})`}`,
    );
  if (t.addressSpace !== 'local')
    throw new LoomError(
      `swizzleArray: '${name}' is a ${t.addressSpace === 'auto' ? 'temporary whose address space is not chosen yet' : `${t.addressSpace} temporary`}; only a local array is stored swizzled`,
    );
  if (!(SPANS as readonly number[]).includes(span))
    throw new LoomError(`swizzleArray: a swizzle spans ${SPANS.join(', ')} bytes, not ${span}`);
  if (t.dimTags?.some((tag) => tag.kind === 'vec' || tag.kind === 'sep'))
    throw new LoomError(`swizzleArray: '${name}' has a vector or separate axis; swizzle an array of plain elements`);
  return knl.with({ temporaries: new Map(knl.temporaries).set(name, { ...t, swizzle: span }) });
}
