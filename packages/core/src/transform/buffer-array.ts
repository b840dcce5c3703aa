/**
 * `bufferArray(knl, 'out0', { bufferInames: ['i_inner'] })`: the writes (and reads) of an
 * array in some instructions go to a temporary buffer instead, filled from the array
 * first and written back after (loopy's buffer_array). The buffer covers the footprint of
 * the writes over the buffer inames; `initExpression` (with `base`, the array's element)
 * replaces the filling, `storeExpression` (with `base` and `buffer`) the writing back, and
 * `storeExpression: false` leaves the array unwritten.
 *
 * Names as loopy's: the buffer `<name>_buf`, the inames `<name>_init_<axis>` and
 * `<name>_store_<axis>`, the instructions `init_<name>` and `store_<name>`. Instructions
 * that waited for the buffered ones wait for the write-back.
 */
import { checkOptionKeys, optionKeys } from '../option-keys.ts';
import { nameList } from '../names.ts';
import { LoomError } from '../errors.ts';
import { add, subscript, variable, type Expr } from '../expr/nodes.ts';
import { fromLinear, mapExpr, parseExpression, printExpr, someExpr, substitute, toLinear } from '../expr/index.ts';
import { Linear } from '../linear.ts';
import { BasicSet } from '../sets/index.ts';
import type { AddressSpace, Instruction, LoopKernel } from '../kernel/model.ts';
import { boxSize, fixedInames, footprintAxes, insideBox, lastOffsetBound, type Use } from './footprint.ts';
import { storeDependencies, tidy } from './footprint-store.ts';
import { instructionsWithin, type Within } from './match.ts';
import { kernelNamer, uniqueName } from '../kernel/rename.ts';
import { inlineRulesThat, mapKernelExpressions } from '../kernel/rewrite-expressions.ts';
import { tagInames, type TagSpec } from './tag-inames.ts';

/** The options bufferArray reads; any other key is an error. */
const BUFFER_ARRAY_OPTIONS = optionKeys<BufferArrayOptions>()([
  'bufferInames',
  'defaultTag',
  'fetchBoundingBox',
  'initExpression',
  'storeExpression',
  'temporaryAddressSpace',
  'within',
]);

/** Options of `bufferArray`. */
export interface BufferArrayOptions {
  /** The inames over which the buffer is used: it covers all their values. */
  readonly bufferInames?: string | readonly string[];
  /** What the buffer starts as, in terms of `base` (the array's element); default the element. */
  readonly initExpression?: string;
  /** What is written back, in terms of `base` and `buffer`; default `buffer`; false: nothing. */
  readonly storeExpression?: string | false;
  /** Only the accesses in these instructions (a match expression) use the buffer; default: all. */
  readonly within?: Within;
  /** Tag of the fill and write-back inames (default `'l.auto'`: fitted to the work-group, loops in a kernel without one). */
  readonly defaultTag?: TagSpec;
  /** Where the temporary lives; default `'auto'`, decided when the kernel is preprocessed (loopy's `AddressSpace.AUTO`). */
  readonly temporaryAddressSpace?: AddressSpace;
  /** Buffer the whole bounding box, not clipped to the bounds every access keeps. */
  readonly fetchBoundingBox?: boolean;
}

/** Holds the part of an array that some loops touch in a temporary buffer, read in before and written back after (loopy's `buffer_array`). */
export function bufferArray(knl: LoopKernel, name: string, options: BufferArrayOptions = {}): LoopKernel {
  checkOptionKeys('bufferArray', options, BUFFER_ARRAY_OPTIONS);
  const what = 'bufferArray';
  const sweep = nameList(options.bufferInames ?? []);
  for (const n of sweep)
    if (!knl.inames.includes(n))
      throw new LoomError(`${what}: unknown buffer iname '${n}' (inames: ${knl.inames.join(', ')})`);
  const arg = knl.arg(name);
  const temp = knl.temporaries.get(name);
  if (!arg && !temp) throw new LoomError(`${what}: the kernel has no array '${name}'`);
  if (arg?.kind === 'value') throw new LoomError(`${what}: '${name}' is a value argument, not an array`);
  const shape = arg?.shape ?? temp!.shape;
  // reads inside substitution rules become reads in the instructions that call them
  knl = inlineRulesThat(knl, (rule) => someExpr(rule.expression, (x) => x.kind === 'subscript' && x.array === name));
  const chosen = instructionsWithin(knl, options.within, `${what}: option within`, options.within !== undefined);
  const writes: Use[] = knl.instructions
    .flatMap((i) => (chosen.has(i.id) ? i.assignees.map((a) => ({ i, a })) : []))
    .filter(({ a }) => a.kind === 'subscript' && a.array === name)
    .map(({ i, a }) => ({
      instruction: i,
      reductionInames: [],
      args: affine((a as { indices: readonly Expr[] }).indices, name, i),
    }));
  if (writes.length === 0)
    throw new LoomError(
      `${what}: no instruction ${options.within === undefined ? '' : 'within the match '}writes '${name}'`,
    );

  const question = {
    what,
    base: name,
    uses: writes,
    sweep,
    outer: [],
    boundingBox: options.fetchBoundingBox,
    global: options.temporaryAddressSpace === 'global',
  };
  const fixed = fixedInames(knl, question);
  const axes = footprintAxes(knl, question, fixed);
  const within = [
    ...new Set(
      writes.flatMap((w) =>
        w.args.flatMap((l) => l.variables.filter((v) => knl.inames.includes(v) && !sweep.includes(v))),
      ),
    ),
  ];
  const { fresh } = kernelNamer(knl);
  const stored = axes.map((a, axis) => ({ ...a, axis })).filter((a) => a.extent !== undefined);
  const axisName = (axis: number) => (arg ?? temp)?.dimNames?.[axis] ?? axis;
  const initInames = stored.map((a) => fresh(`${name}_init_${axisName(a.axis)}`));
  const storeInames = stored.map((a) => fresh(`${name}_store_${axisName(a.axis)}`));
  const buf = fresh(`${name}_buf`);
  const box = (inames: readonly string[]) =>
    BasicSet.fromConstraints(
      [],
      inames,
      inames.flatMap((n, k) => {
        const v = Linear.variable(n);
        const at = stored[k].base.add(v);
        const limit = shape[stored[k].axis] && toLinear(shape[stored[k].axis]);
        return [
          { kind: 'ge' as const, expr: v },
          lastOffsetBound({ ...stored[k], extent: stored[k].extent! }, v),
          ...(stored[k].lower ?? []).map((lo) => ({ kind: 'ge' as const, expr: at.sub(lo) })),
          ...(stored[k].upper ?? []).map((hi) => ({ kind: 'ge' as const, expr: hi.sub(at) })),
          ...(limit
            ? [
                { kind: 'ge' as const, expr: at },
                { kind: 'ge' as const, expr: limit.sub(1).sub(at) },
              ]
            : []),
        ];
      }),
    );
  const domains = stored.length ? [...knl.domains, box(initInames), box(storeInames)] : knl.domains;
  const element = (inames: readonly string[]) =>
    subscript(
      name,
      axes.map((a, d) => {
        const k = stored.findIndex((s) => s.axis === d);
        return tidy(k < 0 ? fromLinear(a.base) : add(fromLinear(a.base), variable(inames[k])));
      }),
    );
  const bufferAt = (inames: readonly string[]) =>
    stored.length
      ? subscript(
          buf,
          inames.map((n) => variable(n)),
        )
      : variable(buf);

  // the buffered accesses: every access inside the footprint, in the chosen instructions
  const modified = new Set<string>();
  const redirect = (e: Expr, insn: Instruction) =>
    mapExpr(e, (x) => {
      if (x.kind !== 'subscript' || x.array !== name) return x;
      const args = x.indices.map((ix) => toLinear(ix));
      if (
        args.some((l) => !l) ||
        !insideBox(knl, { instruction: insn, reductionInames: [], args: args as Linear[] }, axes, fixed)
      )
        return x;
      modified.add(insn.id);
      return stored.length
        ? subscript(
            buf,
            stored.map((s) => tidy(fromLinear(args[s.axis]!.sub(s.base)))),
          )
        : variable(buf);
    });
  const rewritten = mapKernelExpressions(knl, (e, insn) => redirect(e, insn!), {
    what,
    within: chosen,
    rules: 'keep',
    assignee: 'whole',
  });

  const ids = new Set(knl.instructions.map((i) => i.id));
  const initId = uniqueName(`init_${name}`, ids);
  ids.add(initId);
  const storeId = uniqueName(`store_${name}`, ids);
  const base = {
    noSyncWith: [],
    priority: 0,
    predicates: [],
    tags: [],
    groups: [],
    conflictsWithGroups: [],
    atomic: false,
  } as const;
  const initValue =
    options.initExpression === undefined
      ? element(initInames)
      : substitute(parseExpression(options.initExpression), { base: element(initInames) });
  const init: Instruction = {
    ...base,
    kind: 'assign',
    id: initId,
    assignees: [bufferAt(initInames)],
    expression: initValue,
    withinInames: [...within, ...initInames],
    dependsOn: storeDependencies(knl, [...modified], initValue),
  };
  const instructions: Instruction[] = [
    init,
    ...rewritten.instructions.map((i) => (modified.has(i.id) ? { ...i, dependsOn: [...i.dependsOn, initId] } : i)),
  ];
  if (options.storeExpression !== false) {
    const storeValue =
      options.storeExpression === undefined
        ? bufferAt(storeInames)
        : substitute(parseExpression(options.storeExpression), {
            base: element(storeInames),
            buffer: bufferAt(storeInames),
          });
    const store: Instruction = {
      ...base,
      kind: 'assign',
      id: storeId,
      assignees: [element(storeInames)],
      expression: storeValue,
      withinInames: [...within, ...storeInames],
      dependsOn: knl.instructions.map((i) => i.id).filter((id) => modified.has(id)),
      noSyncWith: [`${initId}@any`],
    };
    // what waited for a buffered instruction waits for the write-back
    for (let k = 0; k < instructions.length; k++) {
      const insn = instructions[k];
      if (!modified.has(insn.id) && insn.id !== initId && insn.dependsOn.some((d) => modified.has(d)))
        instructions[k] = { ...insn, dependsOn: [...insn.dependsOn, storeId] };
    }
    instructions.push(store);
  }
  const temporaries = new Map(rewritten.temporaries);
  temporaries.set(buf, {
    name: buf,
    dtype: arg?.dtype ?? temp?.dtype,
    shape: stored.map((s) => boxSize({ ...s, extent: s.extent! })),
    addressSpace: options.temporaryAddressSpace ?? 'auto',
  });
  let result = rewritten.with({ domains, instructions, temporaries });
  const tag = options.defaultTag === undefined ? 'l.auto' : options.defaultTag;
  if (tag !== null && stored.length) {
    // all at once, as loopy's buffer_array tags them: l.auto fits the fill and write-back
    // inames to the work-group (assign_automatic_axes), in a kernel without one they stay loops
    result = tagInames(
      result,
      [...initInames, ...storeInames].map((n) => [n, tag] as const),
    );
  }
  return result;
}

function affine(indices: readonly Expr[], name: string, insn: Instruction): Linear[] {
  return indices.map((ix, axis) => {
    const lin = toLinear(ix);
    if (!lin)
      throw new LoomError(`bufferArray: index '${printExpr(ix)}' of '${name}' (axis ${axis}) is not affine`, insn.span);
    return lin;
  });
}
