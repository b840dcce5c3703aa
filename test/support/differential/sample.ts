/**
 * The bounded samples of the differential generator that the test files run (test/differential*.test.ts):
 * the feature classes every sample leaves out, the CPU device every kernel case is checked against, and
 * the loops over fixed seeds, each asserting that no case disagrees and saying how to reproduce one
 * (`npx tsx bench/differential.ts --seed S --exclude <EXCLUDED>`).
 */
import * as assert from 'uvu/assert';
import type { Device } from '@loom/core';
import { cpuDevice } from '@loom/codegen-js';
import { testDevices } from '../devices.ts';
import { caseHasFinding, FeatureSet, formatReport, runSeed, type CaseResult, type Feature } from './index.ts';

/**
 * Feature classes left out of the sample, each with the reason (issue 10: a class left out
 * for a bug names it, and its line goes when the fix lands; the sample must stay green):
 */
export const EXCLUDED: readonly Feature[] = [
  // by design, not a bug: a kernel Loom warns about (WriteRaceConditionWarning) is run, as
  // loopy runs it; the races that remain are the user's (a temporary set to 'local' or
  // 'global' while parallel inames do not index it, a sweep too small for its l.auto tile).
  // Loom's own race (a prefetch store repeated across a local iname its box does not move
  // with) is fixed; without this feature a warned kernel's mismatch counts as declined
  'warnedRaces',
];

/** The device every kernel case's transformed kernel is compared with, untransformed. */
export const reference = cpuDevice();

/** `count` seeds from `from`. */
export const range = (from: number, count: number): number[] => Array.from({ length: count }, (_, k) => from + k);

/** The kernel cases of `seeds` (random kernels under random chains) on `devices`, none with a finding. */
export async function sample(
  seeds: readonly number[],
  devices: Device[],
  excluded: readonly Feature[],
): Promise<CaseResult[]> {
  const features = new FeatureSet(excluded);
  const results: CaseResult[] = [];
  for (const seed of seeds) {
    for (const r of await runSeed(seed, features, devices, reference)) {
      assert.ok(
        !caseHasFinding(r),
        `\n${formatReport(r)}\nreproduce: npx tsx bench/differential.ts --seed ${seed} --exclude ${excluded.join(',')}`,
      );
      results.push(r);
    }
  }
  return results;
}

/** A case against plain JS (computations, arguments, structs, layouts): what it ran, and its disagreements. */
export type PlainCase = (
  seed: number,
  features: FeatureSet,
  devices: Device[],
) => Promise<{ ran: readonly string[]; findings: readonly string[] }>;

/** What the cases of `seeds` ran on every test device, none of them with a finding. */
export async function casesOf(seeds: readonly number[], run: PlainCase): Promise<string[]> {
  const features = new FeatureSet(EXCLUDED);
  const ran: string[] = [];
  for (const seed of seeds) ran.push(...(await checkedCase(seed, features, run)));
  return ran;
}

/**
 * Runs the cases of `run` from seed `first` (at most `count` seeds) until each of `kinds` has
 * matched a case it ran; every case agrees with plain JS, and every kind ran.
 */
export async function seedsUntilEveryKind(
  first: number,
  count: number,
  kinds: readonly RegExp[],
  run: PlainCase,
): Promise<void> {
  const features = new FeatureSet(EXCLUDED);
  const ran: string[] = [];
  for (let seed = first; seed < first + count && !kinds.every((k) => ran.some((w) => k.test(w))); seed++)
    ran.push(...(await checkedCase(seed, features, run)));
  for (const k of kinds)
    assert.ok(
      ran.some((w) => k.test(w)),
      `no case of ${k} ran: ${ran.join('; ')}`,
    );
}

/** One seed's case on every test device, asserted free of findings: what it ran. */
async function checkedCase(seed: number, features: FeatureSet, run: PlainCase): Promise<readonly string[]> {
  const r = await run(seed, features, testDevices());
  assert.equal(
    r.findings,
    [],
    `reproduce: npx tsx bench/differential.ts --seed ${seed} --exclude ${EXCLUDED.join(',')}`,
  );
  return r.ran;
}
