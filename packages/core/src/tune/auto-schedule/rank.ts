/**
 * The ranking of `autoSchedule`'s search: each candidate of the space's sample built with the
 * transformations a user calls (steps.ts), pruned with its reason when Loom or the device's limits
 * refuse it, and timed by the cost model (cost-model.ts); then a hill climb on the model from the
 * best-ranked, ranking their neighbours (space.ts's `neighbourCandidates`) until the best few
 * stay the same.
 */
import { programShape } from '../../codegen/generate.ts';
import { InternalError, LoomError } from '../../errors.ts';
import type { LoopKernel } from '../../kernel/model.ts';
import type { Device } from '../../runtime/device.ts';
import { checkProgramLimits } from '../../runtime/limits.ts';
import type { DeviceProfile } from '../../statistics/roofline.ts';
import { predictCost, type CostBreakdown, type DeviceShape } from './cost-model.ts';
import {
  analyzeKernel,
  enumerateCandidates,
  neighbourCandidates,
  type Candidate,
  type Knobs,
  type GroupRestrictions,
} from './space.ts';
import { applySchedule, scheduleScript, type ScheduleStep } from './steps.ts';
import { targetFacts } from '../../codegen/target-facts.ts';

/** A candidate the model ranked: its steps, its script and the model's time. */
export interface PredictedCandidate {
  readonly steps: readonly ScheduleStep[];
  readonly script: string;
  /** The model's seconds, before the fitted scale. */
  readonly seconds: number;
  readonly cost: CostBreakdown;
}

/** Rounds of the hill climb after the sample is ranked, and how many of the best-ranked each climbs from. */
const REFINE_ROUNDS = 8;
const REFINE_FROM = 4;

/** What the ranking needs beside the kernel and the device. */
export interface RankingOptions {
  readonly profile: DeviceProfile;
  readonly sizes: Readonly<Record<string, number>>;
  /** What the model assumes of the device: its work-items in flight and compute units. */
  readonly shape: DeviceShape;
  readonly restrictions: GroupRestrictions;
  readonly seed: number;
  /** Told after each candidate: how many are ranked of how many so far. */
  readonly report: (progress: { phase: 'rank'; done: number; total: number; label: string }) => void;
}

/**
 * The candidates of `knl`'s space the model ranked, fastest first (ties in the seed's order),
 * and those pruned before anything ran, with the reason.
 */
export function rankCandidates(
  knl: LoopKernel,
  device: Device,
  { profile, sizes, shape, restrictions, seed, report }: RankingOptions,
): { predicted: PredictedCandidate[]; pruned: { script: string; reason: string }[] } {
  const analysis = analyzeKernel(knl, sizes, device.target);
  const predicted: PredictedCandidate[] = [];
  const pruned: { script: string; reason: string }[] = [];
  const knobsOf = new Map<PredictedCandidate, Knobs>();
  const seen = new Set<string>();
  let ranked = 0;
  const rank = (batch: readonly Candidate[]) => {
    const first = ranked;
    for (const c of batch) {
      const script = scheduleScript(c.steps);
      seen.add(script);
      try {
        const candidate = applySchedule(knl, c.steps);
        // the grid and the declarations are what the limits and the model read: the statements,
        // most of a build's time, are built for the candidates checked and measured only
        const program = programShape(candidate, device.target);
        checkProgramLimits(program, device.limits, device.name, targetFacts(device.target).heldInFloat);
        const cost = predictCost(candidate, program, profile, sizes, shape);
        const p: PredictedCandidate = { steps: c.steps, script, seconds: cost.seconds, cost };
        predicted.push(p);
        if (c.knobs) knobsOf.set(p, c.knobs);
      } catch (e) {
        if (!(e instanceof LoomError) || e instanceof InternalError) throw e;
        pruned.push({ script, reason: e.message.split('\n')[0]!.slice(0, 300) });
      }
      ranked++;
      report({ phase: 'rank', done: ranked, total: first + batch.length, label: c.label });
    }
    // a stable sort: ties keep the seed's order
    predicted.sort((a, b) => a.seconds - b.seconds);
  };
  rank(enumerateCandidates(analysis, restrictions, seed));
  for (let round = 0; round < REFINE_ROUNDS; round++) {
    const fresh = predicted
      .slice(0, REFINE_FROM)
      .flatMap((p) => (knobsOf.has(p) ? neighbourCandidates(analysis, restrictions, knobsOf.get(p)!) : []))
      .filter((c) => {
        const script = scheduleScript(c.steps);
        if (seen.has(script)) return false;
        seen.add(script);
        return true;
      });
    const before = predicted.slice(0, REFINE_FROM).map((p) => p.script);
    rank(fresh);
    if (predicted.slice(0, REFINE_FROM).every((p, k) => p.script === before[k])) break;
  }
  return { predicted, pruned };
}
