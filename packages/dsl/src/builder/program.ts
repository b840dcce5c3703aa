/**
 * Programs in the DSL (loopy's translation units): a kernel, the entrypoint, and the kernels
 * it calls, each a builder of its own.
 *
 *   const twice = kernel('{ [i]: 0<=i<10 }', 'b[i] = 2*a[i]').args({ a: f32(10), b: f32.out(10) });
 *   const prog = kernel('{ [i, j]: 0<=i,j<10 }', '[j]: y[i, j] = twice([j]: x[j, i])')
 *     .args({ x: f32(10, 10), y: f32.out(10, 10) })
 *     .calls({ twice });                       // the key is the name the instructions call
 *
 * The compiler checks the calls it can read (call-checks.ts); making the program checks every
 * call again, with its real shapes and dtypes (core's `inferArgDescr` and inlining), and an
 * error points at the call in the source. A program builder is immutable, as a kernel builder
 * is: its verbs (`mapKernel`, `mapEntrypoints`, `inlineCallableKernel`) return a new one,
 * rebuilt from the builders it holds.
 */
import {
  forEachKernel,
  generateCode,
  getStatistics,
  inferArgDescr,
  inlineCallableKernel,
  LoomError,
  LoopKernel,
  Program,
  programKernel,
  renameCallable,
  run,
  type Callable,
  type Device,
  type KernelStatistics,
  type Target,
} from '@loom/core';
import type { Fragment } from '../template/fragments.ts';
import { inTemplates, pointIntoTemplates } from '../template/errors.ts';
import type { AnySignature, LooseSignature, Outputs, RunArgs, Simplify } from '../signature/signature.ts';
import type { KernelBuilder } from './builder.ts';
import type { Callee, Callees, SignatureOf } from './call-checks.ts';
import { BuilderCore, templateFragments } from './core.ts';
import type { StatsOptions } from './options.ts';
import type { RunParameters } from './typing.ts';
import { checkVerbOptions } from './verb-options.ts';

/** `R`, when its signature is `S`; else a sentence saying the signature must stay. */
type KeepsSignature<R, S> = [SignatureOf<R>] extends [S]
  ? [S] extends [SignatureOf<R>]
    ? unknown
    : 'mapKernel: the callee must keep its signature (the calls were checked against it)'
  : 'mapKernel: the callee must keep its signature (the calls were checked against it)';

/** A program: an entrypoint kernel (inames `I`, signature `S`) and the kernels `K` it calls, by name. */
export class ProgramBuilder<I extends string, S extends AnySignature, K extends Callees> {
  readonly #entry: KernelBuilder<I, S>;
  readonly #callees: K;
  readonly #fragments: readonly Fragment[];
  /** The core `Program`: the entrypoint and every kernel it calls, each under the name its calls use. */
  readonly program: Program;

  /** Program builders come from a kernel builder's `.calls()`; this is its machinery. */
  constructor(entry: KernelBuilder<I, S>, callees: K) {
    for (const [name, c] of Object.entries(callees) as [string, unknown][])
      if (!isCallee(c))
        throw new LoomError(
          `.calls(): '${name}' must be a kernel builder (kernel(...)) or a program builder (.calls(...)), not ${c instanceof LoopKernel ? 'a LoopKernel (merge it with @loom/core)' : typeof c}`,
        );
    this.#entry = entry;
    this.#callees = Object.freeze({ ...callees });
    this.#fragments = [entry, ...Object.values(callees)].flatMap((c) => ProgramBuilder.#fragmentsOf(c));
    this.program = inTemplates(this.#fragments, () => checkedProgram(entry.kernel, callees));
    Object.freeze(this);
  }

  static #fragmentsOf(c: Callee | KernelBuilder<string, AnySignature>): readonly Fragment[] {
    return c instanceof ProgramBuilder ? c.#fragments : templateFragments(c);
  }

  /** The name of the entrypoint kernel. */
  get name(): string {
    return this.#entry.kernel.name;
  }

  /**
   * `mapKernel`: the callee `name` transformed by its own builder's verbs. It keeps its
   * signature (the calls were checked against it).
   * ```ts
   * prog.mapKernel('twice', (twice) => twice.split('i', 2, { inner: 'unr' }));
   * ```
   */
  mapKernel<const N extends keyof K & string, R extends Callee>(
    name: N,
    f: (callee: K[N]) => R & KeepsSignature<R, SignatureOf<K[N]>>,
  ): ProgramBuilder<I, S, Simplify<Omit<K, N> & { readonly [_ in N]: R }>> {
    const before = this.#callees[name];
    if (before === undefined)
      throw new LoomError(
        `mapKernel: the program calls no kernel '${name}' (callees: ${Object.keys(this.#callees).join(', ') || 'none'})`,
      );
    const after = f(before);
    if (!isCallee(after)) throw new LoomError(`mapKernel: the function for '${name}' returned no builder`);
    return new ProgramBuilder(this.#entry, { ...this.#callees, [name]: after }) as unknown as ProgramBuilder<
      I,
      S,
      Simplify<Omit<K, N> & { readonly [_ in N]: R }>
    >;
  }

  /**
   * `mapEntrypoints`: the entrypoint transformed by its builder's verbs (loopy applies a
   * transformation of a program to its entrypoint); its calls are checked again.
   * ```ts
   * prog.mapEntrypoints((main) => main.split('i', 4, { outer: 'g.0', inner: 'l.0' }));
   * ```
   */
  mapEntrypoints<I2 extends string, S2 extends AnySignature>(
    f: (entry: KernelBuilder<I, S>) => KernelBuilder<I2, S2, unknown>,
  ): ProgramBuilder<I2, S2, K> {
    const after = f(this.#entry);
    if (!(after instanceof BuilderCore)) throw new LoomError('mapEntrypoints: the function returned no kernel builder');
    if (after.kernel.name !== this.name)
      throw new LoomError(`mapEntrypoints: kernel '${this.name}' came back named '${after.kernel.name}'`);
    return new ProgramBuilder(after as KernelBuilder<I2, S2>, this.#callees);
  }

  /**
   * `inlineCallableKernel`: the calls of `name` become its instructions in the entrypoint, which
   * then no longer calls it (the inlined inames are renamed apart, so the entrypoint's become loose).
   * ```ts
   * prog.inlineCallableKernel('twice').code(openclTarget());
   * ```
   */
  inlineCallableKernel<const N extends keyof K & string>(name: N): ProgramBuilder<string, S, Simplify<Omit<K, N>>> {
    const callee = this.#callees[name];
    if (callee === undefined) throw new LoomError(`inlineCallableKernel: the program calls no kernel '${name}'`);
    const knl = this.program.kernel(name);
    if (knl.instructions.some((i) => i.call))
      throw new LoomError(
        `inlineCallableKernel: '${name}' calls kernels of its own: inline those into it first (mapKernel('${name}', (p) => p.inlineCallableKernel(...)))`,
      );
    const entry = this.#entry.apply((k) =>
      inlineCallableKernel(
        new Program(
          new Map<string, Callable>([
            [k.name, k],
            [name, knl],
          ]),
          [k.name],
        ),
        name,
      ).kernel(k.name),
    );
    const { [name]: _, ...rest } = this.#callees;
    return new ProgramBuilder(entry, rest) as ProgramBuilder<string, S, Simplify<Omit<K, N>>>;
  }

  /**
   * `renameCallable`: the callee `from` is called `to`, in the entrypoint's calls too.
   * ```ts
   * prog.renameCallable('twice', 'double').mapKernel('double', (d) => d.tag({ i: 'unr' }));
   * ```
   */
  renameCallable<const From extends keyof K & string, const To extends string>(
    from: From,
    to: To,
  ): ProgramBuilder<I, S, Simplify<Omit<K, From> & { readonly [_ in To]: K[From] }>> {
    const callee = this.#callees[from];
    if (callee === undefined) throw new LoomError(`renameCallable: the program calls no kernel '${from}'`);
    if (to in this.#callees || to === this.name)
      throw new LoomError(`renameCallable: the program already has a kernel '${to}'`);
    const knl = this.program.kernel(from);
    // the entrypoint's inames stay: only its calls change
    const entry = this.#entry.apply((k) =>
      renameCallable(
        new Program(
          new Map<string, Callable>([
            [k.name, k],
            [from, knl],
          ]),
          [k.name],
        ),
        from,
        to,
      ).kernel(k.name),
    ) as unknown as KernelBuilder<I, S>;
    const { [from]: _, ...rest } = this.#callees;
    return new ProgramBuilder(entry, { ...rest, [to]: callee }) as unknown as ProgramBuilder<
      I,
      S,
      Simplify<Omit<K, From> & { readonly [_ in To]: K[From] }>
    >;
  }

  /**
   * `forEachKernel`: `f` with each kernel of the program and its name (the entrypoint's calls not inlined).
   * ```ts
   * prog.forEachKernel((knl, name) => console.log(name, knl.instructions.length));
   * ```
   */
  forEachKernel(f: (knl: LoopKernel, name: string) => void): void {
    forEachKernel(this.program, f);
  }

  /** The generated device code for `target`: the entrypoint with every call inlined. */
  code(target: Target): string {
    return inTemplates(this.#fragments, () => generateCode(this.program, target).code);
  }

  /** The program's statistics (`getStatistics`), counted on the entrypoint with its calls inlined. */
  stats(options: StatsOptions): KernelStatistics {
    checkVerbOptions('stats', options);
    return inTemplates(this.#fragments, () => getStatistics(this.program, options));
  }

  /** Runs the program on `device`, its arguments checked by the compiler against the entrypoint's signature. */
  async run<const G extends RunArgs<S>>(device: Device, ...[args]: RunParameters<S, G>): Promise<Outputs<S, G>> {
    try {
      return (await run(this.program, device, (args ?? {}) as RunArgs<LooseSignature>)) as Outputs<S, G>;
    } catch (error) {
      throw pointIntoTemplates(error, this.#fragments);
    }
  }

  /** Each kernel of the program in loopy's view, the entrypoint first. */
  toString(): string {
    const views: string[] = [];
    forEachKernel(this.program, (knl, name) => {
      views[name === this.name ? 'unshift' : 'push'](knl.toString());
    });
    return views.join('\n');
  }
}

function isCallee(x: unknown): x is Callee {
  return x instanceof BuilderCore || x instanceof ProgramBuilder;
}

/** The program of `entry` and `callees`, each call checked against its callee. */
function checkedProgram(entry: LoopKernel, callees: Callees): Program {
  const callables = new Map<string, Callable>([[entry.name, entry]]);
  const add = (name: string, c: Callable) => {
    const there = callables.get(name);
    if (there !== undefined && there !== c)
      throw new LoomError(
        name === entry.name
          ? `.calls(): '${name}' is the calling kernel's own name: give the callee another`
          : `.calls(): two different kernels are named '${name}'`,
      );
    callables.set(name, c);
  };
  for (const [name, c] of Object.entries(callees)) {
    // the key is what the instructions call, and then the callee kernel's name
    if (!/^[A-Za-z_]\w*$/.test(name))
      throw new LoomError(`.calls(): ${JSON.stringify(name)} is not a name, which instructions could call`);
    if (c instanceof ProgramBuilder) {
      const inner = c.program;
      const main = inner.defaultEntrypoint;
      for (const [n, k] of inner.callables) if (n !== main.name) add(n, k);
      add(name, main.name === name ? main : main.with({ name }));
    } else {
      add(name, c.kernel.name === name ? c.kernel : c.kernel.with({ name }));
    }
  }
  for (const [, k] of callables) {
    if (!(k instanceof LoopKernel)) continue;
    for (const insn of k.instructions) {
      const callee = insn.call?.callee;
      if (callee !== undefined && !callables.has(callee))
        throw new LoomError(
          `kernel '${k.name}' calls '${callee}', which .calls() was not given: pass its kernel (.calls({ ${callee} }))`,
          insn.span,
        );
    }
  }
  const program = inferArgDescr(new Program(callables, [entry.name]));
  programKernel(program);
  return program;
}
