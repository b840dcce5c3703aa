/**
 * The playground's code editors: CodeMirror 6 with a small set of extensions (line numbers,
 * history, bracket matching, highlighting), editable for the inputs and read-only for the
 * generated code. main.ts loads this module with `import()`, so CodeMirror is a chunk of
 * its own that loads while the page looks for its GPU.
 */
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { javascript } from '@codemirror/lang-javascript';
import { bracketMatching, defaultHighlightStyle, StreamLanguage, syntaxHighlighting } from '@codemirror/language';
import { c as clikeC } from '@codemirror/legacy-modes/mode/clike';
import { EditorState, type Extension } from '@codemirror/state';
import { drawSelection, EditorView, keymap, lineNumbers } from '@codemirror/view';
import { loomLanguage, wgslLanguage } from './languages.ts';

/** What an editor highlights. */
export type EditorLanguage = 'loom' | 'javascript' | 'wgsl' | 'opencl';

export interface EditorOptions {
  readonly language: EditorLanguage;
  /** Generated code: selectable and copyable, not editable. */
  readonly readOnly?: boolean;
  /** Called after each change the user makes (not after `set`). */
  readonly onChange?: () => void;
  /** The accessible name of the editing area. */
  readonly label: string;
}

/** One editor: its text, and a way to replace it. */
export interface CodeEditor {
  readonly view: EditorView;
  value(): string;
  /** Replaces the whole text (without calling onChange). */
  set(text: string): void;
}

function languageOf(language: EditorLanguage): Extension {
  switch (language) {
    case 'loom':
      return StreamLanguage.define(loomLanguage);
    case 'javascript':
      return javascript();
    case 'wgsl':
      return StreamLanguage.define(wgslLanguage);
    case 'opencl':
      return StreamLanguage.define(clikeC);
  }
}

/** An editor in `parent` (emptied first) holding `text`. */
export function createEditor(parent: HTMLElement, text: string, options: EditorOptions): CodeEditor {
  let setting = false;
  const extensions: Extension[] = [
    languageOf(options.language),
    syntaxHighlighting(defaultHighlightStyle),
    EditorView.lineWrapping,
    EditorView.contentAttributes.of({ 'aria-label': options.label }),
    EditorState.readOnly.of(options.readOnly ?? false),
  ];
  if (options.readOnly) extensions.push(EditorView.editable.of(false), lineNumbers());
  else
    extensions.push(
      history(),
      drawSelection(),
      bracketMatching(),
      keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
      EditorView.updateListener.of((update) => {
        if (update.docChanged && !setting) options.onChange?.();
      }),
    );
  parent.replaceChildren();
  const view = new EditorView({ parent, state: EditorState.create({ doc: text, extensions }) });
  return {
    view,
    value: () => view.state.doc.toString(),
    set(next: string) {
      if (next === view.state.doc.toString()) return;
      setting = true;
      try {
        view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: next } });
      } finally {
        setting = false;
      }
    },
  };
}
