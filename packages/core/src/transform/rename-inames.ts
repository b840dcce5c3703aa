/**
 * `renameInames(knl, ['i1', 'i2'], 'ifused')`: several loops become one named `ifused`
 * (loopy's rename_inames). The first is renamed; the others are merged into it, which is
 * only the same computation when they run over the same values, so their domains must be
 * equal, and no instruction may run in two of them. With `existingOk`, `ifused` may be an
 * iname already, and all of them merge into it.
 *
 * With `within`, only the instructions it picks move to the new name; the others keep
 * their loops (they get copies first, see within-inames.ts).
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { nameList } from '../names.ts';
import { LoomError } from '../errors.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { instructionsWithin, type Within } from './match.ts';
import { renameIname } from './rename-iname.ts';
import { isolateInames } from './within-inames.ts';

/** The options renameInames reads; any other key is an error. */
const RENAME_INAMES_OPTIONS = optionKeys<RenameInamesOptions>()(['existingOk', 'within']);

/** Options of `renameInames`. */
export interface RenameInamesOptions {
  /** `newIname` may already be an iname: every old one merges into it. */
  readonly existingOk?: boolean;
  /** Only these instructions (a match expression, see match.ts). */
  readonly within?: Within;
}

/** Renames several inames to one (loopy's `rename_inames`). */
export function renameInames(
  knl: LoopKernel,
  oldInames: string | readonly string[],
  newIname: string,
  options: RenameInamesOptions = {},
): LoopKernel {
  checkOptionKeys('renameInames', options, RENAME_INAMES_OPTIONS);
  const olds = nameList(oldInames);
  if (olds.length === 0) throw new LoomError('renameInames: no iname to rename');
  if (new Set(olds).size !== olds.length)
    throw new LoomError(`renameInames: an iname is listed twice in '${olds.join(', ')}'`);
  for (const n of olds)
    if (!knl.inames.includes(n))
      throw new LoomError(`renameInames: unknown iname '${n}' (inames: ${knl.inames.join(', ')})`);
  if (olds.includes(newIname))
    throw new LoomError(`renameInames: the new name '${newIname}' is one of the inames being renamed`);
  const nested = knl.instructions.find((i) => olds.filter((n) => i.withinInames.includes(n)).length > 1);
  if (nested) {
    throw new LoomError(
      `renameInames: instruction '${nested.id}' runs in ${olds
        .filter((n) => nested.withinInames.includes(n))
        .map((n) => `'${n}'`)
        .join(' and ')}; merging them would make them equal`,
    );
  }
  if (knl.inames.includes(newIname) && !options.existingOk) {
    throw new LoomError(`renameInames: '${newIname}' is already an iname; pass { existingOk: true } to merge into it`);
  }
  let result = knl;
  let names = olds;
  if (options.within !== undefined) {
    const chosen = instructionsWithin(knl, options.within, 'renameInames: option within', true);
    const isolated = isolateInames(knl, olds, chosen);
    result = isolated.kernel;
    names = olds.map((n) => isolated.names.get(n)!);
  }
  // the first takes the new name (or merges into it); each next one merges into it
  for (const old of names)
    result = renameIname(result, old, newIname, { existingOk: result.inames.includes(newIname) });
  return result;
}
