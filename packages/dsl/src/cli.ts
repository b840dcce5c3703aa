/**
 * The `loom` command line.
 *
 *   loom typegen [--project tsconfig.json]           write the declarations of template kernels
 *   loom typegen --check [--project tsconfig.json]   fail when they are missing or stale
 *   --verbose                                        also say which kernels stay loosely typed, and why
 */
import path from 'node:path';
import { typegen } from './typegen/index.ts';

const USAGE = `usage: loom typegen [--check] [--verbose] [--project <tsconfig.json>]

  Types kernels written with domain\`...\`/insn\`...\` templates: writes a <file>.loom.d.ts
  next to each source file that has some. --check writes nothing and fails when a
  declaration file is missing or out of date. --verbose lists the template kernels left
  loosely typed (unnamed, or with values typegen cannot know) and why.`;

export function main(argv: readonly string[]): number {
  const [command, ...rest] = argv;
  if (command !== 'typegen' || rest.includes('--help') || rest.includes('-h')) {
    console.error(USAGE);
    return command === undefined || command === 'typegen' || command === '--help' ? 0 : 2;
  }
  let check = false;
  let verbose = false;
  let project: string | undefined;
  for (let k = 0; k < rest.length; k++) {
    if (rest[k] === '--check') check = true;
    else if (rest[k] === '--verbose') verbose = true;
    else if (rest[k] === '--project' || rest[k] === '-p') project = rest[++k];
    else {
      console.error(`loom typegen: unknown option '${rest[k]}'\n${USAGE}`);
      return 2;
    }
  }

  const report = typegen({ project, check });
  const shown = (file: string) => path.relative(process.cwd(), file) || file;
  // kernels left loosely typed are worth a line, not a list, unless asked
  if (verbose) for (const note of report.notes) console.error(`note: ${note}`);
  else if (report.notes.length && !check) console.error(`note: ${report.notes.length} template kernel${report.notes.length === 1 ? ' stays' : 's stay'} loosely typed (--verbose says which and why)`);
  for (const error of report.errors) console.error(`error: ${error}`);
  const counted = `${report.kernels.length} template kernel${report.kernels.length === 1 ? '' : 's'}`;
  if (check) {
    if (report.stale.length) {
      console.error(`loom typegen --check: ${report.stale.map((s) => `${shown(s.file)} is ${s.why}`).join('; ')}; run \`loom typegen\``);
    } else if (report.ok) console.log(`loom typegen --check: ${counted}, declarations up to date`);
  } else {
    for (const file of report.written) console.log(`loom typegen: wrote ${shown(file)}`);
    for (const file of report.removed) console.log(`loom typegen: removed ${shown(file)}`);
    if (report.ok && !report.written.length && !report.removed.length) console.log(`loom typegen: ${counted}, declarations up to date`);
  }
  return report.ok ? 0 : 1;
}
