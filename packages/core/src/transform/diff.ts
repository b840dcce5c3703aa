/**
 * `diffKernel(knl, 'z', 'x')`: forward differentiation of a kernel (loopy's `diff_kernel`).
 * The derivative of each output by every element of the argument `by` is a new array,
 * `z_dx[..., k]`: the output's axes followed by `by`'s, over new loops `diff_i0, ...` (one per
 * axis of `by`). Each variable the output depends on gets its derivative the same way, written
 * next to the original's writer, through the chain rule (transform/diff-expr.ts). The new
 * kernel holds the derivative instructions and the original instructions they read values of;
 * the others (the outputs' own writers, unless `copyOutputs` names them) are left out.
 */
import { LoomError } from '../errors.ts';
import { nameList } from '../names.ts';
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { freeVariables, printExpr } from '../expr/index.ts';
import {
  compare,
  type Expr,
  float,
  ifThenElse,
  logical,
  subscript,
  variable,
  type Subscript,
  type Var,
} from '../expr/nodes.ts';
import { expandSubstitutions, forEachSubscript, writerMap } from '../kernel/accesses.ts';
import { takenNames } from '../kernel/arg-layouts.ts';
import type { Instruction, KernelArg, LoopKernel, TemporaryVariable } from '../kernel/model.ts';
import { uniqueName } from '../kernel/rename.ts';
import { BasicSet } from '../sets/index.ts';
import { type Derivative, differentiate } from './diff-expr.ts';

/** Options of `diffKernel`. */
export interface DiffKernelOptions {
  /** The new loops over `by`'s axes are named this followed by the axis (default `diff_i`: `diff_i0`, ...). */
  readonly diffInamePrefix?: string;
  /** Outputs whose original values the new kernel computes too (their writers are kept). */
  readonly copyOutputs?: string | readonly string[];
}

const KEYS = optionKeys<DiffKernelOptions>()(['diffInamePrefix', 'copyOutputs']);

/**
 * The derivatives of `diffOutputs` (names, or one comma-separated string) by the argument
 * `by`, and the name of each output's derivative (loopy's return value, with every output's
 * derivative named). `z_dx[i, k]` is dz[i]/dx[k]; a variable written in more than one place,
 * an output that does not depend on `by`, and a function or reduction without a known
 * derivative are `LoomError`s.
 * ```ts
 * const knl = makeKernel('{[i]: 0<=i<n}', 'z[i] = sin(x[i])*y[i]');
 * const [dknl, names] = diffKernel(knl, 'z', 'x');   // names.get('z') === 'z_dx'
 * const { z_dx } = await run(removeUnusedArguments(dknl), device, { x, y });   // n x n
 * ```
 */
export function diffKernel(
  knl: LoopKernel,
  diffOutputs: string | readonly string[],
  by: string,
  options: DiffKernelOptions = {},
): readonly [LoopKernel, ReadonlyMap<string, string>] {
  checkOptionKeys('diffKernel', options, KEYS);
  const byArg = knl.arg(by);
  if (!byArg)
    throw new LoomError(
      `diffKernel: '${by}' is not an argument of kernel '${knl.name}' (arguments: ${knl.args.map((a) => a.name).join(', ')})`,
    );
  const context = new DiffContext(knl, by, byArg.shape ?? [], options.diffInamePrefix ?? 'diff_i');
  const names = new Map<string, string>();
  for (const output of nameList(diffOutputs)) {
    if (!context.writers.has(output))
      throw new LoomError(`diffKernel: no instruction of kernel '${knl.name}' writes '${output}'`);
    const name = context.derivativeOf(output);
    if (name === null) throw new LoomError(`diffKernel: '${output}' does not depend on '${by}'`);
    names.set(output, name);
  }
  for (const output of nameList(options.copyOutputs ?? [])) {
    const writers = context.writers.get(output);
    if (!writers) throw new LoomError(`diffKernel: copyOutputs: no instruction writes '${output}'`);
    for (const id of writers) context.importInstruction(id);
  }
  return Object.freeze([context.kernel(), names] as const);
}

class DiffContext {
  readonly writers: Map<string, string[]>;
  private readonly taken: Set<string>;
  /** Each variable's derivative (null: it does not depend on `by`). */
  private readonly derivatives = new Map<string, string | null>();
  private readonly inProgress = new Set<string>();
  private readonly imported = new Set<string>();
  private readonly instructions: Instruction[] = [];
  private readonly args: KernelArg[] = [];
  private readonly temporaries = new Map<string, TemporaryVariable>();
  private readonly domains: BasicSet[] = [];
  /** The writer of each derivative, by the derivative's name. */
  private readonly writerOf = new Map<string, string>();

  constructor(
    private readonly knl: LoopKernel,
    private readonly by: string,
    private readonly byShape: readonly Expr[],
    private readonly prefix: string,
  ) {
    this.writers = writerMap(knl);
    this.taken = new Set([...takenNames(knl), ...knl.instructions.map((i) => i.id)]);
  }

  private fresh(base: string): string {
    const name = uniqueName(base, this.taken);
    this.taken.add(name);
    return name;
  }

  /** The name of `name`'s derivative, written by a new instruction; null where it is zero. */
  derivativeOf(name: string): string | null {
    const known = this.derivatives.get(name);
    if (known !== undefined) return known;
    const writers = this.writers.get(name) ?? [];
    if (writers.length === 0) return null;
    if (writers.length > 1)
      throw new LoomError(
        `diffKernel: '${name}' is written in more than one place (${writers.join(', ')}); its derivative is not one expression`,
      );
    if (this.inProgress.has(name))
      throw new LoomError(`diffKernel: '${name}' is computed from its own value; its derivative is not one expression`);
    const insn = this.knl.instruction(writers[0]);
    if (insn.kind !== 'assign' || insn.assignees.length !== 1 || !insn.expression)
      throw new LoomError(
        `diffKernel: '${name}' is written by instruction '${insn.id}', which is not a single assignment; only those are differentiated`,
      );
    const assignee = insn.assignees[0];
    if (assignee.kind === 'subscript' && assignee.linear)
      throw new LoomError(`diffKernel: '${name}' is written through a linear index (${printExpr(assignee)})`);
    this.inProgress.add(name);
    const inames = this.byShape.map((_, axis) => this.fresh(`${this.prefix}${axis}`));
    let value: Derivative;
    try {
      value = differentiate(expandSubstitutions(insn.expression, this.knl.substitutions), (e) => this.leaf(e, inames));
    } finally {
      this.inProgress.delete(name);
    }
    if (value === null) {
      this.derivatives.set(name, null);
      return null;
    }
    const derivative = this.fresh(`${name}_d${this.by}`);
    this.declare(name, derivative);
    this.domains.push(this.domainOf(inames));
    const indices = [...(assignee.kind === 'subscript' ? assignee.indices : []), ...inames.map(variable)];
    const id = this.fresh(`${insn.id}_d${this.by}`);
    this.instructions.push({
      ...insn,
      id,
      assignees: [indices.length === 0 ? variable(derivative) : subscript(derivative, indices)],
      expression: value,
      withinInames: [...insn.withinInames, ...inames],
      dependsOn: [],
      noSyncWith: [],
      tags: [],
      groups: [],
      conflictsWithGroups: [],
      atomic: false,
    });
    this.writerOf.set(derivative, id);
    this.derivatives.set(name, derivative);
    return derivative;
  }

  /** The derivative of a variable or an element, in the loops `inames` over `by`'s axes. */
  private leaf(e: Var | Subscript, inames: readonly string[]): Derivative {
    const name = e.kind === 'var' ? e.name : e.array;
    if (name === this.by) {
      const indices = e.kind === 'subscript' && !e.linear ? e.indices : [];
      if (e.kind === 'var' ? inames.length > 0 : e.linear || indices.length !== inames.length)
        throw new LoomError(
          `diffKernel: '${printExpr(e)}' does not index each of the ${inames.length} axes of '${this.by}'`,
        );
      if (inames.length === 0) return float(1);
      const same = indices
        .map((index, axis): Expr => compare('==', variable(inames[axis]), index))
        .reduce((a, b) => logical('and', a, b));
      return ifThenElse(same, float(1), float(0));
    }
    if (e.kind === 'subscript' && e.linear && this.writers.has(name))
      throw new LoomError(
        `diffKernel: '${printExpr(e)}' is read through a linear index; its derivative has other axes`,
      );
    const derivative = this.derivativeOf(name);
    if (derivative === null) return null;
    const indices = [...(e.kind === 'subscript' ? e.indices : []), ...inames.map(variable)];
    return indices.length === 0 ? variable(derivative) : subscript(derivative, indices);
  }

  /** The derivative's declaration: `name`'s, with `by`'s axes after its own. */
  private declare(name: string, derivative: string): void {
    const arg = this.knl.arg(name);
    if (arg) {
      this.args.push({
        name: derivative,
        kind: 'global',
        dtype: arg.dtype,
        shape: [...(arg.shape ?? []), ...this.byShape],
        isInput: false,
        isOutput: true,
        forAtomic: false,
      });
      return;
    }
    const temp = this.knl.temporaries.get(name);
    if (!temp) throw new LoomError(`diffKernel: '${name}' is neither an argument nor a temporary`);
    const variableAxes = this.byShape.filter((s) => s.kind !== 'int');
    if (variableAxes.length > 0)
      throw new LoomError(
        `diffKernel: the derivative of temporary '${name}' by '${this.by}' has ${this.by}'s axes, of lengths (${this.byShape.map(printExpr).join(', ')}); a temporary's lengths are constants: fix the parameters first (fixParameters)`,
      );
    this.temporaries.set(derivative, {
      name: derivative,
      dtype: temp.dtype,
      shape: [...temp.shape, ...this.byShape],
      addressSpace: temp.addressSpace,
    });
  }

  private domainOf(inames: readonly string[]): BasicSet {
    const params = [...new Set(this.byShape.flatMap((s) => [...freeVariables(s)]))];
    const bounds = inames.map((n, axis) => `0 <= ${n} < ${printExpr(this.byShape[axis])}`).join(' and ');
    return BasicSet.parse(
      `${params.length ? `[${params.join(', ')}] -> ` : ''}{[${inames.join(', ')}]${bounds ? `: ${bounds}` : ''}}`,
    );
  }

  /** Keeps an original instruction, and those it depends on. */
  importInstruction(id: string): void {
    if (this.imported.has(id)) return;
    this.imported.add(id);
    for (const dep of this.knl.instruction(id).dependsOn) this.importInstruction(dep);
  }

  /** The new kernel: the derivatives' instructions, each after the writers of what it reads. */
  kernel(): LoopKernel {
    const instructions = this.instructions.map((insn) => {
      const read = new Set<string>();
      for (const e of [insn.expression!, ...insn.predicates, ...insn.assignees.flatMap(indicesOf)]) {
        for (const n of freeVariables(e)) read.add(n);
        forEachSubscript(e, (s) => read.add(s.array));
      }
      const dependsOn = new Set<string>();
      for (const name of read) {
        const derivativeWriter = this.writerOf.get(name);
        if (derivativeWriter !== undefined) dependsOn.add(derivativeWriter);
        for (const id of this.writers.get(name) ?? []) {
          this.importInstruction(id);
          dependsOn.add(id);
        }
      }
      dependsOn.delete(insn.id);
      return { ...insn, dependsOn: [...dependsOn] };
    });
    const kept = this.knl.instructions.filter((insn) => this.imported.has(insn.id));
    return this.knl.with({
      instructions: [...kept, ...instructions],
      args: [...this.knl.args, ...this.args],
      temporaries: new Map([...this.knl.temporaries, ...this.temporaries]),
      domains: [...this.knl.domains, ...this.domains],
    });
  }
}

const indicesOf = (a: Expr): readonly Expr[] => (a.kind === 'subscript' ? a.indices : []);
