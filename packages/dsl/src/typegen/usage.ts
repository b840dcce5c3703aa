/**
 * `loom typegen`'s options and help, apart from the command (command.ts), which loads ts-morph:
 * the help and usage mistakes are answered without it.
 */
import { GLOBAL_OPTIONS, type CommandSpec } from '../cli/args.ts';

export const TYPEGEN_OPTIONS = {
  ...GLOBAL_OPTIONS,
  check: { type: 'boolean' },
  project: { type: 'string', short: 'p', value: 'a tsconfig.json' },
} as const;

export const TYPEGEN_COMMAND: CommandSpec<typeof TYPEGEN_OPTIONS> = {
  name: 'typegen',
  summary: `typegen [--check] [--verbose] [--project <tsconfig.json>]
      writes the declarations that type kernels written with domain\`...\`/insn\`...\`
      templates`,
  usage: `usage: loom typegen [--check] [--verbose] [--project <tsconfig.json>]

  Types kernels written with domain\`...\`/insn\`...\` templates, and computations
  (@loom/computation) whose parameter lists are not written in place: writes a
  <file>.loom.d.ts next to each source file that has some. --check writes nothing and fails when a
  declaration file is missing or out of date. --verbose lists the template kernels left
  loosely typed (unnamed, or with values typegen cannot know) and why. --project (-p) names
  the tsconfig.json whose files are read (default: the one in the current directory).
  It needs the ts-morph package (npm install --save-dev ts-morph), and @loom/computation
  only where a file makes computations.`,
  options: TYPEGEN_OPTIONS,
};
