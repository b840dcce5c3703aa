/**
 * Differential testing for as long as you like: random kernels under random
 * transformation chains on every device present, compared with the untransformed
 * kernel on the CPU device (see test/support/differential/).
 *
 *   npx tsx bench/differential.ts [minutes=10] [--exclude feature,feature] [--seed S ...] [--quiet] [--trace]
 *                                 [--seed-file <path>]
 *
 * A device is held only to what it promises: WebGPU gets each seed's case made without float
 * specials (features.ts, `limitsOf`), the others the case with every enabled feature.
 *
 * Native crashes. A driver may kill the process (PoCL aborted once, SIGABRT in
 * ParallelRegion.cc), and then nothing in this process can report it. So the cases run in a
 * worker process, and before each stage of a case (the reference, then each device) the worker
 * writes the seed, the stage and the command that replays it into the seed file (default
 * bench/results/differential-last-seed.txt; written synchronously, so it is on disk when the
 * driver aborts). When the worker dies of a signal, this process reads the file, reports the
 * crash with its seed and device as a finding, and starts a new worker for the time (or the
 * seeds) left. --trace also writes each seed to stderr before its case runs.
 *
 * Fresh random seeds each run; every disagreement is printed as it is found, with its
 * seed, and `--seed S` replays exactly that case (with the same --exclude). Exits 1 if
 * anything disagreed, crashed the process or threw something other than a LoomError.
 */
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuDevice } from '@loom/codegen-js';
import { supportsDType, testDevices } from '../test/support/devices.ts';
import {
  ALL_FEATURES,
  caseHasFinding,
  FeatureSet,
  formatReport,
  runSeed,
  type Feature,
} from '../test/support/differential/index.ts';
import { pointwiseCase, runPointwiseCase } from '../test/support/differential/pointwise.ts';
import { runComputationCase } from '../test/support/differential/computations.ts';
import { runStructCase } from '../test/support/differential/struct-arrays.ts';
import { runGroupRowsCase } from '../test/support/differential/group-rows.ts';
import { runArgumentCase } from '../test/support/differential/kernel-arguments.ts';
import { runLayoutCase } from '../test/support/differential/argument-layouts.ts';
import { integerCase, runIntegerCase } from '../test/support/differential/pointwise-integers.ts';

const DEFAULT_SEED_FILE = fileURLToPath(new URL('./results/differential-last-seed.txt', import.meta.url));
/** The hidden flag that makes this process the worker, which runs the cases. */
const WORKER = '--worker';

function parseArgs(argv: readonly string[]) {
  let minutes = 10;
  const seeds: number[] = [];
  let excluded: Feature[] = [];
  let quiet = false;
  let trace = false;
  let worker = false;
  let seedFile = DEFAULT_SEED_FILE;
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
    else if (a === '--seed-file') seedFile = path.resolve(argv[++k] ?? '');
    else if (a === WORKER) worker = true;
    else if (/^\d+(\.\d+)?$/.test(a)) minutes = Number(a);
    else throw new Error(`unknown argument '${a}' (features: ${ALL_FEATURES.join(', ')})`);
  }
  if (seeds.some((s) => !Number.isInteger(s) || s < 0)) throw new Error('--seed takes a non-negative integer');
  return { minutes, seeds, excluded, features: new FeatureSet(excluded), quiet, trace, worker, seedFile };
}

type Options = ReturnType<typeof parseArgs>;

/** The command that replays `seed` as this run made it. */
function replayCommand(seed: number, o: Options): string {
  return `npx tsx bench/differential.ts --seed ${seed}${o.excluded.length ? ` --exclude ${o.excluded.join(',')}` : ''}`;
}

const options = parseArgs(process.argv.slice(2));
process.exit(options.worker ? await work(options) : await supervise(options));

/**
 * Runs workers until the time (or the seeds) run out, one after another: a worker killed by a
 * signal is a native crash, reported with the case the seed file names.
 */
async function supervise(o: Options): Promise<number> {
  mkdirSync(path.dirname(o.seedFile), { recursive: true });
  const deadline = Date.now() + o.minutes * 60_000;
  const crashes: string[] = [];
  let seeds = [...o.seeds];
  let failed = false;
  for (;;) {
    const minutesLeft = (deadline - Date.now()) / 60_000;
    if (o.seeds.length ? seeds.length === 0 : minutesLeft <= 0) break;
    writeFileSync(o.seedFile, '');
    const args = [
      ...process.execArgv,
      fileURLToPath(import.meta.url),
      WORKER,
      '--seed-file',
      o.seedFile,
      ...(o.seeds.length ? seeds.flatMap((s) => ['--seed', String(s)]) : [minutesLeft.toFixed(4)]),
      ...(o.excluded.length ? ['--exclude', o.excluded.join(',')] : []),
      ...(o.quiet ? ['--quiet'] : []),
      ...(o.trace ? ['--trace'] : []),
    ];
    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      spawn(process.execPath, args, { stdio: 'inherit' }).on('exit', (code, signal) => resolve({ code, signal }));
    });
    if (signal === null && (code === 0 || code === 1)) {
      // 1 is also node's code for an uncaught exception (its stack is printed above): name the case
      const stopped = /^case (\d+) on (.*)$/m.exec(readFileSync(o.seedFile, 'utf8'));
      if (stopped)
        console.log(
          `\nthe worker stopped during case ${stopped[1]} on ${stopped[2]}\n  replay: ${replayCommand(Number(stopped[1]), o)}`,
        );
      failed ||= code === 1;
      break;
    }
    // killed (a signal, or an exit code the worker never uses): the seed file names the case
    const last = readFileSync(o.seedFile, 'utf8');
    const running = /^case (\d+) on (.*)$/m.exec(last);
    const how = signal ?? `exit code ${code}`;
    if (!running) {
      console.log(
        `\nCRASH: the worker died (${how}) outside any case; the seed file ${o.seedFile} says: ${JSON.stringify(last)}`,
      );
      return 1;
    }
    const seed = Number(running[1]);
    console.log(
      `\nCRASH: case ${seed} killed the process (${how}) on ${running[2]}: a native crash in the driver\n  replay: ${replayCommand(seed, o)}`,
    );
    crashes.push(`${seed} (${running[2]}, ${how})`);
    // the seeds after the one that crashed are still to run
    if (o.seeds.length) seeds = seeds.slice(seeds.indexOf(seed) + 1);
  }
  if (crashes.length)
    console.log(
      `\nCRASHES: ${crashes.length} case(s) killed the process: ${crashes.join('; ')} (seed file: ${o.seedFile})`,
    );
  return failed || crashes.length ? 1 : 0;
}

/** Runs the cases, recording each stage in the seed file first; 1 if any had a finding. */
async function work(o: Options): Promise<number> {
  const { minutes, seeds, features, quiet, trace } = o;
  const devices = testDevices();
  const reference = cpuDevice();
  console.log(`differential: ${features.describe()}; devices: ${devices.map((d) => d.name).join(' | ')}`);
  console.log(
    seeds.length
      ? `replaying seeds ${seeds.join(', ')}`
      : `running for ${minutes.toFixed(2)} minute(s) with fresh seeds`,
  );

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
    // synchronous: on disk before a driver can abort the process
    const record = (stage: string) =>
      writeFileSync(o.seedFile, `case ${seed} on ${stage}\nreplay: ${replayCommand(seed, o)}\n`);
    record('kernel generation');
    // one case per feature set the devices can be held to (a WebGPU device: without float specials)
    const results = await runSeed(seed, features, devices, reference, record);
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
      record(`pointwise payload on ${device.name}`);
      const c = pointwiseCase(seed, features, supportsDType(device, 'float64'));
      const finding = await runPointwiseCase(c, device).catch(
        (e: Error) => `${device.name}: ${c.source} on ${c.dtypes.join(', ')} threw ${e.message}`,
      );
      bump(device.name, finding ? 'pointwise-mismatch' : 'pointwise-ok');
      if (finding) console.log(`\npointwise, seed ${seed}: ${finding}`);
      pointwiseFinding ||= finding !== undefined;
    }
    // the same seed's integer payload with edge operands (pointwise-integers.ts), against the documented rules
    if (features.has('pointwiseIntegerEdges') || features.has('pointwiseNarrowChains')) {
      for (const device of devices) {
        record(`integer pointwise payload on ${device.name}`);
        const c = integerCase(seed, features, supportsDType(device, 'float64'));
        const finding = await runIntegerCase(c, device).catch(
          (e: Error) => `${device.name}: ${c.source} over ${c.dtype} threw ${e.message}`,
        );
        bump(device.name, finding ? 'integer-mismatch' : 'integer-ok');
        if (finding)
          console.log(`
integer pointwise, seed ${seed}: ${finding}`);
        pointwiseFinding ||= finding !== undefined;
      }
    }
    // the same seed's kernel-argument case (complex inferred dtypes, aliasing: kernel-arguments.ts), when enabled
    record('kernel arguments');
    const argumentCase =
      features.has('complexInferredArguments') || features.has('aliasedArguments')
        ? await runArgumentCase(seed, features, devices)
        : undefined;
    for (const f of argumentCase?.findings ?? [])
      console.log(`
DISAGREEMENT (kernel arguments) ${f}`);
    pointwiseFinding ||= (argumentCase?.findings.length ?? 0) > 0;
    // the same seed's argument-layout case (views, order F, loopy's spellings, complex values: argument-layouts.ts)
    record('argument layouts');
    const layoutCase =
      features.has('argumentLayouts') ||
      features.has('argumentSpellings') ||
      features.has('complexValueArguments') ||
      features.has('paddedArguments')
        ? await runLayoutCase(seed, features, devices)
        : undefined;
    for (const f of layoutCase?.findings ?? []) console.log(`\nDISAGREEMENT (argument layouts) ${f}`);
    pointwiseFinding ||= (layoutCase?.findings.length ?? 0) > 0;
    // the computation library's case of the same seed (reduce, scan, complex arrays), when enabled
    record('computation library');
    const computations =
      features.has('computationPredicates') ||
      features.has('computationComplex') ||
      features.has('computationComplexParameters') ||
      features.has('computationNoAxes') ||
      features.has('computationMatmulConfigs')
        ? await runComputationCase(seed, features, devices)
        : undefined;
    for (const f of computations?.findings ?? []) console.log(`\nDISAGREEMENT (computation library) ${f}`);
    // the same seed's struct-array case (struct-arrays.ts), when enabled
    record('struct arrays');
    record('a work-group a row');
    const groupRows = await runGroupRowsCase(seed, features, devices);
    for (const f of groupRows.findings) console.log(`\nDISAGREEMENT (a work-group a row) ${f}`);
    pointwiseFinding ||= groupRows.findings.length > 0;
    const structs = features.has('structArrays') ? await runStructCase(seed, features, devices) : undefined;
    for (const f of structs?.findings ?? []) console.log(`\nDISAGREEMENT (struct arrays) ${f}`);
    pointwiseFinding ||= (structs?.findings.length ?? 0) > 0;
    if (results.some(caseHasFinding) || pointwiseFinding || computations?.findings.length) failingSeeds.push(seed);
    else if (seeds.length && !quiet)
      console.log(
        `seed ${seed}: no disagreement (${results.map((r) => r.chain?.steps.length ?? 0).join(' + ')} steps)`,
      );
    if (!quiet && !seeds.length && cases % 50 === 0)
      console.log(`... ${cases} cases, ${failingSeeds.length} with findings`);
  }
  writeFileSync(o.seedFile, `finished: ${cases} cases, none running\n`);

  console.log(
    `\nSUMMARY: ${cases} cases (${steps} transformation steps applied), ${failingSeeds.length} with findings`,
  );
  for (const [device, row] of counts) {
    console.log(`  ${device}: ${[...row].map(([kind, n]) => `${kind} ${n}`).join(', ')}`);
  }
  if (failingSeeds.length) console.log(`  seeds with findings: ${failingSeeds.join(' ')}`);
  return failingSeeds.length ? 1 : 0;
}
