/**
 * A hand-written stand-in for the `vscode` module (which exists only inside VS Code): the parts
 * the extension calls, recording what it does. Tests mock `vscode` with it and inspect `stub`.
 */
import path from 'node:path';

type Listener<T> = (value: T) => unknown;

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  readonly event = (listener: Listener<T>) => {
    this.listeners.push(listener);
    return new Disposable(() => (this.listeners = this.listeners.filter((other) => other !== listener)));
  };
  fire(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }
}

export class Disposable {
  constructor(private readonly onDispose: () => void = () => undefined) {}
  dispose(): void {
    this.onDispose();
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    private readonly text: string,
  ) {}
  static parse(text: string): Uri {
    return new Uri(text.slice(0, text.indexOf(':')), text);
  }
  static file(fsPath: string): Uri {
    return new Uri('file', `file://${fsPath}`);
  }
  get fsPath(): string {
    return decodeURIComponent(this.text.replace(/^file:\/\//, ''));
  }
  toString(): string {
    return this.text;
  }
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

export interface StubDocument {
  uri: Uri;
  fileName: string;
  languageId: string;
  getText(): string;
}

export function textDocument(fsPath: string, languageId: string, text = ''): StubDocument {
  return { uri: Uri.file(fsPath), fileName: fsPath, languageId, getText: () => text };
}

export interface StubStatusBarItem {
  id: string;
  alignment: StatusBarAlignment;
  text: string;
  tooltip: string | undefined;
  name: string | undefined;
  command: string | undefined;
  visible: boolean;
  disposed: boolean;
  show(): void;
  hide(): void;
  dispose(): void;
}

/** Everything the extension did, and the answers the stub gives. Reset before each test. */
export const stub = {
  commands: new Map<string, (...args: unknown[]) => unknown>(),
  executedCommands: [] as string[],
  statusBarItems: [] as StubStatusBarItem[],
  outputChannels: [] as string[],
  messages: [] as { level: 'info' | 'warning'; text: string; actions: string[] }[],
  /** What a shown message answers (the title of the action chosen). */
  messageAnswer: undefined as string | undefined,
  languageChanges: [] as { uri: string; languageId: string }[],
  findFilesCalls: [] as { include: string; exclude: string | undefined }[],
  /** Files per include glob, for `workspace.findFiles`. */
  files: new Map<string, string[]>(),
  openedDocuments: [] as string[],
  shownDocuments: [] as string[],
  externalUris: [] as string[],
  textDocuments: [] as StubDocument[],
  activeTextEditor: undefined as { document: StubDocument } | undefined,
  onDidOpenTextDocument: new EventEmitter<StubDocument>(),
  onDidChangeActiveTextEditor: new EventEmitter<{ document: StubDocument } | undefined>(),
  onDidChangeConfiguration: new EventEmitter<{ affectsConfiguration(section: string): boolean }>(),
};

export function resetStub(): void {
  stub.commands.clear();
  for (const list of [
    stub.executedCommands,
    stub.statusBarItems,
    stub.outputChannels,
    stub.messages,
    stub.languageChanges,
    stub.findFilesCalls,
    stub.openedDocuments,
    stub.shownDocuments,
    stub.externalUris,
    stub.textDocuments,
  ]) {
    list.length = 0;
  }
  stub.files.clear();
  stub.messageAnswer = undefined;
  stub.activeTextEditor = undefined;
  stub.onDidOpenTextDocument = new EventEmitter();
  stub.onDidChangeActiveTextEditor = new EventEmitter();
  stub.onDidChangeConfiguration = new EventEmitter();
}

/** Makes `document` the active editor's and tells the listeners, as VS Code does. */
export function showEditor(document: StubDocument | undefined): void {
  stub.activeTextEditor = document && { document };
  stub.onDidChangeActiveTextEditor.fire(stub.activeTextEditor);
}

/** A configuration change of the given sections (`blueprint`, `editor`, ...). */
export function changeConfiguration(...sections: string[]): void {
  stub.onDidChangeConfiguration.fire({
    affectsConfiguration: (section) =>
      sections.some((changed) => changed === section || changed.startsWith(`${section}.`)),
  });
}

function message(level: 'info' | 'warning') {
  return async (text: string, ...actions: string[]) => {
    stub.messages.push({ level, text, actions });
    return stub.messageAnswer;
  };
}

export const window = {
  get activeTextEditor() {
    return stub.activeTextEditor;
  },
  onDidChangeActiveTextEditor: (listener: Listener<{ document: StubDocument } | undefined>) =>
    stub.onDidChangeActiveTextEditor.event(listener),
  createStatusBarItem(id: string, alignment: StatusBarAlignment): StubStatusBarItem {
    const item: StubStatusBarItem = {
      id,
      alignment,
      text: '',
      tooltip: undefined,
      name: undefined,
      command: undefined,
      visible: false,
      disposed: false,
      show: () => void (item.visible = true),
      hide: () => void (item.visible = false),
      dispose: () => void (item.disposed = true),
    };
    stub.statusBarItems.push(item);
    return item;
  },
  createOutputChannel(name: string) {
    stub.outputChannels.push(name);
    return { name, appendLine: () => undefined, dispose: () => undefined };
  },
  showInformationMessage: message('info'),
  showWarningMessage: message('warning'),
  withProgress: <R>(_options: unknown, task: () => Promise<R>) => task(),
  async showTextDocument(document: StubDocument) {
    stub.shownDocuments.push(document.uri.toString());
    return { document };
  },
};

export const workspace = {
  get textDocuments() {
    return stub.textDocuments;
  },
  onDidOpenTextDocument: (listener: Listener<StubDocument>) => stub.onDidOpenTextDocument.event(listener),
  onDidChangeConfiguration: (listener: Listener<{ affectsConfiguration(section: string): boolean }>) =>
    stub.onDidChangeConfiguration.event(listener),
  async findFiles(include: string, exclude?: string) {
    stub.findFilesCalls.push({ include, exclude });
    return (stub.files.get(include) ?? []).map((file) => Uri.file(file));
  },
  async openTextDocument(uri: Uri) {
    stub.openedDocuments.push(uri.toString());
    return textDocument(uri.fsPath, path.extname(uri.fsPath) === '.json' ? 'json' : 'yaml');
  },
};

export const languages = {
  /** Like VS Code: the document is reopened in the new language. */
  async setTextDocumentLanguage(document: StubDocument, languageId: string) {
    stub.languageChanges.push({ uri: document.uri.toString(), languageId });
    document.languageId = languageId;
    return document;
  },
};

export const commands = {
  registerCommand(id: string, handler: (...args: unknown[]) => unknown) {
    stub.commands.set(id, handler);
    return new Disposable(() => stub.commands.delete(id));
  },
  async executeCommand(id: string) {
    stub.executedCommands.push(id);
  },
};

export const env = {
  async openExternal(uri: Uri) {
    stub.externalUris.push(uri.toString());
    return true;
  },
};
