/**
 * Access footprints (loopy's `gather_access_footprints`): which elements of each array a
 * kernel reads and writes, as sets of indices over the parameters, and how many bytes
 * that is (`gatherAccessFootprintBytes`): an element read twice counts once.
 *
 * The footprint of one access is the image of its instruction's loop domain under its
 * index; an array's footprint is the union over its accesses, counted by
 * inclusion–exclusion. An index that is not affine has no footprint: a LoomError, unless
 * `ignoreUncountable` leaves such accesses out.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { byteSize } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { toLinear } from '../expr/affine.ts';
import { printExpr } from '../expr/index.ts';
import type { Expr, Subscript } from '../expr/nodes.ts';
import { walk } from '../expr/visit.ts';
import { preprocess } from '../preprocess/pipeline.ts';
import { domainOf } from '../kernel/domains.ts';
import type { LoopKernel } from '../kernel/model.ts';
import type { BasicSet } from '../sets/basic-set.ts';
import { card } from '../sets/card.ts';
import { eq } from '../sets/constraint.ts';
import { Linear } from '../linear.ts';
import { PwQPolynomial } from '../sets/pw-qpolynomial.ts';
import { GuardedPwQPolynomial } from './guarded.ts';
import { countedInstructions } from './kernel-view.ts';
import { soleAssignee } from '../kernel/accesses.ts';

/** The options gatherAccessFootprints reads; any other key is an error. */
const FOOTPRINT_OPTIONS = optionKeys<FootprintOptions>()(['ignoreUncountable']);

/** Reads or writes. */
export type FootprintDirection = 'read' | 'write';

/** Options of `gatherAccessFootprints`. */
export interface FootprintOptions {
  /** Leave out accesses whose index is not affine instead of failing. */
  readonly ignoreUncountable?: boolean;
}

/** The elements of one array read (or written): the union of `sets`, over the array's index variables. */
export class AccessFootprint {
  constructor(
    /** The array. */
    readonly variable: string,
    /** Whether these are its reads or its writes. */
    readonly direction: FootprintDirection,
    /** Sets of indices over the parameters, one per distinct access; the footprint is their union. */
    readonly sets: readonly BasicSet[],
    private readonly params: readonly string[],
  ) {
    Object.freeze(this);
  }

  /** The number of distinct elements, in the parameters. */
  count(): PwQPolynomial {
    let total = PwQPolynomial.zero(this.params);
    // inclusion–exclusion over the accesses' sets
    const n = this.sets.length;
    for (let mask = 1; mask < 1 << n; mask++) {
      const chosen = this.sets.filter((_, k) => mask & (1 << k));
      const common = chosen.slice(1).reduce((a, b) => a.intersect(b), chosen[0]!);
      const term = card(common, this.params);
      total = total.add(chosen.length % 2 === 1 ? term : term.scale(-1));
    }
    return total;
  }

  /** isl's notation for a union: the sets joined by `∪`. */
  toString(): string {
    return this.sets.map(String).join(' ∪ ');
  }
}

/** Footprints by array and direction. */
export class AccessFootprints {
  constructor(private readonly byKey: ReadonlyMap<string, AccessFootprint>) {
    Object.freeze(this);
  }

  /** The footprint of `variable`'s reads or writes; a LoomError naming the footprints there are when it has none. */
  get(variable: string, direction: FootprintDirection): AccessFootprint {
    const found = this.byKey.get(`${variable}:${direction}`);
    if (!found)
      throw new LoomError(
        `no ${direction} footprint of '${variable}' (there are: ${[...this.byKey.keys()].join(', ') || 'none'})`,
      );
    return found;
  }

  /** Whether `variable` has a footprint in that direction (it is read, or written, at an affine index). */
  has(variable: string, direction: FootprintDirection): boolean {
    return this.byKey.has(`${variable}:${direction}`);
  }

  /** Every footprint, one per array and direction. */
  values(): AccessFootprint[] {
    return [...this.byKey.values()];
  }
}

/** The elements of each array a kernel reads and writes (loopy's `gather_access_footprints`). */
export function gatherAccessFootprints(knl: LoopKernel, options: FootprintOptions = {}): AccessFootprints {
  checkOptionKeys('gatherAccessFootprints', options, FOOTPRINT_OPTIONS);
  return footprintsOf(preprocess(knl), options);
}

/** The footprints of the preprocessed kernel's accesses. */
export function footprintsOf(prepared: LoopKernel, options: FootprintOptions): AccessFootprints {
  const inames = new Set(prepared.inames);
  const params = [...new Set(prepared.domains.flatMap((d) => d.params).filter((p) => !inames.has(p)))].sort();
  const sets = new Map<string, { variable: string; direction: FootprintDirection; sets: Map<string, BasicSet> }>();
  for (const insn of countedInstructions(prepared, undefined)) {
    const domain = domainOf(prepared, insn.withinInames, false, false);
    const gather = (root: Expr, direction: FootprintDirection) =>
      walk(root, (x) => {
        if (x.kind !== 'subscript') return;
        const set = footprintOf(x, domain, params, options);
        if (!set) return;
        const key = `${x.array}:${direction}`;
        if (!sets.has(key)) sets.set(key, { variable: x.array, direction, sets: new Map() });
        sets.get(key)!.sets.set(set.toString(), set);
      });
    gather(soleAssignee(insn), 'write');
    gather(insn.expression!, 'read');
  }
  return new AccessFootprints(
    new Map([...sets].map(([k, v]) => [k, new AccessFootprint(v.variable, v.direction, [...v.sets.values()], params)])),
  );
}

/** Bytes read and written per array: the footprints' sizes times the element size. */
export function gatherAccessFootprintBytes(
  knl: LoopKernel,
  options: FootprintOptions = {},
): Map<string, GuardedPwQPolynomial> {
  checkOptionKeys('gatherAccessFootprintBytes', options, FOOTPRINT_OPTIONS);
  const prepared = preprocess(knl);
  const out = new Map<string, GuardedPwQPolynomial>();
  for (const fp of footprintsOf(prepared, options).values()) {
    const dtype = prepared.arg(fp.variable)?.dtype ?? prepared.temporaries.get(fp.variable)?.dtype;
    if (dtype === undefined) throw new LoomError(`the dtype of '${fp.variable}' is not known`);
    out.set(
      `${fp.variable}:${fp.direction}`,
      new GuardedPwQPolynomial(fp.count().scale(byteSize(dtype)), prepared.assumptions),
    );
  }
  return out;
}

/** The indices `x` touches over `domain`, or undefined when told to ignore a non-affine one. */
function footprintOf(
  x: Subscript,
  domain: BasicSet,
  params: readonly string[],
  options: FootprintOptions,
): BasicSet | undefined {
  const forms = x.indices.map(toLinear);
  const bad = x.indices.find(
    (_, k) =>
      forms[k] === undefined || forms[k]!.variables.some((v) => !domain.dims.includes(v) && !params.includes(v)),
  );
  if (bad !== undefined) {
    if (options.ignoreUncountable) return undefined;
    throw new LoomError(
      `failed to gather the footprint of ${printExpr(x)}: its index ${printExpr(bad)} is not affine in the loop indices and parameters`,
    );
  }
  const dims = x.indices.map((_, k) => indexName(x.array, k, [...params, ...domain.dims]));
  const constraints = forms.map((f, k) => eq(Linear.variable(dims[k]!).sub(f!)));
  return domain.addDims(dims).addConstraints(constraints).project(domain.dims);
}

/** `a_dim_0`, or with more underscores when a parameter or loop index already has that name. */
function indexName(array: string, k: number, taken: readonly string[]): string {
  let name = `${array}_dim_${k}`;
  while (taken.includes(name)) name = `_${name}`;
  return name;
}
