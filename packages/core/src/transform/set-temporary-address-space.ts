/**
 * `setTemporaryAddressSpace(knl, 'a_temp', 'local')`: where a temporary lives — in
 * each work-item's registers (`private`), shared by a work-group (`local`), or in
 * device memory visible to the whole launch (`global`). Without it, placement decides
 * (private, unless the temporary is written in parallel across local ids).
 *
 * Names may be a list, comma-separated, or wildcards (`'*_fetch'`); each must name at
 * least one temporary, so a typo does not pass silently.
 */
import { nameList } from '../names.ts';
import { LoomError } from '../errors.ts';
import type { AddressSpace, LoopKernel } from '../kernel/model.ts';
import { matchIds } from '../kernel/dependencies.ts';

const SPACES: readonly AddressSpace[] = ['private', 'local', 'global'];

/** Moves temporaries to private, local or global memory (loopy's `set_temporary_address_space`). */
export function setTemporaryAddressSpace(
  knl: LoopKernel,
  names: string | readonly string[],
  space: AddressSpace,
): LoopKernel {
  if (!SPACES.includes(space)) {
    throw new LoomError(
      `setTemporaryAddressSpace: unknown address space '${String(space)}' (known: ${SPACES.join(', ')})`,
    );
  }
  const patterns = nameList(names);
  if (patterns.length === 0) throw new LoomError('setTemporaryAddressSpace: no temporary named');
  const known = [...knl.temporaries.keys()];
  const chosen = new Set<string>();
  for (const pattern of patterns) {
    const matched = matchIds(pattern, known);
    if (matched.length === 0) {
      const what = knl.arg(pattern)
        ? `'${pattern}' is an argument, not a temporary`
        : `no temporary matches '${pattern}'`;
      throw new LoomError(`setTemporaryAddressSpace: ${what} (temporaries: ${known.join(', ') || 'none'})`);
    }
    for (const m of matched) chosen.add(m);
  }
  const temporaries = new Map(knl.temporaries);
  for (const name of chosen) {
    // nothing writes a table's values into local memory before the kernel runs (it would read 0s)
    if (space === 'local' && temporaries.get(name)!.initializer) {
      throw new LoomError(
        `setTemporaryAddressSpace: '${name}' is a constant table (it has an initializer), which local memory cannot hold initialized; make it private or global`,
      );
    }
    temporaries.set(name, { ...temporaries.get(name)!, addressSpace: space });
  }
  return knl.with({ temporaries });
}
