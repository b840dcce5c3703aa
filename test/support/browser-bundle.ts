/**
 * Bundling Loom's packages as a browser app's bundler does: esbuild, `platform: 'browser'`
 * (so the `browser` condition of the packages' exports applies), minified, from the sources
 * (the `loom-source` condition, so nothing has to be built first).
 *
 * The repository's tsconfig.json maps `@loom/*` straight to each package's `src/index.ts`, for
 * the tools that run the sources in Node; a browser bundle must resolve the packages' exports
 * instead, so that mapping is switched off here (`tsconfigRaw`).
 */
import { build, type Message, type Plugin } from 'esbuild';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('../..', import.meta.url));
const NODE_BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

export interface BrowserBundle {
  /** Bytes of the minified bundle. */
  readonly minified: number;
  /** Bytes of the minified bundle, gzipped. */
  readonly gzipped: number;
  /** Node builtins the bundle reaches, each with the module that imports it. */
  readonly nodeBuiltins: readonly string[];
  /** The files bundled, relative to the repository (`packages/core/src/index.ts`). */
  readonly inputs: readonly string[];
  readonly errors: readonly Message[];
}

/** The browser bundle of an app that imports everything `packages` export. */
export async function bundleForBrowser(packages: readonly string[]): Promise<BrowserBundle> {
  const nodeBuiltins: string[] = [];
  // A Node builtin is not an error for esbuild in every form (`node:` prefixed ones it may keep
  // external): each one is recorded here, with who imports it, and kept out of the bundle.
  const refuseBuiltins: Plugin = {
    name: 'refuse-node-builtins',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (!NODE_BUILTINS.has(args.path)) return undefined;
        nodeBuiltins.push(`${args.path} (imported by ${args.importer.replace(root, '')})`);
        return { path: args.path, external: true };
      });
    },
  };
  const contents = packages.map((p, k) => `export * as p${k} from '${p}';`).join('\n');
  const result = await build({
    stdin: { contents, resolveDir: root, loader: 'js' },
    bundle: true,
    minify: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    conditions: ['loom-source'],
    tsconfigRaw: '{}',
    plugins: [refuseBuiltins],
    logLevel: 'silent',
    metafile: true,
  }).catch((e: { errors?: Message[] }) => ({ errors: e.errors ?? [], outputFiles: [], metafile: undefined }));
  const output = result.outputFiles[0]?.contents ?? new Uint8Array();
  const inputs = Object.keys(result.metafile?.inputs ?? {});
  return { minified: output.length, gzipped: gzipSync(output).length, nodeBuiltins, inputs, errors: result.errors };
}
