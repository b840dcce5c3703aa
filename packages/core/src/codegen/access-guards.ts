/**
 * Memory safety by construction: no generated access ever leaves its array.
 *
 * Most accesses are proven in bounds before any code runs. An affine index of an
 * argument (`a[i + 1]`, `b[n*i + j]`) is checked exactly against the shapes given to
 * `run`, with emptiness tests on the integer sets (runtime/bounds-check.ts), so it
 * needs nothing in the generated code: that is the hot path, and it stays bare.
 * So is an affine index of a constant table (a temporary with an initializer). Other
 * temporaries have no such check before launch; their affine indices are proven here
 * instead, symbolically, over the instruction's domain and the kernel's assumptions. So are
 * quasi-affine indices of any array (floor divisions and remainders by constants among the
 * terms, `(j // 4) * 16 + j % 4`: a variable per division, quasi-affine.ts), where a product
 * of two loop indices may stand as one unknown in its range (`(k * m) % 729`, index-range.ts).
 *
 * Every other access gets a guard in the generated code, on every target:
 *
 *   - an index read from data (`a[idx[i]]`, `out[t]` with `t = idx[i]`), or affine in
 *     a temporary, or in loops whose bounds are read from data;
 *   - an affine index of a temporary that the sets cannot prove in bounds.
 *
 * Each axis is guarded against its own extent: `a[r, c]` with a bad row `r` may land
 * inside the flat buffer, in another row, and is still out of bounds. With every axis
 * in range the flat offset is in range too, because `run` refuses buffers smaller than
 * the layout's largest offset (strided and padded layouts included; arguments.ts).
 *
 * The semantics (README, "The language"): a write out of bounds is dropped (an `if`
 * around it), a read out of bounds gives 0 of the array's dtype (`if(inBounds, a[k], 0)`:
 * C's and JS's `?:` evaluate only the side taken; WGSL's `select` evaluates both, but
 * WGSL's own accesses are clamped into the buffer, so that read is harmless and unused). With `checkBounds`, each guard
 * that fails also records itself in a small flag buffer, which `run` reads after the
 * launch and turns into a LoomError naming the array, the instruction and the index.
 */
import { InternalError } from '../errors.ts';
import {
  call,
  cast,
  compare,
  ifThenElse,
  int,
  logical,
  not,
  subscript,
  type Expr,
  type Subscript,
} from '../expr/nodes.ts';
import { exprEquals, mapChildren, printExpr, toLinear } from '../expr/index.ts';
import type { Linear } from '../linear.ts';
import { domainOf } from '../kernel/domains.ts';
import { atomicFetchOf, soleAssignee } from '../kernel/accesses.ts';
import type { Instruction, LoopKernel } from '../kernel/model.ts';
import type { DType } from '../dtypes.ts';
import type { Stmt } from './ast.ts';
import { tableShape } from '../kernel/tables.ts';
import { floorConstraints, productConstraints, quasiAffine } from './quasi-affine.ts';
import type { Interval } from './index-range.ts';

/** One guarded access along one axis, as `run` reports it when the guard fails. */
export interface BoundsSite {
  /** The array accessed. */
  readonly array: string;
  /** The id of the instruction that accesses it. */
  readonly instruction: string;
  /** Whether the access writes (else it reads). */
  readonly isWrite: boolean;
  /** The axis whose index is guarded. */
  readonly axis: number;
  /** The index as written in the kernel (`idx[i]`, `t`). */
  readonly index: string;
  /** The extent of that axis, as in the shape (`n`, `8`). */
  readonly extent: Expr;
  /** The array's number of axes. */
  readonly rank: number;
}

/**
 * The flag buffer of a program compiled with bounds checking: an int32 array of two
 * slots per site, [failed, index]. A failing guard stores 1 and the index it saw.
 * Work-items racing on one site all store a genuine violation of that site, so
 * whichever value lands is a true report; no atomics are needed.
 */
export interface BoundsChecks {
  /** The name of the flag buffer's kernel parameter. */
  readonly flags: string;
  /** The guarded accesses, in the order of their slots. */
  readonly sites: readonly BoundsSite[];
}

/** A guard that, when checking, reports its failures: `if (path && !inBounds) record`. */
interface Check {
  readonly site: number;
  readonly inBounds: Expr;
  /** The index as generated, recorded when the guard fails. */
  readonly index: Expr;
  /** Conditions under which the access is evaluated at all (`if(c, a[k], 0)`: c). */
  readonly path: readonly Expr[];
}

/** An instruction's target and value with guards in place. */
export interface GuardedInstruction {
  /** Absent for a `user-call`, which writes nothing (its `value` is the call). */
  readonly target: Expr | undefined;
  /** The assignee's indices as the code reads them (none for a variable or a call). */
  readonly targetIndices: readonly Expr[];
  readonly value: Expr;
  readonly predicates: readonly Expr[];
  /** The write happens only where all of these hold (the target's unproven axes). */
  readonly writeConditions: readonly Expr[];
  /** Reports for the predicates' reads (evaluated before the predicates decide anything). */
  readonly predicateReports: readonly Stmt[];
  /** Reports for the target's and the value's accesses (evaluated where the predicates hold). */
  readonly reports: readonly Stmt[];
}

export class AccessGuards {
  /** Numbered across all the device kernels of a program: they share one flag buffer. */
  private readonly sites: BoundsSite[] = [];
  private readonly flags: string | undefined;
  private readonly inames: ReadonlySet<string>;

  /**
   * `flatten` turns `a[i, j]` into the one-index access the targets spell; `types`
   * gives every array's dtype (for the 0 an out-of-bounds read gives).
   */
  constructor(
    private readonly knl: LoopKernel,
    private readonly flatten: (e: Expr) => Expr,
    private readonly types: ReadonlyMap<string, DType>,
    checkBounds: boolean,
  ) {
    this.flags = checkBounds ? freshName(knl, 'loom_bounds') : undefined;
    this.inames = new Set(knl.inames);
  }

  /** The flag buffer and its sites, when checking and some access needed a guard. */
  get checks(): BoundsChecks | undefined {
    return this.flags && this.sites.length ? { flags: this.flags, sites: this.sites } : undefined;
  }

  /** The flag buffer's name when checking bounds (an int32 array). */
  get flagsName(): string | undefined {
    return this.flags;
  }

  /** How many sites are numbered so far (a kernel that adds some needs the flag buffer). */
  get siteCount(): number {
    return this.sites.length;
  }

  /** The predicates of an instruction that evaluates nothing else (a fence), flattened, with the reports of their reads. */
  predicates(insn: Instruction): { readonly predicates: readonly Expr[]; readonly reports: readonly Stmt[] } {
    const checks: Check[] = [];
    const predicates = insn.predicates.map((p) => this.reads(insn, p, [], checks));
    return { predicates, reports: checks.map((c) => this.report(c, insn)) };
  }

  instruction(insn: Instruction): GuardedInstruction {
    const predicateChecks: Check[] = [];
    const predicates = insn.predicates.map((p) => this.reads(insn, p, [], predicateChecks));
    const checks: Check[] = [];
    const assignee = insn.kind === 'user-call' ? undefined : soleAssignee(insn);
    let target: Expr | undefined;
    let indices: Expr[] = [];
    const writeConditions: Expr[] = [];
    if (assignee?.kind === 'subscript') {
      indices = assignee.indices.map((x) => this.reads(insn, x, [], checks));
      target = this.flatten(subscript(assignee.array, indices, false, undefined, assignee.field));
      for (const axis of this.unprovenAxes(insn, assignee)) {
        const inBounds = this.inBounds(assignee, axis, indices[axis]);
        writeConditions.push(inBounds);
        this.note(checks, insn, assignee, axis, true, inBounds, indices[axis], []);
      }
    } else if (assignee) target = this.flatten(assignee);
    // `out[t] = out[t] + x`: the read is as safe as the write it shares a guard with
    const value =
      this.atomicFetch(insn, checks, writeConditions) ??
      this.reads(insn, insn.expression!, [], checks, assignee?.kind === 'subscript' ? assignee : undefined);
    return {
      target,
      targetIndices: indices,
      value,
      predicates,
      writeConditions,
      predicateReports: predicateChecks.map((c) => this.report(c, insn)),
      reports: checks.map((c) => this.report(c, insn)),
    };
  }

  /**
   * An atomic fetch's value (`atomicAdd(counter[k], 1)`): its element is written as an assignee
   * is, so it stays an element (no `if(inBounds, counter[k], 0)` for a printer to take the
   * address of) and an index not proven in bounds guards the whole statement (`writeConditions`).
   * Undefined for any other instruction.
   */
  private atomicFetch(insn: Instruction, checks: Check[], writeConditions: Expr[]): Expr | undefined {
    const fetch = atomicFetchOf(insn);
    if (!fetch) return undefined;
    const { call: e, element } = fetch;
    const indices = element.indices.map((x) => this.reads(insn, x, [], checks));
    for (const axis of this.unprovenAxes(insn, element)) {
      const inBounds = this.inBounds(element, axis, indices[axis]);
      writeConditions.push(inBounds);
      this.note(checks, insn, element, axis, true, inBounds, indices[axis], []);
    }
    const flat = this.flatten(subscript(element.array, indices));
    return call(e.fn, [flat, ...e.args.slice(1).map((x) => this.reads(insn, x, [], checks))]);
  }

  /**
   * `e` flattened, with every unproven read `a[k]` turned into `if(inBounds, a[k], 0)`.
   * `path`: the conditions that decide whether `e` is evaluated at all (C, JS and
   * WGSL evaluate `c ? x : y`'s and `a && b`'s operands only as needed), so that a
   * read the user already guards (`if(k < n, a[k], 0)`) reports nothing.
   */
  private reads(insn: Instruction, e: Expr, path: readonly Expr[], checks: Check[], shared?: Subscript): Expr {
    // (this.reads called directly, not through a closure: it runs for every node of every instruction)
    switch (e.kind) {
      case 'subscript': {
        const indices = e.indices.map((x) => this.reads(insn, x, path, checks, shared));
        const flat = this.flatten(subscript(e.array, indices, false, undefined, e.field));
        if (shared && exprEquals(e, shared)) return flat;
        const axes = this.unprovenAxes(insn, e);
        if (axes.length === 0) return flat;
        const conditions = axes.map((axis) => {
          const inBounds = this.inBounds(e, axis, indices[axis]);
          this.note(checks, insn, e, axis, false, inBounds, indices[axis], path);
          return inBounds;
        });
        return ifThenElse(
          conditions.reduce((a, b) => logical('and', a, b)),
          flat,
          cast(this.types.get(e.array)!, int(0)),
        );
      }
      case 'var':
        return this.flatten(e);
      case 'if': {
        const condition = this.reads(insn, e.condition, path, checks, shared);
        return ifThenElse(
          condition,
          this.reads(insn, e.then, [...path, condition], checks, shared),
          this.reads(insn, e.otherwise, [...path, not(condition)], checks, shared),
        );
      }
      case 'logical': {
        const left = this.reads(insn, e.left, path, checks, shared);
        return logical(
          e.op,
          left,
          this.reads(insn, e.right, [...path, e.op === 'and' ? left : not(left)], checks, shared),
        );
      }
      case 'reduce':
        throw new InternalError('a reduction survived realization');
      default:
        return mapChildren(e, (x) => this.reads(insn, x, path, checks, shared));
    }
  }

  /** The axes of `access` whose index is not proven in bounds. */
  private unprovenAxes(insn: Instruction, access: Subscript): number[] {
    const shape = this.shapeOf(access.array);
    if (!shape) return [];
    return access.indices.flatMap((index, axis) => (this.proven(insn, access.array, shape[axis], index) ? [] : [axis]));
  }

  private proven(insn: Instruction, array: string, extent: Expr, index: Expr): boolean {
    // Python's `e % c` is always in [0, c): in bounds when c fits the axis
    if (index.kind === 'binary' && index.op === '%' && index.right.kind === 'int' && index.right.value > 0) {
      if (extent.kind === 'int' && index.right.value <= extent.value) return true;
    }
    // `e // c` lies in [0, extent) exactly when e lies in [0, c*extent): what splitArrayAxis
    // leaves (`b[k, j // 4, j % 4]`), proven over the domain (the check before launch sees affine indices only)
    if (index.kind === 'binary' && index.op === '//' && index.right.kind === 'int' && index.right.value > 0) {
      const numerator = this.affineInLoops(insn, index.left);
      const size = toLinear(extent);
      if (numerator && size) return provenSymbolically(numerator.domain, numerator.lin, size.scale(index.right.value));
      return this.provenQuasiAffine(insn, extent, index);
    }
    const affine = this.affineInLoops(insn, index);
    if (!affine) return this.provenQuasiAffine(insn, extent, index);
    const { lin, domain } = affine;
    // loop bounds read from data (loopy's data-dependent domains) escape the check before launch
    const dataDependent = domain.params.some((p) => this.knl.temporaries.has(p));
    // arguments and constant tables: checked before launch, exactly (runtime/bounds-check.ts)
    if ((this.knl.arg(array) || tableShape(this.knl, array)) && !dataDependent) return true;
    const size = toLinear(extent);
    return size !== undefined && provenSymbolically(domain, lin, size);
  }

  /**
   * An index with floor divisions and remainders by constants among its terms (`(j // 4) * 16 +
   * j % 4`), proven in bounds over the domain with a variable for each division (quasi-affine.ts);
   * the check before launch sees affine indices only, so this holds for arguments too.
   */
  private provenQuasiAffine(insn: Instruction, extent: Expr, index: Expr): boolean {
    const domain = domainOf(this.knl, insn.withinInames);
    const quasi = quasiAffine(index, '_loom_floor', (v) => (this.isIname(v) ? constantRange(domain, v) : undefined));
    if (!quasi || quasi.floors.length + quasi.products.length === 0) return false;
    const names = new Set([...quasi.floors, ...quasi.products].map((f) => f.name));
    const used = [...quasi.lin.variables, ...quasi.floors.flatMap((f) => f.numerator.variables)].filter(
      (v) => !names.has(v),
    );
    if (used.some((v) => !this.isIname(v) && this.knl.arg(v)?.kind !== 'value')) return false;
    if (used.some((v) => this.isIname(v) && !domain.dims.includes(v))) return false;
    if (domain.params.some((p) => this.knl.temporaries.has(p))) return false;
    const size = toLinear(extent);
    if (!size) return false;
    const withFloors = domain
      .addParams([...names])
      .addConstraints([...floorConstraints(quasi.floors), ...productConstraints(quasi.products)]);
    return provenSymbolically(withFloors, quasi.lin, size);
  }

  /** `index` as an affine function of the instruction's loop indices and the parameters, with their domain. */
  private affineInLoops(
    insn: Instruction,
    index: Expr,
  ): { lin: Linear; domain: ReturnType<typeof domainOf> } | undefined {
    const lin = toLinear(index);
    // affine in loop indices and parameters only: a temporary (`t = idx[i]`) is data
    if (!lin || lin.variables.some((v) => !this.isIname(v) && this.knl.arg(v)?.kind !== 'value')) return undefined;
    const domain = domainOf(this.knl, insn.withinInames);
    if (lin.variables.some((v) => this.isIname(v) && !domain.dims.includes(v))) return undefined;
    return { lin, domain };
  }

  private isIname(name: string): boolean {
    return this.inames.has(name);
  }

  private shapeOf(array: string): readonly Expr[] | undefined {
    return this.knl.arg(array)?.shape ?? this.knl.temporaries.get(array)?.shape;
  }

  /** `0 <= index && index < extent`, with the index as generated. */
  private inBounds(access: Subscript, axis: number, index: Expr): Expr {
    return logical('and', compare('<=', int(0), index), compare('<', index, this.shapeOf(access.array)![axis]));
  }

  private note(
    checks: Check[],
    insn: Instruction,
    access: Subscript,
    axis: number,
    isWrite: boolean,
    inBounds: Expr,
    index: Expr,
    path: readonly Expr[],
  ): void {
    if (!this.flags) return;
    this.sites.push({
      array: access.array,
      instruction: insn.id,
      isWrite,
      axis,
      index: printExpr(access.indices[axis]),
      extent: this.shapeOf(access.array)![axis],
      rank: access.indices.length,
    });
    checks.push({ site: this.sites.length - 1, inBounds, index, path });
  }

  /** `if (path && !inBounds) { flags[2s] = 1; flags[2s + 1] = index; }` */
  private report(check: Check, insn: Instruction): Stmt {
    const flags = this.flags!;
    const store = (slot: number, value: Expr): Stmt => ({
      kind: 'assign',
      target: subscript(flags, [int(slot)]),
      value,
      dtype: 'int32',
      atomic: false,
      insnId: insn.id,
    });
    const failed = [...check.path, not(check.inBounds)].reduce((a, b) => logical('and', a, b));
    return {
      kind: 'if',
      condition: failed,
      then: {
        kind: 'block',
        body: [store(2 * check.site, int(1)), store(2 * check.site + 1, cast('int32', check.index))],
      },
    };
  }
}

/**
 * For every parameter value the instruction's domain (assumptions included) allows:
 * `0 <= index < size`. Both sides are emptiness tests, as before a launch.
 */
function provenSymbolically(domain: ReturnType<typeof domainOf>, index: Linear, size: Linear): boolean {
  const known = new Set([...domain.dims, ...domain.params]);
  const missing = [...new Set([...index.variables, ...size.variables])].filter((v) => !known.has(v));
  const set = missing.length ? domain.addParams(missing) : domain;
  const below = set.addConstraints([{ kind: 'ge', expr: index.negate().sub(1) }]);
  const beyond = set.addConstraints([{ kind: 'ge', expr: index.sub(size) }]);
  return below.isEmpty() && beyond.isEmpty();
}

/** The constant bounds of loop index `v` over `domain`, or undefined where one depends on a parameter. */
function constantRange(domain: ReturnType<typeof domainOf>, v: string): Interval | undefined {
  const constants = (bounds: readonly { expr: Linear; divisor: number }[], round: (x: number) => number) =>
    bounds.filter((b) => b.expr.isConstant).map((b) => round(b.expr.constant / b.divisor));
  const lows = constants(domain.lowerBounds(v, []), Math.ceil);
  const highs = constants(domain.upperBounds(v, []), Math.floor);
  return lows.length && highs.length ? { low: Math.max(...lows), high: Math.min(...highs) } : undefined;
}

/** `base`, or `base_1`, ... : a name no argument, temporary or iname of the kernel has. */
function freshName(knl: LoopKernel, base: string): string {
  const taken = (n: string) => knl.arg(n) !== undefined || knl.temporaries.has(n) || knl.inames.includes(n);
  let name = base;
  for (let k = 1; taken(name); k++) name = `${base}_${k}`;
  return name;
}
