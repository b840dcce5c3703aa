/**
 * Differential testing, the bounded sample CI runs: random kernels under random
 * transformation chains, on every device present, equal element by element to the
 * untransformed kernel on the CPU device (test/support/differential/ says how cases are
 * made and compared; `npx tsx bench/differential.ts` runs the same for minutes with
 * fresh seeds and everything enabled).
 *
 * Fixed seeds, so a failure here reproduces with `npx tsx bench/differential.ts --seed S
 * --exclude <EXCLUDED>` (test/support/differential/sample.ts). The CPU device is cheap and gets
 * many cases; OpenCL and WebGPU compile each kernel (a tenth of a second or more on PoCL) and
 * get a few. The cases against plain JS have files of their own: differential-computations (the
 * computation library), differential-pointwise (payloads) and differential-arguments (what a
 * kernel is called with).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateCode, setWarningHandler, targetFacts, type Device, type LoopKernel } from '@loom/core';
import { jsTarget } from '@loom/codegen-js';
import { testDevices } from './support/devices.ts';
import { compareArrays, floatsAgree } from './support/differential/compare.ts';
import {
  FeatureSet,
  limitsOf,
  planCase,
  runCase,
  runSeed,
  type CaseResult,
  type Feature,
} from './support/differential/index.ts';
import { runGroupRowsCase } from './support/differential/group-rows.ts';
import { casesOf, EXCLUDED, range, reference, sample } from './support/differential/sample.ts';

/** Issue 27's argument layouts and spellings (argument-layouts.ts): sampled by their own test below. */
const LAYOUTS: readonly Feature[] = [
  'argumentLayouts',
  'argumentSpellings',
  'complexValueArguments',
  'paddedArguments',
];

/**
 * The older samples below leave out issue 24's families and issue 27's global footprints (their
 * own tests sample them): their fixed seeds keep the kernels they were chosen for, and their time.
 */
const OLDER: readonly Feature[] = [
  ...EXCLUDED,
  'nestedRules',
  'laneTemporaries',
  'dependentDomains',
  'globalFootprints',
  'complexPowers',
  'parametricWorkGroups',
  'images',
  'atomicStoresLoads',
  'parametricTemporaries',
  'vectorLaneWrites',
  'doubleBuffers',
  'wideReductions',
  'temporaryLayouts',
  'pipelineStages',
  'swizzledTemporaries',
  'asyncTiles',
  'atomicFetches',
  'globalFences',
  ...LAYOUTS,
];

/**
 * The samples of issue 27's earlier steps (global footprints, complex powers) leave out the steps
 * added after them (parametric work-groups, images: each sampled by its own test), so that their
 * seeds keep the chains they were chosen for.
 */
const BEFORE_LATER_STEPS: readonly Feature[] = [
  ...EXCLUDED,
  'parametricWorkGroups',
  'images',
  'atomicStoresLoads',
  'nestedRules',
  'parametricTemporaries',
  'vectorLaneWrites',
  'doubleBuffers',
  'wideReductions',
  'temporaryLayouts',
  'pipelineStages',
  'swizzledTemporaries',
  'asyncTiles',
  'atomicFetches',
  'globalFences',
];

/** Issue 24's family sample leaves out issue 27's steps, for the same reason. */
const ISSUE_24: readonly Feature[] = [
  ...EXCLUDED,
  'globalFootprints',
  'complexPowers',
  'parametricWorkGroups',
  'images',
  'atomicStoresLoads',
  'nestedRules',
  'parametricTemporaries',
  'vectorLaneWrites',
  'doubleBuffers',
  'wideReductions',
  'temporaryLayouts',
  'pipelineStages',
  'swizzledTemporaries',
  'asyncTiles',
  'atomicFetches',
  'globalFences',
  ...LAYOUTS,
];

/*
 * Not excluded here but per device: WebGPU is never held to float specials. WGSL lets
 * implementations assume finite floats, and lavapipe does (it folds (b − k) − b to −k with
 * b = NaN); no code generation can prevent that in general (README, semantics). runSeed
 * gives WebGPU each seed's case made without them (features.ts, `limitsOf`).
 */

/** A case's kernel has an argmax/argmin; its chain puts a reduction iname (k, k_inner, ...) on a local axis. */
const usesArgmax = (r: Pick<CaseResult, 'kcase'>) => /\barg(max|min)\(/.test(r.kcase.instructions);
/** A case's arrays are complex64 (which every device has; complex128 needs float64). */
const usesComplex = (r: Pick<CaseResult, 'kcase'>) => r.kcase.dtype === 'complex64';
const reducesLocally = (r: Pick<CaseResult, 'chain'>) =>
  r.chain?.steps.some((s) => /splitIname\(knl, 'k\w*', \d+, \{[^}]*"(inner|outer)Tag":"l\./.test(s.text)) ?? false;
const agreedOn = (r: Pick<CaseResult, 'devices'>, device?: string) =>
  r.devices.some((d) => (device === undefined || d.device === device) && d.outcome.kind === 'agree');

test('CPU device: 60 random kernels under random chains agree with the untransformed kernel', async () => {
  const results = await sample(range(1000, 60), [reference], OLDER);
  // most cases must really be compared, not declined: a generator gone wrong would pass silently
  const compared = results.filter((r) => r.devices.some((d) => d.outcome.kind === 'agree')).length;
  assert.ok(compared >= 40, `only ${compared} of 60 cases were compared`);
  assert.ok(
    results.some((r) => r.chain!.steps.length >= 3),
    'no chain of three steps or more',
  );
  assert.ok(results.filter((r) => usesArgmax(r) && agreedOn(r)).length >= 5, 'too few argmax cases compared');
  assert.ok(
    results.filter((r) => reducesLocally(r) && agreedOn(r)).length >= 3,
    'too few reductions across work-items compared',
  );
});

test('every device: 6 random kernels under random chains agree with the untransformed kernel', async () => {
  const results = await sample(range(2000, 6), testDevices(), OLDER);
  for (const device of testDevices()) {
    const compared = results.filter((r) =>
      r.devices.some((d) => d.device === device.name && d.outcome.kind === 'agree'),
    ).length;
    assert.ok(compared >= 2, `${device.name}: only ${compared} of 6 cases were compared`);
  }
});

test('every device: random kernels with argmax, complex values, and reductions across work-items agree with the untransformed kernel', async () => {
  // the first seeds from 3000 whose case (as each device gets it) has the feature: a sample that
  // cannot drift away from them as the generator changes
  const pick = (has: (r: Pick<CaseResult, 'kcase' | 'chain'>) => boolean, count: number) => {
    const seeds: number[] = [];
    for (let seed = 3000; seeds.length < count && seed < 4000; seed++) {
      const own = testDevices().map((d) => planCase(seed, new FeatureSet(OLDER).without(limitsOf(d))));
      if (own.every((p) => p && has(p))) seeds.push(seed);
    }
    return seeds;
  };
  const argmaxSeeds = pick(usesArgmax, 3);
  const localSeeds = pick(reducesLocally, 3);
  const complexSeeds = pick(usesComplex, 3);
  const results = await sample([...argmaxSeeds, ...localSeeds, ...complexSeeds], testDevices(), OLDER);
  for (const device of testDevices()) {
    assert.ok(
      results.some((r) => usesArgmax(r) && agreedOn(r, device.name)),
      `${device.name}: no argmax case compared (seeds ${argmaxSeeds})`,
    );
    assert.ok(
      results.some((r) => reducesLocally(r) && agreedOn(r, device.name)),
      `${device.name}: no reduction across work-items compared (seeds ${localSeeds})`,
    );
    assert.ok(
      results.some((r) => usesComplex(r) && agreedOn(r, device.name)),
      `${device.name}: no complex case compared (seeds ${complexSeeds})`,
    );
  }
});

/** A case's chain splits its reduction whole onto l.0, as wide as a subgroup or several (wideReductions). */
const reducesWide = (r: Pick<CaseResult, 'chain'>) =>
  r.chain?.steps.some((s) => s.feature === 'wideReductions') ?? false;

test('every device: reductions as wide as subgroups, split whole onto l.0 under random chains, agree with the untransformed kernel (by subgroups where the device has them)', async () => {
  // the first seeds from 9000 whose case (as each device gets it) has them, in 32-bit values every
  // device's subgroup functions take: its reduction over 8 to 128 values split by 8, 16, 32 or 64
  // onto l.0 first, then the chain's other steps
  const seeds: number[] = [];
  for (let seed = 9000; seeds.length < 8 && seed < 12000; seed++) {
    const own = testDevices().map((d) => planCase(seed, new FeatureSet(EXCLUDED).without(limitsOf(d))));
    if (own.every((p) => p && reducesWide(p) && ['float32', 'int32'].includes(p.kcase.dtype))) seeds.push(seed);
  }
  const results = await sample(seeds, testDevices(), EXCLUDED);
  for (const device of testDevices()) {
    const compared = results.filter((r) => reducesWide(r) && agreedOn(r, device.name));
    assert.ok(
      compared.length >= 2,
      `${device.name}: only ${compared.length} wide reductions compared (seeds ${seeds})`,
    );
    // where the device has subgroups, some of them went through its subgroup functions
    if ('refused' in targetFacts(device.target).subgroups) continue;
    const bySubgroups = compared.filter((r) => {
      try {
        return /subgroup|sub_group|shfl/.test(generateCode(r.chain!.kernel, device.target).code);
      } catch {
        return false;
      }
    });
    assert.ok(bySubgroups.length >= 1, `${device.name}: no wide reduction went through subgroups (seeds ${seeds})`);
  }
});

test("every device: issue 24's kernel kinds, lane temporaries and data-dependent (CSR-like) domains, under their chains, agree with the untransformed kernel", async () => {
  // the first seeds from 5000 whose case (as each device gets it) is of the family and whose
  // chain applied the family's steps: lanes, or a tag or split of the boxes or segments
  const pick = (shape: string, count: number) => {
    const seeds: number[] = [];
    for (let seed = 5000; seeds.length < count && seed < 8000; seed++) {
      const own = testDevices().map((d) => planCase(seed, new FeatureSet(ISSUE_24).without(limitsOf(d))));
      if (
        own.every(
          (p) =>
            p?.kcase.shape === shape &&
            p.kcase.dtype !== 'float64' &&
            p.chain.steps.some((s) => s.feature === (shape === 'lanes' ? 'laneTemporaries' : 'dependentDomains')),
        )
      )
        seeds.push(seed);
    }
    return seeds;
  };
  const laneSeeds = pick('lanes', 2);
  const segmentSeeds = pick('segments', 4);
  const results = await sample([...laneSeeds, ...segmentSeeds], testDevices(), ISSUE_24);
  for (const device of testDevices())
    for (const shape of ['lanes', 'segments'])
      assert.ok(
        results.some((r) => r.kcase.shape === shape && agreedOn(r, device.name)),
        `${device.name}: no ${shape} case compared (seeds ${shape === 'lanes' ? laneSeeds : segmentSeeds})`,
      );
  // issue 27's shape-less values (shapelessArguments): x declared without a shape, read at indices from data
  const shapeless = (r: CaseResult) =>
    r.kcase.shape === 'segments' && r.kcase.source.includes("globalArg('x', { dtype");
  for (const device of testDevices())
    assert.ok(
      results.some((r) => shapeless(r) && agreedOn(r, device.name)),
      `${device.name}: no segments case with a shape-less x compared (seeds ${segmentSeeds})`,
    );
});

test('every device: vector lanes written by neighbouring work-items (c,vec outputs, i on l.0) agree with the untransformed kernel', async () => {
  // the first seeds from 9000 whose case is of the family on every device and whose chain tagged the output's lanes
  const seeds: number[] = [];
  for (let seed = 9000; seeds.length < 3 && seed < 12000; seed++) {
    const own = testDevices().map((d) => planCase(seed, new FeatureSet(EXCLUDED).without(limitsOf(d))));
    if (
      own.every((p) => p?.kcase.shape === 'vectorLanes' && p.chain.steps.some((s) => s.text.includes("'out', 'c,vec'")))
    )
      seeds.push(seed);
  }
  assert.is(seeds.length, 3, 'three seeds of the family');
  const results = await sample(seeds, testDevices(), EXCLUDED);
  for (const device of testDevices())
    assert.ok(
      results.some((r) => r.kcase.shape === 'vectorLanes' && agreedOn(r, device.name)),
      `${device.name}: no vector-lane case compared (seeds ${seeds})`,
    );
});

/**
 * The double-buffer sample leaves out the steps that rarely leave a local tile and a loop its fills
 * run in, so that its chains reach doubleBuffer often (one seed in a hundred with them all).
 */
const AROUND_DOUBLE_BUFFERS: readonly Feature[] = [
  ...EXCLUDED,
  ...(['duplicate', 'join', 'fix', 'rename', 'chunk', 'splitWithin', 'reductionShape', 'mapDomain', 'untag'] as const),
  ...(['globalFootprints', 'parametricWorkGroups', 'images', 'parametricTemporaries', 'precompute'] as const),
  ...(['prioritize', 'ilp', 'unroll'] as const),
  'wideReductions',
  'temporaryLayouts',
  'pipelineStages',
  'swizzledTemporaries',
  'asyncTiles',
  'atomicFetches',
  'globalFences',
];

test('every device: local tiles double-buffered over a loop under random chains agree with the untransformed kernel', async () => {
  // the first seeds from 13000 whose chain (as each device gets it) applied doubleBuffer
  const seeds: number[] = [];
  for (let seed = 13000; seeds.length < 4 && seed < 16000; seed++) {
    const own = testDevices().map((d) => planCase(seed, new FeatureSet(AROUND_DOUBLE_BUFFERS).without(limitsOf(d))));
    if (own.every((p) => p?.chain.steps.some((s) => s.feature === 'doubleBuffers'))) seeds.push(seed);
  }
  assert.is(seeds.length, 4, 'four seeds with a double buffer');
  const results = await sample(seeds, testDevices(), AROUND_DOUBLE_BUFFERS);
  const doubled = (r: CaseResult) => r.chain?.steps.some((s) => s.feature === 'doubleBuffers') ?? false;
  for (const device of testDevices())
    assert.ok(
      results.some((r) => doubled(r) && agreedOn(r, device.name)),
      `${device.name}: no double-buffered case compared (seeds ${seeds})`,
    );
});

test('every device: pipelines of three or four buffers, filled one to three steps ahead, under random chains agree with the untransformed kernel', async () => {
  // the first four seeds from 24000 whose chain (as each device of this machine gets it) applied
  // doubleBuffer with stages (searching for them takes a minute: they are written out, and checked)
  const around = AROUND_DOUBLE_BUFFERS.filter((f) => f !== 'pipelineStages');
  const staged = (p: ReturnType<typeof planCase>) =>
    p?.chain.steps.some((s) => s.feature === 'doubleBuffers' && s.text.includes('stages')) ?? false;
  const seeds = [25_488, 27_074, 38_436, 42_636];
  for (const seed of seeds)
    assert.ok(
      testDevices().every((d) => staged(planCase(seed, new FeatureSet(around).without(limitsOf(d))))),
      `seed ${seed} double-buffers with stages on every device`,
    );
  const results = await sample(seeds, testDevices(), around);
  const pipelined = (r: CaseResult) =>
    r.chain?.steps.some((s) => s.feature === 'doubleBuffers' && s.text.includes('stages')) ?? false;
  for (const device of testDevices())
    assert.ok(
      results.some((r) => pipelined(r) && agreedOn(r, device.name)),
      `${device.name}: no case with a pipeline of several buffers compared (seeds ${seeds})`,
    );
});

test('every device: temporaries laid out anew (split axes, nested in any order) under random chains agree with the untransformed kernel', async () => {
  // the first seeds from 23000 whose chain (as each device gets it) laid a local tile out anew, and
  // the first that laid out a private temporary
  const features = (d: Device) => new FeatureSet(EXCLUDED).without(limitsOf(d));
  const laidOut = (p: ReturnType<typeof planCase>, space: 'local' | 'private') => {
    const step = p?.chain.steps.find((s) => s.feature === 'temporaryLayouts');
    const name = step?.text.match(/splitArrayAxis\(knl, '([^']+)'/)?.[1];
    return name !== undefined && p!.chain.kernel.temporaries.get(name)?.addressSpace === space;
  };
  const seeds: number[] = [];
  for (const [space, count] of [
    ['local', 3],
    ['private', 1],
  ] as const) {
    const found: number[] = [];
    for (let seed = 23_000; found.length < count && seed < 26_000; seed++) {
      const own = testDevices().map((d) => planCase(seed, features(d)));
      if (own.every((p) => laidOut(p, space))) found.push(seed);
    }
    seeds.push(...found);
  }
  assert.is(seeds.length, 4, 'three seeds with a local tile laid out anew, one with a private temporary');
  const results = await sample(seeds, testDevices(), EXCLUDED);
  const laid = (r: CaseResult) => r.chain?.steps.some((s) => s.feature === 'temporaryLayouts') ?? false;
  for (const device of testDevices())
    assert.ok(
      results.some((r) => laid(r) && agreedOn(r, device.name)),
      `${device.name}: no case with a temporary laid out anew compared (seeds ${seeds})`,
    );
});

test('local temporaries stored swizzled under random chains agree with the untransformed kernel', async () => {
  // the first seven seeds from 30000 whose chain (as each device of this machine gets it, among the
  // steps that leave local tiles most often) swizzled a local temporary: searching for them takes
  // minutes, so they are written out, and checked. Their cases are of float64, which WGSL does not
  // have: test/swizzle-array.test.ts runs a swizzled tile on every device, WebGPU included
  const around = AROUND_DOUBLE_BUFFERS.filter((f) => f !== 'swizzledTemporaries');
  const swizzled = (p: ReturnType<typeof planCase>) =>
    p?.chain.steps.some((s) => s.feature === 'swizzledTemporaries') ?? false;
  const seeds = [33_671, 40_120, 42_805, 45_449, 47_367, 53_408, 59_276];
  for (const seed of seeds)
    assert.ok(
      testDevices().every((d) => swizzled(planCase(seed, new FeatureSet(around).without(limitsOf(d))))),
      `seed ${seed} swizzles a local temporary on every device`,
    );
  const results = await sample(seeds, testDevices(), around);
  const stored = (r: CaseResult) => r.chain?.steps.some((s) => s.feature === 'swizzledTemporaries') ?? false;
  for (const device of testDevices().filter((d) => !d.target.unsupportedDType?.('float64')))
    assert.ok(
      results.some((r) => stored(r) && agreedOn(r, device.name)),
      `${device.name}: no case with a swizzled temporary compared (seeds ${seeds})`,
    );
});

test('local tiles filled by asynchronous or bulk copies (barriers, arrivals, a producer) under random chains agree with the untransformed kernel', async () => {
  // seeds from 60000 whose chain (as a device that issues asynchronous copies gets it) made a local tile's
  // fills asynchronous or bulk copies: asyncCopies, bulkCopies with the barriers kept, as arrivals, with a
  // producer. The CPU and C devices copy at once; CUDA issues cp.async, or the requests of the tensor memory
  // accelerator where the tile is a box (a LoomError declines the rest); OpenCL and WebGPU get the seeds
  // without them (limitsOf)
  const around = AROUND_DOUBLE_BUFFERS.filter((f) => f !== 'asyncTiles');
  const copied = (p: ReturnType<typeof planCase>) => p?.chain.steps.some((s) => s.feature === 'asyncTiles') ?? false;
  const seeds = [60_262, 60_294, 61_185, 61_601, 61_665, 62_287];
  const issuing = testDevices().filter((d) => !limitsOf(d).includes('asyncTiles'));
  for (const seed of seeds)
    assert.ok(
      issuing.every((d) => copied(planCase(seed, new FeatureSet(around).without(limitsOf(d))))),
      `seed ${seed} copies a tile asynchronously on every device that issues such copies`,
    );
  const results = await sample(seeds, testDevices(), around);
  const asynchronous = (r: CaseResult) => r.chain?.steps.some((s) => s.feature === 'asyncTiles') ?? false;
  for (const device of issuing)
    assert.ok(
      results.filter((r) => asynchronous(r) && agreedOn(r, device.name)).length >= 3,
      `${device.name}: fewer than three cases with asynchronous copies compared (seeds ${seeds})`,
    );
});

test("every device: issue 27's atomic stores and loads (atomic=init, forAtomic counters) agree with the untransformed kernel", async () => {
  // the first seeds from 27000 whose case (as each device gets it) is of each atomics form
  const features = (d: Device) => new FeatureSet(EXCLUDED).without(limitsOf(d));
  const pick = (form: RegExp, count: number) => {
    const seeds: number[] = [];
    for (let seed = 27_000; seeds.length < count && seed < 30_000; seed++) {
      const own = testDevices().map((d) => planCase(seed, features(d)));
      if (own.every((p) => p?.kcase.shape === 'atomics' && form.test(p.kcase.instructions))) seeds.push(seed);
    }
    return seeds;
  };
  const forms = { init: /^out\[i %/, counter: /\btemp = temp \+ a\[j\]/ };
  const seeds = [...pick(forms.init, 2), ...pick(forms.counter, 2)];
  const results = await sample(seeds, testDevices(), EXCLUDED);
  for (const device of testDevices())
    for (const [name, form] of Object.entries(forms))
      assert.ok(
        results.some((r) => form.test(r.kcase.instructions) && agreedOn(r, device.name)),
        `${device.name}: no ${name} case of the atomics compared (seeds ${seeds})`,
      );
});

test("every device: issue 30's atomic fetches (tickets, claimed slots), with fences where the device has them, agree with the untransformed kernel", async () => {
  // the first seeds from 30000 whose case (as each device gets it) is of each form; the fenced
  // ones as the devices that fence get them (WebGPU gets the same seeds without the fence)
  const features = (d: Device) => new FeatureSet(EXCLUDED).without(limitsOf(d));
  const forms = {
    tickets: /atomic(Add|Sub)\(counter\[0\]/,
    claims: /atomicCompareExchange\(slots/,
    // the claims or'ed in: an atomic update of a form with no instruction on the C-family targets
    swapped: /\] \| if\(seen/,
    fenced: /gfence/,
  };
  const fencing = testDevices().filter((d) => !limitsOf(d).includes('globalFences'));
  const pick = (form: RegExp, count: number) => {
    const seeds: number[] = [];
    for (let seed = 30_000; seeds.length < count && seed < 40_000; seed++) {
      const own = fencing.map((d) => planCase(seed, features(d)));
      if (own.every((p) => p?.kcase.shape === 'atomicFetches' && form.test(p.kcase.instructions))) seeds.push(seed);
    }
    return seeds;
  };
  const seeds = [
    ...new Set([
      ...pick(forms.tickets, 2),
      ...pick(forms.claims, 2),
      ...pick(forms.swapped, 1),
      ...pick(forms.fenced, 2),
    ]),
  ];
  const results = await sample(seeds, testDevices(), EXCLUDED);
  for (const device of testDevices())
    for (const [name, form] of Object.entries(forms)) {
      if (name === 'fenced' && !fencing.includes(device)) continue;
      assert.ok(
        results.some((r) => form.test(r.kcase.instructions) && agreedOn(r, device.name)),
        `${device.name}: no ${name} case of the atomic fetches compared (seeds ${seeds})`,
      );
    }
  // a device without fences got the fenced seeds' cases without their fence, and compared them
  for (const device of testDevices().filter((d) => !fencing.includes(d)))
    assert.ok(
      results.some(
        (r) =>
          r.kcase.shape === 'atomicFetches' && !forms.fenced.test(r.kcase.instructions) && agreedOn(r, device.name),
      ),
      `${device.name}: no atomic fetch compared without a fence`,
    );
});

test('the same seed gives the same kernel, inputs and chain', async () => {
  const features = new FeatureSet(EXCLUDED);
  const [a, b] = [
    await runCase(1234, features, [reference], reference),
    await runCase(1234, features, [reference], reference),
  ];
  assert.is(a.kcase.source, b.kcase.source);
  assert.equal(
    a.chain?.steps.map((s) => s.text),
    b.chain?.steps.map((s) => s.text),
  );
  assert.equal(
    Object.values(a.kcase.inputs).map((v) => Array.from(v as ArrayLike<unknown>)),
    Object.values(b.kcase.inputs).map((v) => Array.from(v as ArrayLike<unknown>)),
  );
});

test('comparison: NaN equals NaN, −0 differs from +0 bit for bit, ulps only where the case allows them', () => {
  assert.ok(floatsAgree(NaN, -NaN, 32, 0));
  assert.not.ok(floatsAgree(NaN, 1, 32, 3));
  assert.not.ok(floatsAgree(0, -0, 32, 0));
  assert.ok(floatsAgree(0, -0, 32, 1));
  const next = (x: number) =>
    new Float32Array(new Int32Array([new Int32Array(new Float32Array([x]).buffer)[0] + 1]).buffer)[0];
  assert.not.ok(floatsAgree(1, next(1), 32, 0));
  assert.ok(floatsAgree(1, next(next(next(1))), 32, 3));
  assert.not.ok(floatsAgree(1, next(next(next(next(1)))), 32, 3));
  assert.ok(floatsAgree(3.4028234663852886e38, Infinity, 32, 1));
});

test('a device that assumes finite floats: its non-finite reference elements are not compared, and its cases have no float specials', async () => {
  const [expected, got] = [new Float32Array([Infinity, NaN, 1]), new Float32Array([0, 0, 1])];
  assert.is(compareArrays(expected, got, 0).count, 2);
  const wgsl = compareArrays(expected, got, 0, { zeroSign: false, nonFinite: false });
  assert.equal([wgsl.count, wgsl.uncompared], [0, 2]);
  assert.not.ok(
    compareArrays(new Float32Array([2]), new Float32Array([0]), 0, { zeroSign: false, nonFinite: false }).count === 0,
  );
  // a float32 subnormal result flushed to ±0 (NVIDIA's Vulkan, seed 1843415567): agrees where flushing is allowed, only there
  const [tiny, flushed] = [new Float32Array([-5.877471754111438e-39, 1e-45, 2 ** -126]), new Float32Array([-0, 0, 0])];
  assert.is(compareArrays(tiny, flushed, 0).count, 3);
  assert.is(
    compareArrays(tiny, flushed, 0, { zeroSign: false, nonFinite: false, subnormals: false }).count,
    1,
    'the smallest normal is never flushed',
  );
  for (const device of testDevices()) {
    const [own] = await runSeed(2001, new FeatureSet(EXCLUDED), [device], reference);
    assert.is(own.features.has('floatSpecials'), targetFacts(device.target).floatSpecials, device.name);
  }
});

test('a work-group a row, its reduction passed through global memory to the whole group, agrees with plain JS on every device, fixed seeds', async () => {
  const ran = await casesOf(range(31_000, 4), runGroupRowsCase);
  assert.ok(ran.length === 4 * testDevices().length, ran.join('; '));
  // seed 31 002 holds its rows in registers (heldRows)
  assert.ok(
    ran.some((r) => r.includes('x held in registers')),
    ran.join('; '),
  );
});

test("every device: issue 27's global footprints of parametric size (addPrefetch, precompute into global memory) agree with the untransformed kernel", async () => {
  // One case per seed for every device (made without what any device leaves out), so the
  // sample is the same everywhere: the first seeds from 9000 whose chain stores a footprint of
  // a size the parameters give in global memory, two of them inside a sequential loop that its
  // reads share (the global barrier in that loop, which the host runs around the launches),
  // each compiled without a warning (a race the chain makes would not be compared).
  const devices = testDevices();
  const features = new FeatureSet([...BEFORE_LATER_STEPS, ...devices.flatMap(limitsOf)]);
  const globalBarriers = (knl: LoopKernel) =>
    knl.instructions.filter((i) => i.kind === 'barrier' && i.barrierScope === 'global');
  const inHostLoop = (knl: LoopKernel) => globalBarriers(knl).some((b) => b.withinInames.length > 0);
  const picked = { hostLoop: [] as number[], plain: [] as number[] };
  for (let seed = 9000; (picked.hostLoop.length < 2 || picked.plain.length < 2) && seed < 10_000; seed++) {
    const p = planCase(seed, features);
    if (!p || p.kcase.dtype === 'float64' || Object.keys(p.kcase.params).length === 0) continue;
    if (!p.chain.steps.some((s) => s.feature === 'globalFootprints')) continue;
    const list = inHostLoop(p.chain.kernel) ? picked.hostLoop : picked.plain;
    if (list.length < 2 && compilesQuietly(p.chain.kernel)) list.push(seed);
  }
  const seeds = [...picked.hostLoop, ...picked.plain];
  assert.is(seeds.length, 4, `too few seeds store a global footprint (${seeds})`);
  const results = await sample(seeds, devices, [...BEFORE_LATER_STEPS, ...devices.flatMap(limitsOf)]);
  for (const r of results)
    for (const device of devices) {
      const outcome = r.devices.find((d) => d.device === device.name)?.outcome;
      // compared, or a dtype the device does not have (int64 on WebGPU)
      const compared = outcome?.kind === 'agree' || outcome?.kind === 'unsupported';
      assert.ok(compared, `${device.name}: seed ${r.seed} was not compared (${JSON.stringify(outcome)})`);
    }
});

test("every device: issue 27's parametric work-groups (an l.N axis over n, sized at launch) agree with the untransformed kernel at several sizes", async () => {
  // the first seeds from 11000 whose chain (as each device gets it) tagged an axis sized at
  // launch; their cases run at their own n and m, so the sample covers several work-group sizes
  const parametric = (p: Pick<CaseResult, 'chain'>) =>
    p.chain?.steps.some((s) => s.feature === 'parametricWorkGroups') ?? false;
  // without the later parametric temporaries (sampled below), so the seeds keep their chains
  const excluded: readonly Feature[] = [...EXCLUDED, 'parametricTemporaries'];
  const seeds: number[] = [];
  for (let seed = 11_000; seeds.length < 4 && seed < 12_000; seed++) {
    const own = testDevices().map((d) => planCase(seed, new FeatureSet(excluded).without(limitsOf(d))));
    if (own.every((p) => p && parametric(p) && p.kcase.dtype !== 'float64')) seeds.push(seed);
  }
  assert.is(seeds.length, 4, 'too few seeds draw a parametric work-group');
  const results = await sample(seeds, testDevices(), excluded);
  const sizes = new Set(results.filter(parametric).map((r) => JSON.stringify(r.kcase.params)));
  assert.ok(sizes.size > 1, `the sample ran at one size only: ${[...sizes]}`);
  for (const device of testDevices())
    assert.ok(
      results.some((r) => parametric(r) && agreedOn(r, device.name)),
      `${device.name}: no parametric work-group compared (seeds ${seeds})`,
    );
});

test("every device: issue 27's nested rules (precompute of a rule g that calls f keeps f) agree with the untransformed kernel", async () => {
  // the first seeds from 11000 whose kernel has g and whose chain (as each device gets it) precomputes it
  // (to 14000: since the merges of issue 27's s8 branches only two of them lie below 12000)
  const nested = (p: Pick<CaseResult, 'kcase' | 'chain'>) =>
    p.kcase.instructions.includes('g(') &&
    (p.chain?.steps.some((s) => s.text.startsWith("precompute(knl, 'g'")) ?? false);
  // without the later parametric temporaries, which a device without them would not draw: every
  // device's chain is then the same, as the seeds are chosen for
  const excluded: readonly Feature[] = [...EXCLUDED, 'parametricTemporaries'];
  const features = new FeatureSet(excluded);
  const seeds: number[] = [];
  for (let seed = 11_000; seeds.length < 3 && seed < 16_000; seed++) {
    const own = testDevices().map((d) => planCase(seed, features.without(limitsOf(d))));
    if (own.every((p) => p && nested(p))) seeds.push(seed);
  }
  assert.is(seeds.length, 3, 'too few seeds precompute a nested rule');
  const results = await sample(seeds, testDevices(), excluded);
  for (const device of testDevices())
    assert.ok(
      results.some((r) => nested(r) && agreedOn(r, device.name)),
      `${device.name}: no nested rule compared (seeds ${seeds})`,
    );
});

/** The kernel generates JavaScript without a warning but a loop nesting Loom chose (a write race would). */
function compilesQuietly(knl: LoopKernel): boolean {
  const warnings: string[] = [];
  const previous = setWarningHandler((w) => {
    if (w.category !== 'LoopNestAmbiguityWarning') warnings.push(w.toString());
  });
  try {
    generateCode(knl, jsTarget());
    return warnings.length === 0;
  } catch {
    return false;
  } finally {
    setWarningHandler(previous);
  }
}

/** A case's kernel raises a complex value to a power (complexPowers). */
const usesComplexPower = (r: Pick<CaseResult, 'kcase'>) => usesComplex(r) && r.kcase.instructions.includes('**');

test('every device: random complex kernels with powers (z ** 2, z ** 3) agree with the untransformed kernel', async () => {
  const features = new FeatureSet(BEFORE_LATER_STEPS);
  const seeds: number[] = [];
  for (let seed = 5000; seeds.length < 3 && seed < 6000; seed++) {
    const own = testDevices().map((d) => planCase(seed, features.without(limitsOf(d))));
    if (own.every((p) => p && usesComplexPower(p))) seeds.push(seed);
  }
  assert.is(seeds.length, 3, 'too few seeds draw a complex power');
  const results = await sample(seeds, testDevices(), BEFORE_LATER_STEPS);
  for (const device of testDevices())
    assert.ok(
      results.some((r) => usesComplexPower(r) && agreedOn(r, device.name)),
      `${device.name}: no complex power compared (seeds ${seeds})`,
    );
});

test('every device: random kernels reading an input as an image (changeArgToImage) agree with the untransformed kernel', async () => {
  // the first seeds from 11000 whose chain (as each device gets it) made an input an image
  const imaged = (p: Pick<CaseResult, 'chain'>) => p.chain?.steps.some((s) => s.feature === 'images') ?? false;
  const seeds: number[] = [];
  for (let seed = 11_000; seeds.length < 3 && seed < 12_000; seed++) {
    const own = testDevices().map((d) => planCase(seed, new FeatureSet(EXCLUDED).without(limitsOf(d))));
    if (own.every((p) => p && imaged(p))) seeds.push(seed);
  }
  assert.is(seeds.length, 3, 'too few seeds draw an image');
  const results = await sample(seeds, testDevices(), EXCLUDED);
  // a target that refuses images (CUDA) declines every such case
  for (const device of testDevices().filter((d) => typeof targetFacts(d.target).images !== 'object'))
    assert.ok(
      results.some((r) => imaged(r) && agreedOn(r, device.name)),
      `${device.name}: no image case compared (seeds ${seeds})`,
    );
});

test("every device: issue 27's parametric temporaries (a prefetch or precompute into local memory of parametric size) agree with the untransformed kernel", async () => {
  // the first seeds from 13000 whose chain (as each device gets it) adds one; a device without
  // local arrays sized at launch (none of the test devices) would run the seed without it
  const parametric = (p: Pick<CaseResult, 'chain'>) =>
    p.chain?.steps.some((s) => s.feature === 'parametricTemporaries') ?? false;
  const sized = testDevices().filter((d) => !limitsOf(d).includes('parametricTemporaries'));
  const seeds: number[] = [];
  for (let seed = 13_000; seeds.length < 4 && seed < 14_000; seed++) {
    const own = sized.map((d) => planCase(seed, new FeatureSet(EXCLUDED).without(limitsOf(d))));
    if (own.every((p) => p && parametric(p) && p.kcase.dtype !== 'float64' && compilesQuietly(p.chain.kernel)))
      seeds.push(seed);
  }
  assert.is(seeds.length, 4, 'too few seeds draw a parametric temporary');
  const results = await sample(seeds, testDevices(), EXCLUDED);
  assert.ok(sized.length > 0, 'no test device declares arrays sized at launch');
  for (const device of sized)
    assert.ok(
      results.some((r) => parametric(r) && agreedOn(r, device.name)),
      `${device.name}: no parametric temporary compared (seeds ${seeds})`,
    );
});

test.run();
