/** `loom stats`'s options and help, apart from the command (command.ts), loaded only to run it. */
import { GLOBAL_OPTIONS, type CommandSpec } from '../cli/args.ts';

export const STATS_OPTIONS = {
  ...GLOBAL_OPTIONS,
  params: { type: 'string', value: 'name=integer pairs (n=1024,m=512)' },
  'subgroup-size': { type: 'string', value: 'a positive integer' },
  device: { type: 'string', short: 'd', value: 'a device: cpu, opencl or webgpu' },
  profile: { type: 'string', value: 'a profile: a JSON file or a device name' },
  plot: { type: 'string', value: 'the SVG file to write' },
  measured: { type: 'string', value: 'a run.jsonl file' },
  'max-memory': { type: 'string', value: 'a size (2GiB, 512MiB, 100MB, or bytes)' },
} as const;

export const STATS_COMMAND: CommandSpec<typeof STATS_OPTIONS> = {
  name: 'stats',
  summary: `stats <file.ts> [--params n=1024] [--device cpu|c|opencl|cuda|webgpu | --profile <file|device>] [--plot <roofline.svg>]
      the operation, memory access and synchronization counts of the kernels a file exports,
      and the roofline's estimate of their time`,
  usage: `usage: loom stats <file.ts|.js> [--params n=1024,m=512] [--subgroup-size 32]
                  [--device cpu|c|opencl|cuda|webgpu | --profile <profile.json|device name>] [--plot <roofline.svg>]
                  [--measured <run.jsonl>] [--max-memory <size>] [--verbose]

  Prints, for every kernel the file exports (LoopKernels, builders, and functions named
  ...Kernel that take no argument), its operation, memory access and synchronization maps:
  exact counts, polynomials in the parameters. With --device (its profile measured once and
  kept in ~/.cache/loom/device-profiles.json, or $LOOM_CACHE_DIR, unless Loom comes with one
  for that device) or --profile (a JSON file, or the name of a device whose profile Loom
  comes with, or a part of it: --profile 'OpenCL: NVIDIA H100'), and --params,
  also the roofline's estimate of each kernel's time; with --device each kernel also runs
  there and its time is measured, saying on stderr what it measures. Before allocating, the
  device memory the kernel's arrays need at --params is worked out: above --max-memory
  (default 1GiB) the kernel is not run. --verbose lists each array's size. --plot writes the
  roofline as SVG; --measured adds the kernels a \`bench/roofline.ts --json\` run measured on
  the profile's device (the file is optional then).`,
  options: STATS_OPTIONS,
};
