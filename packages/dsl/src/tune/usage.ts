/** `loom tune`'s options and help, apart from the command (command.ts), loaded only to run it. */
import { GLOBAL_OPTIONS, type CommandSpec } from '../cli/args.ts';
import { defaultTuningCacheFile } from './file-cache.ts';

export const TUNE_OPTIONS = {
  ...GLOBAL_OPTIONS,
  device: { type: 'string', short: 'd', value: 'a device: cpu, opencl or webgpu' },
  budget: { type: 'string', value: 'a positive number of seconds' },
  fresh: { type: 'boolean' },
  only: { type: 'string', value: 'the name of a tuning problem' },
} as const;

export const TUNE_COMMAND: CommandSpec<typeof TUNE_OPTIONS> = {
  name: 'tune',
  summary: `tune <file.ts> [--device cpu|c|opencl|cuda|webgpu] [--budget <seconds>] [--fresh] [--only <name>]
      searches the configurations of the tuning problems a file exports (defineTuning) on a
      device and keeps the best per device`,
  get usage() {
    // the cache's folder is read when asked ($LOOM_CACHE_DIR may change in a test)
    return `usage: loom tune <file.ts> [--device cpu|c|opencl|cuda|webgpu] [--budget <seconds>] [--fresh] [--only <name>] [--verbose]

  Searches the configurations of each tuning problem the file exports (defineTuning from
  @loom/core) on the device (default: opencl if present, else webgpu, else cpu), trying new
  ones for at most --budget seconds (default 60) per problem. The best configuration of each
  is printed as JSON and kept in ${defaultTuningCacheFile()} ($LOOM_CACHE_DIR
  overrides the folder); a problem found there for the device is not searched again unless
  --fresh. Progress goes to stderr: a bar on a terminal, a line per configuration elsewhere
  or with --verbose.`;
  },
  options: TUNE_OPTIONS,
};
