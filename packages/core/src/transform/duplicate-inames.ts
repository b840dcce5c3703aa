/**
 * `duplicateInames`: give some instructions their own copy of an iname, with the
 * same bounds, so that they get a loop of their own (the tutorial's transpose fix).
 */
import { LoomError } from '../errors.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { homeDomainIndex } from '../kernel/domains.ts';
import { matchIds } from '../kernel/dependencies.ts';
import { renameInInstruction, uniqueName } from './rename.ts';

export interface DuplicateInamesOptions {
  /** Instruction ids (wildcards allowed, `:`-separated or an array); default: every instruction. */
  readonly within?: string | readonly string[];
  /** New names, one per iname (undefined entries are chosen automatically). */
  readonly newNames?: readonly (string | undefined)[];
}

export function duplicateInames(knl: LoopKernel, inames: string | readonly string[], options: DuplicateInamesOptions = {}): LoopKernel {
  const list = typeof inames === 'string' ? inames.split(',').map((s) => s.trim()).filter(Boolean) : inames;
  const ids = knl.instructions.map((i) => i.id);
  const within = options.within === undefined
    ? ids
    : (typeof options.within === 'string' ? options.within.split(':') : options.within).flatMap((p) => matchIds(p.trim(), ids));
  const taken = new Set([...knl.inames, ...knl.args.map((a) => a.name), ...knl.temporaries.keys()]);
  const renames = new Map<string, string>();
  let domains = [...knl.domains];
  list.forEach((iname, k) => {
    if (!knl.inames.includes(iname)) throw new LoomError(`duplicateInames: unknown iname '${iname}'`);
    const chosen = options.newNames?.[k] ?? uniqueName(iname, taken);
    if (taken.has(chosen)) throw new LoomError(`duplicateInames: the name '${chosen}' is already used`);
    taken.add(chosen);
    renames.set(iname, chosen);
    const home = domains[homeDomainIndex(knl, iname)];
    const siblings = home.dims.filter((d) => d !== iname);
    domains.push(home.moveDimsToParams(siblings).renameVariable(iname, chosen));
  });
  const instructions = knl.instructions.map((insn) => (within.includes(insn.id) ? renameInInstruction(insn, renames) : insn));
  return knl.with({ domains, instructions });
}
