/**
 * A small check that a document is well-formed XML (what an SVG must be to open anywhere),
 * for tests that have no XML parser: every tag closes in order, attributes are quoted and
 * not repeated, every `&` starts an entity reference, and there is one root element. Also
 * what the tests count: the elements by name and class.
 */

/** An element as the check met it: its name and attributes. */
export interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  /** The text directly inside it (entities not decoded). */
  text: string;
  readonly children: XmlElement[];
}

const NAME = '[A-Za-z_:][-A-Za-z0-9_:.]*';
const ENTITY = /&(?:[A-Za-z]+|#[0-9]+|#x[0-9A-Fa-f]+);/y;

/** The root element of `xml`, or an Error saying where it is not well-formed. */
export function parseXml(xml: string): XmlElement {
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let at = 0;
  const fail = (why: string): never => {
    throw new Error(`not well-formed XML at ${at} (${JSON.stringify(xml.slice(at, at + 40))}): ${why}`);
  };
  const entities = (chunk: string, from: number) => {
    for (let i = chunk.indexOf('&'); i >= 0; i = chunk.indexOf('&', i + 1)) {
      ENTITY.lastIndex = i;
      if (!ENTITY.test(chunk)) {
        at = from + i;
        fail("an '&' that starts no entity");
      }
    }
  };
  const text = (chunk: string, from: number) => {
    entities(chunk, from);
    if (chunk.trim() && stack.length === 0) fail('text outside the root element');
    if (stack.length) stack[stack.length - 1]!.text += chunk;
  };
  while (at < xml.length) {
    const lt = xml.indexOf('<', at);
    if (lt < 0) {
      text(xml.slice(at), at);
      break;
    }
    text(xml.slice(at, lt), at);
    at = lt;
    const skip = (open: string, close: string) => {
      if (!xml.startsWith(open, at)) return false;
      const end = xml.indexOf(close, at + open.length);
      if (end < 0) fail(`${open} without ${close}`);
      at = end + close.length;
      return true;
    };
    if (skip('<!--', '-->') || skip('<?', '?>') || skip('<!DOCTYPE', '>') || skip('<![CDATA[', ']]>')) continue;
    const closing = new RegExp(`</(${NAME})\\s*>`, 'y');
    closing.lastIndex = at;
    const close = closing.exec(xml);
    if (close) {
      const open = stack.pop();
      if (open?.name !== close[1]) fail(`</${close[1]}> closes <${open?.name ?? 'nothing'}>`);
      at = closing.lastIndex;
      continue;
    }
    const opening = new RegExp(`<(${NAME})((?:\\s+${NAME}\\s*=\\s*(?:"[^"<]*"|'[^'<]*'))*)\\s*(/?)>`, 'y');
    opening.lastIndex = at;
    const open = opening.exec(xml);
    if (!open) fail('a tag that is not one');
    const attributes: Record<string, string> = {};
    for (const [, name, value] of open![2]!.matchAll(new RegExp(`(${NAME})\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, 'g'))) {
      if (Object.hasOwn(attributes, name!)) fail(`attribute ${name} twice`);
      attributes[name!] = value ?? '';
      entities(value ?? '', at);
    }
    const element: XmlElement = { name: open![1]!, attributes, text: '', children: [] };
    if (stack.length) stack[stack.length - 1]!.children.push(element);
    else if (root) fail('a second root element');
    else root = element;
    if (open![3] !== '/') stack.push(element);
    at = opening.lastIndex;
  }
  if (stack.length) fail(`<${stack[stack.length - 1]!.name}> never closes`);
  if (!root) fail('no root element');
  return root!;
}

/** Every element under `root` (itself included), depth first. */
export function elements(root: XmlElement): XmlElement[] {
  return [root, ...root.children.flatMap(elements)];
}
