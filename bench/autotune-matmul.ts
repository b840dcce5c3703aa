/**
 * Searches SGEMM configurations (lib/autotune.ts) on each device present and reports every
 * trial and the best, at one matrix order (4096 with --full, 256 otherwise; --n=N to choose).
 *
 *   node --import tsx bench/autotune-matmul.ts [--full] [--json] [--n=2048] [--budget=60]
 *
 * bench/matmul.ts runs the same search before measuring, so one command gives both.
 */
import { numberFlag, parseOptions } from './lib/cli.ts';
import { openDevices } from './lib/devices.ts';
import { autotune, describeConfig } from './lib/autotune.ts';
import { LoomError } from '@loom/core';
import { flops } from './lib/matmul-run.ts';
import { progress, round } from './lib/records.ts';

const options = parseOptions();
const n = numberFlag(options, 'n', options.full ? 4096 : 256);
const budget = numberFlag(options, 'budget', options.full ? 60 : 30);

for (const d of await openDevices(options.backends)) {
  progress(`\n${d.device.name}: SGEMM ${n}^3, searching for up to ${budget} s`);
  let result: Awaited<ReturnType<typeof autotune>>;
  try {
    result = await autotune(d, n, budget, (t) => {
      const what = t.seconds === undefined ? `skipped: ${t.failure}` : `${round(flops(n) / t.seconds / 1e12)} TFLOP/s`;
      if (options.json)
        console.log(
          JSON.stringify({
            info: 'autotune-trial',
            backend: d.backend,
            n,
            config: t.config,
            seconds: t.seconds ?? null,
            failure: t.failure ?? null,
          }),
        );
      progress(`  ${describeConfig(t.config).padEnd(44)} ${what}`);
    });
  } catch (e) {
    if (!(e instanceof LoomError)) throw e;
    progress(`  ${e.message}`);
    process.exitCode = 1;
    continue;
  }
  const line = {
    info: 'autotune-best',
    backend: d.backend,
    device: d.device.name,
    n,
    config: result.best,
    tflops: round(result.tflops),
    tried: result.trials.length,
  };
  if (options.json) console.log(JSON.stringify(line));
  progress(`  best: ${describeConfig(result.best)}: ${round(result.tflops)} TFLOP/s (${result.trials.length} tried)`);
}
