/**
 * `kernel(domains, instructions, options?)`: where a builder starts.
 *
 *   const double = kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]')
 *   const { out } = await double.split('i', 128, { outer: 'g.0', inner: 'l.0' }).run(device, { a })
 */
import { KernelBuilder } from './builder.ts';
import type { KernelBuilderOptions } from './options.ts';
import { checkVerbOptions } from './verb-options.ts';
import { buildKernel, type DomainInput, type InsnInput, type KernelSource } from './source.ts';
import type { BuilderFor } from './typing.ts';
import type { ArgDecls } from '../signature/arg-decls.ts';

/** The domains `kernel` takes: one or several. */
export type Domains = DomainInput | readonly DomainInput[];
/** The instructions `kernel` takes: one or several. */
export type Instructions = InsnInput | readonly InsnInput[];

/**
 * A kernel from its loop domains (ISL syntax) and instructions (loopy's textual syntax),
 * as strings, `domain`/`insn` templates, or lists of them.
 */
export function kernel<
  const D extends Domains,
  const X extends Instructions,
  const Name extends string = string,
  const A extends ArgDecls = never,
>(domains: D, instructions: X, options: KernelBuilderOptions<Name, A> = {}): BuilderFor<D, X, Name, A> {
  const list = <T>(x: T | readonly T[]): readonly T[] => (Array.isArray(x) ? x : [x as T]);
  checkVerbOptions('kernel', options);
  const { args, temporaries, ...makeOptions } = options;
  const source: KernelSource = {
    domains: list<DomainInput>(domains),
    instructions: list<InsnInput>(instructions),
    options: makeOptions,
    declared: args,
    ...(temporaries ? { temporaries } : {}),
  };
  return new KernelBuilder(source, [], buildKernel(source)) as BuilderFor<D, X, Name, A>;
}
