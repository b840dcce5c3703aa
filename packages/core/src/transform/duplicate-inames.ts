/**
 * `duplicateInames`: give some instructions their own copy of an iname, with the
 * same bounds, so that they get a loop of their own (the tutorial's transpose fix).
 */
import { LoomError } from '../errors.ts';
import { checkName } from '../names.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { homeDomainIndex } from '../kernel/domains.ts';
import { instructionsWithin } from '../kernel/dependencies.ts';
import { renameInExpr, uniqueName } from './rename.ts';
import { rewriteExpressions } from './rewrite-expressions.ts';

export interface DuplicateInamesOptions {
  /** Instruction ids (wildcards allowed, `:`-separated or an array); default: every instruction. */
  readonly within?: string | readonly string[];
  /** New names, one per iname (undefined entries are chosen automatically). */
  readonly newNames?: readonly (string | undefined)[];
}

export function duplicateInames(knl: LoopKernel, inames: string | readonly string[], options: DuplicateInamesOptions = {}): LoopKernel {
  const list = typeof inames === 'string' ? inames.split(',').map((s) => s.trim()).filter(Boolean) : inames;
  const chosen = instructionsWithin(knl.instructions, options.within);
  const taken = new Set([...knl.inames, ...knl.args.map((a) => a.name), ...knl.temporaries.keys()]);
  const renames = new Map<string, string>();
  let domains = [...knl.domains];
  list.forEach((iname, k) => {
    if (!knl.inames.includes(iname)) throw new LoomError(`duplicateInames: unknown iname '${iname}'`);
    const wanted = options.newNames?.[k];
    const chosen = wanted === undefined ? uniqueName(iname, taken) : checkName(wanted, 'duplicateInames: option newNames');
    if (taken.has(chosen)) throw new LoomError(`duplicateInames: the name '${chosen}' is already used`);
    taken.add(chosen);
    renames.set(iname, chosen);
    const home = domains[homeDomainIndex(knl, iname)];
    const siblings = home.dims.filter((d) => d !== iname);
    domains.push(home.moveDimsToParams(siblings).renameVariable(iname, chosen));
  });
  // rules called by the chosen instructions use the copies too (see rewriteExpressions)
  const rewritten = rewriteExpressions(knl.with({ domains }), 'duplicateInames', (e) => renameInExpr(e, renames), chosen);
  const instructions = rewritten.instructions.map((insn) =>
    chosen.has(insn.id) ? { ...insn, withinInames: insn.withinInames.map((n) => renames.get(n) ?? n) } : insn,
  );
  return knl.with({ domains, instructions, substitutions: rewritten.substitutions });
}
