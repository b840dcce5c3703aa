/**
 * Random transformation chains. Each step is chosen against the kernel as it stands
 * (its inames, tags, temporaries, rules), printed as the TypeScript call that applies
 * it, so a report's chain can be pasted after the kernel's `makeKernel` to reproduce.
 * A step Loom refuses with a LoomError is dropped (a refusal is Loom's right); any other
 * exception propagates, because it is a finding.
 */
import {
  addPrefetch,
  asyncCopies,
  bulkCopies,
  changeArgToImage,
  chunkIname,
  doubleBuffer,
  swizzleArray,
  byteSize,
  duplicateInames,
  findInstructions,
  fixParameters,
  getGridSizeUpperBounds,
  joinInames,
  LoomError,
  makeReductionInamesUnique,
  mapDomain,
  precompute,
  prioritizeLoops,
  renameIname,
  setOptions,
  setTemporaryAddressSpace,
  splitArrayAxis,
  splitIname,
  splitReductionInward,
  splitReductionOutward,
  tagArrayAxes,
  tagInames,
  untagInames,
  expr,
  type LoopKernel,
} from '@loom/core';
import type { Feature, FeatureSet } from './features.ts';
import type { KernelCase } from './kernels.ts';
import type { Rng } from './random.ts';
import { sideStream } from './tables.ts';

export interface Step {
  readonly feature: Feature;
  /** The call, with `knl` for the kernel so far. */
  readonly text: string;
  readonly apply: (knl: LoopKernel) => LoopKernel;
}

export interface Chain {
  readonly steps: readonly Step[];
  /** Steps that Loom refused (LoomError), with the reason: not applied. */
  readonly refused: readonly string[];
  readonly kernel: LoopKernel;
}

const STEP_FEATURES: readonly Feature[] = [
  'split',
  'split',
  'split',
  'unroll',
  'ilp',
  'prioritize',
  'prefetch',
  'precompute',
  'duplicate',
  'join',
  'fix',
  'rename',
  'space',
  'chunk',
  'splitWithin',
  'reductionShape',
  'mapDomain',
  'untag',
  'globalFootprints',
  'parametricWorkGroups',
  'images',
  'parametricTemporaries',
  'doubleBuffers',
];

const q = (s: string) => `'${s}'`;
const list = (xs: readonly string[]) => `[${xs.map(q).join(', ')}]`;

/** Inames without a hardware or unroll tag: the ones a step may still split, order or tag. */
function freeInames(knl: LoopKernel): string[] {
  return knl.inames.filter((n) => (knl.inameTags.get(n)?.kind ?? 'for') === 'for');
}

/** The first axis of a kind ('l' or 'g') no iname uses yet. */
function freeAxis(knl: LoopKernel, kind: 'local' | 'group'): number | undefined {
  const used = new Set(
    [...knl.inameTags.values()].filter((t) => t.kind === kind).map((t) => (t as { axis: number }).axis),
  );
  return [0, 1, 2].find((a) => !used.has(a));
}

/** One random step that fits `knl`, or undefined when the chosen kind has nothing to act on. */
function randomStep(rng: Rng, knl: LoopKernel, kcase: KernelCase, features: FeatureSet): Step | undefined {
  const feature = rng.pick(STEP_FEATURES.filter((f) => features.has(f)));
  const free = freeInames(knl);
  const inner = free.filter((n) => n.endsWith('_inner'));
  const step = (text: string, apply: (k: LoopKernel) => LoopKernel): Step => ({ feature, text, apply });
  switch (feature) {
    case 'split': {
      if (!free.length) return undefined;
      const iname = rng.pick(free);
      const factor = rng.int(1, 5);
      const g = freeAxis(knl, 'group');
      const l = freeAxis(knl, 'local');
      const options: Record<string, unknown> = {};
      // a reduction iname (k and what it splits into) runs across work-items only within a group:
      // a reduction across groups is refused (the step would be lost)
      const reduced = iname.startsWith('k');
      if (!reduced && rng.chance(0.5) && g !== undefined) options.outerTag = `g.${g}`;
      if (reduced && features.has('localReductions') && rng.chance(0.2) && l !== undefined) options.outerTag = `l.${l}`;
      else if ((!reduced || features.has('localReductions')) && rng.chance(0.5) && l !== undefined)
        options.innerTag = `l.${l}`;
      if (rng.chance(0.15)) options.slabs = [0, 1];
      return step(`splitIname(knl, ${q(iname)}, ${factor}, ${JSON.stringify(options)})`, (k) =>
        splitIname(k, iname, factor, options),
      );
    }
    case 'unroll':
    case 'ilp': {
      if (!inner.length) return undefined;
      const iname = rng.pick(inner);
      const tag = feature === 'unroll' ? 'unr' : rng.pick(['ilp', 'ilp.seq']);
      return step(`tagInames(knl, { ${iname}: ${q(tag)} })`, (k) => tagInames(k, { [iname]: tag }));
    }
    case 'prioritize': {
      if (free.length < 2) return undefined;
      const order = rng.shuffle(free).slice(0, rng.int(2, Math.min(3, free.length)));
      return step(`prioritizeLoops(knl, ${list(order)})`, (k) => prioritizeLoops(k, order));
    }
    case 'prefetch': {
      const arrays = [...kcase.arrays.keys()].filter((a) => knl.arg(a) && !knl.temporaries.has(`${a}_fetch`));
      if (!arrays.length) return undefined;
      const array = rng.pick(arrays);
      const sweep = rng.subset(knl.inames);
      const options = rng.chance(0.3) ? { defaultTag: 'l.auto' } : {};
      return step(`addPrefetch(knl, ${q(array)}, ${list(sweep)}, ${JSON.stringify(options)})`, (k) =>
        sizedOnlyIf(features, k, addPrefetch(k, array, sweep, options)),
      );
    }
    case 'precompute': {
      // g (nestedRules) while there is one, which keeps the f it calls for a later precompute of f;
      // no draw here, so the older samples' seeds keep their chains
      const rule = ['g', 'f'].find((r) => knl.substitutions.has(r));
      if (rule === undefined) return undefined;
      const sweep = rng.subset(knl.inames);
      const options = rng.chance(0.3) ? { defaultTag: 'l.auto' } : {};
      return step(`precompute(knl, ${q(rule)}, ${list(sweep)}, ${JSON.stringify(options)})`, (k) =>
        sizedOnlyIf(features, k, precompute(k, rule, sweep, options)),
      );
    }
    case 'duplicate': {
      if (!free.length) return undefined;
      const iname = rng.pick(free);
      const users = knl.instructions.filter((i) => i.withinInames.includes(iname)).map((i) => i.id);
      const options =
        users.length > 1 && features.has('duplicateWithin') && rng.chance(0.5)
          ? { within: `id:${rng.pick(users)}` }
          : {};
      return step(`duplicateInames(knl, ${q(iname)}, ${JSON.stringify(options)})`, (k) =>
        duplicateInames(k, iname, options),
      );
    }
    case 'join': {
      if (free.length < 2) return undefined;
      const pair = rng.shuffle(free).slice(0, 2);
      return step(`joinInames(knl, ${list(pair)})`, (k) => joinInames(k, pair));
    }
    case 'fix': {
      const params = Object.keys(kcase.params).filter((p) => knl.arg(p));
      if (!params.length) return undefined;
      const p = rng.pick(params);
      const value = kcase.params[p];
      return step(`fixParameters(knl, { ${p}: ${value} })`, (k) => fixParameters(k, { [p]: value }));
    }
    case 'rename': {
      if (!knl.inames.length) return undefined;
      const iname = rng.pick(knl.inames);
      return step(`renameIname(knl, ${q(iname)}, ${q(`${iname}_r`)})`, (k) => renameIname(k, iname, `${iname}_r`));
    }
    case 'space': {
      // tiles of prefetch and precompute are written across work-items: moving them is a feature of its own
      const temps = [...knl.temporaries.keys()].filter((t) => features.has('spaceOfTiles') || t === 't' || t === 's');
      if (!temps.length) return undefined;
      const temp = rng.pick(temps);
      const space = rng.pick([
        'private',
        'local',
        ...(features.has('globalTemporaries') ? (['global'] as const) : []),
      ] as const);
      return step(`setTemporaryAddressSpace(knl, ${q(temp)}, ${q(space)})`, (k) =>
        sizedOnlyIf(features, k, setTemporaryAddressSpace(k, temp, space)),
      );
    }
    case 'doubleBuffers': {
      // a tile filled across work-items (local, or to be made local) and a sequential loop its fills run in
      const acrossWorkItems = (t: string) =>
        findInstructions(knl, `writes:${t}`).some((i) =>
          i.withinInames.some((n) => knl.inameTags.get(n)?.kind === 'local'),
        );
      const tiles = [...knl.temporaries.values()]
        .filter((t) => t.addressSpace === 'local' || (t.shape.length > 0 && acrossWorkItems(t.name)))
        .map((t) => t.name);
      if (!tiles.length) return undefined;
      const tile = rng.pick(tiles);
      const fills = findInstructions(knl, `writes:${tile}`);
      const loops = free.filter((n) => fills.length && fills.every((i) => i.withinInames.includes(n)));
      if (!loops.length) return undefined;
      const loop = rng.pick(loops);
      // several buffers, filled one or more steps ahead (pipelineStages), from a stream of their own
      // so that the chain's later draws stay those of older seeds
      const side = sideStream(kcase.seed, 0x57a9e5);
      const stages = features.has('pipelineStages') && side.chance(0.6) ? side.int(3, 4) : 2;
      const options = stages > 2 ? { stages, ahead: side.int(1, stages - 1) } : {};
      const shown = stages > 2 ? `, { stages: ${stages}, ahead: ${options.ahead} }` : '';
      if (knl.temporaries.get(tile)!.addressSpace === 'local')
        return step(`doubleBuffer(knl, ${q(tile)}, ${q(loop)}${shown})`, (k) => doubleBuffer(k, tile, loop, options));
      return step(
        `doubleBuffer(setTemporaryAddressSpace(knl, ${q(tile)}, 'local'), ${q(tile)}, ${q(loop)}${shown})`,
        (k) => doubleBuffer(setTemporaryAddressSpace(k, tile, 'local'), tile, loop, options),
      );
    }
    case 'chunk': {
      if (!free.length) return undefined;
      const iname = rng.pick(free);
      const chunks = rng.int(1, 4);
      const options =
        iname.startsWith('k') || !rng.chance(0.5) || freeAxis(knl, 'group') === undefined
          ? {}
          : { outerTag: `g.${freeAxis(knl, 'group')}` };
      return step(`chunkIname(knl, ${q(iname)}, ${chunks}, ${JSON.stringify(options)})`, (k) =>
        chunkIname(k, iname, chunks, options),
      );
    }
    case 'splitWithin': {
      const candidates = free.filter((n) => knl.instructions.filter((i) => i.withinInames.includes(n)).length > 1);
      if (!candidates.length) return undefined;
      const iname = rng.pick(candidates);
      const user = rng.pick(knl.instructions.filter((i) => i.withinInames.includes(iname))).id;
      const factor = rng.int(1, 4);
      const options = { within: `id:${user}` };
      return step(`splitIname(knl, ${q(iname)}, ${factor}, ${JSON.stringify(options)})`, (k) =>
        splitIname(k, iname, factor, options),
      );
    }
    case 'reductionShape': {
      const reduced = [...new Set(knl.instructions.flatMap((i) => reductionsOf(i.expression)))];
      if (!reduced.length) return undefined;
      const pick = rng.pick(reduced);
      if (pick.length > 1 && rng.chance(0.6)) {
        const part = [pick[rng.int(0, pick.length - 1)]];
        const outward = rng.chance(0.5);
        const name = outward ? 'splitReductionOutward' : 'splitReductionInward';
        return step(`${name}(knl, ${list(part)})`, (k) =>
          (outward ? splitReductionOutward : splitReductionInward)(k, part),
        );
      }
      return step('makeReductionInamesUnique(knl)', (k) => makeReductionInamesUnique(k));
    }
    case 'mapDomain': {
      if (!free.length) return undefined;
      const iname = rng.pick(free);
      const factor = rng.int(2, 4);
      const [o, i] = [`${iname}_mo`, `${iname}_mi`];
      const map = rng.chance(0.5)
        ? `{ [${iname}] -> [${o}, ${i}] : 0 <= ${i} < ${factor} and ${iname} = ${factor}*${o} + ${i} }`
        : `{ [${iname}] -> [${o}] : ${o} = ${iname} + ${factor} }`;
      return step(`mapDomain(knl, ${q(map)})`, (k) => mapDomain(k, map));
    }
    case 'untag': {
      const tagged = knl.inames.filter((n) => ['unroll', 'ilp'].includes(knl.inameTags.get(n)?.kind ?? 'for'));
      if (!tagged.length) return undefined;
      const iname = rng.pick(tagged);
      return step(`untagInames(knl, ${q(iname)})`, (k) => untagInames(k, iname));
    }
    case 'globalFootprints': {
      // a footprint of the parameters' size: only global memory may hold it (issue 27)
      const sweep = rng.subset(knl.inames);
      const options = { temporaryAddressSpace: 'global' as const };
      const arrays = [...kcase.arrays.keys()].filter((a) => knl.arg(a) && !knl.temporaries.has(`${a}_fetch`));
      if (knl.substitutions.has('f') && (!arrays.length || rng.chance(0.5))) {
        return step(`precompute(knl, 'f', ${list(sweep)}, ${JSON.stringify(options)})`, (k) =>
          precompute(k, 'f', sweep, options),
        );
      }
      if (!arrays.length) return undefined;
      const array = rng.pick(arrays);
      return step(`addPrefetch(knl, ${q(array)}, ${list(sweep)}, ${JSON.stringify(options)})`, (k) =>
        addPrefetch(k, array, sweep, options),
      );
    }
    case 'parametricWorkGroups': {
      // a work-group of n (or ceil(n/k)) work-items, sized at launch (issue 27); not a reduction
      // iname: a reduction across work-items needs a constant range (a LoomError)
      const l = freeAxis(knl, 'local');
      const candidates = free.filter((n) => !n.startsWith('k'));
      if (l === undefined || !candidates.length) return undefined;
      const iname = rng.pick(candidates);
      const chunks = rng.chance(0.4) ? rng.int(2, 3) : undefined;
      const s =
        chunks === undefined
          ? step(`tagInames(knl, { ${iname}: 'l.${l}' })`, (k) => tagInames(k, { [iname]: `l.${l}` }))
          : step(`chunkIname(knl, ${q(iname)}, ${chunks}, { innerTag: 'l.${l}' })`, (k) =>
              chunkIname(k, iname, chunks, { innerTag: `l.${l}` }),
            );
      // only where the axis's size is one the launch gives (not one a constant-length iname fixes)
      return sizedAtLaunch(knl, s, l) ? s : undefined;
    }
    case 'parametricTemporaries': {
      // a prefetch or precompute into local memory whose footprint has a parametric size, declared
      // sized at launch (issue 27, s8-temps); kept only where the size is one the launch gives
      const sweep = rng.subset(knl.inames);
      const options = { temporaryAddressSpace: 'local' as const };
      const arrays = [...kcase.arrays.keys()].filter((a) => knl.arg(a) && !knl.temporaries.has(`${a}_fetch`));
      const s =
        knl.substitutions.has('f') && (!arrays.length || rng.chance(0.5))
          ? step(`precompute(knl, 'f', ${list(sweep)}, ${JSON.stringify(options)})`, (k) =>
              precompute(k, 'f', sweep, options),
            )
          : arrays.length
            ? ((array: string) =>
                step(`addPrefetch(knl, ${q(array)}, ${list(sweep)}, ${JSON.stringify(options)})`, (k) =>
                  addPrefetch(k, array, sweep, options),
                ))(rng.pick(arrays))
            : undefined;
      return s && addsParametricTemporary(knl, s) ? s : undefined;
    }
    case 'images': {
      // an input of 2 or 3 axes read as an image (issue 27's ImageArg); a dtype images do not hold is refused
      const arrays = [...kcase.arrays]
        .filter(([a, dims]) => knl.arg(a)?.kind === 'global' && (dims.length === 2 || dims.length === 3))
        .map(([a]) => a);
      if (!arrays.length) return undefined;
      const array = rng.pick(arrays);
      return step(`changeArgToImage(knl, ${q(array)})`, (k) => changeArgToImage(k, array));
    }
    default:
      return undefined;
  }
}

/** The temporaries of `after` in `spaces` that `before` did not have so, of a size known only at launch. */
function newParametricTemporaries(
  before: LoopKernel,
  after: LoopKernel,
  spaces: readonly string[] = ['auto', 'private', 'local'],
): string[] {
  return [...after.temporaries.values()]
    .filter((t) => spaces.includes(t.addressSpace) && t.shape.some((e) => e.kind !== 'int'))
    .filter((t) => {
      const old = before.temporaries.get(t.name);
      return !old || old.addressSpace !== t.addressSpace || old.shape.every((e) => e.kind === 'int');
    })
    .map((t) => t.name);
}

/**
 * `after`, unless it adds a private or local temporary of parametric size while the feature
 * parametricTemporaries is off, or a private one (which only C and the CPU device declare):
 * then a LoomError, so the chain drops the step as it did before such temporaries were
 * generated, and the older samples' seeds keep their kernels.
 */
function sizedOnlyIf(features: FeatureSet, before: LoopKernel, after: LoopKernel): LoopKernel {
  const refused = features.has('parametricTemporaries') ? ['auto', 'private'] : ['auto', 'private', 'local'];
  const added = newParametricTemporaries(before, after, refused);
  if (added.length)
    throw new LoomError(`${added.join(', ')}: a private or local temporary of parametric size (parametricTemporaries)`);
  return after;
}

/** Whether `s` applied to `knl` adds a private or local temporary sized at launch. */
function addsParametricTemporary(knl: LoopKernel, s: Step): boolean {
  try {
    return newParametricTemporaries(knl, s.apply(knl), ['local']).length > 0;
  } catch (e) {
    if (e instanceof LoomError) return false;
    throw e;
  }
}

/** Whether `s` applied to `knl` gives local axis `axis` a size known only at launch. */
function sizedAtLaunch(knl: LoopKernel, s: Step, axis: number): boolean {
  try {
    const local = getGridSizeUpperBounds(s.apply(knl)).local[axis];
    return local !== undefined && local.kind !== 'int';
  } catch (e) {
    if (e instanceof LoomError) return false;
    throw e;
  }
}

/** The iname lists of the reductions in an expression. */
function reductionsOf(e: LoopKernel['instructions'][number]['expression']): string[][] {
  const out: string[][] = [];
  const visit = (x: NonNullable<typeof e>): void => {
    if (x.kind === 'reduce') out.push([...x.inames]);
    for (const c of expr.children(x)) visit(c);
  };
  if (e) visit(e);
  return out;
}

/** Up to `maxSteps` steps on `kcase`'s kernel; refused steps are listed, not applied. */
export function generateChain(rng: Rng, kcase: KernelCase, features: FeatureSet, maxSteps = 5): Chain {
  let knl = kcase.build();
  const steps: Step[] = [];
  const refused: string[] = [];
  const apply = (s: Step) => {
    try {
      knl = s.apply(knl);
      steps.push(s);
    } catch (e) {
      if (!(e instanceof LoomError)) throw Object.assign(e as Error, { step: s.text });
      refused.push(`${s.text}: ${(e as Error).message.split('\n')[0]}`);
    }
  };
  // a family's own steps first (lanes, segments), then a few generic ones after them
  for (const s of kcase.plannedSteps ?? []) apply(s);
  const length = kcase.plannedSteps ? steps.length + rng.int(0, 2) : rng.int(0, maxSteps);
  // a family's kernels move their temporaries only where that makes no race of the user's own
  const generic = kcase.plannedSteps ? features.without(['space']) : features;
  for (let tries = 0; steps.length < length && tries < 3 * maxSteps; tries++) {
    const s = randomStep(rng, knl, kcase, generic);
    if (s) apply(s);
  }
  if (features.has('temporaryLayouts')) {
    const layout = temporaryLayoutStep(sideStream(kcase.seed, 0x1a70e), knl);
    if (layout) apply(layout);
  }
  if (features.has('swizzledTemporaries')) {
    const swizzle = swizzleStep(sideStream(kcase.seed, 0x5b122), knl);
    if (swizzle) apply(swizzle);
  }
  if (features.has('asyncTiles')) {
    const copies = asyncTilesStep(sideStream(kcase.seed, 0xa51c0), knl);
    if (copies) apply(copies);
  }
  return { steps, refused, kernel: knl };
}

/**
 * A local tile's fills as asynchronous copies, or as bulk copies with the kernel options of their
 * barriers drawn (asyncTiles), from their own stream: a tile whose every fill copies one element of
 * an argument (what asyncCopies takes; others are refused and listed). Undefined where the draw passes
 * or no local temporary is filled.
 */
function asyncTilesStep(side: Rng, knl: LoopKernel): Step | undefined {
  if (!side.chance(0.6)) return undefined;
  const tiles = [...knl.temporaries.values()]
    .filter((t) => t.addressSpace === 'local' && findInstructions(knl, `writes:${t.name}`).length > 0)
    .map((t) => t.name);
  if (!tiles.length) return undefined;
  const tile = side.pick(tiles);
  if (side.chance(0.4))
    return { feature: 'asyncTiles', text: `asyncCopies(knl, ${q(tile)})`, apply: (k) => asyncCopies(k, tile) };
  const release = side.pick(['auto', 'auto', 'arrivals', 'barriers'] as const);
  const warpSpecialized = release !== 'barriers' && side.chance(0.3);
  const options = { bulkRelease: release, warpSpecialized };
  return {
    feature: 'asyncTiles',
    text: `setOptions(bulkCopies(knl, ${q(tile)}), ${JSON.stringify(options)})`,
    apply: (k) => setOptions(bulkCopies(k, tile), options),
  };
}

/**
 * A local temporary stored swizzled (swizzledTemporaries), drawn from its own stream: one whose size
 * and dtype are known and whose bytes are whole spans of the span drawn. Undefined where the draw
 * passes or no temporary qualifies.
 */
function swizzleStep(side: Rng, knl: LoopKernel): Step | undefined {
  if (!side.chance(0.6)) return undefined;
  // a tile's dtype, where inference has not set it yet: the argument its fill copies
  const dtypeOf = (name: string) => {
    const t = knl.temporaries.get(name)!;
    if (t.dtype) return t.dtype;
    const fill = knl.instructions.find((i) => i.assignees[0]?.kind === 'subscript' && i.assignees[0].array === name);
    const value = fill?.expression;
    return value?.kind === 'subscript' ? knl.arg(value.array)?.dtype : undefined;
  };
  const bytesOf = (t: { name: string; shape: readonly expr.Expr[] }) => {
    const dtype = dtypeOf(t.name);
    if (!dtype || !t.shape.every((e) => e.kind === 'int')) return undefined;
    const elements = t.shape.reduce((n, e) => n * (e as { value: number }).value, 1);
    return { bytes: elements * byteSize(dtype), element: byteSize(dtype) };
  };
  const candidates = [...knl.temporaries.values()].flatMap((t) => {
    const size = bytesOf(t);
    const plain = !t.matrixAccumulator && !t.dimTags?.some((d) => d.kind === 'vec' || d.kind === 'sep');
    if (t.addressSpace !== 'local' || !plain || !size || size.element > 16) return [];
    const spans = ([32, 64, 128] as const).filter((span) => size.bytes % span === 0);
    return spans.length ? [{ name: t.name, spans }] : [];
  });
  if (!candidates.length) return undefined;
  const { name, spans } = side.pick(candidates);
  const span = side.pick(spans);
  return {
    feature: 'swizzledTemporaries',
    text: `swizzleArray(knl, ${q(name)}, ${span})`,
    apply: (k) => swizzleArray(k, name, span),
  };
}

/**
 * A temporary laid out anew (temporaryLayouts), drawn from its own stream: an axis of constant
 * length split by 2 to 4 (`a[i]` becomes `a[i // f, i % f]`, or F order `a[i % f, i // f]`), and
 * most often the axes then nested in a random order, as the core matrices of Hopper's wgmma are
 * (`splitArrayAxis` twice, `tagArrayAxes 'N3,N1,N2,N0'`). Undefined where the draw passes, or the
 * kernel has no temporary with such an axis.
 */
function temporaryLayoutStep(side: Rng, knl: LoopKernel): Step | undefined {
  if (!side.chance(0.35)) return undefined;
  const constantAxes = (t: { shape: readonly expr.Expr[] }) =>
    t.shape.flatMap((e, axis) => (e.kind === 'int' && e.value >= 2 ? [{ axis, length: e.value }] : []));
  const candidates = [...knl.temporaries.values()].filter(
    (t) => !t.matrixAccumulator && !t.dimTags && t.addressSpace !== 'global' && constantAxes(t).length > 0,
  );
  if (!candidates.length) return undefined;
  const temporary = side.pick(candidates);
  const { axis, length } = side.pick(constantAxes(temporary));
  const factor = side.int(2, Math.min(4, length));
  const order = side.chance(0.5) ? 'C' : 'F';
  const rank = temporary.shape.length + 1;
  const nesting = side.chance(0.7)
    ? side.shuffle(Array.from({ length: rank }, (_, k) => `N${k}`)).join(',')
    : undefined;
  const name = temporary.name;
  const text = `splitArrayAxis(knl, ${q(name)}, ${axis}, ${factor}, ${q(order)})${nesting ? `; tagArrayAxes(knl, ${q(name)}, ${q(nesting)})` : ''}`;
  return {
    feature: 'temporaryLayouts',
    text,
    apply: (k) => {
      const split = splitArrayAxis(k, name, axis, factor, order);
      return nesting ? tagArrayAxes(split, name, nesting) : split;
    },
  };
}
