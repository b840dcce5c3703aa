/**
 * Differential testing: one seed gives a random kernel, its inputs and a random
 * transformation chain; the transformed kernel runs on every device and each output is
 * compared with the untransformed kernel's on the CPU device (the reference backend).
 *
 * A LoomError anywhere is Loom declining the case (counted, not compared); any other
 * exception is a finding, as is every disagreement. `formatReport` prints what it takes
 * to reproduce one: seed, feature set, kernel source, chain, device, inputs, and the
 * first elements that differ.
 */
import {
  complexPart,
  InternalError,
  isComplex,
  isFloat,
  LoomError,
  run,
  setWarningHandler,
  targetFacts,
  type Device,
  type HostArray,
  type LoopKernel,
} from '@loom/core';
import { generateChain, type Chain } from './chains.ts';
import { compareArrays, formatValue, type Comparison } from './compare.ts';
import { limitsOf, type FeatureSet } from './features.ts';
import { generateKernel, type KernelCase } from './kernels.ts';
import { Rng } from './random.ts';

export { FeatureSet, FEATURES, ALL_FEATURES, limitsOf, type Feature } from './features.ts';

export type Outcome =
  | { readonly kind: 'agree' }
  | { readonly kind: 'unsupported' }
  | { readonly kind: 'rejected'; readonly message: string }
  | { readonly kind: 'mismatch'; readonly comparison: Comparison }
  | { readonly kind: 'crash'; readonly message: string };

export interface DeviceResult {
  readonly device: string;
  readonly outcome: Outcome;
}

export interface CaseResult {
  readonly seed: number;
  readonly features: FeatureSet;
  readonly kcase: KernelCase;
  /** Undefined when the reference itself was rejected or the chain crashed. */
  readonly chain?: Chain;
  /** The reference's own outcome when it did not run: 'rejected' or 'crash'. */
  readonly reference?: Outcome;
  readonly devices: readonly DeviceResult[];
  readonly warnings: readonly string[];
}

/** A finding: a disagreement or an exception that is not a LoomError. */
export const isFinding = (o: Outcome | undefined): boolean => o?.kind === 'mismatch' || o?.kind === 'crash';

export const caseHasFinding = (r: CaseResult): boolean =>
  isFinding(r.reference) || r.devices.some((d) => isFinding(d.outcome));

function describeError(e: unknown): string {
  const err = e as Error & { step?: string };
  const where = err.step ? ` (in ${err.step})` : '';
  return `${err?.constructor?.name ?? 'Error'}: ${String(err?.message ?? e)
    .split('\n')
    .slice(0, 6)
    .join('\n    ')}${where}`;
}

/**
 * A LoomError is Loom declining the case, except when it reports Loom's own failure:
 * generated OpenCL that does not build, WGSL that does not compile or make a pipeline.
 * Those are findings like any other exception, and so is a broken invariant (an
 * InternalError, which is no LoomError).
 */
function declines(e: unknown): boolean {
  if (e instanceof InternalError || !(e instanceof LoomError)) return false;
  if ((e as LoomError & { call?: string }).call === 'clBuildProgram') return false;
  return !/does not compile|could not create the pipeline/.test((e as LoomError).message);
}

function outcomeOf(e: unknown): Outcome {
  return declines(e)
    ? { kind: 'rejected', message: String((e as Error).message).split('\n')[0] }
    : { kind: 'crash', message: describeError(e) };
}

/** The inputs and parameters `knl` still takes (fixParameters removes a parameter). */
function argumentsFor(knl: LoopKernel, kcase: KernelCase): Record<string, HostArray | number> {
  const args: Record<string, HostArray | number> = {};
  for (const [name, values] of Object.entries(kcase.inputs)) if (knl.arg(name)) args[name] = values.slice();
  for (const [name, value] of Object.entries(kcase.params)) if (knl.arg(name)) args[name] = value;
  return args;
}

/**
 * The kernel and chain `runCase` makes for this seed, without running anything (for choosing
 * seeds that exercise a feature); undefined where the chain throws what is no LoomError.
 */
export function planCase(seed: number, features: FeatureSet): { kcase: KernelCase; chain: Chain } | undefined {
  const previous = setWarningHandler(() => {});
  try {
    const rng = new Rng(seed);
    const kcase = generateKernel(seed, rng, features);
    return { kcase, chain: generateChain(rng, kcase, features) };
  } catch {
    return undefined;
  } finally {
    setWarningHandler(previous);
  }
}

/**
 * Called before each stage of a case runs (`'reference'`, then each device's name): a harness
 * records it so that a native crash in a driver, which kills the process, can be named.
 */
export type CaseProgress = (stage: string) => void;

export async function runCase(
  seed: number,
  features: FeatureSet,
  devices: readonly Device[],
  reference: Device,
  progress?: CaseProgress,
): Promise<CaseResult> {
  const warnings: string[] = [];
  const previous = setWarningHandler((w) => warnings.push(w.toString()));
  try {
    const rng = new Rng(seed);
    const kcase = generateKernel(seed, rng, features);
    const base = { seed, features, kcase, warnings };
    let expected: HostArray;
    try {
      const knl = kcase.build();
      progress?.('reference');
      expected = (await run(knl, reference, argumentsFor(knl, kcase))).out as HostArray;
    } catch (e) {
      return { ...base, reference: outcomeOf(e), devices: [] };
    }
    let chain: Chain;
    try {
      chain = generateChain(rng, kcase, features);
    } catch (e) {
      return { ...base, reference: { kind: 'crash', message: `while transforming: ${describeError(e)}` }, devices: [] };
    }
    const results: DeviceResult[] = [];
    for (const device of devices) {
      // a complex dtype exists where its parts' does (complex128: where float64 does)
      if (device.target.unsupportedDType?.(complexPart(kcase.dtype))) {
        results.push({ device: device.name, outcome: { kind: 'unsupported' } });
        continue;
      }
      let outcome: Outcome;
      progress?.(device.name);
      try {
        const got = (await run(chain.kernel, device, argumentsFor(chain.kernel, kcase))).out as HostArray;
        // only what the target promises (WGSL: not the sign of zero, nor what is not finite; see compare.ts)
        const facts = targetFacts(device.target);
        // WGSL's division is good to 2.5 ulp and its compilers may contract a*b + c: a complex
        // quotient (Smith's algorithm, three inexact steps) may drift further than one real one
        // (NVIDIA's Vulkan driver: 5 and 9 ulp, seeds 781533973 and 2414560905), and a part that
        // cancels (a/a's imaginary part) is off relative to the value, not to itself (seeds
        // 3253000829 and 1462817390)
        const relaxedComplex = facts.relaxedFloatAccuracy && isComplex(kcase.dtype);
        const ulps = relaxedComplex ? 6 * kcase.ulpTolerance : kcase.ulpTolerance;
        const comparison = compareArrays(expected, got, ulps, {
          zeroSign: facts.signedZeros,
          nonFinite: facts.floatSpecials,
          complexNormwise: relaxedComplex,
          subnormals: !facts.flushesSubnormals.has('float32'),
        });
        outcome = comparison.count ? { kind: 'mismatch', comparison } : { kind: 'agree' };
        // Loom said the kernel looks invalid: a wrong result is then only a finding with warnedRaces
        const warned = warnings.find((w) => w.startsWith('WriteRaceConditionWarning'));
        if (comparison.count && warned && !features.has('warnedRaces')) outcome = { kind: 'rejected', message: warned };
      } catch (e) {
        outcome = outcomeOf(e);
      }
      results.push({ device: device.name, outcome });
    }
    return { ...base, chain, devices: results };
  } finally {
    setWarningHandler(previous);
  }
}

/**
 * One seed on every device: each device runs the case made with `features` less what it
 * cannot be held to (`limitsOf`), so a WebGPU device gets the same seed's case without
 * float specials; one result per distinct feature set, each reproducible with
 * `--seed S --exclude <its excluded features>`.
 */
export async function runSeed(
  seed: number,
  features: FeatureSet,
  devices: readonly Device[],
  reference: Device,
  progress?: CaseProgress,
): Promise<CaseResult[]> {
  const groups: { features: FeatureSet; devices: Device[] }[] = [];
  for (const device of devices) {
    const own = features.without(limitsOf(device));
    const group = groups.find((g) => g.features.equals(own));
    if (group) group.devices.push(device);
    else groups.push({ features: own, devices: [device] });
  }
  const results: CaseResult[] = [];
  for (const g of groups) results.push(await runCase(seed, g.features, g.devices, reference, progress));
  return results;
}

const indent = (text: string, by = '    ') =>
  text
    .split('\n')
    .map((l) => by + l)
    .join('\n');

function formatInputs(kcase: KernelCase): string {
  const float = isFloat(complexPart(kcase.dtype));
  return Object.entries(kcase.inputs)
    .map(
      ([name, values]) =>
        `${name} = [${Array.from(values as ArrayLike<number | bigint>, (v) => formatValue(v, float)).join(', ')}]`,
    )
    .join('\n');
}

/** Everything needed to reproduce the findings of one case (empty when it has none). */
export function formatReport(r: CaseResult): string {
  const findings = [
    ...(isFinding(r.reference)
      ? [{ device: 'reference (untransformed, CPU) or transformation', outcome: r.reference! }]
      : []),
    ...r.devices.filter((d) => isFinding(d.outcome)),
  ];
  if (!findings.length) return '';
  const k = r.kcase;
  const lines = [
    `DISAGREEMENT seed=${r.seed} (${r.features.describe()}): ${k.dtype} ${k.shape}, ${
      Object.entries(k.params)
        .map(([p, v]) => `${p}=${v}`)
        .join(' ') || 'no parameters'
    }, tolerance ${k.ulpTolerance} ulp`,
    '  kernel:',
    indent(`let knl = ${k.source};`),
    '  chain:',
    indent(r.chain?.steps.map((s) => `knl = ${s.text};`).join('\n') || '(none)'),
  ];
  if (r.chain?.refused.length)
    lines.push('  refused steps (LoomError, not applied):', indent(r.chain.refused.join('\n')));
  lines.push('  inputs:', indent(formatInputs(k)));
  for (const { device, outcome } of findings) {
    if (outcome.kind === 'crash') {
      lines.push(`  ${device}: ${outcome.message}`);
    } else if (outcome.kind === 'mismatch') {
      const c = outcome.comparison;
      lines.push(`  ${device}: ${c.count} of ${c.total} elements differ`);
      for (const m of c.mismatches) lines.push(`    out[${m.index}]: expected ${m.expected}, got ${m.got}`);
    }
  }
  if (r.warnings.length) lines.push('  warnings:', indent([...new Set(r.warnings)].join('\n')));
  return lines.join('\n');
}
