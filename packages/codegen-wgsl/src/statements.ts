/**
 * One kernel as a WGSL entry point: its header and prologue (value arguments, work-group
 * and work-item ids), then its statements.
 *
 * Barriers and uniformity. WGSL rejects a barrier that some invocations of a work-group
 * might not reach: one inside an `if` whose condition may differ between them, or inside
 * a loop whose bounds may. Guards are therefore never printed around a barrier. A guard
 * whose statements contain one is evaluated once into a `let`, and each statement around
 * the barrier is guarded on its own:
 *
 *   if (c) { s1; barrier; s2; }   →   let guard = c;  if (guard) { s1 }  barrier;  if (guard) { s2 }
 *
 * Every work-item now reaches the barrier, which is what OpenCL requires of the original
 * too, and does the same work. Loop bounds cannot be treated so: a loop containing a barrier
 * must have bounds that are the same for all work-items of a group (parameters, group ids,
 * outer such loops, read-only data), or generation stops with a LoomError naming the loop.
 */
import {
  atomicFunction,
  isAtomicFunction,
  type AtomicFunctionName,
  constantLength,
  initializerLiteral,
  commentText,
  expr as E,
  InternalError,
  unreachable,
  isHardwareId,
  LoomError,
  printExpr,
  statementsOf,
  subStatements,
  walkStmts,
  type DType,
  type DeviceFunction,
  type Expr,
  type KernelFunction,
  type Stmt,
  type FunctionSignature,
  vectorIndex,
  type VectorLoop,
  structLayout,
  indexFacts,
} from '@loom/core';
import type { ArrayAccess, AtomicOperation } from './arrays.ts';
import { atomicLoad, atomicStore, atomicUpdate, workgroupAtomics } from './workgroup-atomics.ts';
import type { ModuleLayout } from './bindings.ts';
import type { WorkgroupRows } from './array-rows.ts';
import { vectorLanesOf } from './declared-units.ts';
import { axisName, ExpressionPrinter, LaneByLane, type ExpressionContext } from './expressions.ts';
import { operand, Prec, primary, type Printed } from './printed.ts';
import type { HelperKind } from './helpers.ts';
import type { NameTable } from './names.ts';
import { computeType, type WgslScalar } from './types.ts';

const INDENT = '  ';

export interface KernelContext {
  readonly names: NameTable;
  readonly layout: ModuleLayout;
  readonly arrays: ArrayAccess;
  helper(kind: HelperKind, t: WgslScalar): string;
  userFunction(
    name: string,
    argTypes: readonly DType[],
  ): { readonly name: string; readonly signature: FunctionSignature };
  /** The grid is folded into the dispatch (`limits.ts`): group ids are recovered from a linear index. */
  readonly foldedGrid: boolean;
  /** The program allows `a * b + c` fused (`ProgramAst.fusedMultiplyAdd`): printed as `fma`. */
  readonly fusedMultiplyAdd: boolean;
  /** Per axis, the `override` constant of a work-group size known only at launch (target.ts). */
  readonly localSizeOverrides?: readonly (string | undefined)[];
  /** The workgroup arrays of the program laid out in rows (array-rows.ts). */
  readonly rows: WorkgroupRows;
}

export function printKernel(kernel: KernelFunction, entryPoint: string, context: KernelContext): string {
  return new KernelPrinter(kernel, entryPoint, context).print();
}

/**
 * A callee's device function (`ProgramAst.deviceFunctions`): `fn name(n: i32, ...)`. It takes
 * values alone: the arrays it reads and writes are the module's bindings, named as the kernels
 * name them, and the work-item ids it uses are passed in (WGSL's built-ins are the entry point's).
 */
export function printDeviceFunction(f: DeviceFunction, context: KernelContext): string {
  const name = context.names.of(f.name);
  const params = f.params.map((p) => {
    if (p.kind === 'private')
      throw new InternalError(`device function '${f.name}' takes a private array (privateArrays)`);
    return p;
  });
  return new KernelPrinter({ ...f, params, localSize: [], groupCount: [] }, name, context).printFunction();
}

class KernelPrinter {
  private readonly lines: string[] = [];
  private depth = 0;
  private readonly exprs: ExpressionPrinter;
  private readonly ids: { readonly gid: boolean; readonly lid: boolean; readonly subgroup: boolean };
  /** Names whose value is the same in every work-item of a group. */
  private readonly uniformNames = new Set<string>();
  private readonly barriers = new Map<Stmt, boolean>();
  /** Private temporaries held as vectors (`array<vec4<f32>, 1>`), by Loom name: their lanes. */
  private readonly vectorTemporaries = new Map<string, number>();
  /** Local temporaries held as WGSL atomics (workgroup-atomics.ts), by Loom name: their dtypes. */
  private readonly atomics: ReadonlyMap<string, DType>;

  constructor(
    private readonly kernel: KernelFunction,
    private readonly entryPoint: string,
    private readonly context: KernelContext,
  ) {
    const { names, arrays } = context;
    this.atomics = workgroupAtomics(kernel);
    const expressions: ExpressionContext = {
      typeOf: (name) => kernel.types.get(name),
      nameOf: (name) => names.of(name),
      loadElement: (array, index) => {
        if (arrays.has(array)) return arrays.load(array, this.exprs.index(index));
        const element = `${names.of(array)}${this.exprs.subscript(array, index)}`;
        const atomic = this.atomics.get(array);
        if (atomic) return atomicLoad(`&${element}`, atomic);
        return primary(element, this.elementType(array));
      },
      rowSplit: (array, index) => context.rows.split(array, index),
      loadAtomicScalar: (name) => {
        const atomic = this.atomics.get(name);
        return atomic && atomicLoad(`&${names.of(name)}`, atomic);
      },
      isTexture: (array) => arrays.isTexture(array),
      structSize: (array) => {
        const p = kernel.params.find((x) => x.name === array);
        return p?.struct && structLayout(p.struct, 'wgsl-storage').size;
      },
      structElement: (array, index) => arrays.element(array, index),
      loadTexel: (array, coordinates) => arrays.loadTexel(array, coordinates),
      vectorStorage: (array) => this.vectorStorage(array),
      hardwareId: (kind, axis) => `${kind === 'gid' ? 'group_id' : 'local_id'}.${axisName(axis)}`,
      subgroupId: (fn) => SUBGROUP_IDS[fn],
      helper: (kind, t) => context.helper(kind, t),
      fusedMultiplyAdd: context.fusedMultiplyAdd,
      indexFacts: indexFacts(kernel),
      userFunction: (name, argTypes) => context.userFunction(name, argTypes),
    };
    this.exprs = new ExpressionPrinter(expressions);
    this.ids = hardwareIdsUsed(kernel.body);
    for (const p of kernel.params) if (p.kind === 'value') this.uniformNames.add(p.name);
  }

  print(): string {
    const k = this.kernel;
    const builtins: string[] = [];
    const groupIds = this.ids.gid || this.context.foldedGrid;
    if (groupIds) builtins.push('@builtin(workgroup_id) workgroup_id: vec3<u32>');
    if (this.context.foldedGrid) builtins.push('@builtin(num_workgroups) num_workgroups: vec3<u32>');
    if (this.ids.lid) builtins.push('@builtin(local_invocation_id) local_invocation_id: vec3<u32>');
    if (this.ids.subgroup)
      builtins.push(
        '@builtin(local_invocation_index) local_invocation_index: u32',
        '@builtin(subgroup_invocation_id) subgroup_invocation_id: u32',
        '@builtin(subgroup_size) subgroup_size: u32',
      );
    const sizes = k.localSize.map((s, axis) => {
      const override = this.context.localSizeOverrides?.[axis];
      if (override !== undefined) return override;
      if (s.kind !== 'int')
        throw new InternalError(`kernel '${k.name}': no override for its work-group size along axis ${axis}`);
      return String(s.value);
    });
    this.line(`@compute @workgroup_size(${sizes.join(', ')})`);
    this.line(`fn ${this.entryPoint}(${builtins.join(', ')}) {`);
    this.nested(() => {
      this.prologue();
      this.body(k.body, undefined);
    });
    this.line('}');
    return this.lines.join('\n');
  }

  /** The kernel as a device function: its value parameters, no built-ins, no prologue. */
  printFunction(): string {
    const k = this.kernel;
    const { names } = this.context;
    if (this.ids.subgroup)
      throw new LoomError(
        `function '${k.name}' reads the subgroup ids, which WGSL gives only to an entry point: call it inlined`,
      );
    const params = k.params.map((p) => {
      if (p.kind !== 'value') throw new InternalError(`device function '${k.name}' takes the array '${p.name}'`);
      return `${names.of(p.name)}: ${computeType(p.dtype as DType)}`;
    });
    this.line(`fn ${this.entryPoint}(${params.join(', ')}) {`);
    this.nested(() => this.body(k.body, undefined));
    this.line('}');
    return this.lines.join('\n');
  }

  /** Value arguments from the uniform, and the ids the body uses. */
  private prologue(): void {
    const { layout, names } = this.context;
    for (const p of this.kernel.params) {
      if (p.kind !== 'value') continue;
      const member = `${layout.uniform!.variable}.${names.of(p.name)}`;
      const value = p.dtype === 'bool' ? `${member} != 0u` : p.dtype === 'float16' ? `f16(${member})` : member;
      this.line(`let ${names.of(p.name)} = ${value};`);
    }
    if (this.context.foldedGrid) {
      this.line(
        '// more work-groups than one dispatch dimension holds: numbered across x, y and z, the few past the end idle',
      );
      this.line(`let group_count = ${layout.uniform!.variable}.group_count;`);
      this.line(
        'let group_index = workgroup_id.x + num_workgroups.x * (workgroup_id.y + num_workgroups.y * workgroup_id.z);',
      );
      // only the grid's own axes are recovered: a 1-D grid's group is its number, with no divisions per work-item
      const axes = this.kernel.groupCount.length;
      if (axes <= 1) {
        this.line('if (group_index >= group_count.x) { return; }');
        this.line('let group_id = vec3<i32>(i32(group_index), 0i, 0i);');
      } else if (axes === 2) {
        this.line('if (group_index >= group_count.x * group_count.y) { return; }');
        this.line('let group_id = vec3<i32>(vec3<u32>(group_index % group_count.x, group_index / group_count.x, 0u));');
      } else {
        this.line('if (group_index >= group_count.x * group_count.y * group_count.z) { return; }');
        this.line(
          'let group_id = vec3<i32>(vec3<u32>(group_index % group_count.x, group_index / group_count.x % group_count.y, group_index / (group_count.x * group_count.y)));',
        );
      }
    } else if (this.ids.gid) {
      this.line('let group_id = vec3<i32>(workgroup_id);');
    }
    if (this.ids.lid) this.line('let local_id = vec3<i32>(local_invocation_id);');
  }

  /** The statements of a body (a block's, or the one statement), under `guard` when given. */
  private body(s: Stmt, guard: string | undefined): void {
    const statements = statementsOf(s);
    if (guard === undefined) {
      statements.forEach((x) => this.statement(x, undefined));
      return;
    }
    // consecutive statements without barriers share one `if (guard)`
    let run: Stmt[] = [];
    const flush = () => {
      if (run.length === 0) return;
      const group = run;
      run = [];
      this.line(`if (${guard}) {`);
      this.nested(() => group.forEach((x) => this.statement(x, undefined)));
      this.line('}');
    };
    for (const x of statements) {
      if (x.kind === 'declare' || x.kind === 'comment' || this.hasBarrier(x)) {
        flush();
        this.statement(x, guard);
      } else {
        run.push(x);
      }
    }
    flush();
  }

  private statement(s: Stmt, guard: string | undefined): void {
    switch (s.kind) {
      case 'block':
        if (guard !== undefined || this.hasBarrier(s)) return this.body(s, guard);
        this.line('{');
        this.nested(() => this.body(s, undefined));
        this.line('}');
        return;
      case 'for':
        return this.loop(s, guard);
      case 'if': {
        const condition = this.exprs.condition(s.condition);
        if (!this.hasBarrier(s.then)) {
          if (guard !== undefined) throw new InternalError('a guarded statement without barriers reached the printer');
          this.line(`if (${condition.text}) {`);
          this.nested(() => this.body(s.then, undefined));
          this.line('}');
          return;
        }
        // a barrier inside: evaluate the condition once, guard the statements around the barrier
        const name = this.context.names.fresh('guard');
        const combined =
          guard === undefined
            ? condition.text
            : `${guard} && ${condition.prec > 1 || condition.logical === '&&' ? condition.text : `(${condition.text})`}`;
        this.line(`let ${name} = ${combined};`);
        return this.body(s.then, name);
      }
      case 'assign':
        return this.assignment(s);
      case 'declare':
        return this.declaration(s);
      case 'barrier': {
        const note = s.comment ? ` // ${commentText(s.comment)}` : '';
        // storageBarrier orders the work-group's accesses to storage buffers, workgroupBarrier those to var<workgroup>
        if (s.scope === 'global') this.line('storageBarrier();');
        this.line(`workgroupBarrier();${note}`);
        return;
      }
      case 'call':
        this.line(`${this.exprs.statementCall(s.call)};`);
        return;
      case 'trace':
        // refused before code generation (the target does not state `prints`); kept as a last guard
        throw new LoomError(`instruction '${s.insnId}' is traced (traceAssignments), but WGSL code cannot print`);
      case 'matrix':
        // refused before code generation (the target states no matrixInstructions); kept as a last guard
        throw new LoomError(
          `instruction '${s.insnId}' is a tensor tile (tensorize), but Loom's WGSL target has no matrix instructions${matrixDTypes(s.op).includes('bfloat16') ? ' (nor a bfloat16 type: its tiles could not be bfloat16)' : ''}`,
        );
      case 'fence':
        // refused before code generation (the target states no globalFences); kept as a last guard
        throw new LoomError(
          `instruction '${s.insnId}' fences global memory device-wide (... gfence), which WGSL cannot: it orders memory only within a work-group`,
        );
      case 'code':
        // checked before code generation (cInstructions in the target's facts); kept as a last guard
        throw new LoomError(
          `instruction '${s.insnId}' is C code (cInstruction), which the WGSL target cannot run; the C-family targets (OpenCL, CUDA, C) can`,
        );
      case 'comment':
        for (const text of s.text.split('\n')) this.line(`// ${commentText(text)}`);
        return;
      case 'device-call': {
        // values by name (in the caller's dtype, which is the parameter's), work-item ids as i32
        const args = s.args.map((a) =>
          a.kind === 'var'
            ? this.exprs.converted(a, this.kernel.types.get(a.name) ?? 'int32').text
            : this.exprs.index(a).text,
        );
        this.line(`${this.context.names.of(s.function)}(${args.join(', ')});`);
        return;
      }
      default:
        return unreachable(s, 'statement');
    }
  }

  private loop(s: Extract<Stmt, { kind: 'for' }>, guard: string | undefined): void {
    const barrier = this.hasBarrier(s.body);
    const uniform = this.isUniform(s.lower) && this.isUniform(s.upper);
    if (barrier && !uniform) {
      throw new LoomError(
        `kernel '${this.kernel.name}': the loop over '${s.iname}' contains a barrier, but its bounds (${printExpr(s.lower)} .. ${printExpr(s.upper)}) ` +
          'may differ between the work-items of a work-group; WGSL requires every work-item to reach each barrier',
      );
    }
    if (guard !== undefined && !barrier) throw new InternalError('a guarded loop without barriers reached the printer');
    const i = this.context.names.of(s.iname);
    const lower = this.exprs.index(affineFirst(s.lower));
    const upper = this.exprs.index(affineFirst(s.upper));
    if (uniform) this.uniformNames.add(s.iname);
    // a comparison's operands must be arithmetic expressions in WGSL (`i <= (a & b)`)
    this.line(`for (var ${i}: i32 = ${lower.text}; ${i} <= ${operand(upper, Prec.Additive)}; ${i}++) {`);
    this.nested(() => this.body(s.body, guard));
    this.line('}');
    this.uniformNames.delete(s.iname);
  }

  /**
   * A vector statement (every lane of a `vec` loop at once): `out[i] = 2.0 * a[i];` on
   * vectors where every array it reads or writes whole is held as vectors and the printer
   * spells every operation on vectors; else its lanes one by one, as the unrolled loop.
   */
  private vectorAssignment(s: Extract<Stmt, { kind: 'assign' }>, loop: VectorLoop): void {
    const wholeAccesses: Extract<Expr, { kind: 'subscript' }>[] = [];
    for (const e of [s.target, s.value]) {
      E.walk(e, (x) => {
        if (x.kind === 'subscript' && vectorIndex(x.indices[0], loop, this.vectorStorage(x.array)?.lanes ?? loop.lanes))
          wholeAccesses.push(x);
      });
    }
    const target = s.target;
    const native =
      target.kind === 'subscript' && wholeAccesses.every((x) => this.vectorStorage(x.array)?.lanes === loop.lanes);
    if (native) {
      this.exprs.vectorLoop = loop;
      try {
        const reference = this.exprs.vectorReference(target);
        const value = this.exprs.converted(s.value, this.kernel.types.get(target.array) ?? s.dtype);
        if (!reference?.lanes)
          throw new InternalError(`the vector statement '${s.insnId}' does not write a whole vector`);
        this.line(`${reference.text} = ${splatted(value, loop.lanes)};`);
        return;
      } catch (e) {
        if (!(e instanceof LaneByLane)) throw e;
      } finally {
        this.exprs.vectorLoop = undefined;
      }
    }
    for (let lane = 0; lane < loop.lanes; lane++) {
      const fixed = new Map([[loop.iname, E.int(lane)]]);
      this.assignment({
        ...s,
        target: E.substitute(s.target, fixed),
        value: E.substitute(s.value, fixed),
        vector: undefined,
      });
    }
  }

  private assignment(s: Extract<Stmt, { kind: 'assign' }>): void {
    if (s.value.kind === 'call' && isAtomicFunction(s.value.fn)) return this.atomicFetch(s, s.value);
    if (s.vector) return this.vectorAssignment(s, s.vector);
    const { names, arrays } = this.context;
    const target = s.target;
    const atomicName = target.kind === 'var' ? target.name : target.kind === 'subscript' ? target.array : undefined;
    const atomic = atomicName === undefined ? undefined : this.atomics.get(atomicName);
    if (atomic) return this.workgroupAtomicAssignment(s, atomic);
    if (target.kind === 'var') {
      if (s.atomic)
        throw new LoomError(
          `instruction '${s.insnId}': atomic updates of the scalar '${target.name}' are not supported by the WGSL target`,
        );
      const dtype = this.kernel.types.get(target.name) ?? s.dtype;
      this.line(`${names.of(target.name)} = ${this.exprs.converted(s.value, dtype).text};`);
      return;
    }
    if (target.kind !== 'subscript' || target.indices.length !== 1) {
      throw new InternalError(`cannot assign to '${printExpr(target)}' (instruction '${s.insnId}')`);
    }
    if (target.field?.dtype) {
      if (s.atomic)
        throw new LoomError(
          `instruction '${s.insnId}': atomic updates of struct fields are not supported by the WGSL target`,
        );
      const field = this.exprs.fieldReference(target);
      this.line(`${field.text} = ${this.exprs.converted(s.value, target.field.dtype).text};`);
      return;
    }
    const dtype = this.kernel.types.get(target.array) ?? s.dtype;
    const vector = s.atomic ? undefined : this.exprs.vectorReference(target);
    if (vector) {
      this.line(`${vector.text} = ${this.exprs.converted(s.value, dtype).text};`);
      return;
    }
    if (!arrays.has(target.array)) {
      if (s.atomic)
        throw new LoomError(
          `instruction '${s.insnId}': atomic updates of the temporary '${target.array}' are not supported by the WGSL target`,
        );
      const element = `${names.of(target.array)}${this.exprs.subscript(target.array, target.indices[0])}`;
      this.line(`${element} = ${this.exprs.converted(s.value, dtype).text};`);
      return;
    }
    const index = this.exprs.index(target.indices[0]);
    if (s.atomic && E.someExpr(s.value, (x) => E.exprEquals(x, target))) {
      const update = (old: Printed) =>
        this.exprs.withReplacement(target, old, () => this.exprs.converted(s.value, dtype));
      this.line(`// ${commentText(`${printExpr(target)} = ${printExpr(s.value)}`)}, atomically`);
      for (const l of arrays.atomicUpdate(target.array, index, update, this.simpleAtomic(s.value, target, dtype)))
        this.line(l);
      return;
    }
    this.line(arrays.store(target.array, index, this.exprs.converted(s.value, dtype)));
  }

  /**
   * `old = atomicAdd(counter[0], 1)`: WGSL's atomic built-ins return the old value, on int32 and
   * uint32 elements (the target's `atomicFetches`) of storage or workgroup arrays held as atomics.
   * Compare-exchange is WGSL's weak one in a loop, which retries where it failed spuriously (the
   * element held the expected value, yet nothing was exchanged), so that it fails only where the
   * element held another value, as every other target's does.
   */
  private atomicFetch(s: Extract<Stmt, { kind: 'assign' }>, fetch: Extract<Expr, { kind: 'call' }>): void {
    const { names, arrays } = this.context;
    const [element, ...operands] = fetch.args;
    const target = s.target;
    if (element?.kind !== 'subscript' || (target.kind !== 'var' && target.kind !== 'subscript'))
      throw new InternalError(`the atomic fetch of instruction '${s.insnId}' reached the WGSL printer malformed`);
    const ref = this.atomics.has(element.array)
      ? `&${names.of(element.array)}${this.exprs.subscript(element.array, element.indices[0])}`
      : arrays.atomicReference(element.array, this.exprs.index(element.indices[0]));
    const dtype = this.kernel.types.get(element.array)!;
    const values = operands.map((o) => this.exprs.converted(o, dtype).text);
    // the old value keeps the element's dtype (core's check/atomic-fetches.ts): no conversion
    const result =
      target.kind === 'var'
        ? names.of(target.name)
        : `${names.of(target.array)}${this.exprs.subscript(target.array, target.indices[0])}`;
    this.line(`// ${commentText(`${printExpr(s.target)} = ${printExpr(fetch)}`)}`);
    const { op } = atomicFunction(fetch.fn as AtomicFunctionName);
    if (op !== 'compare-exchange') {
      const fn = { add: 'atomicAdd', sub: 'atomicSub', min: 'atomicMin', max: 'atomicMax', exchange: 'atomicExchange' }[
        op
      ];
      this.line(`${result} = ${fn}(${ref}, ${values[0]});`);
      return;
    }
    for (const l of [
      '{',
      `  let expected = ${values[0]};`,
      `  let desired = ${values[1]};`,
      '  loop {',
      `    let swap = atomicCompareExchangeWeak(${ref}, expected, desired);`,
      `    if (swap.exchanged || swap.old_value != expected) { ${result} = swap.old_value; break; }`,
      '  }',
      '}',
    ])
      this.line(l);
  }

  /** An assignment to a local temporary held as a WGSL atomic: a store, or (`{atomic}` reading it) an update. */
  private workgroupAtomicAssignment(s: Extract<Stmt, { kind: 'assign' }>, dtype: DType): void {
    const { names } = this.context;
    const target = s.target;
    const ref =
      target.kind === 'subscript'
        ? `&${names.of(target.array)}${this.exprs.subscript(target.array, target.indices[0])}`
        : `&${names.of((target as Extract<Expr, { kind: 'var' }>).name)}`;
    if (s.atomic && E.someExpr(s.value, (x) => E.exprEquals(x, target))) {
      const update = (old: Printed) =>
        this.exprs.withReplacement(target, old, () => this.exprs.converted(s.value, dtype));
      this.line(`// ${commentText(`${printExpr(target)} = ${printExpr(s.value)}`)}, atomically`);
      for (const l of atomicUpdate(ref, dtype, update, this.simpleAtomic(s.value, target, dtype))) this.line(l);
      return;
    }
    this.line(atomicStore(ref, this.exprs.converted(s.value, dtype), dtype));
  }

  /** `a[i] + x`, `a[i] - x`, `min(a[i], x)`, `max(a[i], x)` on an integer array: one atomic instruction. */
  private simpleAtomic(value: Expr, target: Expr, dtype: DType): AtomicOperation | undefined {
    if (dtype !== 'int32' && dtype !== 'uint32') return undefined;
    const same = (x: Expr) => E.exprEquals(x, target);
    const operand = (x: Expr) => {
      // only where the update computes in the array's own type, as the instruction does
      if (E.someExpr(x, same)) return undefined;
      if (x.kind !== 'int' && this.exprs.dtype(x) !== dtype) return undefined;
      return this.exprs.print(x, computeType(dtype));
    };
    const make = (op: AtomicOperation['op'], x: Expr) => {
      const printed = operand(x);
      return printed && { op, operand: printed };
    };
    if (value.kind === 'binary' && value.op === '+') {
      if (same(value.left)) return make('add', value.right);
      if (same(value.right)) return make('add', value.left);
    }
    if (value.kind === 'binary' && value.op === '-' && same(value.left)) return make('sub', value.right);
    if (value.kind === 'call' && (value.fn === 'min' || value.fn === 'max') && value.args.length === 2) {
      if (same(value.args[0])) return make(value.fn, value.args[1]);
      if (same(value.args[1])) return make(value.fn, value.args[0]);
    }
    return undefined;
  }

  private declaration(s: Extract<Stmt, { kind: 'declare' }>): void {
    switch (s.addressSpace) {
      case 'local': {
        // a var<workgroup> at module scope (target.ts), of vectors where it has a vec axis
        const lanes = vectorLanesOf(s, this.atomics);
        if (lanes) this.vectorTemporaries.set(s.name, lanes);
        return;
      }
      case 'global':
        throw new LoomError(
          `temporary '${s.name}' lives in global memory, which the WGSL target does not allocate yet; make it local or private`,
        );
      default: {
        const t = computeType(s.dtype);
        const lanes = vectorLanesOf(s, this.atomics);
        const length = constantLength(s, 'WGSL');
        if (lanes && length !== undefined) {
          // a private array with a vec axis of 2 or 4 lanes: vectors, as arguments are (bindings.ts)
          this.vectorTemporaries.set(s.name, lanes);
          this.line(`var ${this.context.names.of(s.name)}: array<vec${lanes}<${t}>, ${length / lanes}>;`);
          return;
        }
        const type = length === undefined ? t : `array<${t}, ${length}>`;
        if (s.initializer) {
          // a constant table: initialized where it is declared, never written
          const values = s.initializer.map((v) => this.exprs.converted(initializerLiteral(v, s.dtype), s.dtype).text);
          this.line(
            `var ${this.context.names.of(s.name)}: ${type} = ${s.length === undefined ? values[0] : `${type}(${values.join(', ')})`};`,
          );
          return;
        }
        this.line(`var ${this.context.names.of(s.name)}: ${type};`);
      }
    }
  }

  /** An argument or private temporary held as vectors: its WGSL name and lanes. */
  private vectorStorage(array: string): { readonly name: string; readonly lanes: number } | undefined {
    const lanes = this.vectorTemporaries.get(array);
    return lanes ? { name: this.context.names.of(array), lanes } : this.context.arrays.vectorStorage(array);
  }

  private elementType(array: string): WgslScalar {
    const t = this.kernel.types.get(array);
    if (t === undefined) throw new LoomError(`the type of '${array}' is not known`);
    return computeType(t);
  }

  private hasBarrier(s: Stmt): boolean {
    let known = this.barriers.get(s);
    if (known === undefined) {
      // (remembered per statement: the printer asks again at every level of nesting)
      known = s.kind === 'barrier' || subStatements(s).some((x) => this.hasBarrier(x));
      this.barriers.set(s, known);
    }
    return known;
  }

  /**
   * Whether `e` has the same value in every work-item of a work-group, as WGSL's uniformity
   * analysis sees it: parameters, group ids, loop indices of such loops, and reads of
   * read-only storage at such indices are; work-item ids and temporaries are not.
   */
  private isUniform(e: Expr): boolean {
    if (e.kind === 'var') return this.uniformNames.has(e.name);
    if (e.kind === 'call' && isHardwareId(e)) return e.fn === 'gid';
    if (e.kind === 'subscript') {
      const a = this.context.layout.arrays.get(e.array);
      if (!a || a.storage.access !== 'read') return false;
    }
    return E.children(e).every((x) => this.isUniform(x));
  }

  private nested(print: () => void): void {
    this.depth++;
    try {
      print();
    } finally {
      this.depth--;
    }
  }

  private line(text: string): void {
    this.lines.push(`${INDENT.repeat(this.depth)}${text}`);
  }
}

/** A vector statement's value as a vector (a value the same in every lane, `2.0`, spread over them). */
function splatted(value: Printed, lanes: number): string {
  return value.lanes ? value.text : `vec${lanes}<${value.type}>(${value.text})`;
}

/** The subgroup ids from the entry point's built-ins; a subgroup holds consecutive linear local ids. */
const SUBGROUP_IDS: Readonly<Record<'subgroupLocalId' | 'subgroupSize' | 'subgroupId', string>> = {
  subgroupLocalId: 'i32(subgroup_invocation_id)',
  subgroupSize: 'i32(subgroup_size)',
  subgroupId: 'i32(local_invocation_index / subgroup_size)',
};

/** Which work-group and work-item ids a kernel body reads. */
function hardwareIdsUsed(body: Stmt): { gid: boolean; lid: boolean; subgroup: boolean } {
  const used = { gid: false, lid: false, subgroup: false };
  const expr = (e: Expr) =>
    E.walk(e, (x) => {
      if (x.kind === 'call' && isHardwareId(x)) used[x.fn as 'gid' | 'lid'] = true;
      if (x.kind === 'call' && Object.hasOwn(SUBGROUP_IDS, x.fn)) used.subgroup = true;
    });
  walkStmts(body, { expr });
  return used;
}

/** The dtypes of a matrix instruction's tiles. */
function matrixDTypes(op: Extract<Stmt, { kind: 'matrix' }>['op']): DType[] {
  const operands = op.kind === 'multiply' ? [op.a, op.b] : op.kind === 'store' ? [op.c] : [];
  return [op.accumulator.dtype, ...operands.map((o) => o.dtype)];
}

/** An affine bound written as loopy writes it, constant first: `-1 + n`. */
function affineFirst(e: Expr): Expr {
  const lin = E.toLinear(e);
  if (!lin || lin.isConstant) return e;
  const terms: Expr[] = [];
  if (lin.constant !== 0) terms.push(E.int(lin.constant));
  for (const [name, c] of lin.coeffs) {
    const v = E.variable(name);
    terms.push(c === 1 ? v : c === -1 ? E.neg(v) : E.mul(E.int(c), v));
  }
  return terms.slice(1).reduce((acc, t) => E.add(acc, t), terms[0]);
}
