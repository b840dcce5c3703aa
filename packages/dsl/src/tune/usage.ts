/** `loom tune`'s options and help, apart from the command (command.ts), loaded only to run it. */
import { GLOBAL_OPTIONS, type CommandSpec } from '../cli/args.ts';
import { defaultTuningCacheFile } from './file-cache.ts';

export const TUNE_OPTIONS = {
  ...GLOBAL_OPTIONS,
  device: { type: 'string', short: 'd', value: 'a device: cpu, opencl or webgpu' },
  budget: { type: 'string', value: 'a positive number of seconds' },
  fresh: { type: 'boolean' },
  only: { type: 'string', value: 'the name of a tuning problem' },
  auto: { type: 'boolean' },
  params: { type: 'string', value: 'name=integer pairs separated by commas' },
} as const;

export const TUNE_COMMAND: CommandSpec<typeof TUNE_OPTIONS> = {
  name: 'tune',
  summary: `tune <file.ts> [--auto [--params n=1024]] [--device cpu|c|opencl|cuda|webgpu] [--budget <seconds>] [--fresh] [--only <name>]
      searches the configurations of the tuning problems a file exports (defineTuning) on a
      device and keeps the best per device; with --auto, auto-schedules the kernels it exports`,
  get usage() {
    // the cache's folder is read when asked ($LOOM_CACHE_DIR may change in a test)
    return `usage: loom tune <file.ts> [--auto [--params n=1024,m=512]] [--device cpu|c|opencl|cuda|webgpu] [--budget <seconds>] [--fresh] [--only <name>] [--verbose]

  Searches the configurations of each tuning problem the file exports (defineTuning from
  @loom/core) on the device (default: opencl if present, else webgpu, else cpu), trying new
  ones for at most --budget seconds (default 60) per problem. The best configuration of each
  is printed as JSON and kept in ${defaultTuningCacheFile()} ($LOOM_CACHE_DIR
  overrides the folder); a problem found there for the device is not searched again unless
  --fresh. Progress goes to stderr: a bar on a terminal, a line per configuration elsewhere
  or with --verbose.

  With --auto, each kernel the file exports (as loom stats finds them) is auto-scheduled
  (autoSchedule from @loom/core) at the sizes of --params: candidate transformations ranked
  by a cost model, the best checked against the kernel on the CPU and measured for at most
  --budget seconds. The builder code that reproduces each best kernel is printed on stdout,
  to paste after the kernel; --only picks a kernel by its export's name.`;
  },
  options: TUNE_OPTIONS,
};
