/**
 * Errors from the core point at a span of the text they were reading (a domain, the
 * instruction block) and draw a caret under it. When that text came from templates,
 * this adds where the spot is in the source file: `at examples/k.ts:14:20`.
 *
 * The error keeps its class (a `LinearizationError` stays one, so callers can still tell
 * errors apart); its message gains a line, and `templateLocation` holds the position.
 */
import { LoomError } from '@loom/core';
import { describeLocation, type Fragment, type TemplateLocation } from './fragments.ts';

export type WithTemplateLocation<E> = E & { readonly templateLocation?: TemplateLocation };

export function pointIntoTemplates<E>(error: E, fragments: readonly Fragment[]): WithTemplateLocation<E> {
  if (!(error instanceof LoomError) || !error.span || 'templateLocation' in error)
    return error as WithTemplateLocation<E>;
  const { span } = error;
  const location = fragments.find((f) => f.text === span.text)?.locate(span.start);
  if (!location) return error as WithTemplateLocation<E>;
  const before = error.message;
  error.message = `${before}\n  ${describeLocation(location)}`;
  if (typeof error.stack === 'string') error.stack = error.stack.replace(before, error.message);
  return Object.assign(error, { templateLocation: location });
}

/** Runs `fn`, pointing any error it throws into the templates. */
export function inTemplates<T>(fragments: readonly Fragment[], fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw pointIntoTemplates(error, fragments);
  }
}

/** The template position an error points at, when it points into one. */
export function templateLocationOf(error: unknown): TemplateLocation | undefined {
  return typeof error === 'object' && error !== null && 'templateLocation' in error
    ? (error as { templateLocation: TemplateLocation }).templateLocation
    : undefined;
}
