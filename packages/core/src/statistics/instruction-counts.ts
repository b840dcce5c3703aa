/**
 * How many times an instruction runs, counted at one granularity (loopy's
 * `_get_insn_count`), on the preprocessed kernel:
 *
 *  - per work-item: the points of the instruction's loop domain, its local and group
 *    inames included;
 *  - per work-group: the points of the domain without its local inames;
 *  - per sub-group: the work-group count times the sub-groups in a work-group,
 *    ceil(work-group size / sub-group size).
 *
 * With `countRedundantWork`, an instruction that does not use a hardware axis runs once
 * per id along it all the same (every work-item of the axis repeats it): the count is
 * multiplied by the size of each axis it leaves unused.
 */
import { LoomError, LoomWarning, reportWarning } from '../errors.ts';
import { findGrid, type Grid } from '../codegen/hardware.ts';
import { constantLocalSize, printLocalSize } from '../codegen/local-size.ts';
import { add, binary, int, mul, type Expr } from '../expr/nodes.ts';
import { domainOf } from '../kernel/domains.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';
import { LruCache } from '../lru.ts';
import { perObject } from '../memo.ts';
import type { BasicSet } from '../sets/basic-set.ts';
import { card } from '../sets/card.ts';
import { PwQPolynomial } from '../sets/pw-qpolynomial.ts';
import { GuardedPwQPolynomial } from './guarded.ts';
import type { CountGranularity } from './keys.ts';
import { polynomialOf } from '../expr/polynomial.ts';
import { printExpr } from '../expr/index.ts';

/**
 * Counts by set of inames, per domain list and assumptions (weakly, as domainOf keeps its
 * sets): the maps of one kernel, and of kernels that share its domains, count each loop
 * nest once. A kernel asks about as many sets as it has loop nests; the bound is for show.
 */
const counted = perObject((_: readonly BasicSet[]) =>
  perObject((_: BasicSet) => new LruCache<string, PwQPolynomial>(1024)),
);

/** Options shared by the counting functions (`getOpMap`, `getMemAccessMap`). */
export interface InstructionCountOptions {
  /**
   * Work-items per sub-group (a warp: 32 on NVIDIA GPUs). `'guess'` takes 32 with a
   * warning. Needed for what is counted per sub-group.
   */
  readonly subgroupSize?: number | 'guess' | undefined;
  /** Count the work that instructions repeat on the hardware axes they do not use. */
  readonly countRedundantWork?: boolean | undefined;
}

export class InstructionCounts {
  /** The parameters counts are polynomials in: the kernel's, sorted. */
  readonly params: readonly string[];
  readonly zero: GuardedPwQPolynomial;
  private gridOfKernel: Grid | undefined;
  private guessed = false;

  constructor(
    /** The preprocessed kernel. */
    readonly knl: LoopKernel,
    private readonly options: InstructionCountOptions,
    private readonly what: string,
  ) {
    const inames = new Set(knl.inames);
    this.params = [...new Set(knl.domains.flatMap((d) => d.params).filter((p) => !inames.has(p)))].sort();
    this.zero = this.guard(PwQPolynomial.zero(this.params));
  }

  /** The number of distinct values the loops over `inames` take together (1 for none). */
  ofInames(inames: readonly string[]): GuardedPwQPolynomial {
    const key = `${[...inames].sort().join(',')}|${this.params.join(',')}`;
    const pw = counted(this.knl.domains)(this.knl.assumptions).memo(key, () =>
      inames.length === 0
        ? PwQPolynomial.of(1, this.params)
        : card(domainOf(this.knl, inames, false, false), this.params),
    );
    return this.guard(pw);
  }

  /** How many times `insn` runs, counted per work-item, sub-group or work-group. */
  runs(insn: Instruction, granularity: CountGranularity): GuardedPwQPolynomial {
    const tags = this.knl.inameTags;
    if (granularity === 'workitem') return this.redundant(insn, this.ofInames(insn.withinInames), true);
    const withoutLocal = insn.withinInames.filter((n) => tags.get(n)?.kind !== 'local');
    const perGroup = this.redundant(insn, this.ofInames(withoutLocal), false);
    if (granularity === 'workgroup') return perGroup;
    const local = this.grid().localSize;
    const constant = constantLocalSize(local);
    if (constant) return perGroup.scale(Math.ceil(constant.reduce((a, b) => a * b, 1) / this.subgroupSize()));
    // a work-group sized at launch (`l.0` over n): ceil(size / subgroupSize) sub-groups, as loopy counts them
    const size = this.subgroupSize();
    const groupSize = local.reduce((a, b) => mul(a, b));
    const subgroups = polynomialOf(binary('//', add(groupSize, int(size - 1)), int(size)));
    if (!subgroups)
      throw new LoomError(
        `${this.what}: the work-group size ${printLocalSize(local)} is known only at launch and is not affine in the parameters, so its sub-groups cannot be counted; count per work-item or work-group, or fix the parameters`,
      );
    return perGroup.mul(PwQPolynomial.of(subgroups, this.params));
  }

  guard(pw: PwQPolynomial): GuardedPwQPolynomial {
    return new GuardedPwQPolynomial(pw, this.knl.assumptions);
  }

  /** The count times the sizes of the hardware axes the instruction leaves unused, if asked for. */
  private redundant(insn: Instruction, count: GuardedPwQPolynomial, withLocal: boolean): GuardedPwQPolynomial {
    if (!this.options.countRedundantWork) return count;
    const grid = this.grid();
    const used = { group: new Set<number>(), local: new Set<number>() };
    for (const n of insn.withinInames) {
      const tag = this.knl.inameTags.get(n);
      if (tag?.kind === 'group') used.group.add(tag.axis);
      if (tag?.kind === 'local') used.local.add(tag.axis);
    }
    let factor = PwQPolynomial.of(1, this.params);
    const times = (size: Expr, axis: number, what: string) => {
      const p = polynomialOf(size);
      if (!p)
        throw new LoomError(
          `${this.what}: the ${what} along axis ${axis} (${printExpr(size)}) is not a polynomial in the parameters; count without countRedundantWork`,
        );
      factor = factor.mul(PwQPolynomial.of(p, this.params));
    };
    grid.groupCount.forEach((size, axis) => {
      if (!used.group.has(axis)) times(size, axis, 'number of work-groups');
    });
    if (withLocal) {
      grid.localSize.forEach((size, axis) => {
        if (!used.local.has(axis)) times(size, axis, 'work-group size');
      });
    }
    return count.mul(factor);
  }

  private grid(): Grid {
    return (this.gridOfKernel ??= findGrid(this.knl));
  }

  /** loopy asks for the sub-group size up front, whether or not a count needs it. */
  requireSubgroupSize(): void {
    this.subgroupSize();
  }

  private subgroupSize(): number {
    const s = this.options.subgroupSize;
    if (s === 'guess') {
      if (this.guessed) return 32;
      this.guessed = true;
      reportWarning(
        new LoomWarning(
          `${this.what}: no sub-group size known; guessing 32 (pass subgroupSize)`,
          'SubgroupSizeGuessWarning',
        ),
      );
      return 32;
    }
    if (s === undefined)
      throw new LoomError(
        `${this.what}: counting per sub-group needs the sub-group size: pass subgroupSize (an integer, e.g. 32 for NVIDIA GPUs, or 'guess')`,
      );
    if (!Number.isInteger(s) || s < 1)
      throw new LoomError(`${this.what}: subgroupSize must be a positive integer or 'guess', got ${String(s)}`);
    return s;
  }
}
