/**
 * What a builder's kernel is made from — its domains and instructions (strings or
 * template fragments), the `makeKernel` options and the declared arguments — and the one
 * place that turns it into a core `LoopKernel`.
 *
 * The builder keeps the source so that `.args()` can rebuild the kernel with declared
 * arguments (the core takes them at construction) and replay the transformations.
 */
import {
  expr,
  makeKernel,
  parseExpression,
  globalArg,
  valueArg,
  tagVectorLanes,
  LoomError,
  type ArgSpec,
  type LoopKernel,
  type MakeKernelOptions,
  type TemporarySpec,
} from '@loom/core';
import { Fragment, shift, type DomainFragment, type InsnFragment, type Segment } from '../template/fragments.ts';
import { inTemplates } from '../template/errors.ts';
import type { ArgDecls } from '../signature/declared.ts';

export type DomainInput = string | DomainFragment;
export type InsnInput = string | InsnFragment;

export interface KernelSource {
  readonly domains: readonly DomainInput[];
  readonly instructions: readonly InsnInput[];
  readonly options: MakeKernelOptions;
  readonly declared?: ArgDecls;
  /** Temporaries declared with `temporaryVariable`. */
  readonly temporaries?: readonly TemporarySpec[];
}

/**
 * The texts the core reads, as fragments: each domain, and the instruction block (the
 * pieces joined by lines, as `makeKernel` joins a list). Errors are traced through these.
 */
export function fragmentsOf(source: KernelSource): Fragment[] {
  const domains = source.domains.filter((d): d is DomainFragment => d instanceof Fragment);
  let text = '';
  const segments: Segment[] = [];
  source.instructions.forEach((piece, k) => {
    if (k > 0) text += '\n';
    if (piece instanceof Fragment) segments.push(...shift(piece.segments, text.length));
    text += String(piece);
  });
  return [...domains, new Fragment('insn', text, segments)];
}

export function buildKernel(source: KernelSource): LoopKernel {
  const fragments = fragmentsOf(source);
  const domains = source.domains.map(String);
  const instructions = fragments[fragments.length - 1].text;
  return inTemplates(fragments, () => {
    const temporaries = source.temporaries ?? [];
    if (!source.declared)
      return makeKernel(
        domains,
        instructions,
        temporaries.length ? [...temporaries, '...'] : undefined,
        source.options,
      );
    const { specs, parameters } = declaredArgs(source.declared);
    let knl = makeKernel(domains, instructions, [...specs, ...temporaries, '...'], source.options);
    // a vector element type's lanes are the array's last axis, a vec axis
    for (const [name, decl] of Object.entries(source.declared))
      if (decl.kind === 'array' && decl.lanes) knl = tagVectorLanes(knl, name);
    checkDeclarations(knl, source.declared, parameters);
    return knl;
  });
}

/** The core's argument specs for declarations, and the parameters their shapes name. */
function declaredArgs(declared: ArgDecls): { specs: ArgSpec[]; parameters: Set<string> } {
  // core's argument list (globalArg(...), '...') is makeKernel's; here each name maps to a declaration
  if (Array.isArray(declared) || typeof declared !== 'object' || declared === null) {
    throw new LoomError(
      `kernel(): args must map each argument's name to its declaration ({ a: f32('n'), out: f32.out('n') }), not ${Array.isArray(declared) ? 'a list' : typeof declared}`,
    );
  }
  for (const [name, decl] of Object.entries(declared)) {
    if (typeof decl !== 'object' || decl === null || (decl.kind !== 'value' && decl.kind !== 'array')) {
      throw new LoomError(
        `kernel(): args.${name} must be a declaration (f32('n'), i32.out('m'), f32.value(), ...), got ${JSON.stringify(decl) ?? typeof decl}`,
      );
    }
  }
  const specs: ArgSpec[] = [];
  const parameters = new Set<string>();
  for (const [name, decl] of Object.entries(declared)) {
    if (decl.kind === 'value') {
      specs.push(valueArg(name, decl.dtype));
      continue;
    }
    const shape = decl.shape === 'auto' ? 'auto' : [...decl.shape];
    if (shape !== 'auto') {
      for (const entry of shape) {
        if (typeof entry === 'string') for (const n of expr.freeVariables(parseExpression(entry))) parameters.add(n);
      }
    }
    // a vector element type (f32x4('n')): its lanes are a last axis (tagged vec once the kernel is made)
    if (decl.lanes && shape === 'auto')
      throw new LoomError(
        `.args(): '${name}' has a vector element type: give its shape (the number of vectors along each axis)`,
      );
    const withLanes = decl.lanes && shape !== 'auto' ? [...shape, decl.lanes] : shape;
    specs.push(
      globalArg(name, {
        dtype: decl.dtype,
        shape: withLanes,
        isInput: decl.mode !== 'out',
        isOutput: decl.mode !== 'in',
      }),
    );
  }
  for (const name of Object.keys(declared)) parameters.delete(name);
  for (const p of parameters) specs.push(valueArg(p));
  return { specs, parameters };
}

/**
 * The declarations must be the whole truth, since the compiler trusts them: every
 * argument the kernel has is declared (or a parameter named in a declared shape), and
 * inputs are not written nor outputs left unwritten.
 */
function checkDeclarations(knl: LoopKernel, declared: ArgDecls, parameters: ReadonlySet<string>): void {
  const written = new Set(
    knl.instructions.flatMap((i) =>
      i.assignees.map((a) => (a.kind === 'subscript' ? a.array : a.kind === 'var' ? a.name : '')),
    ),
  );
  for (const arg of knl.args) {
    const decl = declared[arg.name];
    if (!decl && !parameters.has(arg.name)) {
      throw new LoomError(
        arg.kind === 'value'
          ? `.args(): the kernel's parameter '${arg.name}' is not declared: name it in a declared shape (f32('${arg.name}')) or declare it (${arg.name}: i32.value())`
          : `.args(): the kernel ${written.has(arg.name) ? 'writes' : 'reads'} the array '${arg.name}', which is not declared`,
      );
    }
    if (decl?.kind === 'array' && decl.mode === 'in' && written.has(arg.name)) {
      throw new LoomError(
        `.args(): '${arg.name}' is declared as an input, but the kernel writes it: declare it with .inout(...) (or .out(...))`,
      );
    }
    if (decl?.kind === 'array' && decl.mode !== 'in' && !written.has(arg.name)) {
      throw new LoomError(`.args(): '${arg.name}' is declared as an output, but the kernel never writes it`);
    }
  }
}
