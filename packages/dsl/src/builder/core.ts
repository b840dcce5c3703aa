/**
 * The base of the builder: a kernel, the source it was built from, and the steps applied
 * so far; declaring arguments, code generation, running. The verbs live in the layers
 * above it, one file per group (iname-verbs.ts, rule-verbs.ts, builder.ts), each calling
 * the core function of the same meaning through `derive`.
 *
 * Builders are immutable: `derive` applies one more step and returns a new builder of
 * the most derived class (`KernelBuilder`), typed by the verb with the inames `I2` and the
 * signature `S2` the step leaves.
 */
import {
  LoomError,
  applySchedule,
  autoSchedule,
  type AutoScheduleOptions,
  type AutoScheduleResult,
  generateCode,
  getDotDependencyGraph,
  getStatistics,
  type DotDependencyGraphOptions,
  run,
  type Device,
  type KernelStatistics,
  type LoopKernel,
  type Target,
} from '@loom/core';
import { anyDevice } from '../any-device.ts';
import type { Fragment } from '../template/fragments.ts';
import { inTemplates, pointIntoTemplates } from '../template/errors.ts';
import type { ArgDecls, DeclaredSignature } from '../signature/declared.ts';
import type { AnySignature, LooseSignature, Outputs, RunArgs } from '../signature/signature.ts';
import { buildKernel, fragmentsOf, type KernelSource } from './source.ts';
import type { KernelBuilder } from './builder.ts';
import type { StatsOptions } from './options.ts';
import type { Callees, CheckedCallees } from './call-checks.ts';
import { ProgramBuilder } from './program.ts';
import { checkVerbOptions } from './verb-options.ts';
import type { RunParameters } from './typing.ts';

export type Step = (knl: LoopKernel) => LoopKernel;

/** The CPU device (`@loom/codegen-js`), or undefined where that package is not installed. */
async function cpuDeviceIfInstalled(): Promise<Device | undefined> {
  try {
    return await anyDevice({ prefer: ['cpu'] });
  } catch (error) {
    if (error instanceof LoomError) return undefined;
    throw error;
  }
}

type BuilderClass = new (
  source: KernelSource,
  steps: readonly Step[],
  knl: LoopKernel,
) => KernelBuilder<string, AnySignature, unknown>;

/** The template fragments a builder was written with (for the program builder's error positions). */
export let templateFragments: (b: BuilderCore<string, AnySignature, unknown>) => readonly Fragment[];

export class BuilderCore<I extends string, S extends AnySignature, C = never> {
  static {
    templateFragments = (b) => b.#fragments;
  }

  readonly #source: KernelSource;
  readonly #steps: readonly Step[];
  readonly #fragments: readonly Fragment[];
  /** The core `LoopKernel` this builder stands for. */
  readonly kernel: LoopKernel;

  /** Builders come from `kernel()`; this is its machinery. */
  constructor(source: KernelSource, steps: readonly Step[], knl: LoopKernel) {
    this.#source = source;
    this.#steps = steps;
    this.#fragments = fragmentsOf(source);
    this.kernel = knl;
    Object.freeze(this);
  }

  /** The kernel's inames, in order of first appearance. */
  get inames(): readonly I[] {
    return this.kernel.inames as I[];
  }

  /**
   * Declares the arguments: `.args({ a: f32('n'), out: f32.out('n') })`. The kernel is
   * rebuilt from its text with these declarations and the transformations so far are
   * replayed; from here on `run` is typed by them.
   */
  args<const D extends ArgDecls>(declarations: D): KernelBuilder<I, DeclaredSignature<D>, C> {
    const source = { ...this.#source, declared: declarations };
    const replayed = inTemplates(fragmentsOf(source), () =>
      this.#steps.reduce((k, step) => step(k), buildKernel(source)),
    );
    return new (this.constructor as BuilderClass)(source, this.#steps, replayed) as unknown as KernelBuilder<
      I,
      DeclaredSignature<D>,
      C
    >;
  }

  /**
   * The kernels this one calls, each under the name its instructions call it by: a program
   * (loopy's translation unit) whose entrypoint is this kernel. The compiler checks each call
   * it can read against the callee's signature (how many arguments and results, their
   * dtypes, no result written to an input), and making the program checks every call again.
   * ```ts
   * const twice = kernel('{ [i]: 0<=i<10 }', 'b[i] = 2*a[i]').args({ a: f32(10), b: f32.out(10) });
   * const prog = kernel('{ [i, j]: 0<=i,j<10 }', '[j]: y[i, j] = twice([j]: x[j, i])')
   *   .args({ x: f32(10, 10), y: f32.out(10, 10) })
   *   .calls({ twice });
   * ```
   */
  calls<const K extends Callees>(callees: K & CheckedCallees<K, S, C>): ProgramBuilder<I, S, K> {
    if (typeof callees !== 'object' || callees === null || Array.isArray(callees))
      throw new LoomError('.calls(): pass the callees by name (.calls({ twice }))');
    return new ProgramBuilder(this as unknown as KernelBuilder<I, S>, callees as unknown as K);
  }

  /** Any other core transformation; the builder cannot know what it does to inames, so they become loose. */
  apply(transform: (knl: LoopKernel) => LoopKernel): KernelBuilder<string, S> {
    return this.derive(transform);
  }

  // ---- using the kernel ----

  /** The generated device code for `target` (dtypes must be known: `.dtypes()` or `.args()`). */
  code(target: Target): string {
    return inTemplates(this.#fragments, () => generateCode(this.kernel, target).code);
  }

  /**
   * The kernel's statistics (`getStatistics`: loopy's `get_op_map`, `get_mem_access_map`,
   * `get_synchronization_map` at once): counts as polynomials in the parameters, e.g.
   * `.stats({ subgroupSize: 32 }).ops.filterBy({ dtype: ['float32'] }).evalAndSum({ n: 1024 })`.
   * Dtypes must be known (`.dtypes()` or `.args()`).
   */
  stats(options: StatsOptions): KernelStatistics {
    checkVerbOptions('stats', options);
    return inTemplates(this.#fragments, () => getStatistics(this.kernel, options));
  }

  /**
   * Runs on `device`. The arguments are checked by the compiler against the signature:
   * required inputs present, names known, element types right; outputs come back typed.
   */
  async run<const G extends RunArgs<S>>(device: Device, ...[args]: RunParameters<S, G>): Promise<Outputs<S, G>> {
    try {
      return (await run(this.kernel, device, (args ?? {}) as RunArgs<LooseSignature>)) as Outputs<S, G>;
    } catch (error) {
      throw pointIntoTemplates(error, this.#fragments);
    }
  }

  /**
   * `autoSchedule`: searches transformations of this kernel for the fastest on `device`
   * (candidates ranked by a cost model, the best few checked against the kernel as written on
   * the CPU device by default, then measured) and resolves to
   * the best as a builder, with the builder code that reproduces it (`script`).
   * ```ts
   * const { kernel: fast, script } = await matmul.autoSchedule(device, { sizes: { n: 1024 }, budget: 30 });
   * console.log(script); // .split('j', 64, { outer: 'g.0', inner: 'l.0' }) ...
   * ```
   */
  async autoSchedule(
    device: Device,
    options: AutoScheduleOptions = {},
  ): Promise<Omit<AutoScheduleResult, 'kernel'> & { readonly kernel: KernelBuilder<string, S> }> {
    // the candidates are checked against the kernel as written on the CPU device, where it is installed
    const check = options.checkDevice ?? (await cpuDeviceIfInstalled());
    try {
      const result = await autoSchedule(this.kernel, device, { ...options, checkDevice: check ?? device });
      return { ...result, kernel: this.derive((k) => applySchedule(k, result.steps)) };
    } catch (error) {
      throw pointIntoTemplates(error, this.#fragments);
    } finally {
      if (!options.checkDevice) check?.dispose();
    }
  }

  /**
   * The dependency graph as Graphviz DOT text (`getDotDependencyGraph`, loopy's
   * `get_dot_dependency_graph`): instructions as boxes, dependencies as arrows, loops as
   * clusters where the kernel linearizes. `npx loom graph FILE` draws it as SVG.
   * ```ts
   * kernel('{ [i]: 0<=i<n }', '<> t = 2*a[i]\nout[i] = t')
   *   .args({ a: f32('n'), out: f32.out('n') })
   *   .dotDependencyGraph(); // 'digraph "loopy_kernel" { ... subgraph "cluster_i" { label="i" ... }'
   * ```
   */
  dotDependencyGraph(options?: DotDependencyGraphOptions): string {
    return inTemplates(this.#fragments, () => getDotDependencyGraph(this.kernel, options));
  }

  /** loopy's kernel view: arguments, domains, inames, temporaries, instructions. */
  toString(): string {
    return this.kernel.toString();
  }

  /** One more step: errors point into the templates the kernel was written with. */
  protected derive<I2 extends string = I, S2 extends AnySignature = S, C2 = never>(
    step: Step,
  ): KernelBuilder<I2, S2, C2> {
    const next = inTemplates(this.#fragments, () => step(this.kernel));
    return new (this.constructor as BuilderClass)(
      this.#source,
      [...this.#steps, step],
      next,
    ) as unknown as KernelBuilder<I2, S2, C2>;
  }
}
