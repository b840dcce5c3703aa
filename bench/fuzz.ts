/**
 * Long fuzzing runs of the parsers, with fresh seeds: the quick fuzzers of `npm test`
 * (test/security-fuzz.test.ts) run a few hundred inputs from a fixed seed; this runs for
 * minutes per parser and prints every finding with the seed and input that reproduce it.
 *
 *   npx tsx bench/fuzz.ts [--minutes 2] [--only domain,payload] [--seed 1234]
 *
 * A finding is an exception other than a LoomError, or an input that runs longer than 5 s.
 * A hang cannot be caught from inside the thread that hangs, so each parser is fuzzed in a
 * child process, which reports each input before running it; a child that goes quiet for
 * 5 s is killed, its last input reported as a hang, and a fresh child continues with the
 * next seed. (A child process rather than a worker thread: tsx's loader reaches it reliably.) The process exits with 1 when anything was found.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { check, FUZZ_TARGETS, inputsFor } from '../test/support/fuzz-targets.ts';

const HANG_MS = 5000;
/** Inputs per seed: a worker runs one seed's batch, then asks for the next. */
const BATCH = 500;

type FromWorker =
  | { readonly kind: 'input'; readonly input: string }
  | { readonly kind: 'finding'; readonly input: string; readonly what: string }
  | { readonly kind: 'done'; readonly count: number };

interface Job {
  readonly target: string;
  readonly seed: number;
}

const JOB_FLAG = '--job';
if (process.argv[2] === JOB_FLAG) fuzzBatch(JSON.parse(process.argv[3]) as Job);
else await main();

/** In a child: one seed's batch of inputs for one parser, each announced before it runs. */
function fuzzBatch(job: Job): void {
  const target = FUZZ_TARGETS.find((t) => t.name === job.target)!;
  const post = (message: FromWorker) => process.send!(message);
  const inputs = fc.sample(inputsFor(target), { seed: job.seed, numRuns: BATCH });
  for (const input of inputs) {
    post({ kind: 'input', input });
    const finding = check(target, input, HANG_MS);
    if (finding?.kind === 'exception') {
      const error = finding.error as Error;
      post({
        kind: 'finding',
        input,
        what: `${error?.name}: ${String(error?.message).split('\n')[0]}\n      ${error?.stack?.split('\n')[1]?.trim() ?? ''}`,
      });
    } else if (finding?.kind === 'slow') {
      post({ kind: 'finding', input, what: `slow: ${finding.ms.toFixed(0)} ms` });
    }
  }
  post({ kind: 'done', count: inputs.length });
}

/** Runs one batch in a fresh worker; resolves with the number of inputs tried (and findings reported). */
function runBatch(job: Job, report: (what: string, input: string) => void): Promise<number> {
  return new Promise((resolve) => {
    // The child runs this very file, as TypeScript through tsx's loader.
    const self = fileURLToPath(import.meta.url);
    // the TypeScript source needs tsx's loader in the child; a bundle (.mjs, on the GPU machine) runs as it is
    const execArgv = self.endsWith('.ts') ? ['--import', 'tsx'] : [];
    const worker = fork(self, [JOB_FLAG, JSON.stringify(job)], { execArgv });
    let last = '';
    let tried = 0;
    // Starting a child (tsx compiling the parsers) is slow on a busy machine: the 5 s start
    // with the first input; until then it has a minute.
    let timer = setTimeout(hung, 60_000);
    function hung(): void {
      report(tried === 0 ? 'the child did not start within a minute' : `hang: no answer within ${HANG_MS} ms`, last);
      worker.kill();
      resolve(tried);
    }
    worker.on('message', (message: FromWorker) => {
      clearTimeout(timer);
      timer = setTimeout(hung, HANG_MS);
      if (message.kind === 'input') {
        last = message.input;
        tried++;
      } else if (message.kind === 'finding') {
        report(message.what, message.input);
      } else {
        clearTimeout(timer);
        worker.disconnect();
        resolve(message.count);
      }
    });
    worker.on('error', (error) => {
      clearTimeout(timer);
      // A worker that dies before its first input is a broken setup, not a finding: stop.
      if (tried === 0) throw error;
      report(`worker died: ${error.message}`, last);
      resolve(tried);
    });
  });
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string) => {
    const k = args.indexOf(`--${name}`);
    return k >= 0 ? args[k + 1] : undefined;
  };
  const minutes = Number(option('minutes') ?? 2);
  const only = option('only')?.split(',');
  let seed = Number(option('seed') ?? Date.now() % 1_000_000_000);
  const targets = FUZZ_TARGETS.filter((t) => !only || only.includes(t.name));
  let findings = 0;

  for (const target of targets) {
    const until = Date.now() + minutes * 60_000;
    const seen = new Set<string>(); // one line per kind of finding (the message's first line)
    let inputs = 0;
    console.log(`fuzzing ${target.name} for ${minutes} min, seeds from ${seed}`);
    while (Date.now() < until) {
      const job = { target: target.name, seed: seed++ };
      inputs += await runBatch(job, (what, input) => {
        findings++;
        if (seen.has(what.split('\n')[0])) return;
        seen.add(what.split('\n')[0]);
        console.log(`  FINDING (seed ${job.seed}): ${what}\n    input: ${JSON.stringify(input)}`);
      });
    }
    console.log(`  ${target.name}: ${inputs} inputs, ${seen.size} kinds of finding`);
  }
  console.log(findings === 0 ? 'no findings' : `${findings} findings`);
  process.exitCode = findings === 0 ? 0 : 1;
}
