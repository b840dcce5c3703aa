/**
 * What realizing a kernel's reductions adds to it, gathered as the reductions are realized:
 * temporaries (accumulators), inames with their domains and tags (the stages of a tree), and
 * instructions, all under fresh names. `sequential.ts` and `local-tree.ts` realize one
 * reduction each through it; `../kernel/realize-reductions.ts` drives them over the kernel.
 */
import type { DType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { int, type Expr } from '../expr/nodes.ts';
import { Linear } from '../linear.ts';
import { BasicSet, staticMax, staticMin } from '../sets/index.ts';
import { domainOf } from '../kernel/domains.ts';
import type { AddressSpace, InameTag, Instruction, LoopKernel, TemporaryVariable } from '../kernel/model.ts';
import { INDEX_DTYPE } from '../kernel/type-inference.ts';
import { uniqueName } from '../kernel/rename.ts';
import type { ScanOptions } from './scan.ts';
import type { SubgroupSupport } from '../codegen/target.ts';

/** Where a reduction sits: what its realization runs inside of and waits for. */
export interface Scope {
  /** The instruction whose expression holds the reduction. */
  readonly insn: Instruction;
  /** The inames around the reduction: the instruction's, and those of the reductions enclosing it. */
  readonly within: readonly string[];
  /** The conditions the accumulation runs under (the instruction's, realized). */
  readonly guards: readonly Expr[];
  /**
   * Whether the value is wanted by every work-item (`'all'`: the instruction writes a private
   * temporary, each work-item its own copy) or by one work-item per group of those that share
   * it (`'one'`: a write to shared memory, done once; see local-tree.ts).
   */
  readonly readers: 'all' | 'one';
}

/**
 * A realized value: one expression per result, what its reader must depend on, the
 * single-lane inames it must run in (a tree's result is read from work-item 0 of its
 * axes), and the barriers it may skip (`noSyncWith` entries).
 */
export interface Realized {
  readonly values: readonly Expr[];
  readonly dependsOn: readonly string[];
  readonly lanes: readonly string[];
  readonly noSync: readonly string[];
}

export class Realization {
  readonly temporaries: Map<string, TemporaryVariable>;
  readonly domains: BasicSet[];
  readonly inameTags: Map<string, InameTag>;
  /** The instructions added for the instruction being realized, in the order they were made. */
  added: Instruction[] = [];
  private readonly taken: Set<string>;
  private readonly inames: Set<string>;
  /** Per local axis, the iname that pins an instruction to work-item 0 of that axis. */
  private readonly laneZero = new Map<number, string>();

  constructor(
    readonly knl: LoopKernel,
    /** Which reductions become scans (scan.ts). */
    readonly scanOptions: ScanOptions = {},
    /** The target's subgroup functions, where code is generated for a target (subgroup-tree.ts). */
    readonly subgroups?: SubgroupSupport,
  ) {
    this.temporaries = new Map(knl.temporaries);
    this.domains = [...knl.domains];
    this.inameTags = new Map(knl.inameTags);
    this.inames = new Set(knl.inames);
    this.taken = new Set([
      ...knl.inames,
      ...knl.args.map((a) => a.name),
      ...knl.temporaries.keys(),
      ...knl.instructions.map((i) => i.id),
    ]);
  }

  /** A fresh name based on `base`, reserved. */
  name(base: string): string {
    const n = uniqueName(base, this.taken);
    this.taken.add(n);
    return n;
  }

  /** The dtype of a name in the kernel being realized (inames are int32). */
  readonly typeOf = (name: string): DType | undefined =>
    this.inames.has(name) ? INDEX_DTYPE : (this.knl.arg(name)?.dtype ?? this.temporaries.get(name)?.dtype);

  temporary(base: string, dtype: DType, shape: readonly number[], addressSpace: AddressSpace): string {
    const name = this.name(base);
    this.temporaries.set(name, { name, dtype, shape: shape.map((s) => int(s)), addressSpace });
    return name;
  }

  /**
   * New inames `names` (fresh, from these bases) with the domain `constraints` says, in terms of
   * their names, tagged as `tags` says.
   */
  newInames(
    bases: readonly string[],
    constraints: (names: readonly string[]) => string,
    tags: readonly (InameTag | undefined)[],
  ): string[] {
    const names = bases.map((b) => this.name(b));
    this.domains.push(BasicSet.parse(`{ [${names.join(', ')}]: ${constraints(names)} }`));
    names.forEach((n, k) => {
      this.inames.add(n);
      const tag = tags[k];
      if (tag) this.inameTags.set(n, tag);
    });
    return names;
  }

  /** The iname with the one value 0 on local axis `axis`: what runs in it runs on work-item 0 of the axis. */
  laneZeroOf(axis: number): string {
    let name = this.laneZero.get(axis);
    if (name === undefined) {
      [name] = this.newInames([`red_lane_l${axis}`], ([n]) => `${n} = 0`, [{ kind: 'local', axis }]);
      this.laneZero.set(axis, name);
    }
    return name;
  }

  /** The constant range of an iname (over everything around it): its first value and how many there are. */
  range(iname: string, why: string): { lo: number; size: number } {
    const term = [{ set: domainOf(this.knl, [iname]), expr: Linear.variable(iname) }];
    const fail = (range: string) =>
      new LoomError(
        `'${iname}' runs ${range}, but ${why} needs a constant range (fix the parameters or split '${iname}')`,
      );
    let lo, hi;
    try {
      lo = staticMin(term, this.knl.assumptions);
      hi = staticMax(term, this.knl.assumptions);
    } catch (e) {
      if (e instanceof LoomError) throw fail('over no range known before the kernel runs');
      throw e;
    }
    if (!lo.isConstant || !hi.isConstant) throw fail(`from ${lo.toString()} to ${hi.toString()}`);
    return { lo: lo.constant, size: Math.max(0, hi.constant - lo.constant + 1) };
  }

  /**
   * Whether the reduction inames of `axes` take every value of their ranges wherever the
   * inames `within` are (a box, not a triangle nor a slice that depends on them).
   */
  coversAxes(
    within: readonly string[],
    axes: readonly { readonly iname: string; readonly lo: number; readonly size: number }[],
  ): boolean {
    const reduced = axes.map((a) => a.iname);
    const domain = domainOf(this.knl, [...within, ...reduced]);
    if (domain.existentials.length > 0) return false;
    // the inames around, alone: a domain that also introduces reduced inames brings them along
    let around = domainOf(this.knl, within);
    const others = around.dims.filter((d) => !within.includes(d));
    if (others.length > 0) around = around.project(others);
    // a projection that stays inexact keeps them as existentials: not known to be a box then
    if (reduced.some((n) => around.existentials.includes(n) || around.dims.includes(n))) return false;
    const box = around.addDims(reduced).addConstraints(
      axes.flatMap((a) => [
        { kind: 'ge' as const, expr: Linear.variable(a.iname).sub(a.lo) },
        { kind: 'ge' as const, expr: Linear.constant(a.lo + a.size - 1).sub(Linear.variable(a.iname)) },
      ]),
    );
    return domain.constraints.every((c) => box.implies(c));
  }

  /**
   * Whether the work-group is `iname`'s values alone: every local iname is on axis 0 and spans
   * no more values (a constant range), so that the linear local id is `iname`'s.
   */
  workGroupIsOnly(iname: string, size: number): boolean {
    for (const tag of this.inameTags.values()) if (tag.kind === 'local' && tag.axis !== 0) return false;
    return this.workGroupRowsAre(iname, size);
  }

  /**
   * Whether the work-group's axis 0 is `iname`'s `size` values, whatever its other axes: every
   * local iname on axis 0 spans no more values (a constant range), so that each run of `size`
   * consecutive local ids is one row of the other axes' values.
   */
  workGroupRowsAre(iname: string, size: number): boolean {
    for (const [other, tag] of this.inameTags) {
      if (tag.kind !== 'local' || tag.axis !== 0 || other === iname || !this.inames.has(other)) continue;
      try {
        if (this.range(other, 'a subgroup reduction').size > size) return false;
      } catch (e) {
        if (e instanceof LoomError) return false;
        throw e;
      }
    }
    return true;
  }

  /** The global barriers `insn` waits for: what an accumulator of it is initialized after. */
  globalBarriersBefore(insn: Instruction): string[] {
    return insn.dependsOn.filter((id) => {
      const d = this.knl.instructions.find((i) => i.id === id);
      return d?.kind === 'barrier' && d.barrierScope === 'global';
    });
  }

  /** The local axis an iname is tagged with, if any. */
  localAxis(iname: string): number | undefined {
    const tag = this.inameTags.get(iname);
    return tag?.kind === 'local' ? tag.axis : undefined;
  }

  /** Adds an instruction made for the one being realized; `scope.insn` lends it what is not given. */
  add(
    scope: Scope,
    fields: Pick<Instruction, 'id' | 'assignees' | 'expression' | 'withinInames' | 'dependsOn'> & Partial<Instruction>,
  ): string {
    this.added.push({
      ...scope.insn,
      // an accumulator's assignments, whatever the instruction they serve (a call statement too)
      kind: 'assign',
      noSyncWith: [],
      tags: [],
      groups: [],
      conflictsWithGroups: [],
      atomic: false,
      predicates: [],
      ...fields,
    });
    return fields.id;
  }

  /** The kernel with everything added (the instructions are the caller's). */
  kernel(instructions: readonly Instruction[]): LoopKernel {
    return this.knl.with({
      instructions,
      temporaries: this.temporaries,
      domains: this.domains,
      inameTags: this.inameTags,
    });
  }
}
