/**
 * `duplicateInames`: give some instructions their own copy of an iname, with the
 * same bounds, so that they get a loop of their own (the tutorial's transpose fix).
 */
import { LoomError } from '../errors.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { homeDomainIndex, parentInames } from '../kernel/domains.ts';
import { reductionInames } from '../kernel/accesses.ts';
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
  const domains = [...knl.domains];
  const copies: number[] = [];
  list.forEach((iname, k) => {
    if (!knl.inames.includes(iname)) throw new LoomError(`duplicateInames: unknown iname '${iname}'`);
    const chosen = options.newNames?.[k] ?? uniqueName(iname, taken);
    if (taken.has(chosen)) throw new LoomError(`duplicateInames: the name '${chosen}' is already used`);
    taken.add(chosen);
    renames.set(iname, chosen);
    const home = domains[homeDomainIndex(knl, iname)];
    const siblings = home.dims.filter((d) => d !== iname);
    domains.push(home.moveDimsToParams(siblings).renameVariable(iname, chosen));
    copies.push(domains.length - 1);
  });
  // a copy bounded by another duplicated iname (j <= i, both duplicated) is bounded by that one's copy
  for (const c of copies) {
    for (const [old, chosen] of renames) if (domains[c].params.includes(old)) domains[c] = domains[c].renameVariable(old, chosen);
  }
  for (const insn of knl.instructions) if (within.includes(insn.id)) checkNoDependentLoop(knl, insn, renames);
  const instructions = knl.instructions.map((insn) => (within.includes(insn.id) ? renameInInstruction(insn, renames) : insn));
  return knl.with({ domains, instructions });
}

/**
 * An instruction that gets the copy of `i` must not keep a loop whose bounds depend on
 * `i` (`{ [j]: 0 <= j <= i }`): that loop would still be bounded by the old `i`, which
 * the instruction no longer runs in, and would silently run over the wrong values.
 * Duplicating the dependent iname as well gives both copies.
 */
function checkNoDependentLoop(knl: LoopKernel, insn: LoopKernel['instructions'][number], renames: ReadonlyMap<string, string>): void {
  const kept = [...insn.withinInames, ...reductionInames(insn, knl.substitutions)].filter((x) => !renames.has(x));
  for (const x of kept) {
    // the inames x's bounds depend on, directly or through other inames
    const ancestors = new Set<string>();
    const pending = [x];
    while (pending.length) for (const p of parentInames(knl, pending.pop()!)) if (!ancestors.has(p)) ancestors.add(p), pending.push(p);
    const old = [...renames.keys()].find((r) => ancestors.has(r));
    if (old !== undefined) {
      throw new LoomError(
        `duplicateInames: the bounds of '${x}' (used by instruction '${insn.id}') depend on '${old}'; ` +
        `duplicating '${old}' alone would leave them on the old loop: duplicate '${x}' with it`,
      );
    }
  }
}
