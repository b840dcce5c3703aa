// `npm run docs`: the API reference of every package's public entry (typedoc.json), with the
// guides as pages of the same site: the packages' READMEs, ARCHITECTURE.md and the tutorial
// (examples/tutorial.ts, written out as Markdown). Usage: node scripts/docs.mjs [typedoc options]
// (`--out <dir>` writes the site elsewhere than site/; test/docs.test.ts does).
//
// The repository compiles with TypeScript 7, which has no JavaScript API; TypeDoc needs one
// (TypeScript 5.x-6.0). So TypeDoc gets its own copy, the devDependency `typescript-for-docs`
// (npm:typescript@~5.9), and this process sends every `typescript` TypeDoc asks for to it: the
// ES module imports through a resolve hook, the CommonJS `require.resolve` through Node's
// resolver. Nothing else in this process loads TypeScript, and `tsc` keeps its TypeScript 7.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const FOR_DOCS = 'typescript-for-docs';
/** `typescript` or `typescript/...` as TypeDoc's copy, anything else as it is. */
const redirect = (specifier) =>
  specifier === 'typescript' || specifier.startsWith('typescript/')
    ? FOR_DOCS + specifier.slice('typescript'.length)
    : specifier;

const hook = `export async function resolve(specifier, context, next) {
  return next((${redirect.toString()})(specifier), context);
}
const FOR_DOCS = ${JSON.stringify(FOR_DOCS)};`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolveFilename.call(this, redirect(request), ...rest);
};

/** The guides, as TypeDoc pages: a title each (the READMEs would all be called "README"). */
function guidePages(dir) {
  const pages = [];
  const write = (file, title, markdown) => {
    const target = path.join(dir, file);
    writeFileSync(target, `---\ntitle: ${JSON.stringify(title)}\ngroup: Guides\n---\n\n${markdown}`);
    pages.push(target);
  };
  const read = (file) => readFileSync(path.join(root, file), 'utf8');
  write('tutorial.md', 'Tutorial', tutorialMarkdown(read('examples/tutorial.ts')));
  write('architecture.md', 'Architecture', read('ARCHITECTURE.md'));
  for (const name of [
    'core',
    'dsl',
    'computation',
    'elementwise',
    'codegen-js',
    'codegen-cfamily',
    'codegen-opencl',
    'codegen-cuda',
    'codegen-c',
    'codegen-wgsl',
  ]) {
    write(`package-${name}.md`, `@loom/${name} (README)`, read(`packages/${name}/README.md`));
  }
  return pages;
}

/**
 * examples/tutorial.ts as a page: its opening comment as the introduction, each
 * `heading('...')` as a section title, comments at the start of a line as prose, and the
 * code between them as TypeScript blocks, in the file's order.
 */
function tutorialMarkdown(source) {
  const out = [];
  let code = [];
  const flush = () => {
    while (code.length && code[0].trim() === '') code.shift();
    while (code.length && code.at(-1).trim() === '') code.pop();
    if (code.length) out.push('```ts', ...code, '```', '');
    code = [];
  };
  const lines = source.split('\n');
  let at = 0;
  if (lines[0]?.startsWith('/**')) {
    for (at = 1; at < lines.length && !lines[at].trim().startsWith('*/'); at++)
      out.push(lines[at].replace(/^\s*\* ?/, ''));
    at++;
    out.push('');
  }
  for (; at < lines.length; at++) {
    const line = lines[at];
    const title = /^heading\('(.*)'\);$/.exec(line);
    if (title) {
      flush();
      out.push(`## ${title[1]}`, '');
    } else if (line.startsWith('// ')) {
      flush();
      out.push(line.slice(3), '');
    } else code.push(line);
  }
  flush();
  return `${out.join('\n')}\n`;
}

const pagesDir = mkdtempSync(path.join(os.tmpdir(), 'loom-docs-'));
try {
  const td = await import('typedoc');
  const app = await td.Application.bootstrapWithPlugins({ projectDocuments: guidePages(pagesDir) }, [
    new td.ArgumentsReader(0),
    new td.TypeDocReader(),
    new td.TSConfigReader(),
    new td.ArgumentsReader(300),
  ]);
  process.exitCode = await build(app);
} finally {
  rmSync(pagesDir, { recursive: true, force: true });
}

/** TypeDoc's own command line, less watching: convert, validate (an undocumented export is an error), write. */
async function build(app) {
  if (app.logger.hasErrors() || app.logger.hasWarnings()) return 1;
  const project = await app.convert();
  if (!project || app.logger.hasWarnings()) return 3;
  app.validate(project);
  if (app.logger.hasErrors() || app.logger.hasWarnings() || app.logger.validationWarningCount) return 4;
  await app.generateOutputs(project);
  if (app.logger.hasErrors() || app.logger.hasWarnings()) return 5;
  app.logger.info(`The reference is in ${app.options.getValue('out')}`);
  return 0;
}
