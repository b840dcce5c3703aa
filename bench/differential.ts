/**
 * Differential testing for as long as you like: random kernels under random
 * transformation chains on every device present, compared with the untransformed
 * kernel on the CPU device (see test/support/differential/).
 *
 *   npx tsx bench/differential.ts [minutes=10] [--exclude feature,feature] [--seed S ...] [--quiet] [--trace]
 *
 * A device is held only to what it promises: WebGPU gets each seed's case made without float
 * specials (features.ts, `limitsOf`), the others the case with every enabled feature.
 *
 * --trace writes each seed to stderr before its case runs: a case that kills the process
 * (a native crash in a driver) can then be found and replayed.
 *
 * Fresh random seeds each run; every disagreement is printed as it is found, with its
 * seed, and `--seed S` replays exactly that case (with the same --exclude). Exits 1 if
 * anything disagreed or threw something other than a LoomError.
 */
import { randomInt } from 'node:crypto';
import { cpuDevice } from '@loom/codegen-js';
import { testDevices } from '../test/support/devices.ts';
import { ALL_FEATURES, caseHasFinding, FeatureSet, formatReport, runSeed, type Feature } from '../test/support/differential/index.ts';
import { pointwiseCase, runPointwiseCase } from '../test/support/differential/pointwise.ts';
import { supportsDType } from '../test/support/devices.ts';
import { runComputationCase } from '../test/support/differential/computations.ts';

function parseArgs(argv: readonly string[]) {
  let minutes = 10;
  const seeds: number[] = [];
  let excluded: Feature[] = [];
  let quiet = false;
  let trace = false;
  for (let k = 0; k < argv.length; k++) {
    const a = argv[k];
    if (a === '--seed') seeds.push(Number(argv[++k]));
    else if (a === '--exclude')
      excluded = argv[++k]
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean) as Feature[];
    else if (a === '--quiet') quiet = true;
    else if (a === '--trace') trace = true;
    else if (/^\d+(\.\d+)?$/.test(a)) minutes = Number(a);
    else throw new Error(`unknown argument '${a}' (features: ${ALL_FEATURES.join(', ')})`);
  }
  return { minutes, seeds, features: new FeatureSet(excluded), quiet, trace };
}

const { minutes, seeds, features, quiet, trace } = parseArgs(process.argv.slice(2));
const devices = testDevices();
const reference = cpuDevice();
console.log(`differential: ${features.describe()}; devices: ${devices.map((d) => d.name).join(' | ')}`);
console.log(seeds.length ? `replaying seeds ${seeds.join(', ')}` : `running for ${minutes} minute(s) with fresh seeds`);

/** Counts per device and outcome, and the reference's own refusals. */
const counts = new Map<string, Map<string, number>>();
const bump = (device: string, kind: string) => {
  const row = counts.get(device) ?? new Map<string, number>();
  row.set(kind, (row.get(kind) ?? 0) + 1);
  counts.set(device, row);
};

const deadline = Date.now() + minutes * 60_000;
const failingSeeds: number[] = [];
let cases = 0;
let steps = 0;
const queue = [...seeds];
while (seeds.length ? queue.length : Date.now() < deadline) {
  const seed = seeds.length ? queue.shift()! : randomInt(2 ** 32 - 1);
  if (trace) process.stderr.write(`case ${seed}\n`);
  // one case per feature set the devices can be held to (a WebGPU device: without float specials)
  const results = await runSeed(seed, features, devices, reference);
  cases++;
  for (const result of results) {
    steps += result.chain?.steps.length ?? 0;
    if (result.reference) bump('reference', result.reference.kind);
    for (const d of result.devices) bump(d.device, d.outcome.kind);
    if (caseHasFinding(result)) console.log(`\n${formatReport(result)}`);
  }
  // the same seed's pointwise payload (pointwise.ts) on every device, against plain JS
  let pointwiseFinding = false;
  for (const device of devices) {
    const c = pointwiseCase(seed, features, supportsDType(device, 'float64'));
    const finding = await runPointwiseCase(c, device).catch((e: Error) => `${device.name}: ${c.source} on ${c.dtypes.join(', ')} threw ${e.message}`);
    bump(device.name, finding ? 'pointwise-mismatch' : 'pointwise-ok');
    if (finding) console.log(`\npointwise, seed ${seed}: ${finding}`);
    pointwiseFinding ||= finding !== undefined;
  }
  // the computation library's case of the same seed (reduce, scan, complex arrays), when enabled
  const computations = features.has('computationPredicates') || features.has('computationComplex') ? await runComputationCase(seed, features, devices) : undefined;
  for (const f of computations?.findings ?? []) console.log(`\nDISAGREEMENT (computation library) ${f}`);
  if (results.some(caseHasFinding) || pointwiseFinding || computations?.findings.length) failingSeeds.push(seed);
  else if (seeds.length && !quiet) console.log(`seed ${seed}: no disagreement (${results.map((r) => r.chain?.steps.length ?? 0).join(' + ')} steps)`);
  if (!quiet && !seeds.length && cases % 50 === 0) console.log(`... ${cases} cases, ${failingSeeds.length} with findings`);
}

console.log(`\nSUMMARY: ${cases} cases (${steps} transformation steps applied), ${failingSeeds.length} with findings`);
for (const [device, row] of counts) {
  console.log(`  ${device}: ${[...row].map(([kind, n]) => `${kind} ${n}`).join(', ')}`);
}
if (failingSeeds.length) console.log(`  seeds with findings: ${failingSeeds.join(' ')}`);
process.exit(failingSeeds.length ? 1 : 0);
