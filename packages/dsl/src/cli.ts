/**
 * The `loom` command line.
 *
 *   loom typegen [--check] [--verbose] [--project tsconfig.json]   types template kernels
 *   loom stats <file> [--params n=...] [--device ...] [--plot ...]  counts, estimates, roofline
 *   loom tune <file> [--device ...] [--budget s] [--fresh]          searches tuning problems
 *   loom --help | --version
 *
 * Usage mistakes (an unknown command or option, no tsconfig) are reported in one line and exit
 * with 2; `loom typegen` exits with 1 when kernels do not build or, with --check, when
 * declarations are stale. The typegen command, and ts-morph with it, is only loaded when run.
 */
import { readFileSync } from 'node:fs';
import { isPackageNotFound } from '@loom/core';

const USAGE = `usage: loom <command> [options]

commands:
  typegen [--check] [--verbose] [--project <tsconfig.json>]
      writes the declarations that type kernels written with domain\`...\`/insn\`...\`
      templates (\`loom typegen --help\` says more)
  stats <file.ts> [--params n=1024] [--device cpu|opencl|webgpu | --profile <file|device>] [--plot <roofline.svg>]
      the operation, memory access and synchronization counts of the kernels a file exports,
      and the roofline's estimate of their time (\`loom stats --help\` says more)
  tune <file.ts> [--device cpu|opencl|webgpu] [--budget <seconds>] [--fresh] [--only <name>]
      searches the configurations of the tuning problems a file exports (defineTuning) on a
      device and keeps the best per device (\`loom tune --help\` says more)

options:
  -h, --help       show this help
  -v, --version    print the version of @loom/dsl`;

export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case '-h':
    case '--help':
      console.log(USAGE);
      return 0;
    case '-v':
    case '--version':
      console.log(version());
      return 0;
    case 'typegen':
      return runTypegen(rest);
    case 'stats':
      return (await import('./stats/command.ts')).statsCommand(rest);
    case 'tune':
      return (await import('./tune/command.ts')).tuneCommand(rest);
    case undefined:
      console.error(USAGE);
      return 2;
    default:
      console.error(`loom: unknown command '${command}'\n\n${USAGE}`);
      return 2;
  }
}

/** The version of @loom/dsl, from its package.json (one directory up from src/ and from dist/ alike). */
function version(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** Runs `loom typegen`, or says in one line that ts-morph, which it is built on, is not installed. */
async function runTypegen(args: readonly string[]): Promise<number> {
  let command: typeof import('./typegen/command.ts');
  try {
    command = await import('./typegen/command.ts');
  } catch (e) {
    if (!isPackageNotFound(e, 'ts-morph')) throw e;
    console.error("loom typegen: it needs the 'ts-morph' package, which is not installed: npm install --save-dev ts-morph");
    return 2;
  }
  return command.typegenCommand(args);
}
