/**
 * `loom typegen` as a command: its options, and the report printed one line per finding.
 *
 *   loom typegen [--project tsconfig.json]           write the declarations of template kernels
 *   loom typegen --check [--project tsconfig.json]   fail when they are missing or stale
 *   --verbose                                        also say which kernels stay loosely typed, and why
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ParsedArguments } from '../cli/args.ts';
import { typegen, type TypegenReport } from './index.ts';
import { TYPEGEN_COMMAND, type TYPEGEN_OPTIONS } from './usage.ts';

interface TypegenArguments {
  readonly check: boolean;
  readonly verbose: boolean;
  readonly project: string;
}

/** The command's exit code: 0 done, 1 kernels in error or declarations stale, 2 a usage mistake. */
export async function typegenCommand({
  values,
  positionals,
}: ParsedArguments<typeof TYPEGEN_OPTIONS>): Promise<number> {
  if (positionals.length) {
    console.error(
      `loom typegen: it takes no file ('${positionals[0]}'): it reads the files of the project's tsconfig.json (--project)\n\n${TYPEGEN_COMMAND.usage}`,
    );
    return 2;
  }
  const parsed: TypegenArguments = {
    check: values.check === true,
    verbose: values.verbose === true,
    project: path.resolve(values.project ?? 'tsconfig.json'),
  };
  if (!existsSync(parsed.project)) {
    console.error(
      `loom typegen: no ${shown(parsed.project)}: run it in a TypeScript project, or name its tsconfig with --project <tsconfig.json>`,
    );
    return 2;
  }
  let report: TypegenReport;
  try {
    report = await typegen({ project: parsed.project, check: parsed.check });
  } catch (e) {
    console.error(`loom typegen: ${(e as Error).message}`);
    return 2;
  }
  printReport(report, parsed);
  return report.ok ? 0 : 1;
}

function printReport(report: TypegenReport, { check, verbose }: TypegenArguments): void {
  // kernels left loosely typed are worth a line, not a list, unless asked
  if (verbose) for (const note of report.notes) console.error(`note: ${note}`);
  else if (report.notes.length && !check)
    console.error(
      `note: ${report.notes.length} template kernel${report.notes.length === 1 ? ' or computation stays' : 's or computations stay'} loosely typed (--verbose says which and why)`,
    );
  for (const error of report.errors) console.error(`error: ${error}`);
  const computations = report.computations.length;
  const counted = `${report.kernels.length} template kernel${report.kernels.length === 1 ? '' : 's'}${computations ? ` and ${computations} computation${computations === 1 ? '' : 's'}` : ''}`;
  if (check) {
    if (report.stale.length) {
      console.error(
        `loom typegen --check: ${report.stale.map((s) => `${shown(s.file)} is ${s.why}`).join('; ')}; run \`loom typegen\``,
      );
    } else if (report.ok) console.log(`loom typegen --check: ${counted}, declarations up to date`);
  } else {
    for (const file of report.written) console.log(`loom typegen: wrote ${shown(file)}`);
    for (const file of report.removed) console.log(`loom typegen: removed ${shown(file)}`);
    if (report.ok && !report.written.length && !report.removed.length)
      console.log(`loom typegen: ${counted}, declarations up to date`);
  }
}

const shown = (file: string) => path.relative(process.cwd(), file) || file;
