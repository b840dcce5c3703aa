/**
 * Schedule → statements for one device kernel: loops with bounds from the domain,
 * unrolled copies, slabs, guards for what loop bounds and the hardware grid do not
 * already ensure, and flat array indices.
 */
import { byteSize, type DType } from '../dtypes.ts';
import { swizzleIndex } from './swizzle.ts';
import {
  declaredLength,
  initializerLayout,
  swizzleSpan,
  vectorWidthOf,
  type RuntimeSizedArrays,
} from './temporary-storage.ts';
import { InternalError, LoomError } from '../errors.ts';
import { binary, int, logical, subscript, type Expr } from '../expr/nodes.ts';
import { exprEquals, simplifier, someExpr, substitute } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { staticMax, staticMin, type BasicSet, type Bound } from '../sets/index.ts';
import { domainOf, parentInames } from '../kernel/domains.ts';
import { nameWritten, namesRead, namesWritten } from '../kernel/accesses.ts';
import { ilpRange, isLaneIname } from '../preprocess/privatize-ilp.ts';
import type { Instruction, LoopKernel, TemporaryVariable } from '../kernel/model.ts';
import { stridesOf } from '../kernel/strides.ts';
import { INDEX_DTYPE } from '../kernel/type-inference.ts';
import { scheduledInstructions, type ScheduleItem } from '../schedule/linearize.ts';
import { AccessGuards, type BoundsChecks, type GuardedInstruction } from './access-guards.ts';
import { block, mergeGuards, type KernelFunction, type KernelParam, type LocalArgument, type Stmt } from './ast.ts';
import { mapStmts, walkStmts } from './stmt-visit.ts';
import {
  boundConstraint,
  combineBounds,
  constraintsToCondition,
  laneUniformGuard,
  withPinnedValues,
  nonRedundant,
  withDim,
} from './conditions.ts';
import { findGrid, hardwareContext, hardwareExpr, type Grid } from './hardware.ts';
import { VECTOR_LANES, vectorizeStatements } from './vectorize.ts';
import { traced } from './trace.ts';
import { matrixStatement } from './matrix-tiles.ts';
import type { MatrixSupport } from './target.ts';

type Loop = Extract<ScheduleItem, { kind: 'loop' }>;

/**
 * Builds the program AST's device kernels (`KernelFunction`s) of one linearized kernel.
 * (Not the DSL's `KernelBuilder`, which chains transformations on a user's kernel.)
 */
export class DeviceKernelBuilder {
  private readonly types = new Map<string, DType>();
  private readonly strides = new Map<string, Expr[]>();
  /** Where each argument with an offset starts in its buffer. */
  private readonly offsets = new Map<string, Expr>();
  private readonly byId: Map<string, Instruction>;
  /** The grid of the device kernel being built (set by `build`). */
  private grid!: Grid;
  /** Guards for the accesses not proven in bounds, shared by the program's kernels. */
  private readonly guards: AccessGuards;
  /** The lanes of each array with a `vec` axis (arguments and temporaries). */
  private readonly vectorWidths = new Map<string, number>();
  /** Whether the target spells `vec` inames as vector code; else they are unrolled. */
  private readonly vectorTypes: boolean;
  /** The lane counts of the target's vector types: a `vec` loop of another length is unrolled. */
  private readonly vectorLanes: readonly number[];
  /**
   * The image arguments the target reads as images (`Target.images`): their accesses keep one
   * index per axis (the texture's coordinates). On other targets an image is a global array.
   */
  private readonly images = new Set<string>();
  /** Where the target declares arrays of a size known only at launch, and its name for the refusal. */
  private readonly runtimeSizedArrays?: RuntimeSizedArrays;
  /** The target's matrix instructions (tensor tiles), and its name for the refusal. */
  private readonly matrix?: { readonly support: MatrixSupport; readonly target: string };
  /** Whether some temporary is a tensor tile's accumulator (tensorize). */
  private readonly hasAccumulators: boolean;
  /** Local temporaries matrix instructions read or write whole. */
  private readonly matrixOperands = new Set<string>();
  /** The shape of each tensor tile accumulator, from the matrix instructions that use it. */
  private readonly fragmentShapes = new Map<
    string,
    { readonly m: number; readonly n: number; readonly k: number; readonly lanes: number }
  >();
  /**
   * `simplify` over the kernel's index names, remembering each node: the copies of an unrolled
   * loop share every sub-expression but those of the lane (an 8x8 register tile has 64).
   */
  private readonly simplifyIndices = simplifier({ isInteger: (n) => this.types.get(n) === INDEX_DTYPE });

  constructor(
    private readonly knl: LoopKernel,
    options: {
      checkBounds?: boolean;
      vectorTypes?: boolean;
      vectorLanes?: readonly number[];
      images?: boolean;
      runtimeSizedArrays?: RuntimeSizedArrays;
      matrix?: { readonly support: MatrixSupport; readonly target: string };
    } = {},
  ) {
    this.runtimeSizedArrays = options.runtimeSizedArrays;
    this.matrix = options.matrix;
    this.hasAccumulators = [...knl.temporaries.values()].some((t) => t.matrixAccumulator);
    this.vectorTypes = options.vectorTypes ?? false;
    this.vectorLanes = options.vectorLanes ?? VECTOR_LANES;
    this.byId = new Map(knl.instructions.map((i) => [i.id, i]));
    this.guards = new AccessGuards(knl, (e) => this.flatten(e), this.types, options.checkBounds ?? false);
    for (const n of knl.inames) this.types.set(n, INDEX_DTYPE);
    for (const a of knl.args) {
      this.types.set(a.name, a.dtype!);
      if (a.kind === 'image' && options.images) this.images.add(a.name);
      if (a.shape) this.strides.set(a.name, stridesOf(a.shape, a.dimTags));
      const lanes = vectorWidthOf(a.name, a.shape, a.dimTags);
      if (a.offset) {
        // a vector array's buffer is indexed in vectors on some targets and in lanes on others
        if (a.dimTags?.some((t) => t.kind === 'vec'))
          throw new LoomError(
            `argument '${a.name}' has an offset and a 'vec' axis; an array of vectors must start at its buffer's start`,
          );
        this.offsets.set(a.name, a.offset);
      }
      if (lanes && this.hasVectorType(lanes)) this.vectorWidths.set(a.name, lanes);
    }
    for (const t of knl.temporaries.values()) {
      this.types.set(t.name, t.dtype!);
      this.strides.set(t.name, stridesOf(t.shape, t.dimTags));
      const lanes = vectorWidthOf(t.name, t.shape, t.dimTags);
      if (lanes && this.hasVectorType(lanes)) this.vectorWidths.set(t.name, lanes);
    }
    if (this.guards.flagsName) this.types.set(this.guards.flagsName, 'int32');
  }

  /**
   * Whether an array with a `vec` axis of `lanes` is an array of the target's vector type: a
   * target with vector types of other lengths only (CUDA has no float8) holds it as its lanes,
   * the same memory, read lane by lane. Targets without vector types print no vector type anyway.
   */
  private hasVectorType(lanes: number): boolean {
    return !this.vectorTypes || this.vectorLanes.includes(lanes);
  }

  /** The flag buffer and its sites, once every kernel is built (when checking bounds). */
  get boundsChecks(): BoundsChecks | undefined {
    return this.guards.checks;
  }

  /**
   * One device kernel running `schedule` (the whole kernel, or a part between global
   * barriers), inside the host loops over `hostInames`, whose values it takes as arguments.
   * `statements: false` builds its parameters, grid and declarations only (its body holds
   * the declarations), a fraction of the cost: what limits and cost models read.
   */
  build(
    schedule: readonly ScheduleItem[],
    name = this.knl.name,
    hostInames: readonly string[] = [],
    { statements: withStatements = true }: { readonly statements?: boolean } = {},
  ): KernelFunction {
    const insns = scheduledInstructions(schedule).map((id) => this.byId.get(id)!);
    this.grid = findGrid(this.knl, new Set(insns.flatMap((i) => i.withinInames)));
    // statements first: the guards they need decide whether the kernel takes the flag buffer
    const sitesBefore = this.guards.siteCount;
    const hardware = hardwareContext(this.grid, this.knl.assumptions);
    // the host runs its loops within their bounds: no guard checks them again
    const enforced = hostInames.length ? hardware.intersect(domainOf(this.knl, hostInames)) : hardware;
    const statements = withStatements ? this.items(schedule, hostInames, enforced) : [];
    const flags = this.guards.siteCount > sitesBefore ? this.guards.checks!.flags : undefined;
    const written = new Set(insns.flatMap((i) => namesWritten(i)));
    const used = new Set(insns.flatMap((i) => [...namesRead(i, this.knl.substitutions), ...written]));
    // a global temporary that bounds a loop (`{[s]: start<=s<stop}`, start moved to global
    // memory) is read by the loop's bounds and guards, which name it as a variable: x[0]
    const scalarGlobals = new Map<string, Expr>();
    for (const n of new Set(insns.flatMap((i) => i.withinInames)))
      for (const p of domainOf(this.knl, [n]).params) {
        const t = this.knl.temporaries.get(p);
        if (t?.addressSpace !== 'global' || t.shape.length) continue;
        used.add(p);
        scalarGlobals.set(p, subscript(p, [int(0)]));
      }
    const globals = [...this.knl.temporaries.values()].filter((t) => t.addressSpace === 'global');
    const params: KernelParam[] = [
      ...this.knl.args
        .filter((a) => a.kind === 'value' || used.has(a.name))
        .map(
          (a): KernelParam => ({
            name: a.name,
            dtype: a.dtype!,
            // an image the target does not read as one is the global array it was made from
            kind: a.kind === 'image' ? 'global' : a.kind,
            written: written.has(a.name),
            vectorWidth: this.vectorWidths.get(a.name),
            ...(this.images.has(a.name) ? { image: { shape: a.shape! } } : {}),
            ...(a.kind !== 'image' && a.forAtomic ? { forAtomic: true } : {}),
            ...(a.struct ? { struct: a.struct } : {}),
          }),
        ),
      ...hostInames.map((n) => ({
        name: n,
        dtype: INDEX_DTYPE,
        kind: 'value' as const,
        written: false,
        hostLoop: true,
      })),
      ...globals
        .filter((t) => used.has(t.name))
        .map((t) => ({
          name: t.name,
          dtype: t.dtype!,
          kind: 'global' as const,
          written: written.has(t.name),
          temporaryShape: t.shape,
          vectorWidth: this.vectorWidths.get(t.name),
          ...(t.forAtomic ? { forAtomic: true } : {}),
          ...(t.initializer
            ? { temporaryInitializer: initializerLayout(t.name, t.initializer, t.shape, this.strides.get(t.name)!) }
            : {}),
        })),
      ...(flags ? [{ name: flags, dtype: 'int32' as const, kind: 'global' as const, written: true }] : []),
    ];
    const locals = [...this.knl.temporaries.values()].filter((t) => t.addressSpace !== 'global' && used.has(t.name));
    const declarations: Stmt[] = locals.map((t) => ({
      kind: 'declare',
      name: t.name,
      dtype: t.dtype!,
      addressSpace: t.addressSpace === 'auto' ? 'private' : t.addressSpace,
      length: t.shape.length ? this.lengthOf(t) : undefined,
      vectorWidth: this.vectorWidths.get(t.name),
      ...(t.initializer
        ? { initializer: initializerLayout(t.name, t.initializer, t.shape, this.strides.get(t.name)!) }
        : {}),
      ...(t.forAtomic ? { forAtomic: true } : {}),
      ...(this.fragmentShapes.has(t.name) ? { matrix: this.fragmentShapes.get(t.name) } : {}),
      ...(this.matrixOperands.has(t.name) ? { matrixOperand: true } : {}),
      ...(t.swizzle ? { swizzle: swizzleSpan(t, t.shape.length ? this.lengthOf(t) : 1) } : {}),
    }));
    // local arrays sized at launch that the target takes as launch arguments (OpenCL's __local T *,
    // CUDA's dynamic shared memory, WGSL's override-sized arrays): no declaration in the body
    const asArguments = (s: Stmt): s is Stmt & { kind: 'declare'; length: Expr } =>
      this.runtimeSizedArrays?.localArguments === true &&
      s.kind === 'declare' &&
      s.addressSpace === 'local' &&
      s.length !== undefined &&
      typeof s.length !== 'number';
    const localArguments = declarations
      .filter(asArguments)
      .map((d): LocalArgument => ({ name: d.name, dtype: d.dtype, length: d.length }));
    const ids = new Map<string, Expr>([
      ...[...this.grid.inames].map(([n, h]) => [n, hardwareExpr(h)] as const),
      ...scalarGlobals,
    ]);
    const substituted = [...declarations.filter((s) => !asArguments(s)), ...statements].map((s) =>
      mapStmts(s, { expr: (e) => (ids.size ? substitute(e, ids) : e) }),
    );
    const body = mergeGuards(substituted, exprEquals);
    return {
      name,
      params,
      body: { kind: 'block', body },
      localSize: this.grid.localSize,
      groupCount: this.grid.groupCount,
      types: this.types,
      ...(localArguments.length ? { localArguments } : {}),
    };
  }

  /** `enforced`: the parameter, loop and hardware values the enclosing code already guarantees. */
  private items(items: readonly ScheduleItem[], loops: readonly string[], enforced: BasicSet): Stmt[] {
    return items.flatMap((item): Stmt[] => {
      if (item.kind === 'insn') return this.instruction(this.byId.get(item.id)!, enforced);
      if (item.kind === 'barrier') return [{ kind: 'barrier', scope: item.scope, comment: item.comment }];
      return this.loop(item, loops, enforced);
    });
  }

  private loop(item: Loop, outer: readonly string[], enforced: BasicSet): Stmt[] {
    const tag = this.knl.inameTags.get(item.iname);
    if (tag?.kind === 'unroll' || (tag?.kind === 'ilp' && tag.unrolled)) return this.unrolled(item, outer, enforced);
    const iname = item.iname;
    // bounds in the enclosing loops and the hardware inames this loop's domain hangs from,
    // never in unrelated ones (a prefetch's l.0 iname must not bound the k loop). A loop with
    // a barrier inside runs as often on every work-item of a group, so its bounds take no
    // local iname: each work-item's instructions keep their own range as guards
    const barrier = containsBarrier(item);
    const keep = [
      ...this.hardwareAncestors(iname).filter((n) => !barrier || this.knl.inameTags.get(n)?.kind !== 'local'),
      ...outer,
    ];
    const domain = domainOf(this.knl, [...keep, iname]);
    // a loop over no points (`0 <= j < 0`: a reduction over nothing, or n = 0 fixed) is no code at all
    if (domain.isEmpty()) return [];
    const lower = nonRedundant(domain.lowerBounds(iname, keep), 'lower', iname, enforced);
    const upper = nonRedundant(domain.upperBounds(iname, keep), 'upper', iname, enforced);
    if (lower.length === 0 || upper.length === 0) {
      throw new LoomError(
        `loop '${iname}' has no ${lower.length === 0 ? 'lower' : 'upper'} bound in its domain (${domain.toString()}); it cannot be generated`,
      );
    }
    const slabs = this.knl.loopSlabs.get(iname);
    if (slabs && (lower.length !== 1 || upper.length !== 1))
      throw new LoomError(
        `cannot cut slabs off loop '${iname}': its ${lower.length !== 1 ? 'lower' : 'upper'} bound is the ${lower.length !== 1 ? 'max' : 'min'} of several (${domain.toString()}); slabs need one bound on each side (split without slabs)`,
      );
    if (slabs) return this.slabbed(item, outer, enforced, lower[0], upper[0], slabs);
    return [this.forLoop(item, outer, enforced, lower, upper)];
  }

  private forLoop(
    item: Loop,
    outer: readonly string[],
    enforced: BasicSet,
    lower: readonly Bound[],
    upper: readonly Bound[],
    extra: readonly ReturnType<typeof boundConstraint>[] = [],
  ): Stmt {
    const iname = item.iname;
    const inner = withDim(enforced, iname).addConstraints([
      ...lower.map((b) => boundConstraint(iname, b, 'lower')),
      ...upper.map((b) => boundConstraint(iname, b, 'upper')),
      ...extra,
    ]);
    return {
      kind: 'for',
      iname,
      lower: combineBounds(lower, 'lower', enforced),
      upper: combineBounds(upper, 'upper', enforced),
      body: block(this.items(item.body, [...outer, iname], inner)),
    };
  }

  /**
   * Slabs: the bulk of the loop, where the enclosing bounds imply every guard, and
   * separate first/last iterations that keep their guards.
   */
  private slabbed(
    item: Loop,
    outer: readonly string[],
    enforced: BasicSet,
    lower: Bound,
    upper: Bound,
    [head, tail]: readonly [number, number],
  ): Stmt[] {
    const iname = item.iname;
    const shift = (b: Bound, by: number): Bound => ({ expr: b.expr.add(by * b.divisor), divisor: b.divisor });
    const out: Stmt[] = [];
    for (let k = 0; k < head; k++) {
      out.push({ kind: 'comment', text: `initial slab ${k} for '${iname}'` });
      // the single iteration lower + k, if it exists
      out.push(
        this.forLoop(
          item,
          outer,
          enforced,
          [shift(lower, k)],
          [upper, { expr: lowerAsUpper(lower).add(k * lower.divisor), divisor: lower.divisor }],
        ),
      );
    }
    out.push({ kind: 'comment', text: `bulk slab for '${iname}'` });
    out.push(this.forLoop(item, outer, enforced, [shift(lower, head)], [shift(upper, -tail)]));
    for (let k = tail - 1; k >= 0; k--) {
      out.push({ kind: 'comment', text: `final slab for '${iname}'` });
      // the single iteration upper - k, if it is not already covered by the initial slabs
      out.push(this.forLoop(item, outer, enforced, [shift(lower, head), upperAsLower(upper, -k)], [shift(upper, -k)]));
    }
    return out;
  }

  /** An unrolled loop: one copy of the body per value, each with the guards it needs. */
  private unrolled(item: Loop, outer: readonly string[], enforced: BasicSet): Stmt[] {
    const iname = item.iname;
    const domain = domainOf(this.knl, [...this.hardwareAncestors(iname), ...outer, iname]);
    const term = [{ set: domain, expr: Linear.variable(iname) }];
    const lo = staticMin(term, this.knl.assumptions);
    const hi = staticMax(term, this.knl.assumptions);
    if (!lo.isConstant || !hi.isConstant) {
      throw new LoomError(
        `cannot unroll '${iname}': its length is not a constant (it runs from ${lo.toString()} to ${hi.toString()}); split it and unroll the inner part`,
      );
    }
    if (hi.constant - lo.constant >= 1024)
      throw new LoomError(
        `cannot unroll '${iname}': ${hi.constant - lo.constant + 1} copies is too many (at most 1024)`,
      );
    const out: Stmt[] = [];
    for (let v = lo.constant; v <= hi.constant; v++) {
      const fixed = withDim(enforced, iname).addConstraints([{ kind: 'eq', expr: Linear.variable(iname).sub(v) }]);
      if (fixed.isEmpty()) continue;
      const copies = this.items(item.body, [...outer, iname], fixed);
      out.push(...this.specialize(copies, iname, v));
    }
    return out;
  }

  /** Hardware inames that `iname`'s domain depends on, directly or through other inames. */
  private hardwareAncestors(iname: string): string[] {
    const out = new Set<string>();
    const stack = parentInames(this.knl, iname);
    while (stack.length) {
      const p = stack.pop()!;
      if (out.has(p)) continue;
      out.add(p);
      stack.push(...parentInames(this.knl, p));
    }
    return [...out].filter((n) => this.grid.inames.has(n));
  }

  private instruction(insn: Instruction, enforced: BasicSet): Stmt[] {
    if (insn.kind !== 'assign' && insn.kind !== 'c' && insn.kind !== 'user-call' && insn.kind !== 'fence') return [];
    const lanes = insn.withinInames.filter((n) => isLaneIname(this.knl, n) && !enforced.dims.includes(n));
    if (lanes.length) return this.laneCopies(insn, lanes[0], enforced);
    if (insn.withinInames.some((n) => this.knl.inameTags.get(n)?.kind === 'tensor'))
      return this.matrixTile(insn, enforced);
    this.checkNoAccumulator(insn);
    const domain = domainOf(this.knl, insn.withinInames, false, false);
    const context = domain.dims.reduce((set, d) => withDim(set, d), enforced);
    // a guard the same for every lane of a vec loop does not split its vector statement
    const vecLanes = insn.withinInames.filter(
      (n) => this.knl.inameTags.get(n)?.kind === 'vec' && enforced.dims.includes(n),
    );
    const gisted = vecLanes.reduce(
      (g, lane) => laneUniformGuard(g, context, lane, ilpRange(this.knl, lane).hi),
      withPinnedValues(domain.gist(context), enforced),
    );
    const guard = constraintsToCondition(gisted, insn);
    if (insn.kind === 'c') return [this.cCode(insn, [...(guard ? [guard] : []), ...insn.predicates])];
    if (insn.kind === 'fence') return this.fence(insn, guard);
    const guarded = this.guards.instruction(insn);
    const assign = this.statement(insn, guarded);
    const statements =
      assign.kind === 'assign'
        ? traced(this.knl, insn, this.grid, assign, guarded.targetIndices, {
            value: assign.target,
            dtype: assign.dtype,
          })
        : [assign];
    const when = (conditions: readonly Expr[], s: Stmt): Stmt =>
      conditions.length ? { kind: 'if', condition: conditions.reduce((a, b) => logical('and', a, b)), then: s } : s;
    if (guarded.predicateReports.length + guarded.reports.length === 0) {
      return [when([...(guard ? [guard] : []), ...guarded.predicates, ...guarded.writeConditions], block(statements))];
    }
    // bounds checking: each report runs where its access is evaluated, inside the domain
    // guard, and (but for the predicates' own reads) where the predicates hold
    const underPredicates = [...guarded.reports, when(guarded.writeConditions, block(statements))];
    const checked = guarded.predicates.length ? [when(guarded.predicates, block(underPredicates))] : underPredicates;
    const all = [...guarded.predicateReports, ...checked];
    return guard ? [when([guard], block(all))] : all;
  }

  /** A tensor tile's instruction: one matrix instruction of the target (matrix-tiles.ts). */
  private matrixTile(insn: Instruction, enforced: BasicSet): Stmt[] {
    const statements = matrixStatement(
      {
        knl: this.knl,
        support: this.matrix?.support ?? { refused: 'code generated without a target has no matrix instructions' },
        target: this.matrix?.target ?? 'no',
        types: this.types,
        flatten: (e) => this.flatten(e),
        simplify: (e) => this.simplifyIndices(e),
        lanesAxisSize: this.grid.localSize[0] ?? int(1),
        operands: this.matrixOperands,
      },
      insn,
      enforced,
    );
    for (const s of statements) {
      const op = s.kind === 'matrix' ? s.op : s.kind === 'if' && s.then.kind === 'matrix' ? s.then.op : undefined;
      if (op) this.fragmentShapes.set(op.accumulator.name, { ...op.accumulator.shape, lanes: op.accumulator.lanes });
    }
    return statements;
  }

  /** A tensor tile's accumulator is spread over a subgroup's registers: only its tile's matrix instructions reach it. */
  private checkNoAccumulator(insn: Instruction): void {
    // most kernels have no tensor tile: nothing to look for in each instruction
    if (!this.hasAccumulators) return;
    for (const name of [...namesRead(insn, this.knl.substitutions), ...namesWritten(insn)]) {
      if (this.knl.temporaries.get(name)?.matrixAccumulator)
        throw new LoomError(
          `instruction '${insn.id}' uses '${name}', the accumulator of a tensor tile (tensorize), which only the tile's matrix instructions can read or write`,
          insn.span,
        );
    }
  }

  /** The assignment, or the call statement of a `user-call`, that an instruction makes. */
  private statement(insn: Instruction, guarded: GuardedInstruction): Stmt {
    if (guarded.target === undefined) {
      if (guarded.value.kind !== 'call')
        throw new InternalError(`instruction '${insn.id}' writes nothing, but makes no call`);
      return { kind: 'call', call: guarded.value, insnId: insn.id };
    }
    return {
      kind: 'assign',
      target: guarded.target,
      value: guarded.value,
      // a struct field is stored in its own dtype, not its array's bytes
      dtype:
        guarded.target.kind === 'subscript' && guarded.target.field?.dtype
          ? guarded.target.field.dtype
          : this.types.get(nameWritten(insn)!)!,
      atomic: insn.atomic,
      insnId: insn.id,
      ...(insn.asyncCopy ? { async: true as const } : {}),
      ...(insn.asyncCopy && insn.bulkCopy ? { bulk: true as const } : {}),
      ...(insn.fillAhead ? { ahead: insn.fillAhead } : {}),
    };
  }

  /**
   * The instruction opened innermost over one of its ILP or vec inames: unrolled copies
   * (`ilp`, `ilp.unr`, and `vec` where it cannot be vector code), a loop of its own
   * (`ilp.seq`), or one vector statement (`vec`, vectorize.ts), each with its own guards.
   */
  /**
   * A fence (`... gfence`) where its instruction runs: under its domain's guard and its
   * predicates, each work-item that runs it fences its own accesses.
   */
  private fence(insn: Instruction, guard: Expr | undefined): Stmt[] {
    const { predicates, reports } = this.guards.predicates(insn);
    const conditions = [...(guard ? [guard] : []), ...predicates];
    const fence: Stmt = { kind: 'fence', insnId: insn.id };
    const guarded: Stmt = conditions.length
      ? { kind: 'if', condition: conditions.reduce((a, b) => logical('and', a, b)), then: fence }
      : fence;
    return guard && reports.length
      ? [{ kind: 'if', condition: guard, then: block(reports) }, guarded]
      : [...reports, guarded];
  }

  /** A `cInstruction`'s code under its guard and predicates: loopy reads nothing of it, and neither does Loom. */
  private cCode(insn: Instruction, conditions: readonly Expr[]): Stmt {
    const { code, inameExprs } = insn.cCode!;
    const stmt: Stmt = { kind: 'code', code, bindings: inameExprs, insnId: insn.id };
    return conditions.length
      ? { kind: 'if', condition: conditions.reduce((a, b) => logical('and', a, b)), then: stmt }
      : stmt;
  }

  private laneCopies(insn: Instruction, iname: string, enforced: BasicSet): Stmt[] {
    const { lo, hi } = ilpRange(this.knl, iname);
    const ranged = withDim(enforced, iname).addConstraints([
      { kind: 'ge', expr: Linear.variable(iname).sub(lo) },
      { kind: 'ge', expr: Linear.constant(hi).sub(Linear.variable(iname)) },
    ]);
    const tag = this.knl.inameTags.get(iname);
    if (tag?.kind === 'ilp' && !tag.unrolled) {
      return [{ kind: 'for', iname, lower: int(lo), upper: int(hi), body: block(this.instruction(insn, ranged)) }];
    }
    // guards are worked out once, with the lane as a variable, then specialized per lane:
    // an 8x8 register tile would otherwise redo the set work 64 times
    const generic = this.instruction(insn, ranged);
    // an image read is one texel, never a vector load: its lanes are unrolled
    const readsImage = this.images.size > 0 && generic.some((g) => this.readsImage(g));
    if (tag?.kind === 'vec' && this.vectorTypes && !readsImage && lo === 0 && this.vectorLanes.includes(hi + 1)) {
      const vector = vectorizeStatements(generic, { iname, lanes: hi + 1 }, this.vectorWidths, this.types);
      if (vector) return vector;
    }
    const out: Stmt[] = [];
    for (let v = lo; v <= hi; v++) {
      out.push(...this.specialize(generic, iname, v).flatMap(dropDecidedGuards));
    }
    return out;
  }

  /** The statements of one iteration of an unrolled loop: `iname` replaced by `value`, folded. */
  private specialize(statements: readonly Stmt[], iname: string, value: number): Stmt[] {
    const fixed = new Map([[iname, int(value)]]);
    return statements.map((s) => mapStmts(s, { expr: (e) => this.simplifyIndices(substitute(e, fixed)) }));
  }

  /**
   * `a[i, j]` → `a[n*i + j]`; a zero-dimensional array `x` → `x[0]`: an array argument, or a
   * global temporary, which is a buffer of the call like an argument (a scalar one too).
   */
  private flatten(e: Expr): Expr {
    if (e.kind === 'var' && this.isBuffer(e.name) && this.strides.get(e.name)?.length === 0)
      return subscript(e.name, [this.offsets.get(e.name) ?? int(0)]);
    if (e.kind !== 'subscript') return e;
    // an image is read at its coordinates, one per axis (ast.ts)
    if (this.images.has(e.array)) return e;
    const strides = this.strides.get(e.array);
    if (!strides) throw new LoomError(`'${e.array}' is indexed but is not an array`);
    if (strides.length !== e.indices.length)
      throw new LoomError(`'${e.array}' has ${strides.length} axes but is indexed with ${e.indices.length}`);
    let flat: Expr | undefined;
    e.indices.forEach((index, axis) => {
      const s = strides[axis];
      const term = s.kind === 'int' && s.value === 1 ? index : isZero(index) ? int(0) : binary('*', s, index);
      if (isZero(term)) return;
      flat = flat === undefined ? term : binary('+', flat, term);
    });
    // an argument passed as a view starts `offset` elements into its buffer (kernel/arg-layouts.ts)
    const offset = this.offsets.get(e.array);
    if (offset) flat = flat === undefined ? offset : binary('+', offset, flat);
    // a swizzled local array: the element lies elsewhere in its line (swizzle.ts)
    const span = this.knl.temporaries.get(e.array)?.swizzle;
    const index = span ? swizzleIndex(flat ?? int(0), span, byteSize(this.types.get(e.array)!)) : (flat ?? int(0));
    return subscript(e.array, [index], false, undefined, e.field);
  }

  /** Whether a statement reads an image argument (one kept as an image: `images`). */
  private readsImage(statement: Stmt): boolean {
    let found = false;
    walkStmts(statement, {
      expr: (e) => {
        found ||= someExpr(e, (x) => x.kind === 'subscript' && this.images.has(x.array));
      },
    });
    return found;
  }

  /** Elements a private or local temporary needs (`declaredLength`), with this target's arrays sized at launch. */
  private lengthOf(t: TemporaryVariable): number | Expr {
    return declaredLength(t, this.strides.get(t.name)!, this.runtimeSizedArrays, this.vectorWidths.has(t.name));
  }

  private isBuffer(name: string): boolean {
    return this.knl.arg(name) !== undefined || this.knl.temporaries.get(name)?.addressSpace === 'global';
  }
}

/** `if (true) s` is `s`; `if (false) s` is nothing (guards that a lane's value settled). */
function dropDecidedGuards(s: Stmt): Stmt[] {
  if (s.kind !== 'if') return [s];
  if (s.condition.kind === 'bool') return s.condition.value ? dropDecidedGuards(s.then) : [];
  return [s];
}

function isZero(e: Expr): boolean {
  return e.kind === 'int' && e.value === 0;
}

/** The lower bound ceil(e/d) read as an upper bound on the same value: floor((e + d - 1)/d). */
function lowerAsUpper(b: Bound): Linear {
  return b.expr.add(b.divisor - 1);
}

/** floor(e/d) + k as a lower bound: ceil((e - d + 1)/d) + k = floor(e/d) + k. */
function upperAsLower(b: Bound, k: number): Bound {
  return { expr: b.expr.sub(b.divisor - 1).add(k * b.divisor), divisor: b.divisor };
}

/** Whether a barrier runs inside `item` (every work-item of a group must reach it alike). */
function containsBarrier(item: ScheduleItem): boolean {
  return item.kind === 'barrier' || (item.kind === 'loop' && item.body.some(containsBarrier));
}
