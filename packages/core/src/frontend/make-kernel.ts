/**
 * `makeKernel`: from loopy's textual kernel description to a `LoopKernel`.
 *
 *   makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]')
 *
 * Reads the domains and instructions, then infers what was not said: which names
 * are arrays, values, temporaries; what is read and written; instruction ids;
 * the loops each instruction lives in; dependencies; array shapes.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { isDType } from '../dtypes.ts';
import { LoomError } from '../errors.ts';
import { checkName } from '../names.ts';
import type { Expr } from '../expr/nodes.ts';
import { freeVariables, parseExpression, walk } from '../expr/index.ts';
import { BasicSet } from '../sets/index.ts';
import { allAccesses, assigneeName, readExpressions } from '../kernel/accesses.ts';
import { checkAtomicFetches } from '../check/atomic-fetches.ts';
import { resolveDependencies } from '../kernel/dependencies.ts';
import { inferWithinInames } from './infer-inames.ts';
import { expandAssigneeRuleCalls, resolveBareRuleCalls } from './bare-rule-calls.ts';
import { inferShape } from './infer-shapes.ts';
import {
  DEFAULT_OPTIONS,
  type IndexDType,
  type Preamble,
  LoopKernel,
  sweptInames,
  type Instruction,
  type SubstitutionRule,
  type TemporaryVariable,
} from '../kernel/model.ts';
import { parseInstructions, type ParsedInstruction, type ParsedInstructions } from './parse-instructions.ts';
import type { InstructionSpec } from './instruction-specs.ts';
import { expandTuples } from './tuples.ts';
import { expandRandom123Calls } from './random123-calls.ts';
import { duplicateInamesAsWritten } from '../transform/duplicate-inames.ts';
import { fixParameters } from '../transform/fix-parameters.ts';
import { tagVectorLanes } from '../transform/tag-array-axes.ts';
import { vectorArray, vectorDType } from '../vector-dtypes.ts';
import { isStructDType } from '../structs/struct-dtype.ts';
import { resolveStructFields, structArgument, structNames } from './struct-fields.ts';
import { lowerVectorValues } from './vector-values.ts';
import { checkReductionUses } from '../reduction/check-uses.ts';
import { matches, parseMatch } from '../transform/match.ts';
import { delinearize, delinearizeInstructions } from '../kernel/linear-subscripts.ts';
import {
  normalizeArgList,
  splitArgsAndOptions,
  type ArgEntry,
  type ArgListInput,
  type DeclaredArg,
} from './arg-spellings.ts';
import {
  withAutoOffsets,
  withAutoStrides,
  withFortranOrder,
  withOffset,
  withShapeLessArgs,
} from '../kernel/arg-layouts.ts';
import { applyBaseStorage, declaredTemporary, isTemporarySpec } from './temporary-specs.ts';
import { addOptionRules } from './substitution-specs.ts';
import type { ArgSpec } from './argument-specs.ts';
import { classifyArguments, parseShapeEntry, wordSpan } from './classify-arguments.ts';
import { resolveKernelCalls } from './call-operands.ts';
import '../kernel/print.ts';

/** Options of `makeKernel`: the kernel's name, options, assumptions and more. */
export interface MakeKernelOptions {
  /** The kernel's name (default `loopy_kernel`, as loopy's). */
  readonly name?: string;
  /** Conditions on the parameters, e.g. `"n >= 1 and n mod 16 = 0"`. */
  readonly assumptions?: string;
  /** Warnings not to report (loopy's `silenced_warnings`): a check's name with the instruction id, e.g. `write_race(insn)`. */
  readonly silencedWarnings?: readonly string[];
  /**
   * Each instruction depends on the one written before it, and on nothing inferred
   * (loopy's `seq_dependencies=True`); `dep=` attributes still add to that.
   */
  readonly seqDependencies?: boolean;
  /**
   * Parameters fixed to values as the kernel is made (loopy's `fixed_parameters`): the same as
   * `fixParameters` applied to the result, but before shapes are inferred, so a temporary
   * indexed up to a fixed parameter gets a constant shape.
   * ```ts
   * makeKernel('[n] -> {[i]: 0 <= i < n}', '<>tmp[i] = i', undefined, { fixedParameters: { n: 1 } });
   * ```
   */
  readonly fixedParameters?: Readonly<Record<string, number>>;
  /**
   * The offset of every array argument that does not give its own (loopy's `default_offset`):
   * `'auto'` takes each from the view passed (`NAME_offset`), 0 (the default) starts each at its buffer's start.
   * ```ts
   * makeKernel('{[i]: 0<=i<n}', 'b[i] = 2*a[i]', undefined, { defaultOffset: 'auto' });
   * ```
   */
  readonly defaultOffset?: 'auto' | 0;
  /**
   * The order of every array argument that does not give its own (loopy's `default_order`): `'C'`
   * (default), `'F'`, or `'auto'`: each stride taken from the array passed (`stride:auto` on every axis).
   * ```ts
   * makeKernel('{[i,j]: 0<=i<n and 0<=j<m}', 'b[i,j] = 2*a[i,j]', undefined, { defaultOrder: 'auto' });
   * ```
   */
  readonly defaultOrder?: 'C' | 'F' | 'auto';
  /**
   * Substitution rules besides those of the text (loopy's `substitutions`), each under its
   * name: `{ foo: substitutionRule('foo', [], '3.14') }`. A name the text defines too is an error.
   */
  readonly substitutions?: Readonly<Record<string, SubstitutionRule>>;
  /**
   * The integer type of the kernel's indices (loopy's `index_dtype`): `'int32'` (the default,
   * and the only one Loom generates code in) or `'int64'`. A program whose kernels differ in it
   * is refused, as loopy refuses it.
   * ```ts
   * makeFunction('{[i]: 0<=i<10}', 'x[i] = 2*x[i]', undefined, { name: 'doublify', indexDtype: 'int32' });
   * ```
   */
  readonly indexDtype?: IndexDType;
  /**
   * C code printed before the kernels (loopy's `preambles`): `[key, code]` pairs, printed in
   * the order of their keys, each code once in a program. Only targets that compile C (OpenCL,
   * CUDA, C) take them; a callee's reach the code of its callers.
   * ```ts
   * makeFunction('{ : }', [cInstruction([], 'out[0] = MY_VALUE;')], undefined, {
   *   name: 'f', preambles: [['1729', '#define MY_VALUE 1729']],
   * });
   * ```
   */
  readonly preambles?: readonly Preamble[];
}

const MAKE_KERNEL_OPTIONS = optionKeys<MakeKernelOptions>()([
  'name',
  'assumptions',
  'silencedWarnings',
  'seqDependencies',
  'fixedParameters',
  'defaultOffset',
  'defaultOrder',
  'substitutions',
  'indexDtype',
  'preambles',
]);

/**
 * `nosync_query=MATCH@SCOPE`: the instructions the match expression selects, the instruction
 * itself aside (loopy resolves it when the kernel is made, as here), as `nosync` entries.
 * Matching nothing is an error.
 */
function resolveNosyncQueries(
  insns: Instruction[],
  parsed: readonly ParsedInstruction[],
  kernel: { name: string; substitutions: ReadonlyMap<string, SubstitutionRule> },
): Instruction[] {
  return insns.map((insn, k) => {
    const queries = parsed[k].nosyncQueries ?? [];
    if (queries.length === 0) return insn;
    const entries = queries.flatMap(({ match, scope, span }) => {
      const query = parseMatch(match, `nosync_query of instruction '${insn.id}'`);
      const ids = insns
        .filter((other) => other.id !== insn.id && matches(query, kernel, other))
        .map((other) => other.id);
      if (ids.length === 0)
        throw new LoomError(`nosync_query '${match}' of instruction '${insn.id}' selects no instruction`, span);
      return ids.map((id) => (scope === 'any' ? id : `${id}@${scope}`));
    });
    return { ...insn, noSyncWith: [...new Set([...insn.noSyncWith, ...entries])] };
  });
}

/**
 * `dep_query=MATCH` (loopy's): the ids of the instructions the match expression selects, the
 * instruction itself aside, added to its `dep=` list. Matching nothing is an error.
 */
function depQueryIds(
  insn: Instruction,
  queries: ParsedInstruction['depQueries'],
  insns: readonly Instruction[],
  kernel: { name: string; substitutions: ReadonlyMap<string, SubstitutionRule> },
): string[] {
  return (queries ?? []).flatMap(({ match, span }) => {
    const query = parseMatch(match, `dep_query of instruction '${insn.id}'`);
    const ids = insns.filter((other) => other.id !== insn.id && matches(query, kernel, other)).map((o) => o.id);
    if (ids.length === 0)
      throw new LoomError(`dep_query '${match}' of instruction '${insn.id}' selects no instruction`, span);
    return ids;
  });
}

/**
 * `instructions`: the textual syntax (a string, or one line per entry), or instructions
 * built from expression nodes (`assignment`, instruction-specs.ts). `args` as loopy's
 * `kernel_data`: a list of declarations, names and `'...'` (infer the rest), or one
 * comma-separated string; left out, every argument is inferred. The options may come third
 * where there is no argument list, as loopy's keyword arguments do:
 * ```ts
 * makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]', [globalArg('a', { shape: 'n', dtype: 'float32' }), '...']);
 * makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]', 'a, out, ...');
 * makeKernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]', { name: 'twice' });
 * ```
 */
export function makeKernel(
  domains: string | readonly string[],
  instructions: string | readonly (string | InstructionSpec)[],
  args?: ArgListInput | MakeKernelOptions,
  options?: MakeKernelOptions,
): LoopKernel {
  const split = splitArgsAndOptions(args, options);
  return makeKernelFrom(domains, instructions, normalizeArgList(split.args), split.options);
}

/**
 * Text lines, built instructions, or both in one list (loopy's `["<> a = 1",
 * lp.NoOpInstruction(...)]`): each run of strings is parsed as lines of text, in its place.
 */
function parseMixedInstructions(
  instructions: string | readonly (string | InstructionSpec)[],
  inames: ReadonlySet<string>,
  structs: ReadonlySet<string>,
): { instructions: readonly InstructionSpec[]; substitutions: ParsedInstructions['substitutions'] } {
  if (typeof instructions === 'string' || instructions.every((i) => typeof i === 'string'))
    return parseInstructions(instructions as string | readonly string[], inames, structs);
  if (instructions.every((i) => typeof i !== 'string'))
    return { instructions: instructions as readonly InstructionSpec[], substitutions: [] };
  const out: InstructionSpec[] = [];
  const substitutions: ParsedInstructions['substitutions'][number][] = [];
  let lines: string[] = [];
  const flush = () => {
    if (!lines.length) return;
    const parsed = parseInstructions(lines, inames, structs);
    out.push(...parsed.instructions);
    substitutions.push(...parsed.substitutions);
    lines = [];
  };
  for (const item of instructions) {
    if (typeof item === 'string') lines.push(item);
    else {
      flush();
      out.push(item);
    }
  }
  flush();
  return { instructions: out, substitutions };
}

function makeKernelFrom(
  domains: string | readonly string[],
  instructions: string | readonly (string | InstructionSpec)[],
  argList: readonly ArgEntry[],
  options: MakeKernelOptions,
): LoopKernel {
  checkOptionKeys('makeKernel', options, MAKE_KERNEL_OPTIONS);
  // the kernel's name is spelled in every target's code (see ../names.ts)
  const name = checkName(options.name ?? 'loopy_kernel', 'makeKernel: the kernel name (option name)');
  if (options.indexDtype !== undefined && options.indexDtype !== 'int32' && options.indexDtype !== 'int64')
    throw new LoomError(
      `makeKernel: indexDtype must be 'int32' or 'int64' (a signed integer), not '${options.indexDtype}'`,
    );
  for (const p of options.preambles ?? [])
    if (!Array.isArray(p) || p.length !== 2 || typeof p[0] !== 'string' || typeof p[1] !== 'string')
      throw new LoomError(`makeKernel: a preamble is a [key, code] pair of strings, not ${JSON.stringify(p)}`);
  const domainSets = (typeof domains === 'string' ? [domains] : domains).map((d) => BasicSet.parse(d));
  checkInamesUnique(domainSets);
  const inames = new Set(domainSets.flatMap((d) => d.dims));
  const assumptions = BasicSet.parseConditions(options.assumptions ?? '');

  const asWritten = parseMixedInstructions(
    instructions,
    inames,
    structNames(argList.filter((a): a is DeclaredArg => a !== '...' && !isTemporarySpec(a))),
  );
  const parsed = { ...asWritten, instructions: expandRandom123Calls(expandTuples(asWritten.instructions)) };
  const substitutions = new Map<string, SubstitutionRule>();
  for (const s of parsed.substitutions) {
    if (substitutions.has(s.name)) throw new LoomError(`substitution rule '${s.name}' is defined twice`, s.span);
    substitutions.set(s.name, { name: s.name, params: s.params, expression: s.expression });
  }
  addOptionRules(substitutions, options.substitutions);

  const ids = assignIds(parsed.instructions);
  let insns: Instruction[] = parsed.instructions.map((p, k) => ({
    kind: p.kind,
    id: ids[k],
    assignees: p.assignees ?? [],
    expression: p.expression,
    barrierScope: p.barrierScope,
    memKind: p.memKind,
    withinInames: [],
    dependsOn: [],
    noSyncWith: p.nosync,
    priority: p.priority,
    predicates: p.predicates,
    tags: p.tags,
    groups: p.groups,
    conflictsWithGroups: p.conflictsWithGroups,
    atomic: p.atomic,
    ...(p.atomicInit ? { atomicInit: true } : {}),
    ...(p.asyncCopy ? { asyncCopy: true } : {}),
    ...(p.bulkCopy ? { bulkCopy: true } : {}),
    ...(p.cCode ? { cCode: p.cCode } : {}),
    span: p.span,
  }));

  insns = resolveBareRuleCalls(
    insns,
    substitutions,
    new Set(insns.flatMap((insn) => insn.assignees.map(assigneeName))),
  );
  insns = expandAssigneeRuleCalls(insns, substitutions);
  const temporaries = declaredTemporaries(parsed.instructions, inames);
  const inferRest = argList.includes('...');
  const temporarySpecs = argList.filter(isTemporarySpec);
  const written = argList.filter((a): a is DeclaredArg => a !== '...' && !isTemporarySpec(a));
  checkDeclaredArgs(written, inames, temporaries);
  // a vector dtype is its element dtype with the lanes as a last axis, tagged `vec` below;
  // a vector value argument (loopy's float4 ValueArg) is an array of one vector, its lanes
  const vectorArgs = written
    .filter((a) => a.dtype !== undefined && !isStructDType(a.dtype) && !isDType(a.dtype))
    .map((a) => a.name);
  const declared = written.map((a): DeclaredArg => {
    if (isStructDType(a.dtype)) return structArgument(a);
    if (!vectorArgs.includes(a.name)) return a;
    if (a.kind === 'value') return { ...a, kind: 'global', ...vectorArray(a.name, a.dtype as string, []) };
    return { ...a, ...vectorArray(a.name, a.dtype as string, a.shape) };
  });
  // temporaries declared with temporaryVariable(...): their shapes are given, not inferred
  const givenShapes = new Set<string>();
  for (const spec of temporarySpecs) {
    const { shapeGiven, ...t } = declaredTemporary(spec);
    if (inames.has(t.name)) throw new LoomError(`temporaryVariable '${t.name}' has the name of an iname`);
    if (temporaries.has(t.name) || declared.some((a) => a.name === t.name))
      throw new LoomError(
        `'${t.name}' is declared twice (as a temporaryVariable and as ${temporaries.has(t.name) ? "a '<>' temporary" : 'an argument'})`,
      );
    temporaries.set(t.name, t);
    if (shapeGiven) givenShapes.add(t.name);
  }
  // `a[[k]]`: one index into the elements, made a multi-index of the declared shape
  const shapes = new Map([
    ...declared
      .filter((a) => Array.isArray(a.shape))
      .map((a) => [a.name, (a.shape as (number | string)[]).map(parseShapeEntry(a.name))] as const),
    ...[...givenShapes].map((n) => [n, temporaries.get(n)!.shape] as const),
  ]);
  // calls of kernels: slices and whole arrays become swept inames (of domains of their own)
  insns = resolveKernelCalls(
    insns,
    parsed.instructions.map((p) => (p as ParsedInstruction).kernelCall),
    shapes,
    domainSets,
    inames,
  );
  insns = delinearizeInstructions(insns, shapes);
  for (const [name, rule] of substitutions)
    substitutions.set(name, { ...rule, expression: delinearize(rule.expression, shapes) });

  const withinInames = inferWithinInames(
    insns.map((insn, k) => ({
      insn,
      forInames: parsed.instructions[k].forInames,
      explicit: parsed.instructions[k].inames,
    })),
    domainSets,
    substitutions,
  );
  const placed = insns.map((insn) => ({ ...insn, withinInames: withinInames.get(insn.id)! }));
  const deps = resolveDependencies(
    insns.map((insn, k) => {
      const { depsExhaustive } = parsed.instructions[k];
      const queried = depQueryIds(placed[k], parsed.instructions[k].depQueries, placed, { name, substitutions });
      const deps = [...parsed.instructions[k].deps, ...queried];
      if (!options.seqDependencies || k === 0)
        return { insn, deps, exhaustive: depsExhaustive || !!options.seqDependencies };
      return { insn, deps: [...deps, insns[k - 1].id], exhaustive: true };
    }),
    substitutions,
  );
  insns = insns.map((insn) => ({ ...insn, withinInames: withinInames.get(insn.id)!, dependsOn: deps.get(insn.id)! }));
  insns = resolveNosyncQueries(insns, parsed.instructions, { name, substitutions });
  for (const insn of insns) {
    checkInamesKnown(insn, inames, substitutions);
    checkReductionUses(insn, readExpressions(insn, substitutions), (word) => insn.span && wordSpan(insn, word));
  }

  const kernelArgs = classifyArguments(insns, domainSets, inames, temporaries, substitutions, declared, inferRest);

  let knl = new LoopKernel({
    name,
    domains: domainSets,
    instructions: insns,
    args: kernelArgs,
    temporaries,
    substitutions,
    inameTags: new Map(),
    assumptions,
    loopPriorities: [],
    loopSlabs: new Map(),
    options: DEFAULT_OPTIONS,
    silencedWarnings: options.silencedWarnings ?? [],
    indexDtype: options.indexDtype,
    ...(options.preambles?.length ? { preambles: options.preambles.map(([k, c]) => [k, c] as const) } : {}),
  });
  // each field of a struct element read and written at its place in the element's bytes
  knl = resolveStructFields(knl);
  // whole `float4` values and dot(): lane by lane, before anything looks at shapes
  knl = lowerVectorValues(
    knl,
    new Map(vectorArgs.map((n) => [n, vectorDType(written.find((a) => a.name === n)!.dtype as string)!.lanes])),
  );
  // loopy fixes them before iname duplication and shape inference, as here
  if (options.fixedParameters) knl = fixParameters(knl, options.fixedParameters);

  // `dup=` attributes are duplicate_inames applied to one instruction
  parsed.instructions.forEach((p, k) => {
    if (p.dup.length) {
      knl = duplicateInamesAsWritten(
        knl,
        p.dup.map((d) => d.iname),
        { within: ids[k], newNames: p.dup.map((d) => d.newName) },
      );
    }
  });

  knl = withShapeLessArgs(
    knl,
    declared.filter((a) => a.shape === null).map((a) => a.name),
  );
  knl = inferShapes(knl, givenShapes);
  for (const name of vectorArgs) knl = tagVectorLanes(knl, name);
  knl = applyArgLayouts(knl, declared, options);
  checkReadOnly(knl);
  checkAtomicFetches(knl);
  return applyBaseStorage(knl, temporarySpecs);
}

/**
 * Offsets and orders, declared per argument or by default (`defaultOffset`, `defaultOrder`),
 * once every array has its shape (an order needs the axes).
 */
function applyArgLayouts(knl: LoopKernel, declared: readonly ArgSpec[], options: MakeKernelOptions): LoopKernel {
  const { defaultOffset = 0, defaultOrder = 'C' } = options;
  if (defaultOffset !== 'auto' && defaultOffset !== 0)
    throw new LoomError(`makeKernel: defaultOffset must be 'auto' or 0, not ${JSON.stringify(defaultOffset)}`);
  if (defaultOrder !== 'C' && defaultOrder !== 'F' && defaultOrder !== 'auto')
    throw new LoomError(`makeKernel: defaultOrder must be 'C', 'F' or 'auto', not ${JSON.stringify(defaultOrder)}`);
  const byName = new Map(declared.map((a) => [a.name, a]));
  const arrays = knl.args.filter((a) => a.kind !== 'value');
  const offsetOf = (name: string) => byName.get(name)?.offset ?? defaultOffset;
  const orderOf = (name: string) => byName.get(name)?.order ?? defaultOrder;
  for (const a of arrays) {
    const order = orderOf(a.name);
    if (order !== 'C' && order !== 'F' && order !== 'auto')
      throw new LoomError(`argument '${a.name}': order must be 'C', 'F' or 'auto', not ${JSON.stringify(order)}`);
    const offset = offsetOf(a.name);
    if (typeof offset === 'number' && (!Number.isInteger(offset) || offset < 0))
      throw new LoomError(`argument '${a.name}': an offset is a whole number of elements, at least 0, not ${offset}`);
    if (typeof offset !== 'number' && typeof offset !== 'string')
      throw new LoomError(
        `argument '${a.name}': offset must be 'auto', a number or an expression, not ${JSON.stringify(offset)}`,
      );
  }
  knl = withFortranOrder(
    knl,
    arrays.filter((a) => orderOf(a.name) === 'F').map((a) => a.name),
  );
  knl = withAutoStrides(
    knl,
    arrays.filter((a) => orderOf(a.name) === 'auto').map((a) => a.name),
  );
  for (const a of arrays) {
    const offset = offsetOf(a.name);
    if (typeof offset === 'string' && offset !== 'auto') knl = withOffset(knl, a.name, parseExpression(offset));
    else if (typeof offset === 'number' && offset !== 0) knl = withOffset(knl, a.name, parseExpression(String(offset)));
  }
  return withAutoOffsets(
    knl,
    arrays.filter((a) => offsetOf(a.name) === 'auto').map((a) => a.name),
  );
}

/** A read-only temporary (one with an initializer, or declared so) is written by no instruction. */
function checkReadOnly(knl: LoopKernel): void {
  for (const insn of knl.instructions) {
    for (const a of insn.assignees) {
      const name = assigneeName(a);
      if (knl.temporaries.get(name)?.readOnly)
        throw new LoomError(`instruction '${insn.id}' writes '${name}', which is declared read-only`, insn.span);
    }
  }
}

function checkInamesUnique(domains: readonly BasicSet[]): void {
  const seen = new Set<string>();
  for (const d of domains) {
    for (const n of d.dims) {
      if (seen.has(n)) throw new LoomError(`iname '${n}' is introduced by more than one domain`);
      seen.add(n);
    }
  }
}

/** loopy's unique names: `insn`, `insn_0`, `insn_1`, ...; explicit ids first, then prefixes. */
function assignIds(parsed: readonly ParsedInstruction[]): string[] {
  const taken = new Set<string>();
  for (const p of parsed) {
    if (p.id === undefined) continue;
    if (taken.has(p.id)) throw new LoomError(`instruction id '${p.id}' is used twice`, p.span);
    taken.add(p.id);
  }
  const fresh = (prefix: string) => {
    if (!taken.has(prefix)) {
      taken.add(prefix);
      return prefix;
    }
    for (let k = 0; ; k++) {
      const candidate = `${prefix}_${k}`;
      if (!taken.has(candidate)) {
        taken.add(candidate);
        return candidate;
      }
    }
  };
  return parsed.map((p) => p.id ?? fresh(p.idPrefix ?? 'insn'));
}

function declaredTemporaries(
  parsed: readonly ParsedInstruction[],
  inames: ReadonlySet<string>,
): Map<string, TemporaryVariable> {
  const temps = new Map<string, TemporaryVariable>();
  for (const p of parsed) {
    (p.temporaries ?? []).forEach((declaration, k) => {
      const assignee = p.assignees?.[k];
      if (!declaration || !assignee) return;
      const name = assigneeName(assignee);
      if (inames.has(name)) throw new LoomError(`'${name}' is an iname and cannot be declared as a temporary`, p.span);
      const previous = temps.get(name);
      const dtype = declaration.dtype ?? previous?.dtype;
      if (previous && declaration.dtype && previous.dtype && previous.dtype !== declaration.dtype) {
        throw new LoomError(`temporary '${name}' is declared as ${previous.dtype} and as ${declaration.dtype}`, p.span);
      }
      temps.set(name, { name, dtype, shape: [], addressSpace: 'auto' });
    });
  }
  return temps;
}

function checkDeclaredArgs(
  declared: readonly DeclaredArg[],
  inames: ReadonlySet<string>,
  temps: ReadonlyMap<string, TemporaryVariable>,
): void {
  const seen = new Set<string>();
  for (const a of declared) {
    if (typeof a !== 'object' || a === null)
      throw new LoomError(`makeKernel: argument ${String(a)} must be an object with a 'name'`);
    checkName(a.name, 'makeKernel: argument name');
    if (seen.has(a.name)) throw new LoomError(`argument '${a.name}' is declared twice`);
    seen.add(a.name);
    if (inames.has(a.name)) throw new LoomError(`argument '${a.name}' has the name of an iname`);
    if (temps.has(a.name)) throw new LoomError(`argument '${a.name}' is also declared as a temporary with '<>'`);
    if (a.dtype !== undefined && !isStructDType(a.dtype) && !isDType(a.dtype) && !vectorDType(a.dtype))
      throw new LoomError(`argument '${a.name}': unknown dtype '${a.dtype}'`);
    if (a.kind !== undefined && !['global', 'value', 'constant', 'image'].includes(a.kind)) {
      throw new LoomError(
        `argument '${a.name}': kind must be 'global', 'value', 'constant' or 'image', got '${a.kind}'`,
      );
    }
  }
}

function checkInamesKnown(
  insn: Instruction,
  inames: ReadonlySet<string>,
  rules: ReadonlyMap<string, SubstitutionRule>,
): void {
  for (const n of insn.withinInames) {
    if (!inames.has(n))
      throw new LoomError(`instruction '${insn.id}' names '${n}' as an iname, but no domain defines it`, insn.span);
  }
  const check = (e: Expr) => {
    if (e.kind === 'reduce') {
      for (const n of e.inames) {
        if (!inames.has(n))
          throw new LoomError(
            `reduction over '${n}', which no domain defines as an iname`,
            insn.span && wordSpan(insn, n),
          );
      }
    }
  };
  const swept = sweptInames(insn);
  for (const e of readExpressions(insn, rules)) {
    walk(e, check);
    // loopy's check_for_inactive_iname_access: only an explicit `inames=` can leave one out
    for (const n of freeVariables(e)) {
      if (inames.has(n) && !insn.withinInames.includes(n) && !swept.has(n)) {
        throw new LoomError(
          `instruction '${insn.id}' reads the iname '${n}' outside its loop: add it to the instruction's inames=`,
          insn.span && wordSpan(insn, n),
        );
      }
    }
  }
}

/**
 * Shapes of arguments declared `auto` (or not given) and of array temporaries; a one-axis
 * argument read at an index no set bounds gets no shape, as loopy's guess gives it none.
 */
function inferShapes(knl: LoopKernel, givenShapes: ReadonlySet<string>): LoopKernel {
  const accesses = allAccesses(knl);
  // one-axis arguments read at an index no set bounds: loopy's guess leaves them shape-less
  const shapeLess: string[] = [];
  const args = knl.args.map((arg) => {
    if (arg.kind === 'value' || arg.shape !== undefined) return arg;
    const zeroDim = knl.instructions.some((i) => i.assignees.some((a) => a.kind === 'var' && a.name === arg.name));
    if (zeroDim) return { ...arg, shape: [] };
    // loopy's guess for an array the kernel never accesses: `()`, one element
    if (!accesses.some((a) => a.array === arg.name)) return { ...arg, shape: [] };
    const shape = inferShape(knl, arg.name, accesses, 'argument');
    if (shape === null) shapeLess.push(arg.name);
    return shape === null ? arg : { ...arg, shape };
  });
  const temporaries = new Map(knl.temporaries);
  for (const [name, t] of knl.temporaries) {
    if (givenShapes.has(name) || !accesses.some((a) => a.array === name)) continue;
    // a size in the parameters is for a global temporary (run allocates it per call); placing
    // one in private or local memory is refused where temporaries are placed (preprocess/placement.ts)
    // a temporary's guess is never shape-less (inferShape throws instead)
    temporaries.set(name, { ...t, shape: inferShape(knl, name, accesses, 'temporary') ?? [] });
  }
  return withShapeLessArgs(knl.with({ args, temporaries }), shapeLess);
}
