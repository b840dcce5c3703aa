/**
 * The playground's whole state in the URL's hash, so that a link reproduces a kernel: every
 * input, the chosen preset and the tab. The hash is `#v1.` and the state's JSON, deflated
 * (CompressionStream, 'deflate-raw') and written in base64url. Reading a hash checks
 * everything it holds (a field of the wrong type, an unknown tab, a size past the limits):
 * a hash that is not a state of this version is an error that says why, and the page
 * falls back to the default state. No DOM here: main.ts reads and writes `location`.
 */
import { LoomError } from '@loom/core';

/** The tabs of the page. */
export const TABS = ['kernel', 'pointwise', 'computation'] as const;
export type Tab = (typeof TABS)[number];

/** The computation tab's choices (computation-check.ts reads them). */
export interface ComputationInputs {
  readonly op: string;
  readonly predicate: string;
  readonly dtype: string;
  /** A literal: the array's shape (`[4, 1000]`), or matmul's `[n, m, l]`. */
  readonly sizes: string;
}

/** Everything one can edit or choose on the page. */
export interface PageState {
  readonly tab: Tab;
  /** The kernel preset chosen last (the fields may have been edited since). */
  readonly preset: string;
  readonly domain: string;
  readonly instructions: string;
  readonly chain: string;
  readonly values: string;
  readonly payload: string;
  readonly shape: string;
  readonly computation: ComputationInputs;
}

const VERSION = 'v1.';
/** A hash longer than this is refused before it is decoded (the fields are bounded by chain.ts's limits anyway). */
const MAX_HASH = 64_000;
const MAX_FIELD = 20_000;

/** The hash (with its `#`) that holds `state`. */
export async function encodeState(state: PageState): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify(state));
  const deflated = await transform(bytes, new CompressionStream('deflate-raw'));
  return `#${VERSION}${toBase64Url(deflated)}`;
}

/** The state a hash holds; a LoomError that says what is wrong with it otherwise. */
export async function decodeState(hash: string): Promise<PageState> {
  const text = hash.startsWith('#') ? hash.slice(1) : hash;
  if (text.length > MAX_HASH)
    throw new LoomError(`the link's state is ${text.length} characters long (at most ${MAX_HASH})`);
  if (!text.startsWith(VERSION))
    throw new LoomError(
      `the link's state does not start with '${VERSION}' (a link of another version of the playground, or not one of its links)`,
    );
  let json: string;
  try {
    const bytes = fromBase64Url(text.slice(VERSION.length));
    json = new TextDecoder('utf-8', { fatal: true }).decode(
      await transform(bytes, new DecompressionStream('deflate-raw')),
    );
  } catch {
    throw new LoomError("the link's state is damaged: it does not decompress (was the link cut short?)");
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new LoomError("the link's state is damaged: it is not JSON");
  }
  return checkState(value);
}

/** `value` as a PageState, every field checked. */
function checkState(value: unknown): PageState {
  const object = record(value, 'the state');
  const tab = object.tab;
  if (!TABS.includes(tab as Tab))
    throw new LoomError(`the link's tab '${String(tab)}' is not one of ${TABS.join(', ')}`);
  const computation = record(object.computation, 'computation');
  return {
    tab: tab as Tab,
    preset: text(object, 'preset'),
    domain: text(object, 'domain'),
    instructions: text(object, 'instructions'),
    chain: text(object, 'chain'),
    values: text(object, 'values'),
    payload: text(object, 'payload'),
    shape: text(object, 'shape'),
    computation: {
      op: text(computation, 'op'),
      predicate: text(computation, 'predicate'),
      dtype: text(computation, 'dtype'),
      sizes: text(computation, 'sizes'),
    },
  };
}

function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new LoomError(`the link's ${what} is not an object`);
  return value as Record<string, unknown>;
}

function text(object: Record<string, unknown>, key: string): string {
  const value = object[key];
  if (typeof value !== 'string') throw new LoomError(`the link's field '${key}' is not a string`);
  if (value.length > MAX_FIELD)
    throw new LoomError(`the link's field '${key}' has ${value.length} characters (at most ${MAX_FIELD})`);
  return value;
}

async function transform(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const piped = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(piped).arrayBuffer());
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new LoomError('not base64url');
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}
