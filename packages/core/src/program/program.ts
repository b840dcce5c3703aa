/**
 * A program (loopy's `TranslationUnit`): named callables — kernels and user functions — some of
 * whose kernels are entrypoints, the ones a program is run or compiled as. A kernel calls
 * another with loopy's call syntax (`[j]: y[j] = f([j]: x[j])`, an instruction of kind `call`);
 * callees are inlined into their callers before anything else (inline.ts, resolve.ts).
 *
 * A `LoopKernel` is usable wherever a program of one entrypoint is (`asProgram`): `merge`
 * takes both, and `run`/`generateCode` take either.
 */
import { LoomError } from '../errors.ts';
import { checkName } from '../names.ts';
import { call, type Expr } from '../expr/nodes.ts';
import { frozenField } from '../kernel/freeze.ts';
import { LoopKernel } from '../kernel/model.ts';
import type { UserFunction } from '../functions/user-functions.ts';
import { makeKernel, type MakeKernelOptions } from '../frontend/make-kernel.ts';
import type { ArgListInput } from '../frontend/arg-spellings.ts';
import type { InstructionSpec } from '../frontend/instruction-specs.ts';

/** What a program holds by name: a kernel, or a user function (functions/). */
export type Callable = LoopKernel | UserFunction;

/** A program of callables, some kernels of which are entrypoints. Immutable. */
export class Program {
  /** Every callable, by the name calls use. */
  readonly callables: ReadonlyMap<string, Callable>;
  /** The names of the kernels the program is run or compiled as. */
  readonly entrypoints: readonly string[];

  constructor(callables: ReadonlyMap<string, Callable>, entrypoints: readonly string[]) {
    for (const e of entrypoints)
      if (!(callables.get(e) instanceof LoopKernel))
        throw new LoomError(`entrypoint '${e}' is not a kernel of the program`);
    for (const [name, c] of callables)
      if (c instanceof LoopKernel && c.name !== name)
        throw new LoomError(`the program holds kernel '${c.name}' under the name '${name}'`);
    this.callables = frozenField(new Map(callables));
    this.entrypoints = frozenField([...entrypoints]);
    Object.freeze(this);
  }

  /** The kernel called `name`; a `LoomError` when the program has none. */
  kernel(name: string): LoopKernel {
    const k = this.callables.get(name);
    if (!(k instanceof LoopKernel))
      throw new LoomError(`the program has no kernel '${name}' (kernels: ${kernelNames(this).join(', ') || 'none'})`);
    return k;
  }

  /** The one entrypoint (loopy's `default_entrypoint`); a `LoomError` when there are none or several. */
  get defaultEntrypoint(): LoopKernel {
    if (this.entrypoints.length !== 1)
      throw new LoomError(
        `the program has ${this.entrypoints.length ? `several entrypoints (${this.entrypoints.join(', ')})` : 'no entrypoint'}: name the kernel (programKernel(prog, name))`,
      );
    return this.kernel(this.entrypoints[0]);
  }
}

function kernelNames(prog: Program): string[] {
  return [...prog.callables].filter(([, c]) => c instanceof LoopKernel).map(([n]) => n);
}

/** A kernel as a program of one entrypoint; a program as it is. */
export function asProgram(p: LoopKernel | Program): Program {
  if (p instanceof Program) return p;
  return new Program(new Map([[p.name, p]]), [p.name]);
}

/**
 * A kernel other kernels call (loopy's `make_function`): a program holding it, not as an
 * entrypoint. Its array arguments are matched to a call's sub-array references in the order of
 * its arguments: inputs to the call's arguments, outputs to its results.
 * ```ts
 * const twice = makeFunction('{ [i]: 0<=i<10 }', 'b[i] = 2*a[i]', { name: 'twice' });
 * const prog = merge([makeKernel('{ [i]: 0<=i<10 }', '[i]: y[i] = twice([i]: x[i])'), twice]);
 * ```
 */
export function makeFunction(
  domains: string | readonly string[],
  instructions: string | readonly (string | InstructionSpec)[],
  args?: ArgListInput | MakeKernelOptions,
  options?: MakeKernelOptions,
): Program {
  const knl = makeKernel(domains, instructions, args, options);
  return new Program(new Map([[knl.name, knl]]), []);
}

/**
 * One program of several (loopy's `merge`): every callable of each, the entrypoints of all. A
 * name two of them give to different callables is an error.
 * ```ts
 * const prog = merge([caller, callee]);
 * ```
 */
export function merge(programs: readonly (LoopKernel | Program)[]): Program {
  const callables = new Map<string, Callable>();
  const entrypoints: string[] = [];
  for (const p of programs.map(asProgram)) {
    for (const [name, c] of p.callables) {
      const there = callables.get(name);
      if (there !== undefined && there !== c)
        throw new LoomError(`merge: two different callables are named '${name}' (renameCallable one of them)`);
      callables.set(name, c);
    }
    for (const e of p.entrypoints) if (!entrypoints.includes(e)) entrypoints.push(e);
  }
  return new Program(callables, entrypoints);
}

/**
 * The program with `callable` under `name` (loopy's `register_callable`): a kernel becomes
 * callable by that name, a user function callable from every kernel of the program.
 * ```ts
 * prog = registerCallable(prog, 'log2', defineFunction({ name: 'log2', ... }));
 * ```
 */
export function registerCallable(prog: LoopKernel | Program, name: string, callable: Callable): Program {
  const p = asProgram(prog);
  if (callable instanceof LoopKernel && callable.name !== name) callable = callable.with({ name });
  if (!(callable instanceof LoopKernel) && callable.name !== name)
    throw new LoomError(`registerCallable: the user function is named '${callable.name}', not '${name}'`);
  const there = p.callables.get(name);
  if (there !== undefined && there !== callable)
    throw new LoomError(`registerCallable: the program already has a callable named '${name}'`);
  return new Program(new Map([...p.callables, [name, callable]]), p.entrypoints);
}

/**
 * The program with the callable `from` named `to`, every call of it renamed (loopy's `rename_callable`).
 * ```ts
 * prog = renameCallable(prog, 'twice', 'double');
 * ```
 */
export function renameCallable(prog: LoopKernel | Program, from: string, to: string): Program {
  const p = asProgram(prog);
  // the new name becomes a kernel's name in the generated code
  checkName(to, 'renameCallable: the new name');
  const c = p.callables.get(from);
  if (c === undefined) throw new LoomError(`renameCallable: the program has no callable '${from}'`);
  if (p.callables.has(to)) throw new LoomError(`renameCallable: the program already has a callable '${to}'`);
  if (!(c instanceof LoopKernel))
    throw new LoomError(`renameCallable: '${from}' is a user function, whose name is its own (defineFunction)`);
  const callables = new Map<string, Callable>();
  for (const [name, k] of p.callables) {
    const renamed = k instanceof LoopKernel ? renameCalls(name === from ? k.with({ name: to }) : k, from, to) : k;
    callables.set(name === from ? to : name, renamed);
  }
  return new Program(
    callables,
    p.entrypoints.map((e) => (e === from ? to : e)),
  );
}

function renameCalls(knl: LoopKernel, from: string, to: string): LoopKernel {
  if (!knl.instructions.some((i) => i.call?.callee === from)) return knl;
  const instructions = knl.instructions.map((insn) => {
    if (insn.call?.callee !== from) return insn;
    const e = insn.expression as Extract<Expr, { kind: 'call' }>;
    return { ...insn, call: { ...insn.call, callee: to }, expression: call(to, e.args) };
  });
  return knl.with({ instructions });
}

/**
 * Calls `f` with each kernel of the program and its name (loopy's iteration over a
 * translation unit's callables).
 * ```ts
 * forEachKernel(prog, (knl, name) => console.log(name, knl.instructions.length));
 * ```
 */
export function forEachKernel(prog: LoopKernel | Program, f: (knl: LoopKernel, name: string) => void): void {
  for (const [name, c] of asProgram(prog).callables) if (c instanceof LoopKernel) f(c, name);
}

/**
 * The program with its kernel `name` transformed: how a transformation of one kernel
 * (`splitIname`, `tagInames`, ...) applies to a kernel of a program.
 * ```ts
 * prog = mapKernel(prog, 'linear_combo', (knl) => splitIname(knl, 'i', 4, { innerTag: 'l.0' }));
 * ```
 */
export function mapKernel(prog: LoopKernel | Program, name: string, f: (knl: LoopKernel) => LoopKernel): Program {
  const p = asProgram(prog);
  const before = p.kernel(name);
  const after = f(before);
  if (!(after instanceof LoopKernel)) throw new LoomError(`mapKernel: the function for '${name}' returned no kernel`);
  if (after.name !== name)
    throw new LoomError(`mapKernel: kernel '${name}' came back named '${after.name}' (renameCallable renames it)`);
  return new Program(new Map([...p.callables, [name, after]]), p.entrypoints);
}

/** Calls `f` on the program's one entrypoint, or on the kernel itself (how a kernel-level option reaches a program). */
export function mapEntrypoints(prog: LoopKernel | Program, f: (knl: LoopKernel) => LoopKernel): Program {
  const p = asProgram(prog);
  const callables = new Map(p.callables);
  for (const e of p.entrypoints) callables.set(e, f(p.kernel(e)));
  return new Program(callables, p.entrypoints);
}
