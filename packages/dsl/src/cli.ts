/**
 * The `loom` command line.
 *
 *   loom typegen [--check] [--verbose] [--project tsconfig.json]   types template kernels
 *   loom stats <file> [--params n=...] [--device ...] [--plot ...]  counts, estimates, roofline
 *   loom tune <file> [--device ...] [--budget s] [--fresh]          searches tuning problems
 *   loom graph <file> [--kernel NAME] [--out graph.svg] [--dot]     draws a kernel's dependency graph
 *   loom help [command] | --help | --version
 *
 * Options are parsed by one parser (cli/args.ts); each command's options and help are in a
 * light module (`<command>/usage.ts`), its work in one loaded only to run it, so that help and
 * usage mistakes never load an optional package (ts-morph, @hpcc-js/wasm-graphviz). Global options (--help, --version,
 * --verbose) are taken before the command as well as after it. Usage mistakes (an unknown
 * command or option, no tsconfig) are said in one line, with a did-you-mean where one is
 * close, and exit with 2; `loom typegen` exits with 1 when kernels do not build or, with
 * --check, when declarations are stale.
 */
import { readFileSync } from 'node:fs';
import { didYouMean, isPackageNotFound } from '@loom/core';
import {
  asksForHelp,
  GLOBAL_OPTIONS,
  parseArguments,
  type CommandSpec,
  type OptionSpecs,
  type ParsedArguments,
} from './cli/args.ts';
import { GRAPH_COMMAND } from './graph/usage.ts';
import { STATS_COMMAND } from './stats/usage.ts';
import { TUNE_COMMAND } from './tune/usage.ts';
import { TYPEGEN_COMMAND } from './typegen/usage.ts';

/** A command: its spec, and how it runs once its arguments parse (its module loaded only then). */
interface Command {
  readonly spec: CommandSpec;
  readonly run: (parsed: ParsedArguments<OptionSpecs>) => Promise<number>;
}

const COMMANDS: readonly Command[] = [
  { spec: TYPEGEN_COMMAND, run: (parsed) => runTypegen(parsed as ParsedArguments<typeof TYPEGEN_COMMAND.options>) },
  {
    spec: STATS_COMMAND,
    run: async (parsed) =>
      (await import('./stats/command.ts')).statsCommand(parsed as ParsedArguments<typeof STATS_COMMAND.options>),
  },
  {
    spec: TUNE_COMMAND,
    run: async (parsed) =>
      (await import('./tune/command.ts')).tuneCommand(parsed as ParsedArguments<typeof TUNE_COMMAND.options>),
  },
  {
    spec: GRAPH_COMMAND,
    run: async (parsed) =>
      (await import('./graph/command.ts')).graphCommand(parsed as ParsedArguments<typeof GRAPH_COMMAND.options>),
  },
];

const USAGE = `usage: loom <command> [options]

commands:
${COMMANDS.map((c) => `  ${c.spec.summary}`).join('\n')}
  help [command]
      says more about a command (as \`loom <command> --help\` does)

options (before or after the command):
  -h, --help       show this help, or the command's
  -v, --version    print the version of @loom/dsl
  --verbose        say more (typegen: which kernels stay loosely typed; stats: each array's
                   size; tune: a line per configuration)`;

export async function main(argv: readonly string[]): Promise<number> {
  // global options take no value, so the first word that is not an option is the command
  const at = argv.findIndex((a) => !a.startsWith('-'));
  const before = at < 0 ? argv : argv.slice(0, at);
  const command = at < 0 ? undefined : argv[at]!;
  const rest = at < 0 ? [] : argv.slice(at + 1);
  const global = parseArguments(before, GLOBAL_OPTIONS);
  if (typeof global === 'string') return usageMistake('loom', global, USAGE);
  if (global.values.version) {
    console.log(version());
    return 0;
  }
  if (command === undefined) {
    // `loom --help` asks for the usage; `loom` or `loom --verbose` alone forgot the command
    if (global.values.help) console.log(USAGE);
    else console.error(USAGE);
    return global.values.help ? 0 : 2;
  }
  if (command === 'help') return help(rest);
  const found = commandNamed(command);
  if (typeof found === 'string') return usageMistake('loom', found, USAGE);
  const { spec } = found;
  const args = [...before, ...rest];
  if (asksForHelp(args)) {
    console.log(spec.usage);
    return 0;
  }
  const parsed = parseArguments(args, spec.options);
  if (typeof parsed === 'string') return usageMistake(`loom ${spec.name}`, parsed, spec.usage);
  if (parsed.values.version) {
    console.log(version());
    return 0;
  }
  return found.run(parsed);
}

/** `loom help [command]`: the usage, or the command's help. */
function help(argv: readonly string[]): number {
  // (`loom help stats --verbose` is help all the same)
  const parsed = parseArguments(argv, GLOBAL_OPTIONS);
  if (typeof parsed === 'string') return usageMistake('loom help', parsed, USAGE);
  const args = parsed.positionals;
  if (args.length > 1) return usageMistake('loom help', `one command at a time ('${args.join("', '")}')`, USAGE);
  if (args.length === 0) {
    console.log(USAGE);
    return 0;
  }
  const found = commandNamed(args[0]!);
  if (typeof found === 'string') return usageMistake('loom help', found, USAGE);
  console.log(found.spec.usage);
  return 0;
}

/** The command of that name, or why there is none (with the one meant, if one is close). */
function commandNamed(name: string): Command | string {
  const found = COMMANDS.find((c) => c.spec.name === name);
  if (found) return found;
  const guess = didYouMean(name, [...COMMANDS.map((c) => c.spec.name), 'help']);
  return `unknown command '${name}'${guess ? ` (did you mean '${guess}'?)` : ''}`;
}

/** A usage mistake: said in one line, then the usage, on stderr; exit code 2. */
function usageMistake(who: string, mistake: string, usage: string): number {
  console.error(`${who}: ${mistake}\n\n${usage}`);
  return 2;
}

/** The version of @loom/dsl, from its package.json (one directory up from src/ and from dist/ alike). */
function version(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** Runs `loom typegen`, or says in one line that ts-morph, which it is built on, is not installed. */
async function runTypegen(parsed: ParsedArguments<typeof TYPEGEN_COMMAND.options>): Promise<number> {
  let command: typeof import('./typegen/command.ts');
  try {
    command = await import('./typegen/command.ts');
  } catch (e) {
    if (!isPackageNotFound(e, 'ts-morph')) throw e;
    console.error(
      "loom typegen: it needs the 'ts-morph' package, which is not installed: npm install --save-dev ts-morph",
    );
    return 2;
  }
  return command.typegenCommand(parsed);
}
