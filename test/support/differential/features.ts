import { targetFacts, type Device } from '@loom/core';

/**
 * The feature classes a differential case may use. Each can be excluded by name, so a
 * class whose bug is still being fixed does not hide every other disagreement behind it:
 * the CI tests exclude exactly the classes listed (with the bug each waits for) in
 * test/support/differential/sample.ts, and the bench enables everything unless told otherwise.
 */
export const FEATURES = {
  // values and operations
  floatSpecials: 'NaN, ±Inf, −0 and ±1e30 among float inputs',
  intExtremes: 'INT_MIN and INT_MAX among integer inputs (wrapping overflow)',
  intDivByZero: 'integer / // % by 0 and by −1 (INT_MIN / −1 overflows)',
  nanComparisons: 'comparisons, min and max on floats that may be NaN or −0',
  nestedRightOperands: 'a − (b − c), a // (b * c), −(a + b), −(−1): parentheses the printers must keep',
  mulAdd: 'a*b + c and a*b − c on floats (a device that fuses them into fma rounds once)',
  inexactFloat: 'float division and sqrt (as the last operation, compared within a few ulps)',
  wideTypes: 'float64 and int64 (not on WebGPU)',
  bitwise: '& | ^ ~ << >> on integers, shift counts out of range included',
  complex:
    'complex64 arrays (complex128 with wideTypes): imaginary literals (1j), + − * /, real, imag, conj, abs, sum reductions',
  // kernel shapes
  triangular: 'domains with j <= i, as one set or as a nested domain list',
  reductions: 'sum, product, max and min reductions',
  argmax: 'argmax and argmin into two temporaries (a multiple assignment)',
  temporaries: 'private temporaries holding an intermediate value',
  conditionals: "if(c, a, b) and Python's (a if c else b) expressions, and if/else instruction blocks",
  rules: 'substitution rules (f(x) := …), which precompute can store',
  rulePredicates: 'a rule call in the condition of an if-block',
  // issue 27, rule handling: precompute keeps the rules it reads through, prefetch does not write them out
  nestedRules: 'a rule g calling f, precomputed (g or f, or g then f) after the kernel may have been prefetched',
  warnedRaces:
    'a kernel Loom warns about (WriteRaceConditionWarning) is compared anyway; without it, it counts as declined',
  // transformations
  split: 'splitIname, with g./l. tags on either half',
  localReductions: 'l. tags on a half of a split reduction iname (a tree across work-items)',
  wideReductions:
    "a reduction over 8 to 128 values, its length mostly fixed, split by 8, 16, 32 or 64 onto l.0 first (its tree through subgroups where the device has them: lavapipe's 8, NVIDIA's 32), the other steps drawn after it",
  unroll: "the 'unr' tag on a constant-length iname",
  ilp: "the 'ilp' tag on a constant-length iname",
  prioritize: 'prioritizeLoops on two or three inames',
  prefetch: 'addPrefetch of an input array over some inames',
  precompute: 'precompute of a substitution rule over some inames',
  duplicate: 'duplicateInames for all instructions',
  duplicateWithin: 'duplicateInames within one instruction (which may part a temporary from its readers)',
  join: 'joinInames of two constant-length inames',
  fix: 'fixParameters with the value the case runs with',
  rename: 'renameIname',
  space: 'setTemporaryAddressSpace of an instruction temporary (t, s) to private or local',
  spaceOfTiles: 'setTemporaryAddressSpace of a prefetch or precompute tile (may be written across work-items)',
  globalTemporaries: "setTemporaryAddressSpace of a temporary to 'global'",
  chunk: 'chunkIname of an untagged iname into a few chunks',
  splitWithin: 'splitIname within one instruction (the others keep the iname, through a copy)',
  reductionShape: 'splitReductionInward/Outward, makeReductionInamesUnique',
  mapDomain: 'mapDomain with a split or shift map of one iname',
  untag: 'untagInames of an unrolled or ILP iname',
  // targets: constant tables, literals and special floats (issue 24)
  constantTables:
    'a constant table (temporaryVariable with an initializer) of any dtype, float16 and bfloat16 included, its values at the edges of the range',
  signedZeros: '−0 among float inputs, literals and tables (WGSL may ignore the sign of a zero)',
  subnormals:
    'subnormal floats among inputs, literals and tables (WGSL may flush float32 and bfloat16 subnormals to zero)',
  // pointwise payloads (elementwise, issue 24): random JS payloads against plain JS (pointwise.ts)
  pointwiseWeakLiterals:
    'float literals and Math constants (1 / 3, Math.PI) in pointwise payloads, weak beside float32 or float64 data',
  pointwiseStrictEquality: '=== and !== in pointwise payloads, booleans beside numbers (JS: never strictly equal)',
  pointwiseMixedDTypes:
    'pointwise payloads over float, int32 and bool tensors mixed (bool inputs are booleans only in a bool computation)',
  // the computation library (s6-computation, issue 24): cases of computations.ts, not kernels
  computationPredicates:
    'reduce and scan (@loom/computation) over random shapes and axes, with commutative and non-commutative associative predicates',
  // the passes cut by hand (issue 30, eighteenth session: reduce's and scan's workGroupSize and perItem)
  computationCuts:
    'reduce and scan of computationPredicates cut by hand: a drawn work-group (2 to 256, a power of two) and elements per work-item (1 to 40)',
  computationComplex:
    'complex64 (and complex128 with wideTypes) DeviceArray round trips and a computation with complex parameters',
  // complex parameters of computations (issue 29, s11-complex): cases of computation-complex.ts
  computationComplexParameters:
    'complex64 (complex128 with wideTypes) parameters of computations: complex scalars as a number, { re, im } or [re, im], addParam on a complex array, combineComplex/splitComplex, normConst and entrywiseNorm of drawn orders (a real result), matrixMul of real x complex operands',
  // computations with nothing to transform (issue 29: dht over no axes left its output unwritten): computation-no-axes.ts
  // the SGEMM's tilings (issue 30, nineteenth session: aTransposedVectors, groupsPerComputeUnit beside the others)
  computationMatmulConfigs:
    'matrixMul with a drawn tiling (tiles, layouts, float4 loads and reads, a transposed as scalars or float4s, pipelined, double-buffered, asynchronous, unrolled, launch bounds), drawn shapes, batches and transposes: exact against plain JS, or refused before it runs',
  computationNoAxes:
    'reduce, scan, fft, fftShift and dht over no axes, or only over axes of length 1 (rank 0 to 3): the identity (an exclusive scan: the empty value), written over an output of garbage',
  // struct dtypes (s11-structs, issue 29): cases of struct-arrays.ts
  groupRows:
    "a work-group a row: a row's reduction written to a global argument by one work-item and read back by its group (group-rows.ts)",
  heldRows:
    "groupRows' passes over a row made one iname and the row of x read once into registers (extractSubst + precompute over the row's step, as autoSchedule's held rows): group-rows.ts",
  structArrays:
    'arrays of struct dtypes (nested structs, array fields, int64 and float64 fields with wideTypes), fields read and written by a kernel, the input passed as objects or bytes',
  // kernel arguments and integer payloads (s6-gen2, issue 24 follow-ups): cases of kernel-arguments.ts and pointwise-integers.ts
  complexInferredArguments:
    'complex DeviceArrays for kernel arguments whose dtypes are inferred or declared, through run (output given or left out), prepareLaunch and launch',
  aliasedArguments:
    'one DeviceArray as two kernel arguments: read twice or in place at one index (JS result), or at another index, under a reduction or loop (a LoomError)',
  pointwiseIntegerEdges:
    'integer pointwise payloads with edge operands: ** by negative/zero exponents, % and / by 0 and −1 from data, INT_MIN, literals at and beyond the range',
  // kernels of issue 24's bugs (s6-gen): lanes.ts and segments.ts, each with its own chain
  laneTemporaries:
    "a temporary (private, local, or moved by setTemporaryAddressSpace) written in 'ilp', 'ilp.seq', 'unr' or 'vec' lanes (or a split's inner half tagged so) and read in them or in a later loop, with l./g. tags on the other iname",
  vectorLaneWrites:
    "an output whose last axis is a vector's lanes ('c,vec', 2 or 4), each lane written by a work-item of its own (out[i // L, i % L] with i on l.0), its input read the same way as a vector or not",
  dependentDomains:
    'CSR-like segments: a loop over boxes b and an inner loop over s bounded by temporaries read from starts/counts or ptr[b]..ptr[b+1], writing each element and/or reducing each segment (empty ones included), under b on groups or work-items and splits of s',
  // narrow integer intermediates (s6-narrow): cases of pointwise-narrow.ts
  pointwiseNarrowChains:
    'multi-step pointwise payloads over int8/int16/uint8/uint16 tensors, alike or mixed (int8 with uint8, int8 with int32), each step wrapped into the promoted dtype',
  // narrow-integer min/max (s6-narrow2): drawn in pointwise-narrow.ts's chains
  pointwiseNarrowMinMaxLiterals:
    'Math.min/Math.max in narrow-integer chains beside a negative literal (-1, -2, -100, ~k), which wraps into an unsigned computation dtype before the comparison (max(~1, x) over uint8 is 254)',
  // negative literals beside unsigned data (s6-unsigned): drawn in pointwise-narrow.ts's chains
  pointwiseUnsignedBitwiseLiterals:
    '& | ^ in narrow-integer chains beside a negative literal (-1, -2, -100, ~k), which wraps into an unsigned computation dtype first ((x | -2) >> 1 over uint8 is 127, not -1)',
  // sizes known only at run time (issue 27, s7-i27a): drawn as steps of chains.ts
  // shape-less arguments read at data-dependent indices (issue 27, s8-shapeless): drawn in segments.ts from a stream of its own
  shapelessArguments:
    "the segments' values x declared without a shape (loopy's GlobalArg without one): read at indices from data, x is as long as the array passed, its reads guarded",
  // and the footprint's global barriers in the sequential loops the store shares with its reads (s8-shapeless)
  globalFootprints:
    "addPrefetch or precompute into a global temporary (temporaryAddressSpace: 'global') over inames of parametric length: a footprint sized in the parameters, allocated per call; stored inside a sequential loop its reads share, its global barriers run in that loop (a host loop around the launches)",
  // arrays and arguments (issue 27, s7-i27i): cases of argument-layouts.ts, with a random stream of their own
  argumentLayouts:
    "arrays laid out as loopy lets them be: order 'F' (per argument or defaultOrder), blocks of larger buffers passed as views from the host or of DeviceArrays (offset: 'auto' or defaultOffset, stride:auto axes)",
  argumentSpellings:
    "loopy's spellings of a kernel's arguments: one comma-separated string, names with commas, shapes as strings, bare names, no list at all",
  complexValueArguments:
    "complex64 value arguments (loopy's test_axpy), each passed as a number, { re, im } or [re, im]",
  // padded arrays from the host (issue 27, s8-tidy27): drawn in argument-layouts.ts from a stream of its own
  paddedArguments:
    "arrays padded with addPadding (after splitArrayAxis by findPaddingMultiple, as loopy's test_small_batched_matvec): passed flat as their padded buffers, as long as the layout reaches or the whole block, and padded outputs left to run to allocate",
  // sizes known only at run time (issue 27, s8-runtime): drawn as steps of chains.ts
  parametricWorkGroups:
    "an l.N tag on an iname of parametric length (i over n, a chunk of ceil(n/k)): a work-group sized at launch, run at each case's n and m",
  // temporaries of run-time size (issue 27, s8-temps): drawn as steps of chains.ts
  parametricTemporaries:
    "addPrefetch or precompute into local memory (temporaryAddressSpace: 'local') whose footprint has a parametric size: a local array sized at launch (a C variable-length array, a typed array, OpenCL's __local argument, a WGSL override-sized workgroup array); with it on, plain prefetch, precompute and setTemporaryAddressSpace steps may also leave local temporaries sized at launch (without it they are refused, as before; private ones always are: OpenCL, CUDA and WGSL have none)",
  // the rest of loopy's public API (issue 27, s7-i27g): drawn in expressions.ts
  complexPowers: 'z ** 2 and z ** 3 on complex values (an integer literal exponent: repeated squaring)',
  // image arguments (issue 27, s8-images): drawn as steps of chains.ts
  images:
    'changeArgToImage of an input array of 2 or 3 axes (float32, int32, uint32; other dtypes are refused): an OpenCL image, a WebGPU texture, an array elsewhere',
  // double buffers (issue 30, s10-double): drawn as steps of chains.ts
  doubleBuffers:
    'doubleBuffer of a local tile over a sequential loop all its accesses run in: two buffers filled a step ahead, one barrier a step (the barrier analysis compares the accesses of one iteration)',
  // pipelines of several buffers (issue 30, s24): drawn with doubleBuffers, from a stream of their own
  pipelineStages:
    'doubleBuffer with 3 or 4 buffers, filled 1 to stages - 1 steps ahead: a prologue loop, buffers indexed (step + ahead) % stages, which the barrier analysis tells apart through the remainder',
  // temporary layouts (issue 30, s23: the core matrices wgmma reads are such a layout): drawn after a
  // chain's steps, from a stream of their own (chains.ts), so that other seeds keep their chains
  temporaryLayouts:
    'splitArrayAxis of a temporary (private or local, a tile of prefetch or precompute included) by 2 to 4, C or F order, then its axes nested in a random order (tagArrayAxes N0..Nk): indices through // and %, copies and vectors over the blocks',
  // swizzled local arrays (issue 30, s25: the layout TMA and wgmma read at full speed): drawn after
  // the layouts, from a stream of their own (chains.ts)
  swizzledTemporaries:
    'swizzleArray of a local temporary whose bytes are whole spans of 32, 64 or 128: every access index exchanged within its 128-byte line (x ^ ((x // line) % units) * unit), on every target',
  // asynchronous and bulk copies (issue 30, s26: cp.async, the tensor memory accelerator, barriers as arrivals and a
  // producer warpgroup): drawn after the swizzles, from a stream of their own (chains.ts); only on devices whose
  // target issues asynchronous copies (the CPU and C devices copy at once, CUDA issues them)
  asyncTiles:
    "a local tile's fills made asynchronous copies (asyncCopies) or bulk copies (bulkCopies), the latter with bulkRelease and warpSpecialized drawn: waited for at barriers, arrivals or a producer's requests",
  // atomic stores and loads (issue 27, s8-atomics): cases of atomics.ts
  atomicStoresLoads:
    "atomic=init stores into a forAtomic array from parallel work-items, and loopy's test_atomic_load with data: a local forAtomic counter zeroed, bumped and read back atomically",
  // atomic fetches and fences (issue 30): cases of atomic-fetches.ts
  atomicFetches:
    'atomic fetches of int32 from parallel work-items whose out does not depend on their order: tickets from atomicAdd or atomicSub indexing out, slots claimed by atomicCompareExchange and counted (by an atomic add, or an or: a compare-and-swap loop)',
  globalFences: "a device-wide fence ('... gfence') among atomicFetches' instructions (WGSL has none)",
} as const;

export type Feature = keyof typeof FEATURES;

export const ALL_FEATURES = Object.keys(FEATURES) as Feature[];

/** Which features a run may use: all but the excluded ones. */
export class FeatureSet {
  private readonly excluded: ReadonlySet<Feature>;

  constructor(excluded: Iterable<Feature> = []) {
    this.excluded = new Set(excluded);
    for (const f of this.excluded)
      if (!(f in FEATURES)) throw new Error(`unknown feature '${f}' (known: ${ALL_FEATURES.join(', ')})`);
  }

  has(f: Feature): boolean {
    return !this.excluded.has(f);
  }

  /** These features and the given ones left out. */
  without(more: Iterable<Feature>): FeatureSet {
    return new FeatureSet([...this.excluded, ...more]);
  }

  /** Whether both sets enable the same features. */
  equals(other: FeatureSet): boolean {
    return ALL_FEATURES.every((f) => this.has(f) === other.has(f));
  }

  describe(): string {
    return this.excluded.size ? `all features except ${[...this.excluded].join(', ')}` : 'all features';
  }
}

/**
 * Whether `device` computes floats only as far as they stay finite (its target states no
 * `floatSpecials`): WGSL lets its compilers assume so, and lavapipe does (it folds (b − k) − b
 * to −k with b = NaN, x / 0 to 0, and reassociates (a + 1e30) − 1e30 to a; see the README's
 * semantics section). No code generation can prevent that in general.
 */
export const finiteFloatsOnly = (device: Device): boolean => !targetFacts(device.target).floatSpecials;

/**
 * The feature classes `device` cannot be held to, whatever a run enables: a device that
 * assumes finite floats gets the same seed's case made without float specials (NaN, ±Inf,
 * −0, 1e30), and its elements that come out non-finite anyway (x / 0 from finite inputs) are
 * not compared (compare.ts); a target that declares no local arrays sized at launch gets it
 * without local temporaries of parametric size; one without atomic fetches or fences gets it without
 * them (WGSL: without fences).
 */
export function limitsOf(device: Device): readonly Feature[] {
  // what the target states it does not keep (WGSL: none of the three, README)
  const facts = targetFacts(device.target);
  const limits: Feature[] = [];
  if (!facts.floatSpecials) limits.push('floatSpecials');
  if (!facts.signedZeros) limits.push('signedZeros');
  if (facts.flushesSubnormals.size) limits.push('subnormals');
  // a target without local arrays sized at launch refuses them
  if (!facts.runtimeSizedArrays.has('local')) limits.push('parametricTemporaries');
  // a target that issues no asynchronous copies refuses them: the same seed without them there
  if (!facts.asyncCopies) limits.push('asyncTiles');
  // nor atomic fetches (of int32, which the cases fetch), nor fences, where it has none
  if ('refused' in facts.atomicFetches || !facts.atomicFetches.dtypes.includes('int32')) limits.push('atomicFetches');
  if (facts.globalFences !== true) limits.push('globalFences');
  return limits;
}
