import { fileURLToPath } from 'node:url';
import {
  DidChangeConfigurationNotification,
  type Connection,
  type InitializeParams,
  type ServerCapabilities,
} from 'vscode-languageserver';
import { defaultSettings, type Settings } from '../documents.ts';

/** The client's `blueprint` settings and workspace folders, as the other areas ask for them. */
export interface Configuration {
  settingsOf(uri: string): Promise<Settings>;
  /** Paths of the workspace folders: relative settings start at the first; modelines may name files in any. */
  workspaceFolders(): string[];
  /** A document closed: its settings are asked again if it opens again. */
  forget(uri: string): void;
  /** Reads what the client says of itself and its settings; returns the capabilities this adds. */
  initialize(params: InitializeParams): ServerCapabilities;
}

export interface ConfigurationChanges {
  /** The settings changed: schemas are picked again and every open document validated again. */
  settingsChanged(): void;
  /** Workspace folders came or went: every open document is validated again. */
  foldersChanged(): void;
}

/**
 * Settings are pulled per document (`workspace/configuration`) when the client can, otherwise
 * taken from what it pushes (initialization options, `didChangeConfiguration`).
 */
export function registerConfiguration(connection: Connection, changes: ConfigurationChanges): Configuration {
  let clientPullsSettings = false;
  let pushedSettings: Settings = defaultSettings;
  let workspaceFolders: string[] = [];
  let foldersChangeNotified = false;
  const settingsCache = new Map<string, Promise<Settings>>();

  connection.onInitialized(() => {
    if (clientPullsSettings) {
      void connection.client.register(DidChangeConfigurationNotification.type, undefined).catch(() => undefined);
    }
    if (foldersChangeNotified) {
      connection.workspace.onDidChangeWorkspaceFolders(({ added, removed }) => {
        const gone = new Set(pathsOf(removed.map((folder) => folder.uri)));
        workspaceFolders = [
          ...workspaceFolders.filter((folder) => !gone.has(folder)),
          ...pathsOf(added.map((folder) => folder.uri)),
        ];
        changes.foldersChanged();
      });
    }
  });

  connection.onDidChangeConfiguration((change) => {
    const pushed = (change.settings as { blueprint?: unknown } | undefined)?.blueprint;
    if (pushed !== undefined) pushedSettings = readSettings(pushed);
    settingsCache.clear();
    changes.settingsChanged();
  });

  return {
    settingsOf(uri) {
      if (!clientPullsSettings) return Promise.resolve(pushedSettings);
      let pending = settingsCache.get(uri);
      if (!pending) {
        pending = connection.workspace
          .getConfiguration({ scopeUri: uri, section: 'blueprint' })
          .then((value: unknown) => readSettings(value))
          .catch(() => pushedSettings);
        settingsCache.set(uri, pending);
      }
      return pending;
    },
    workspaceFolders: () => workspaceFolders,
    forget(uri) {
      settingsCache.delete(uri);
    },
    initialize(params) {
      clientPullsSettings = params.capabilities.workspace?.configuration === true;
      const folders = params.workspaceFolders?.length
        ? params.workspaceFolders.map((folder) => folder.uri)
        : [params.rootUri];
      workspaceFolders = pathsOf(folders);
      foldersChangeNotified = params.capabilities.workspace?.workspaceFolders === true;
      const initialization = (params.initializationOptions ?? {}) as { settings?: unknown };
      if (initialization.settings !== undefined) pushedSettings = readSettings(initialization.settings);
      return foldersChangeNotified
        ? { workspace: { workspaceFolders: { supported: true, changeNotifications: true } } }
        : {};
    },
  };
}

function readSettings(value: unknown): Settings {
  const raw = objectOf(value);
  const validate = objectOf(raw.validate);
  const modeline = objectOf(raw.modeline);
  const allowedPaths = Array.isArray(modeline.allowedPaths)
    ? modeline.allowedPaths.filter((entry): entry is string => typeof entry === 'string')
    : defaultSettings.modeline.allowedPaths;
  return {
    schema: typeof raw.schema === 'string' ? raw.schema : defaultSettings.schema,
    validate: typeof validate.enable === 'boolean' ? validate.enable : defaultSettings.validate,
    modeline: {
      allowedPaths,
      // Only `true` turns downloads on: a value of another type leaves them off.
      allowDownload: modeline.allowDownload === true,
    },
  };
}

function objectOf(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

/** The local paths of folder URIs (others, e.g. virtual file systems, have none). */
function pathsOf(uris: readonly (string | null)[]): string[] {
  return uris.filter((uri): uri is string => uri?.startsWith('file:') === true).map((uri) => fileURLToPath(uri));
}
