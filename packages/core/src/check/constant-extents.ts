/**
 * `ilp` and `unr` inames are not loops in the generated code: the body is copied once
 * per value (or, for ILP, the private temporaries get one copy per value). That
 * needs the number of values when the code is generated, as loopy's
 * get_constant_iname_length does.
 */
import { Linear } from '../linear.ts';
import { staticMax, staticMin } from '../sets/index.ts';
import { domainOf } from '../kernel/domains.ts';
import { reductionInames } from '../kernel/accesses.ts';
import { tagToString, type Instruction, type LoopKernel } from '../kernel/model.ts';
import { fail } from './check-error.ts';

const needsConstantExtent = (knl: LoopKernel, iname: string): boolean => {
  const kind = knl.inameTags.get(iname)?.kind;
  return kind === 'ilp' || kind === 'unroll';
};

export function checkConstantExtents(knl: LoopKernel): void {
  const checked = new Set<string>();
  for (const insn of knl.instructions) {
    for (const iname of inamesOf(knl, insn)) {
      if (checked.has(iname) || !needsConstantExtent(knl, iname)) continue;
      checked.add(iname);
      const term = [{ set: domainOf(knl, [iname]), expr: Linear.variable(iname) }];
      const lo = staticMin(term, knl.assumptions);
      const hi = staticMax(term, knl.assumptions);
      if (lo.isConstant && hi.isConstant) continue;
      const tag = tagToString(knl.inameTags.get(iname));
      const what = tag === 'unr' ? 'unroll' : 'run as ILP lanes';
      fail(knl, insn, {
        check: 'constant_iname_extent',
        inames: [iname],
        problem:
          `runs inside '${iname}', tagged ${tag}: cannot ${what} '${iname}': its length is not a constant (it runs from ${lo.toString()} to ${hi.toString()}), ` +
          `and ${tag} copies the body once per value, so the number of values must be known when the code is generated`,
        fix: `Split it with a constant inner length and tag the inner part, e.g. splitIname(knl, '${iname}', 4, { innerTag: '${tag === 'unr' ? 'unr' : 'ilp'}' }).`,
      });
    }
  }
}

/** The inames an instruction runs in: its loops and the loops of its reductions. */
function inamesOf(knl: LoopKernel, insn: Instruction): string[] {
  return [...insn.withinInames, ...reductionInames(insn, knl.substitutions)];
}
