/**
 * A private npm registry for the installation test (verdaccio, in a child process, see
 * registry-server.mjs), and what talks to it: publishing the workspaces, npm's settings for an app.
 *
 * It holds Loom's packages only, with no uplink: an app's `.npmrc` sends the @loom scope to it,
 * and everything else (acorn and the like) comes from the npm registry the machine is set up
 * with, through npm's cache, as for any user.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Registry {
  readonly url: string;
  /** An npmrc with a token for publishing (verdaccio lets anyone publish, npm wants a token to send). */
  readonly publisherConfig: string;
  stop(): void;
}

export async function startRegistry(directory: string): Promise<Registry> {
  const server = spawn(
    process.execPath,
    [fileURLToPath(new URL('registry-server.mjs', import.meta.url)), path.join(directory, 'storage')],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const port = await firstLine(server);
  const url = `http://127.0.0.1:${port}/`;
  const publisherConfig = path.join(directory, 'publisher.npmrc');
  writeFileSync(publisherConfig, `//127.0.0.1:${port}/:_authToken=anonymous\n`);
  return { url, publisherConfig, stop: () => server.kill() };
}

/** The first line the server prints: its port. */
function firstLine(server: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let printed = '';
    server.stdout!.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      if (printed.includes('\n')) resolve(printed.split('\n')[0].trim());
    });
    server.on('exit', (code) => reject(new Error(`the registry exited with ${code} before it listened`)));
  });
}

/** Publishes every package of the repository at `root` (they must be built). */
export function publishWorkspaces(registry: Registry, root: string): SpawnSyncReturns<string> {
  return npm(
    [
      'publish',
      '--workspaces',
      '--ignore-scripts',
      '--registry',
      registry.url,
      '--userconfig',
      registry.publisherConfig,
    ],
    root,
  );
}

/** Makes `app` install @loom packages from the registry. */
export function useRegistryFor(app: string, registry: Registry): void {
  writeFileSync(path.join(app, '.npmrc'), `@loom:registry=${registry.url}\n`);
}

/** npm, run in `cwd` with none of the settings an enclosing `npm test` passes down through the environment. */
export function npm(args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return spawnSync('npm', [...args, '--no-audit', '--no-fund'], { cwd, env, encoding: 'utf8' });
}
