/**
 * `loom typegen`: types the kernels written with `domain`/`insn` templates, and the
 * computations whose parameter lists the compiler cannot see (computations.ts).
 *
 * Template literals reach the compiler only as `string`, so the type-level reader cannot
 * see a template kernel's text. Typegen reads the project's sources (the files of its
 * tsconfig that import `@loom/dsl`), evaluates each template kernel statically, builds it
 * with the DSL, and writes what it found — inames and signature, under the kernel's name —
 * into a declaration file next to the source. With `check`, it writes nothing and reports
 * declaration files that are missing, out of date or left over: `npm test` runs that.
 *
 * @module @loom/dsl/typegen
 */
import { checkOptionKeys, optionKeys } from '@loom/core';
import { readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { Project, ts } from 'ts-morph';
import { describeKernel } from './describe.ts';
import { declarationPathFor, emitDeclarations, GENERATED_HEADER } from './emit.ts';
import { Evaluator } from './evaluate.ts';
import { findKernels, type FoundKernel } from './find.ts';
import { findComputations, type FoundComputation } from './computations.ts';
import { COMPUTATION_MODULE, DSL_MODULE } from './dsl-imports.ts';

/** The options typegen reads; any other key is an error. */
const TYPEGEN_OPTIONS = optionKeys<TypegenOptions>()(['check', 'project']);

/** Options of `typegen`. */
export interface TypegenOptions {
  /** The tsconfig.json whose files are scanned (default: `tsconfig.json` in the working directory). */
  readonly project?: string;
  /** Only compare: write nothing, report what is stale. */
  readonly check?: boolean;
}

/** What `typegen` wrote, or with `check` found out of date. */
export interface TypegenReport {
  /** The template kernels found. */
  readonly kernels: readonly FoundKernel[];
  /** Computations registered by name (their parameter lists not written in place). */
  readonly computations: readonly FoundComputation[];
  /** Declaration files written or removed (not in check mode). */
  readonly written: readonly string[];
  /** Declaration files removed, their kernels gone (not in check mode). */
  readonly removed: readonly string[];
  /** Check mode: declaration files that are missing, out of date, or left over. */
  readonly stale: readonly { readonly file: string; readonly why: 'missing' | 'out of date' | 'left over' }[];
  /** Kernels left loosely typed, and why. */
  readonly notes: readonly string[];
  /** Kernels that do not build, or names used twice. */
  readonly errors: readonly string[];
  /** No errors, and in check mode nothing stale. */
  readonly ok: boolean;
}

/**
 * Types the template kernels and computations of a project: reads them and writes (or, with `check`, compares)
 * their declaration files. Async because @loom/computation, an optional peer, is loaded only
 * when a file makes computations.
 */
export async function typegen(options: TypegenOptions = {}): Promise<TypegenReport> {
  checkOptionKeys('typegen', options, TYPEGEN_OPTIONS);
  const configPath = path.resolve(options.project ?? 'tsconfig.json');
  const root = path.dirname(configPath);
  const relative = (file: string) => path.relative(root, file) || file;
  const files = projectFiles(configPath);

  const project = new Project({ skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true });
  const evaluator = new Evaluator(project);
  const kernels: FoundKernel[] = [];
  const computations: FoundComputation[] = [];
  const notes: string[] = [];
  const errors: string[] = [];
  const expected = new Map<string, string>();
  for (const file of files.filter(isSource)) {
    const text = readFileSync(file, 'utf8');
    if (!text.includes(DSL_MODULE) && !text.includes(COMPUTATION_MODULE)) continue;
    const source = project.addSourceFileAtPath(file);
    const scan = findKernels(source, evaluator, relative);
    const computationScan = await findComputations(source, evaluator, relative);
    notes.push(...scan.notes, ...computationScan.notes);
    errors.push(...scan.errors, ...computationScan.errors);
    kernels.push(...scan.kernels);
    computations.push(...computationScan.computations);
    if (scan.kernels.length === 0 && computationScan.computations.length === 0) continue;
    const described = scan.kernels.map((k) => ({ name: k.name, line: k.line, description: describeKernel(k.kernel) }));
    expected.set(
      declarationPathFor(file),
      emitDeclarations(path.basename(file), described, computationScan.computations),
    );
  }
  errors.push(
    ...duplicateNames(kernels, 'kernel', 'template kernels', relative),
    ...duplicateNames(computations, 'computation', 'computations', relative),
  );

  const generated = files.filter(
    (f) => f.endsWith('.loom.d.ts') && readFileSync(f, 'utf8').startsWith(GENERATED_HEADER),
  );
  const stale: { file: string; why: 'missing' | 'out of date' | 'left over' }[] = [];
  for (const [file, content] of expected) {
    if (!existsSync(file)) stale.push({ file, why: 'missing' });
    else if (readFileSync(file, 'utf8') !== content) stale.push({ file, why: 'out of date' });
  }
  for (const file of generated) if (!expected.has(file)) stale.push({ file, why: 'left over' });

  const written: string[] = [];
  const removed: string[] = [];
  if (!options.check && errors.length === 0) {
    for (const { file, why } of stale) {
      if (why === 'left over') {
        rmSync(file);
        removed.push(file);
      } else {
        writeFileSync(file, expected.get(file)!);
        written.push(file);
      }
    }
  }
  const ok = errors.length === 0 && (!options.check || stale.length === 0);
  return { kernels, computations, written, removed, stale: options.check ? stale : [], notes, errors, ok };
}

/** TypeScript's "No inputs were found in config file". */
const NO_INPUTS = 18003;

/** The files a tsconfig takes in, as absolute paths. */
function projectFiles(configPath: string): string[] {
  const diagnostics: ts.Diagnostic[] = [];
  const host: ts.ParseConfigFileHost = {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => diagnostics.push(d),
  };
  // the config's own JSON first: the parser below reads past syntax errors (a missing bracket)
  const syntax = ts.readConfigFile(configPath, (file) => ts.sys.readFile(file)).error;
  if (syntax) diagnostics.push(syntax);
  const parsed = diagnostics.length ? undefined : ts.getParsedCommandLineOfConfigFile(configPath, {}, host);
  // a tsconfig that parses with errors (broken JSON, an unknown option, an `extends` that is
  // not there) is not read as the project it means: typegen would find no kernel and say all
  // is up to date. That it takes in no file at all is no error of its own (TS18003).
  diagnostics.push(
    ...(parsed?.errors ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error && d.code !== NO_INPUTS),
  );
  if (!parsed || diagnostics.length) {
    const message = diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n');
    throw new Error(`cannot read ${configPath}${message ? `: ${message}` : ''}`);
  }
  return parsed.fileNames.map((f) => path.resolve(f));
}

const isSource = (file: string) => /\.(m|c)?tsx?$/.test(file) && !/\.d\.(m|c)?ts$/.test(file);

function duplicateNames(
  found: readonly { name: string; file: string; line: number }[],
  what: string,
  plural: string,
  relative: (file: string) => string,
): string[] {
  const byName = new Map<string, { file: string; line: number }[]>();
  for (const k of found) byName.set(k.name, [...(byName.get(k.name) ?? []), k]);
  return [...byName]
    .filter(([, same]) => same.length > 1)
    .map(
      ([name, same]) =>
        `${what} name '${name}' is used by ${same.length} ${plural} (${same.map((k) => `${relative(k.file)}:${k.line}`).join(', ')}); typegen types ${what}s by name, so give each its own`,
    );
}
